//! Deep Pink's centipawn scale: f is unitless, the search's margins (futility, aspiration
//! windows, the resignation threshold of matches) are centipawns. The scale is the least-squares
//! factor of f against the pst evaluation, both from the side to move's view, over held-out
//! positions. `deepred train deeppink` fits it after each epoch; `deepred nn calibrate` fits it
//! for a net trained elsewhere (scripts/train_gpu.py) and writes it into the net file.

use std::path::Path;

use shakmaty::Chess;

use super::Error;
use super::data::{self, BOARD_LEN};
use crate::nn::DeepPink;
use crate::nn::net::{Kind, NetFile};

/// pst scores beyond this are clamped (won positions say little about the scale).
const PST_CLAMP: f64 = 1500.0;

/// The factor c minimising sum (c f - pst)^2 over `(f, position)` samples; 100 when f and pst do
/// not agree in sign on the whole (a net that cannot be scaled is not made to look like one).
pub fn fit_cp_scale<'a>(samples: impl IntoIterator<Item = (f32, &'a Chess)>) -> f64 {
    let (mut fy, mut ff) = (0.0f64, 0.0f64);
    for (f, pos) in samples {
        let y = f64::from(crate::eval::pst::evaluate(pos)).clamp(-PST_CLAMP, PST_CLAMP);
        let v = f64::from(f);
        fy += v * y;
        ff += v * v;
    }
    if ff > 0.0 && fy > 0.0 { fy / ff } else { 100.0 }
}

/// Fits the scale of the Deep Pink net at `net` on up to `samples` positions p of the validation
/// split of the Deep Pink data set `dataset`, and rewrites the net file's `cp_scale` (the
/// tensors and other metadata unchanged). Returns the report.
pub fn calibrate(net: &Path, dataset: &Path, samples: usize) -> Result<String, Error> {
    let file = NetFile::load(net, Some(Kind::DeepPink))?;
    let dp = DeepPink::from_file(&file)?;
    let set = data::read(dataset)?;
    if set.kind != Kind::DeepPink {
        return Err(Error::NoData(format!(
            "'{}' is a {} data set; the scale is fitted on the positions of Deep Pink triplets",
            dataset.display(),
            set.kind.name()
        )));
    }
    let positions = set
        .records
        .iter()
        .filter(|r| r[3 * BOARD_LEN] == 1)
        .take(samples)
        .map(|r| data::decode(&data::board_at(r, 0)))
        .collect::<Result<Vec<Chess>, Error>>()?;
    if positions.is_empty() {
        return Err(Error::NoData(format!(
            "'{}' has no triplets in the validation split",
            dataset.display()
        )));
    }
    let scale = fit_cp_scale(positions.iter().map(|p| (dp.forward(p), p)));
    let mut meta = file.meta.clone();
    let before = meta.insert("cp_scale".into(), format!("{scale:.3}"));
    let bytes = crate::nn::random::serialize(&file.tensors(), meta)?;
    write_replacing(net, &bytes)?;
    Ok(format!(
        "{}: cp_scale {scale:.3} (was {}), fitted against the pst evaluation on {} positions of '{}'\n",
        net.display(),
        before.as_deref().unwrap_or("unset: 100"),
        positions.len(),
        dataset.display()
    ))
}

/// [`crate::chess::files::write_replacing`], its error as training's.
pub(crate) fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    crate::chess::files::write_replacing(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

//! Weight averaging ("model soups", Wortsman et al. 2022): nets of one architecture fine-tuned
//! from the same parent lie in one basin of the loss, and the element-wise (weighted) mean of
//! their tensors is often better than each of them. `deepred nn average` writes that mean as a
//! new net file; what it is worth is for `deepred nn accuracy` and matches to say.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Error;
use super::calibrate::write_replacing;
use crate::nn::net::NetFile;

/// Writes to `out` the mean of the nets `nets`, weighted by `weights` (one positive number a
/// net, normalised to sum 1; equal when `None`). Every net must be of one kind with the same
/// tensors of the same shapes. `games_note` replaces the joined `games` notes of the nets.
/// Nothing is written on an error. Returns the report.
pub fn average(
    nets: &[PathBuf],
    weights: Option<&[f64]>,
    games_note: Option<&str>,
    out: &Path,
) -> Result<String, Error> {
    let bad = |m: String| Err(Error::Average(m));
    if nets.len() < 2 {
        return bad(format!(
            "averaging needs at least two nets, got {}",
            nets.len()
        ));
    }
    let weights: Vec<f64> = match weights {
        None => vec![1.0; nets.len()],
        Some(w) if w.len() != nets.len() => {
            return bad(format!("{} weights for {} nets", w.len(), nets.len()));
        }
        Some(w) if w.iter().any(|x| !x.is_finite() || *x <= 0.0) => {
            return bad(format!("weights must be positive numbers, got {w:?}"));
        }
        Some(w) => w.to_vec(),
    };
    let total: f64 = weights.iter().sum();
    if !total.is_finite() {
        return bad(format!(
            "weights {weights:?} add up to more than a number can hold"
        ));
    }
    let weights: Vec<f64> = weights.iter().map(|w| w / total).collect();
    let files = nets
        .iter()
        .map(|p| NetFile::load(p, None))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &files[0];
    let mut sum: Vec<(String, Vec<usize>, Vec<f64>)> = first
        .tensors()
        .into_iter()
        .map(|(n, s, v)| (n, s, vec![0.0; v.len()]))
        .collect();
    for (file, w) in files.iter().zip(&weights) {
        if file.kind != first.kind {
            return bad(format!(
                "'{}' is a {} net and '{}' a {} net",
                first.path.display(),
                first.kind.name(),
                file.path.display(),
                file.kind.name()
            ));
        }
        let tensors = file.tensors();
        let same = tensors.len() == sum.len()
            && tensors
                .iter()
                .zip(&sum)
                .all(|((n, s, _), (m, t, _))| n == m && s == t);
        if !same {
            return bad(format!(
                "'{}' and '{}' have different tensors or shapes (architectures {} and {})",
                first.path.display(),
                file.path.display(),
                first.meta_or("architecture"),
                file.meta_or("architecture")
            ));
        }
        for ((_, _, acc), (_, _, v)) in sum.iter_mut().zip(&tensors) {
            for (a, x) in acc.iter_mut().zip(v) {
                *a += w * f64::from(*x);
            }
        }
    }
    let tensors: Vec<(String, Vec<usize>, Vec<f32>)> = sum
        .into_iter()
        .map(|(n, s, v)| (n, s, v.into_iter().map(|x| x as f32).collect()))
        .collect();
    let sources = files
        .iter()
        .zip(&weights)
        .map(|(f, w)| format!("{} ({w:.3})", f.path.display()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut meta = metadata(&files, &weights, &sources);
    if let Some(note) = games_note {
        meta.insert("games".into(), note.to_string());
    }
    let bytes = crate::nn::random::serialize(&tensors, meta)?;
    write_replacing(out, &bytes)?;
    Ok(format!(
        "{}: {} net, the weighted mean of {}\n",
        out.display(),
        first.kind.name(),
        sources
    ))
}

/// The first net's metadata (format, kind, architecture, features), with what the average is
/// made of. A Deep Pink `cp_scale` becomes the weighted mean of the nets' scales (refit it with
/// `deepred nn calibrate`).
fn metadata(files: &[NetFile], weights: &[f64], sources: &str) -> HashMap<String, String> {
    let mut meta = files[0].meta.clone();
    meta.insert(
        "training".into(),
        format!("deepred nn average: the weighted mean of {sources}"),
    );
    meta.insert(
        "validation_accuracy".into(),
        "not measured (an average; deepred nn accuracy measures it)".into(),
    );
    let mut games: Vec<String> = Vec::new();
    for f in files {
        let g = f.meta_or("games");
        if !g.is_empty() && !games.contains(&g) {
            games.push(g);
        }
    }
    meta.insert("games".into(), games.join(" | "));
    let scales: Option<Vec<f64>> = files
        .iter()
        .map(|f| f.meta.get("cp_scale").and_then(|s| s.parse().ok()))
        .collect();
    if let Some(scales) = scales {
        let mean: f64 = scales.iter().zip(weights).map(|(s, w)| s * w).sum();
        meta.insert("cp_scale".into(), format!("{mean:.3}"));
    }
    meta
}

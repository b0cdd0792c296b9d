//! The candidate trained with PyTorch (`--trainer torch`), on a CUDA device when the Python
//! environment has one: the positions written as bulletformat records, then
//! `scripts/train_learned.py` run on them. The binary carries the script (and
//! `scripts/train_gpu.py`, whose net-file code it uses) and writes them into the work folder,
//! so a copied binary needs only a Python with PyTorch.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::Error;
use crate::chess::bullet::{ChessBoard, to_bytes};

const TRAIN_LEARNED: &str = include_str!("../../scripts/train_learned.py");
const TRAIN_GPU: &str = include_str!("../../scripts/train_gpu.py");

/// How a candidate is trained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trainer {
    /// `train::value`, on every core.
    Cpu,
    /// `scripts/train_learned.py` with this Python (PyTorch installed).
    Torch { python: PathBuf },
}

/// Whether `python` runs and imports PyTorch: checked before the loop plays, so that a wrong
/// `--python` is said at once, not after hours of games.
pub fn check(python: &Path) -> Result<(), Error> {
    let out = Command::new(python)
        .args(["-c", "import torch"])
        .output()
        .map_err(|e| {
            Error::Other(format!(
                "--trainer torch: cannot run '{}': {e} (a Python with PyTorch; --python sets it)",
                python.display()
            ))
        })?;
    if !out.status.success() {
        return Err(Error::Other(format!(
            "--trainer torch: '{}' cannot import torch (a Python with PyTorch; --python sets it)",
            python.display()
        )));
    }
    Ok(())
}

/// Trains the net `out` on `boards` with PyTorch: writes the records and the scripts under
/// `dir`, runs the script with the trainer's `settings` (`--hidden 256`, ...; its lines go to
/// `status`), and leaves the net file it wrote.
pub fn train(
    python: &Path,
    dir: &Path,
    boards: &[ChessBoard],
    settings: &[String],
    (out, generation, seed): (&Path, i64, u64),
    meta: &[(String, String)],
    status: &(dyn Fn(&str) + Sync),
) -> Result<(), Error> {
    let work = dir.join("trainer");
    std::fs::create_dir_all(&work).map_err(Error::io("cannot create", &work))?;
    for (name, text) in [
        ("train_learned.py", TRAIN_LEARNED),
        ("train_gpu.py", TRAIN_GPU),
    ] {
        let p = work.join(name);
        std::fs::write(&p, text).map_err(Error::io("cannot write", &p))?;
    }
    let data = work.join(format!("gen{generation}.bullet"));
    let mut f = std::io::BufWriter::new(
        std::fs::File::create(&data).map_err(Error::io("cannot create", &data))?,
    );
    for b in boards {
        f.write_all(&to_bytes(b))
            .map_err(Error::io("cannot write", &data))?;
    }
    f.flush().map_err(Error::io("cannot write", &data))?;
    drop(f);
    let mut cmd = Command::new(python);
    cmd.arg(work.join("train_learned.py"))
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(out)
        .args(settings)
        .args(["--seed", &seed.to_string()])
        .args(["--generation", &generation.to_string()])
        .arg("--meta")
        .args(meta.iter().map(|(k, v)| format!("{k}={v}")));
    status(&format!(
        "train: with PyTorch: {} {}",
        python.display(),
        work.join("train_learned.py").display()
    ));
    let run = cmd.output().map_err(|e| {
        Error::Other(format!(
            "--trainer torch: cannot run '{}': {e} (a Python with PyTorch; --python sets it)",
            python.display()
        ))
    })?;
    for line in String::from_utf8_lossy(&run.stdout).lines() {
        status(&format!("train: {line}"));
    }
    let _ = std::fs::remove_file(&data);
    if !run.status.success() {
        let err = String::from_utf8_lossy(&run.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(Error::Other(format!(
            "--trainer torch: train_learned.py failed ({}): {last}",
            run.status
        )));
    }
    Ok(())
}

//! What both trainers share (feature `torch`): the options, the per-epoch log, the run
//! directory (CSV, plot, checkpoint and `--resume`), the optimiser and batching helpers, and the
//! export of a trained net in the safetensors format native inference reads.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use tch::nn::{self, OptimizerConfig};
use tch::{Device, Kind as TKind, Tensor};

use super::data::{self};
use super::error::Error;
use super::plot::{Panel, plot_lines};
use crate::nn::net::Kind;

/// What `deepred train` was asked to do.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub kind: Kind,
    pub data: PathBuf,
    pub out: PathBuf,
    pub run_dir: PathBuf,
    pub epochs: usize,
    /// Autoencoder epochs per Pos2Vec layer (DeepChess).
    pub ae_epochs: usize,
    pub batch: usize,
    pub lr: f64,
    pub lr_decay: f64,
    /// Training pairs drawn per epoch (DeepChess; 0 = as many as the smaller side has).
    pub pairs: usize,
    /// κ of the Deep Pink loss.
    pub kappa: f64,
    /// Hidden layers of Deep Pink.
    pub hidden: Vec<usize>,
    /// AdamW weight decay.
    pub weight_decay: f64,
    /// Dropout after the hidden layers of the comparator (DeepChess) during training.
    pub dropout: f64,
    /// DeepChess: also train on every position mirrored (board flipped, colours swapped), which
    /// turns a position of a White win into one of a Black win.
    pub mirror: bool,
    pub device: Device,
    pub threads: usize,
    pub seed: u64,
    pub resume: bool,
    /// Start from this net file's weights (DeepChess: skips the autoencoder pretraining).
    pub init: Option<PathBuf>,
    /// DeepChess: also train on sibling pairs, the (q, r) children of this Deep Pink triplet
    /// data set (`deepred dataset deeppink --datagen`), q being the better for the side to move.
    pub siblings: Option<PathBuf>,
    /// Sibling pairs drawn per epoch (0: as many as there are train triplets).
    pub sibling_pairs: usize,
    /// Free text for the net's `games` metadata.
    pub games_note: String,
    pub quiet: bool,
}

/// One line of the CSV log.
#[derive(Clone, Debug)]
pub struct EpochLog {
    pub stage: String,
    pub epoch: usize,
    pub train_loss: f64,
    pub train_acc: f64,
    pub val_loss: f64,
    pub val_acc: f64,
    pub lr: f64,
    pub seconds: f64,
}

impl EpochLog {
    /// An epoch of the main training: (train loss, accuracy), (validation loss, accuracy),
    /// the learning rate used, and the time since `t0`.
    pub(super) fn main(
        epoch: usize,
        (train_loss, train_acc): (f64, f64),
        (val_loss, val_acc): (f64, f64),
        lr: f64,
        t0: Instant,
    ) -> EpochLog {
        EpochLog {
            stage: "main".into(),
            epoch,
            train_loss,
            train_acc,
            val_loss,
            val_acc,
            lr,
            seconds: t0.elapsed().as_secs_f64(),
        }
    }
}

/// Items per validation batch.
const VAL_BATCH: usize = 4096;

/// Mean loss and accuracy over `n` validation items, in batches and without gradients:
/// `batch(start, len)` gives one batch's (loss, accuracy) tensors.
pub(super) fn validate(
    n: usize,
    mut batch: impl FnMut(usize, usize) -> (Tensor, Tensor),
) -> (f64, f64) {
    tch::no_grad(|| {
        let (mut l, mut c, mut k) = (0.0, 0.0, 0.0);
        let mut i = 0;
        while i < n {
            let len = VAL_BATCH.min(n - i);
            let (loss, acc) = batch(i, len);
            let m = len as f64;
            l += f64::try_from(&loss).unwrap_or(f64::NAN) * m;
            c += f64::try_from(&acc).unwrap_or(0.0) * m;
            k += m;
            i += VAL_BATCH;
        }
        (l / k, c / k)
    })
}

pub(super) fn terr(e: tch::TchError) -> Error {
    Error::Torch(format!("torch: {e}"))
}

pub(super) fn adamw(vs: &nn::VarStore, lr: f64, wd: f64) -> Result<nn::Optimizer, Error> {
    nn::AdamW {
        wd,
        ..Default::default()
    }
    .build(vs, lr)
    .map_err(terr)
}

/// Dense 0/1 feature rows (u8, one row per board) for `boards`.
pub(super) fn feature_rows(
    boards: &[data::Board],
    width: usize,
    f: impl Fn(&data::Board) -> crate::nn::features::Features,
) -> Tensor {
    let mut dense = vec![0u8; boards.len() * width];
    for (i, b) in boards.iter().enumerate() {
        for &k in &f(b) {
            dense[i * width + usize::from(k)] = 1;
        }
    }
    Tensor::from_slice(&dense).view([boards.len() as i64, width as i64])
}

pub(super) fn progress(len: u64, quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(len);
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{what} {{bar:30}} {{pos}}/{{len}} [{{elapsed_precise}} < {{eta}}] {{msg}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b
}

pub(super) struct RunFiles {
    pub(super) csv: PathBuf,
    pub(super) png: PathBuf,
    pub(super) checkpoint: PathBuf,
    pub(super) state: PathBuf,
}

impl RunFiles {
    pub(super) fn new(dir: &Path, kind: Kind) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Create {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = kind.name();
        Ok(RunFiles {
            csv: dir.join(format!("{name}.csv")),
            png: dir.join(format!("{name}.png")),
            checkpoint: dir.join(format!("{name}.ot")),
            state: dir.join(format!("{name}.state")),
        })
    }

    pub(super) fn read_log(&self) -> Vec<EpochLog> {
        let Ok(text) = std::fs::read_to_string(&self.csv) else {
            return Vec::new();
        };
        text.lines()
            .skip(1)
            .filter_map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                if f.len() != 8 {
                    return None;
                }
                let n = |i: usize| f[i].parse::<f64>().ok();
                Some(EpochLog {
                    stage: f[0].to_string(),
                    epoch: f[1].parse().ok()?,
                    train_loss: n(2)?,
                    train_acc: n(3)?,
                    val_loss: n(4)?,
                    val_acc: n(5)?,
                    lr: n(6)?,
                    seconds: n(7)?,
                })
            })
            .collect()
    }

    /// Ends a main-stage epoch: logs it, saves the checkpoint (with the next epoch's learning
    /// rate), reports it unless `quiet`, and says whether it beats `best` (then updated).
    pub(super) fn end_epoch(
        &self,
        vs: &nn::VarStore,
        e: &EpochLog,
        lr: &mut f64,
        o: &TrainOptions,
        best: &mut f64,
    ) -> Result<bool, Error> {
        *lr *= o.lr_decay;
        self.log(e)?;
        self.save(vs, "main", e.epoch, *lr)?;
        if !o.quiet {
            eprintln!(
                "epoch {}: train loss {:.4} acc {:.2}%, validation loss {:.4} acc {:.2}% ({:.0} s)",
                e.epoch,
                e.train_loss,
                100.0 * e.train_acc,
                e.val_loss,
                100.0 * e.val_acc,
                e.seconds
            );
        }
        if e.val_acc <= *best {
            return Ok(false);
        }
        *best = e.val_acc;
        Ok(true)
    }

    /// The line a finished training prints: `head`, the last and best validation accuracy, and
    /// where the net and the log are.
    pub(super) fn summary(&self, head: &str, best: f64, net: &Path) -> String {
        format!(
            "{head}; last validation accuracy {:.2}% (best {:.2}%); net written to {}; log {}",
            100.0 * self.read_log().last().map_or(f64::NAN, |e| e.val_acc),
            100.0 * best,
            net.display(),
            self.csv.display()
        )
    }

    /// The best validation accuracy logged so far (0 for a new run), so that a resumed run
    /// only overwrites the net file with a better epoch.
    pub(super) fn best_val_acc(&self) -> f64 {
        self.read_log()
            .iter()
            .filter(|e| e.stage == "main" && e.val_acc.is_finite())
            .map(|e| e.val_acc)
            .fold(0.0, f64::max)
    }

    /// Appends `e` to the CSV and redraws the plot.
    pub(super) fn log(&self, e: &EpochLog) -> Result<(), Error> {
        let new = !self.csv.exists();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.csv)
            .map_err(|source| Error::Write {
                path: self.csv.to_path_buf(),
                source,
            })?;
        let mut text = String::new();
        if new {
            text.push_str("stage,epoch,train_loss,train_acc,val_loss,val_acc,lr,seconds\n");
        }
        text.push_str(&format!(
            "{},{},{:.6},{:.6},{:.6},{:.6},{:.8},{:.1}\n",
            e.stage, e.epoch, e.train_loss, e.train_acc, e.val_loss, e.val_acc, e.lr, e.seconds
        ));
        f.write_all(text.as_bytes())
            .map_err(|source| Error::Write {
                path: self.csv.to_path_buf(),
                source,
            })?;
        self.plot()
    }

    pub(super) fn plot(&self) -> Result<(), Error> {
        let log = self.read_log();
        let main: Vec<&EpochLog> = log.iter().filter(|e| e.stage == "main").collect();
        let line = |name: &str, f: fn(&EpochLog) -> f64| {
            let points = main.iter().map(|e| (e.epoch as f64, f(e)));
            (name.to_string(), points.collect())
        };
        let panel = |title: &str, y_label: &str, lines| Panel {
            title: title.into(),
            x_label: "epoch".into(),
            y_label: y_label.into(),
            lines,
        };
        plot_lines(
            &self.png,
            &[
                panel(
                    "Loss",
                    "loss",
                    vec![
                        line("train loss", |e| e.train_loss),
                        line("validation loss", |e| e.val_loss),
                    ],
                ),
                panel(
                    "Accuracy",
                    "accuracy",
                    vec![
                        line("train accuracy", |e| e.train_acc),
                        line("validation accuracy", |e| e.val_acc),
                    ],
                ),
            ],
        )
    }

    pub(super) fn save(
        &self,
        vs: &nn::VarStore,
        stage: &str,
        epoch: usize,
        lr: f64,
    ) -> Result<(), Error> {
        vs.save(&self.checkpoint).map_err(terr)?;
        std::fs::write(&self.state, format!("{stage} {epoch} {lr}\n")).map_err(|source| {
            Error::Write {
                path: self.state.to_path_buf(),
                source,
            }
        })
    }

    /// (stage, last finished epoch, learning rate) of the checkpoint.
    pub(super) fn load(&self, vs: &mut nn::VarStore) -> Result<(String, usize, f64), Error> {
        let text = std::fs::read_to_string(&self.state).map_err(|e| {
            Error::Resume(format!(
                "--resume: no checkpoint state '{}' ({e})",
                self.state.display()
            ))
        })?;
        let f: Vec<&str> = text.split_whitespace().collect();
        let bad = || {
            Error::Resume(format!(
                "--resume: '{}' is not a checkpoint state",
                self.state.display()
            ))
        };
        if f.len() != 3 {
            return Err(bad());
        }
        vs.load(&self.checkpoint).map_err(|e| {
            Error::Resume(format!(
                "--resume: cannot load '{}': {e}",
                self.checkpoint.display()
            ))
        })?;
        Ok((
            f[0].to_string(),
            f[1].parse().map_err(|_| bad())?,
            f[2].parse().map_err(|_| bad())?,
        ))
    }
}

/// Exports the variables of `vs` named in `layout` (with `.weight`/`.bias`) as a net file.
pub(super) fn export(
    vs: &nn::VarStore,
    kind: Kind,
    layout: &[(String, usize, usize)],
    extra: &[(&str, String)],
    out: &Path,
) -> Result<(), Error> {
    let vars = vs.variables();
    let mut tensors = Vec::new();
    for (prefix, _, _) in layout {
        for part in ["weight", "bias"] {
            let name = format!("{prefix}.{part}");
            let t = vars
                .get(&name)
                .ok_or_else(|| Error::Torch(format!("internal: no variable {name}")))?
                .to_device(Device::Cpu)
                .to_kind(TKind::Float)
                .contiguous();
            let shape: Vec<usize> = t.size().iter().map(|&d| d as usize).collect();
            let n: usize = shape.iter().product();
            let mut v = vec![0f32; n];
            t.copy_data(&mut v, n);
            tensors.push((name, shape, v));
        }
    }
    let mut meta = crate::nn::random::metadata(kind, layout);
    for (k, v) in extra {
        meta.insert((*k).to_string(), v.clone());
    }
    let bytes = crate::nn::random::serialize(&tensors, meta)?;
    if let Some(dir) = out.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|source| Error::Create {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    super::calibrate::write_replacing(out, &bytes)
}

/// Loads the weights of net file `path` (safetensors, the names of `export`) into `vs`; with
/// `partial`, variables the file lacks keep their values.
pub(super) fn load_init(vs: &mut nn::VarStore, path: &Path, partial: bool) -> Result<(), Error> {
    let r = if partial {
        vs.load_partial(path).map(|_| ())
    } else {
        vs.load(path)
    };
    r.map_err(|e| Error::Torch(format!("--init: cannot load '{}': {e}", path.display())))
}

/// Index tensors (Int64) of `rows`, shuffled by a seeded permutation.
pub(super) fn shuffled(rows: &[i64], seed: u64) -> Tensor {
    let g = Tensor::from_slice(rows);
    tch::manual_seed(seed as i64);
    let perm = Tensor::randperm(rows.len() as i64, (TKind::Int64, Device::Cpu));
    g.index_select(0, &perm)
}

pub(super) fn training_note(o: &TrainOptions, epoch: usize) -> String {
    format!(
        "deepred train {}: epoch {} (best of {}), batch {}, lr {} decay {}, weight decay {}, dropout {}, mirror {}, seed {}, data {}{}{}",
        o.kind.name(),
        epoch,
        o.epochs,
        o.batch,
        o.lr,
        o.lr_decay,
        o.weight_decay,
        o.dropout,
        o.mirror,
        o.seed,
        o.data.display(),
        o.siblings
            .as_ref()
            .map(|p| format!(
                ", sibling pairs {} ({} an epoch)",
                p.display(),
                o.sibling_pairs
            ))
            .unwrap_or_default(),
        o.init
            .as_ref()
            .map(|p| format!(", from {}", p.display()))
            .unwrap_or_default()
    )
}

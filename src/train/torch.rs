//! `deepred train deepchess|deeppink` (feature `torch`): trains the nets with tch (libtorch) on a
//! data set file of `deepred dataset`, and exports them in the safetensors format that native
//! inference reads (see [`crate::nn`]).
//!
//! - DeepChess, as in the paper but scaled to a small machine: Pos2Vec pretrained layer by layer
//!   as stacked autoencoders (773-600-773, 600-400-600, 400-200-400, 200-100-200; each layer's
//!   input is the previous layers' frozen output), then the siamese network (two Pos2Vec towers
//!   with shared weights, comparator 400-200-100-2) trained end to end on pairs (a position from
//!   a game White won, one from a game Black won, in random order), pairs re-drawn every epoch;
//!   the learning rate decays by `lr_decay` per epoch (the paper: 0.99).
//! - Deep Pink: f(p) on 768 inputs, loss of the Deep Pink write-up on (p, q, r) triplets:
//!   `-log σ(f(r) - f(q)) - κ log σ(f(p) + f(q)) - κ log σ(-f(p) - f(q))` (f from the side to
//!   move's view: q, after the move played, should be worse for the side then to move than r,
//!   after a random move; and f(p) = -f(q)).
//!
//! Every epoch appends train/validation loss and accuracy to `<run-dir>/<kind>.csv`, redraws
//! `<run-dir>/<kind>.png`, and saves a checkpoint (`<run-dir>/<kind>.ot` plus
//! `<run-dir>/<kind>.state`) from which `--resume` continues (the optimizer's moments restart).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind as TKind, Tensor};

use super::Error;
use super::data::{self, BOARD_LEN};
use super::plot::{Series, write_png};
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

fn terr(e: tch::TchError) -> Error {
    Error::Torch(format!("torch: {e}"))
}

fn adamw(vs: &nn::VarStore, lr: f64, wd: f64) -> Result<nn::Optimizer, Error> {
    nn::AdamW {
        wd,
        ..Default::default()
    }
    .build(vs, lr)
    .map_err(terr)
}

/// Dense 0/1 feature rows (u8, one row per board) for `boards`.
fn feature_rows(
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

fn progress(len: u64, quiet: bool, what: &str) -> ProgressBar {
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

struct RunFiles {
    csv: PathBuf,
    png: PathBuf,
    checkpoint: PathBuf,
    state: PathBuf,
}

impl RunFiles {
    fn new(dir: &Path, kind: Kind) -> Result<Self, Error> {
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

    fn read_log(&self) -> Vec<EpochLog> {
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
    fn end_epoch(
        &self,
        vs: &nn::VarStore,
        e: &EpochLog,
        next_lr: f64,
        quiet: bool,
        best: &mut f64,
    ) -> Result<bool, Error> {
        self.log(e)?;
        self.save(vs, "main", e.epoch, next_lr)?;
        if !quiet {
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

    /// The best validation accuracy logged so far (0 for a new run), so that a resumed run
    /// only overwrites the net file with a better epoch.
    fn best_val_acc(&self) -> f64 {
        self.read_log()
            .iter()
            .filter(|e| e.stage == "main" && e.val_acc.is_finite())
            .map(|e| e.val_acc)
            .fold(0.0, f64::max)
    }

    /// Appends `e` to the CSV and redraws the plot.
    fn log(&self, e: &EpochLog) -> Result<(), Error> {
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

    fn plot(&self) -> Result<(), Error> {
        let log = self.read_log();
        let main: Vec<&EpochLog> = log.iter().filter(|e| e.stage == "main").collect();
        let series = |name: &str, color, f: fn(&EpochLog) -> f64| Series {
            name: name.into(),
            color,
            points: main.iter().map(|e| (e.epoch as f64, f(e))).collect(),
        };
        write_png(
            &self.png,
            &[
                vec![
                    series("train loss", [200, 40, 40], |e| e.train_loss),
                    series("validation loss", [40, 40, 200], |e| e.val_loss),
                ],
                vec![
                    series("train accuracy", [200, 40, 40], |e| e.train_acc),
                    series("validation accuracy", [40, 40, 200], |e| e.val_acc),
                ],
            ],
        )
    }

    fn save(&self, vs: &nn::VarStore, stage: &str, epoch: usize, lr: f64) -> Result<(), Error> {
        vs.save(&self.checkpoint).map_err(terr)?;
        std::fs::write(&self.state, format!("{stage} {epoch} {lr}\n")).map_err(|source| {
            Error::Write {
                path: self.state.to_path_buf(),
                source,
            }
        })
    }

    /// (stage, last finished epoch, learning rate) of the checkpoint.
    fn load(&self, vs: &mut nn::VarStore) -> Result<(String, usize, f64), Error> {
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
fn export(
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
    let tmp = out.with_extension("safetensors.tmp");
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, out))
        .map_err(|source| Error::Write {
            path: out.to_path_buf(),
            source,
        })
}

/// The DeepChess network in tch.
pub struct DeepChessNet {
    pub pos2vec: Vec<nn::Linear>,
    pub cmp: Vec<nn::Linear>,
    /// Autoencoder decoders (pretraining only; not exported).
    pub decoders: Vec<nn::Linear>,
}

pub const POS2VEC: [i64; 5] = [773, 600, 400, 200, 100];
pub const CMP: [i64; 5] = [200, 400, 200, 100, 2];

impl DeepChessNet {
    pub fn new(vs: &nn::VarStore) -> Self {
        let root = vs.root();
        let lin = |p: nn::Path, i, o| nn::linear(p, i, o, Default::default());
        let pos2vec = (0..4)
            .map(|k| lin(&root / "pos2vec" / k, POS2VEC[k], POS2VEC[k + 1]))
            .collect();
        let cmp = (0..4)
            .map(|k| lin(&root / "cmp" / k, CMP[k], CMP[k + 1]))
            .collect();
        let decoders = (0..4)
            .map(|k| lin(&root / "ae_decoder" / k, POS2VEC[k + 1], POS2VEC[k]))
            .collect();
        DeepChessNet {
            pos2vec,
            cmp,
            decoders,
        }
    }

    /// Pos2Vec of a batch of 773-feature rows (float).
    pub fn embed(&self, x: &Tensor) -> Tensor {
        self.embed_upto(x, 4)
    }

    fn embed_upto(&self, x: &Tensor, layers: usize) -> Tensor {
        let mut h = x.shallow_clone();
        for l in &self.pos2vec[..layers] {
            h = l.forward(&h).relu();
        }
        h
    }

    /// Comparator logits for two batches of positions.
    pub fn logits(&self, a: &Tensor, b: &Tensor) -> Tensor {
        self.logits_train(a, b, 0.0)
    }

    /// Logits with dropout `p` after the comparator's hidden layers (training).
    pub fn logits_train(&self, a: &Tensor, b: &Tensor, p: f64) -> Tensor {
        let mut h = Tensor::cat(&[self.embed(a), self.embed(b)], 1);
        for (i, l) in self.cmp.iter().enumerate() {
            h = l.forward(&h);
            if i < 3 {
                h = h.relu();
                if p > 0.0 {
                    h = h.dropout(p, true);
                }
            }
        }
        h
    }

    pub fn layout() -> Vec<(String, usize, usize)> {
        crate::nn::random::layout(Kind::DeepChess)
    }
}

/// The Deep Pink network in tch.
pub struct DeepPinkNet {
    pub layers: Vec<nn::Linear>,
    pub sizes: Vec<usize>,
}

impl DeepPinkNet {
    pub fn new(vs: &nn::VarStore, hidden: &[usize]) -> Self {
        let mut sizes = vec![768];
        sizes.extend_from_slice(hidden);
        sizes.push(1);
        let root = vs.root();
        let layers = (0..sizes.len() - 1)
            .map(|k| {
                nn::linear(
                    &root / "layers" / k,
                    sizes[k] as i64,
                    sizes[k + 1] as i64,
                    Default::default(),
                )
            })
            .collect();
        DeepPinkNet { layers, sizes }
    }

    pub fn forward(&self, x: &Tensor) -> Tensor {
        let mut h = x.shallow_clone();
        let last = self.layers.len() - 1;
        for (i, l) in self.layers.iter().enumerate() {
            h = l.forward(&h);
            if i < last {
                h = h.relu();
            }
        }
        h.squeeze_dim(-1)
    }

    pub fn layout(&self) -> Vec<(String, usize, usize)> {
        (0..self.sizes.len() - 1)
            .map(|k| (format!("layers.{k}"), self.sizes[k], self.sizes[k + 1]))
            .collect()
    }
}

/// Trains the net of `o.kind`; returns a summary.
pub fn train(o: &TrainOptions) -> Result<String, Error> {
    tch::manual_seed(o.seed as i64);
    if o.threads > 0 {
        tch::set_num_threads(o.threads as i32);
    }
    let set = data::read(&o.data)?;
    if set.kind != o.kind {
        return Err(Error::NoData(format!(
            "'{}' is a {} data set, not {}",
            o.data.display(),
            set.kind.name(),
            o.kind.name()
        )));
    }
    let files = RunFiles::new(&o.run_dir, o.kind)?;
    if !o.resume {
        for f in [&files.csv, &files.state, &files.checkpoint] {
            let _ = std::fs::remove_file(f);
        }
    }
    match o.kind {
        Kind::DeepChess => train_deepchess(o, &set, &files),
        Kind::DeepPink => train_deeppink(o, &set, &files),
    }
}

/// Index tensors (Int64) of `rows`, shuffled by a seeded permutation.
fn shuffled(rows: &[i64], seed: u64) -> Tensor {
    let g = Tensor::from_slice(rows);
    tch::manual_seed(seed as i64);
    let perm = Tensor::randperm(rows.len() as i64, (TKind::Int64, Device::Cpu));
    g.index_select(0, &perm)
}

fn train_deepchess(
    o: &TrainOptions,
    set: &data::Dataset,
    files: &RunFiles,
) -> Result<String, Error> {
    let boards: Vec<data::Board> = set.records.iter().map(|r| data::board_at(r, 0)).collect();
    // Rows 0..n: the positions; with --mirror, rows n..2n: their mirrors.
    let n = boards.len() as i64;
    let x = if o.mirror {
        let mirrored = feature_rows(&boards, 773, |b| {
            crate::nn::features::deepchess_mirror(&data::deepchess_features(b))
        });
        Tensor::cat(
            &[
                feature_rows(&boards, 773, data::deepchess_features),
                mirrored,
            ],
            0,
        )
    } else {
        feature_rows(&boards, 773, data::deepchess_features)
    };
    let (mut tw, mut tb, mut vw, mut vb) = (vec![], vec![], vec![], vec![]);
    for (i, r) in set.records.iter().enumerate() {
        let (result, split) = (r[BOARD_LEN], r[BOARD_LEN + 1]);
        match (split, result) {
            (0, 1) => tw.push(i as i64),
            (0, 2) => tb.push(i as i64),
            (1, 1) => vw.push(i as i64),
            (1, 2) => vb.push(i as i64),
            _ => {
                return Err(Error::NoData(format!(
                    "'{}': bad record {i}",
                    o.data.display()
                )));
            }
        }
    }
    if o.mirror {
        // A mirrored White win is a Black win, and the other way round.
        let (mw, mb): (Vec<i64>, Vec<i64>) = (
            tb.iter().map(|i| i + n).collect(),
            tw.iter().map(|i| i + n).collect(),
        );
        tw.extend(mw);
        tb.extend(mb);
    }
    if tw.is_empty() || tb.is_empty() || vw.is_empty() || vb.is_empty() {
        return Err(Error::NoData(format!(
            "'{}' needs positions of White wins and Black wins in both splits (train {}+{}, validation {}+{})",
            o.data.display(),
            tw.len(),
            tb.len(),
            vw.len(),
            vb.len()
        )));
    }
    let dev = o.device;
    let mut vs = nn::VarStore::new(dev);
    let net = DeepChessNet::new(&vs);
    let (mut stage, mut done, mut lr) = ("ae0".to_string(), 0usize, o.lr);
    if o.resume {
        (stage, done, lr) = files.load(&mut vs)?;
    }
    let batch = o.batch.max(16) as i64;
    let xf = |idx: &Tensor| x.index_select(0, idx).to_kind(TKind::Float).to_device(dev);
    let train_rows: Vec<i64> = tw.iter().chain(&tb).copied().collect();
    // Stage 1: stacked autoencoders, layer by layer.
    let ae_stage = |s: &str| s.strip_prefix("ae").and_then(|k| k.parse::<usize>().ok());
    let first_layer = ae_stage(&stage).unwrap_or(4);
    for layer in first_layer..4 {
        let start_epoch = if ae_stage(&stage) == Some(layer) {
            done + 1
        } else {
            1
        };
        let mut opt = adamw(&vs, o.lr, o.weight_decay)?;
        for epoch in start_epoch..=o.ae_epochs {
            let t0 = Instant::now();
            let idx = shuffled(&train_rows, o.seed ^ (layer as u64 * 1000 + epoch as u64));
            let n = idx.size()[0];
            let bar = progress(
                n as u64,
                o.quiet,
                &format!("autoencoder {} epoch {epoch}/{}", layer + 1, o.ae_epochs),
            );
            let (mut sum, mut count) = (0.0, 0.0);
            let mut i = 0;
            while i < n {
                let b = idx.narrow(0, i, batch.min(n - i));
                let input = tch::no_grad(|| net.embed_upto(&xf(&b), layer));
                let code = net.pos2vec[layer].forward(&input).relu();
                let recon = net.decoders[layer].forward(&code);
                let loss = recon.mse_loss(&input, tch::Reduction::Mean);
                opt.backward_step(&loss);
                sum += f64::try_from(&loss).unwrap_or(f64::NAN) * b.size()[0] as f64;
                count += b.size()[0] as f64;
                i += batch;
                bar.set_position(i.min(n) as u64);
            }
            bar.finish_and_clear();
            let e = EpochLog {
                stage: format!("ae{layer}"),
                epoch,
                train_loss: sum / count,
                train_acc: f64::NAN,
                val_loss: f64::NAN,
                val_acc: f64::NAN,
                lr: o.lr,
                seconds: t0.elapsed().as_secs_f64(),
            };
            files.log(&e)?;
            files.save(&vs, &e.stage, epoch, lr)?;
            if !o.quiet {
                eprintln!(
                    "autoencoder {} epoch {epoch}: reconstruction loss {:.5} ({:.0} s)",
                    layer + 1,
                    e.train_loss,
                    e.seconds
                );
            }
        }
        stage = format!("ae{layer}");
        done = o.ae_epochs;
    }
    // Stage 2: the siamese network, end to end, on pairs re-drawn every epoch.
    let start_epoch = if stage == "main" { done + 1 } else { 1 };
    if stage != "main" {
        lr = o.lr;
    }
    let mut opt = adamw(&vs, lr, o.weight_decay)?;
    // Fixed validation pairs.
    let val_pairs = (vw.len().min(vb.len()) * 4).clamp(1, 200_000) as i64;
    let pick = |rows: &[i64], n: i64, seed: u64| {
        tch::manual_seed(seed as i64);
        let at = Tensor::randint(rows.len() as i64, [n], (TKind::Int64, Device::Cpu));
        Tensor::from_slice(rows).index_select(0, &at)
    };
    let (va, vbb) = (
        pick(&vw, val_pairs, o.seed ^ 1),
        pick(&vb, val_pairs, o.seed ^ 2),
    );
    tch::manual_seed((o.seed ^ 3) as i64);
    let vswap = Tensor::randint(2, [val_pairs], (TKind::Int64, Device::Cpu));
    let pairs = if o.pairs == 0 {
        tw.len().min(tb.len())
    } else {
        o.pairs
    } as i64;
    let mut best = files.best_val_acc();
    for epoch in start_epoch..=o.epochs {
        let t0 = Instant::now();
        opt.set_lr(lr);
        let ws = pick(&tw, pairs, o.seed ^ (epoch as u64 * 7 + 100));
        let bs = pick(&tb, pairs, o.seed ^ (epoch as u64 * 7 + 101));
        tch::manual_seed((o.seed ^ (epoch as u64 * 7 + 102)) as i64);
        let swap = Tensor::randint(2, [pairs], (TKind::Int64, Device::Cpu));
        let bar = progress(
            pairs as u64,
            o.quiet,
            &format!("siamese epoch {epoch}/{}", o.epochs),
        );
        let (mut loss_sum, mut correct, mut count) = (0.0, 0.0, 0.0);
        let mut i = 0;
        while i < pairs {
            let len = batch.min(pairs - i);
            let (a, b, y) = pair_batch(&ws, &bs, &swap, i, len);
            let logits = net.logits_train(&xf(&a), &xf(&b), o.dropout);
            let y = y.to_device(dev);
            let loss = logits.cross_entropy_for_logits(&y);
            opt.backward_step(&loss);
            let n = len as f64;
            loss_sum += f64::try_from(&loss).unwrap_or(f64::NAN) * n;
            correct += f64::try_from(&logits.accuracy_for_logits(&y)).unwrap_or(0.0) * n;
            count += n;
            i += batch;
            bar.set_position(i.min(pairs) as u64);
        }
        bar.finish_and_clear();
        let (val_loss, val_acc) = tch::no_grad(|| {
            let (mut l, mut c, mut k) = (0.0, 0.0, 0.0);
            let mut i = 0;
            while i < val_pairs {
                let len = 4096.min(val_pairs - i);
                let (a, b, y) = pair_batch(&va, &vbb, &vswap, i, len);
                let logits = net.logits(&xf(&a), &xf(&b));
                let y = y.to_device(dev);
                let n = len as f64;
                l += f64::try_from(&logits.cross_entropy_for_logits(&y)).unwrap_or(f64::NAN) * n;
                c += f64::try_from(&logits.accuracy_for_logits(&y)).unwrap_or(0.0) * n;
                k += n;
                i += 4096;
            }
            (l / k, c / k)
        });
        let e = EpochLog {
            stage: "main".into(),
            epoch,
            train_loss: loss_sum / count,
            train_acc: correct / count,
            val_loss,
            val_acc,
            lr,
            seconds: t0.elapsed().as_secs_f64(),
        };
        lr *= o.lr_decay;
        if !files.end_epoch(&vs, &e, lr, o.quiet, &mut best)? {
            continue; // the net file keeps the best epoch so far
        }
        let acc = format!("{:.2}% (held-out pairs, epoch {epoch})", 100.0 * val_acc);
        export(
            &vs,
            Kind::DeepChess,
            &DeepChessNet::layout(),
            &[
                ("games", o.games_note.clone()),
                ("validation_accuracy", acc),
                ("training", training_note(o, epoch)),
            ],
            &o.out,
        )?;
    }
    Ok(format!(
        "DeepChess: {} train positions, {} validation positions; last validation accuracy {:.2}% (best {:.2}%); net written to {}; log {}",
        tw.len() + tb.len(),
        vw.len() + vb.len(),
        100.0 * files.read_log().last().map_or(f64::NAN, |e| e.val_acc),
        100.0 * best,
        o.out.display(),
        files.csv.display()
    ))
}

/// Rows `i..i+len` of a pair list: (first, second, label) with label 0 when the first is the
/// White-won position (it is better for White), 1 when the pair was swapped.
fn pair_batch(
    whites: &Tensor,
    blacks: &Tensor,
    swap: &Tensor,
    i: i64,
    len: i64,
) -> (Tensor, Tensor, Tensor) {
    let w = whites.narrow(0, i, len);
    let b = blacks.narrow(0, i, len);
    let s = swap.narrow(0, i, len);
    let m = s.eq(1);
    (
        w.where_self(&m.logical_not(), &b),
        b.where_self(&m.logical_not(), &w),
        s,
    )
}

fn training_note(o: &TrainOptions, epoch: usize) -> String {
    format!(
        "deepred train {}: epoch {} (best of {}), batch {}, lr {} decay {}, weight decay {}, dropout {}, mirror {}, seed {}, data {}",
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
        o.data.display()
    )
}

fn train_deeppink(
    o: &TrainOptions,
    set: &data::Dataset,
    files: &RunFiles,
) -> Result<String, Error> {
    let n = set.records.len();
    let mut boards = Vec::with_capacity(3 * n);
    for r in &set.records {
        for k in 0..3 {
            boards.push(data::board_at(r, k * BOARD_LEN));
        }
    }
    // Row 3i = p, 3i+1 = q, 3i+2 = r.
    let x = feature_rows(&boards, 768, data::deeppink_features);
    let (mut train_ids, mut val_ids) = (vec![], vec![]);
    for (i, r) in set.records.iter().enumerate() {
        if r[3 * BOARD_LEN] == 0 {
            train_ids.push(i as i64);
        } else {
            val_ids.push(i as i64);
        }
    }
    if train_ids.is_empty() || val_ids.is_empty() {
        return Err(Error::NoData(format!(
            "'{}' needs triplets in both splits (train {}, validation {})",
            o.data.display(),
            train_ids.len(),
            val_ids.len()
        )));
    }
    let dev = o.device;
    let mut vs = nn::VarStore::new(dev);
    let net = DeepPinkNet::new(&vs, &o.hidden);
    let (mut done, mut lr) = (0usize, o.lr);
    if o.resume {
        let (_, d, l) = files.load(&mut vs)?;
        (done, lr) = (d, l);
    }
    let mut opt = adamw(&vs, lr, o.weight_decay)?;
    let batch = o.batch.max(16) as i64;
    let rows = |ids: &Tensor, k: i64| {
        x.index_select(0, &(ids * 3 + k))
            .to_kind(TKind::Float)
            .to_device(dev)
    };
    let loss_of = |fp: &Tensor, fq: &Tensor, fr: &Tensor| {
        let order = -(fr - fq).log_sigmoid().mean(TKind::Float);
        let sum = fp + fq;
        let neg = -(sum.log_sigmoid() + (-&sum).log_sigmoid()).mean(TKind::Float);
        order + neg * o.kappa
    };
    let val = Tensor::from_slice(&val_ids);
    let mut best = files.best_val_acc();
    for epoch in done + 1..=o.epochs {
        let t0 = Instant::now();
        opt.set_lr(lr);
        let idx = shuffled(&train_ids, o.seed ^ (epoch as u64 * 13));
        let total = idx.size()[0];
        let bar = progress(
            total as u64,
            o.quiet,
            &format!("deeppink epoch {epoch}/{}", o.epochs),
        );
        let (mut loss_sum, mut correct, mut count) = (0.0, 0.0, 0.0);
        let mut i = 0;
        while i < total {
            let ids = idx.narrow(0, i, batch.min(total - i));
            let (fp, fq, fr) = (
                net.forward(&rows(&ids, 0)),
                net.forward(&rows(&ids, 1)),
                net.forward(&rows(&ids, 2)),
            );
            let loss = loss_of(&fp, &fq, &fr);
            opt.backward_step(&loss);
            let k = ids.size()[0] as f64;
            loss_sum += f64::try_from(&loss).unwrap_or(f64::NAN) * k;
            correct += f64::try_from(&fq.lt_tensor(&fr).to_kind(TKind::Float).mean(TKind::Float))
                .unwrap_or(0.0)
                * k;
            count += k;
            i += batch;
            bar.set_position(i.min(total) as u64);
        }
        bar.finish_and_clear();
        let (val_loss, val_acc) = tch::no_grad(|| {
            let (mut l, mut c, mut k) = (0.0, 0.0, 0.0);
            let n = val.size()[0];
            let mut i = 0;
            while i < n {
                let ids = val.narrow(0, i, 4096.min(n - i));
                let (fp, fq, fr) = (
                    net.forward(&rows(&ids, 0)),
                    net.forward(&rows(&ids, 1)),
                    net.forward(&rows(&ids, 2)),
                );
                let m = ids.size()[0] as f64;
                l += f64::try_from(&loss_of(&fp, &fq, &fr)).unwrap_or(f64::NAN) * m;
                c += f64::try_from(&fq.lt_tensor(&fr).to_kind(TKind::Float).mean(TKind::Float))
                    .unwrap_or(0.0)
                    * m;
                k += m;
                i += 4096;
            }
            (l / k, c / k)
        });
        let e = EpochLog {
            stage: "main".into(),
            epoch,
            train_loss: loss_sum / count,
            train_acc: correct / count,
            val_loss,
            val_acc,
            lr,
            seconds: t0.elapsed().as_secs_f64(),
        };
        lr *= o.lr_decay;
        if !files.end_epoch(&vs, &e, lr, o.quiet, &mut best)? {
            continue; // the net file keeps the best epoch so far
        }
        let scale = tch::no_grad(|| cp_scale(&net, &boards, &x, &val_ids, dev));
        export(
            &vs,
            Kind::DeepPink,
            &net.layout(),
            &[
                ("games", o.games_note.clone()),
                (
                    "validation_accuracy",
                    format!("{:.2}% (held-out triplets, epoch {epoch})", 100.0 * val_acc),
                ),
                ("cp_scale", format!("{scale:.3}")),
                ("training", training_note(o, epoch)),
            ],
            &o.out,
        )?;
    }
    Ok(format!(
        "Deep Pink: {} train triplets, {} validation triplets; last validation accuracy {:.2}% (best {:.2}%); net written to {}; log {}",
        train_ids.len(),
        val_ids.len(),
        100.0 * files.read_log().last().map_or(f64::NAN, |e| e.val_acc),
        100.0 * best,
        o.out.display(),
        files.csv.display()
    ))
}

/// The factor that turns f into centipawns: least squares of f against the pst evaluation (side
/// to move's view) over validation positions p, so that the search's centipawn margins fit.
fn cp_scale(
    net: &DeepPinkNet,
    boards: &[data::Board],
    x: &Tensor,
    val_ids: &[i64],
    dev: Device,
) -> f64 {
    let ids: Vec<i64> = val_ids.iter().take(20_000).map(|i| i * 3).collect();
    let f = net.forward(
        &x.index_select(0, &Tensor::from_slice(&ids))
            .to_kind(TKind::Float)
            .to_device(dev),
    );
    let mut fv = vec![0f32; ids.len()];
    f.to_device(Device::Cpu).copy_data(&mut fv, ids.len());
    let (mut fy, mut ff) = (0.0f64, 0.0f64);
    for (k, &row) in ids.iter().enumerate() {
        let Ok(pos) = data::decode(&boards[row as usize]) else {
            continue;
        };
        let y = f64::from(crate::eval::pst::evaluate(&pos)).clamp(-1500.0, 1500.0);
        let v = f64::from(fv[k]);
        fy += v * y;
        ff += v * v;
    }
    if ff > 0.0 && fy > 0.0 { fy / ff } else { 100.0 }
}

/// The net of a safetensors file in tch modules (inference only).
enum TchNet {
    Chess(nn::VarStore, DeepChessNet),
    Pink(nn::VarStore, DeepPinkNet),
}

fn load_tch(net_file: &Path, kind: Kind) -> Result<TchNet, Error> {
    // Checks the file the way the engine does, with the right message on a bad file.
    crate::nn::net::NetFile::load(net_file, Some(kind))?;
    let tensors = Tensor::read_safetensors(net_file).map_err(terr)?;
    let names: HashMap<String, Tensor> = tensors.into_iter().collect();
    let mut vs = nn::VarStore::new(Device::Cpu);
    Ok(match kind {
        Kind::DeepChess => {
            let net = DeepChessNet::new(&vs);
            copy_into(&mut vs, &names)?;
            TchNet::Chess(vs, net)
        }
        Kind::DeepPink => {
            let sizes: Vec<usize> = (0..)
                .map_while(|k| names.get(&format!("layers.{k}.weight")))
                .map(|t| t.size()[0] as usize)
                .collect();
            let hidden = &sizes[..sizes.len().saturating_sub(1)];
            let net = DeepPinkNet::new(&vs, hidden);
            copy_into(&mut vs, &names)?;
            TchNet::Pink(vs, net)
        }
    })
}

/// Writes the net of `net_file` as a TorchScript module (traced with tch) with the signature
/// that `EvalFile` accepts (see [`crate::eval::torchscript`]).
pub fn export_torchscript(net_file: &Path, out: &Path) -> Result<String, Error> {
    let kind = crate::nn::net::NetFile::load(net_file, None)?.kind;
    let module = match load_tch(net_file, kind)? {
        TchNet::Chess(mut vs, net) => {
            // Traced weights are constants: they must not require gradients.
            vs.freeze();
            let x = Tensor::zeros([1, 773], (TKind::Float, Device::Cpu));
            tch::CModule::create_by_tracing(
                "DeepChess",
                "forward",
                &[x.shallow_clone(), x],
                &mut |t: &[Tensor]| vec![net.logits(&t[0], &t[1])],
            )
        }
        TchNet::Pink(mut vs, net) => {
            vs.freeze();
            let x = Tensor::zeros([1, 768], (TKind::Float, Device::Cpu));
            tch::CModule::create_by_tracing("DeepPink", "forward", &[x], &mut |t: &[Tensor]| {
                vec![net.forward(&t[0])]
            })
        }
    }
    .map_err(terr)?;
    module
        .save(out)
        .map_err(|e| Error::Torch(format!("cannot write '{}': {e}", out.display())))?;
    Ok(format!(
        "{} TorchScript module written to {}",
        kind.name(),
        out.display()
    ))
}

/// Loads a net file into fresh tch modules and returns the output of each architecture on
/// feature rows (for the native-equals-tch test): DeepChess comparator logits of `(a, b)`
/// rows, Deep Pink f of rows.
pub fn tch_outputs(
    net_file: &Path,
    kind: Kind,
    a: &[Vec<u16>],
    b: &[Vec<u16>],
) -> Result<Vec<Vec<f32>>, Error> {
    let width = match kind {
        Kind::DeepChess => 773,
        Kind::DeepPink => 768,
    };
    let rows = |fs: &[Vec<u16>]| {
        let mut dense = vec![0f32; fs.len() * width];
        for (i, f) in fs.iter().enumerate() {
            for &k in f {
                dense[i * width + usize::from(k)] = 1.0;
            }
        }
        Tensor::from_slice(&dense).view([fs.len() as i64, width as i64])
    };
    let out = match load_tch(net_file, kind)? {
        TchNet::Chess(_vs, net) => tch::no_grad(|| net.logits(&rows(a), &rows(b))),
        TchNet::Pink(_vs, net) => tch::no_grad(|| net.forward(&rows(a))).unsqueeze(-1),
    };
    let (n, m) = (out.size()[0] as usize, out.size()[1] as usize);
    let mut flat = vec![0f32; n * m];
    out.contiguous().copy_data(&mut flat, n * m);
    Ok(flat.chunks(m).map(<[f32]>::to_vec).collect())
}

fn copy_into(vs: &mut nn::VarStore, names: &HashMap<String, Tensor>) -> Result<(), Error> {
    let vars = vs.variables();
    tch::no_grad(|| {
        for (name, mut v) in vars {
            if name.starts_with("ae_decoder") {
                continue;
            }
            let src = names
                .get(&name)
                .ok_or_else(|| Error::Torch(format!("net file has no tensor {name}")))?;
            v.copy_(src);
        }
        Ok(())
    })
}

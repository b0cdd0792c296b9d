//! Training the learned value net (`nn::value`) on `deepred datagen` positions, on the CPU,
//! without libtorch.
//!
//! Why a hand-written trainer: the net is one sparse layer (about 30 of 768 inputs active per
//! view) and one output, so a position costs two sums of ~30 rows forward and the same backward;
//! a dense framework multiplies the whole 768-wide input instead. Measured on this machine's 2
//! cores (BENCHMARKS.md, "A learned evaluation"): see the seconds per epoch there.
//!
//! Loss: `(sigmoid(out) - target)^2` with `target = (1 - wdl) * sigmoid(score / 400) + wdl *
//! result`, the side to move's view (the usual NNUE blend of the search's score and the game's
//! result). Adam with bias correction, learning rate times `lr_decay` after each epoch; weights
//! are clipped to what the quantised kernels hold (±1.98). Deterministic by seed for a given
//! number of threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::Error;
use crate::chess::bullet::{ChessBoard, features, read_file};
use crate::nn::features::DEEPPINK_INPUTS;
use crate::nn::value::{architecture, check_buckets, grows_into, output_bucket};

/// Both views' features of a record.
type Features = (arrayvec::ArrayVec<u16, 32>, arrayvec::ArrayVec<u16, 32>);

/// The weights the quantised net can hold (output weights: 127 / 64).
const CLIP: f32 = 1.98;
/// Centipawns of an output of 1 (`nn::value::SCALE`).
const SCALE: f32 = 400.0;

#[derive(Clone, Debug)]
pub struct ValueTrainOptions {
    pub hidden: usize,
    /// Output buckets by material (`nn::value::OUTPUT_BUCKETS`; 1: one output row).
    pub buckets: usize,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub lr_decay: f32,
    /// Weight of the game result in the target (0: the search's score only).
    pub wdl: f32,
    /// Share of the positions kept out of training to measure the loss on.
    pub val_fraction: f64,
    /// Start from this learned net's weights instead of random ones (fine-tuning); its
    /// hidden size must be `hidden`.
    pub init: Option<PathBuf>,
    pub threads: usize,
    pub seed: u64,
    pub out: PathBuf,
    /// Free text stored as the net's `generation` metadata.
    pub generation: String,
    /// More metadata for the net file (its parent, its data, how it was gated...).
    pub meta: Vec<(String, String)>,
}

/// The records of `deepred datagen` files (or any bulletformat files), in order.
pub fn read_records(files: &[PathBuf]) -> Result<Vec<ChessBoard>, Error> {
    let mut data = Vec::new();
    for f in files {
        data.extend(read_file(f)?);
    }
    Ok(data)
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug)]
pub struct ValueEpoch {
    pub epoch: usize,
    pub train_loss: f64,
    pub val_loss: f64,
    pub seconds: f64,
}

/// The net's f32 weights, as the file keeps them.
#[derive(Clone, Debug)]
pub struct ValueParams {
    pub hidden: usize,
    /// Output buckets ([`output_bucket`] picks a position's).
    pub buckets: usize,
    /// Feature-major: feature `f`'s weights at `f * hidden`.
    pub ft_w: Vec<f32>,
    pub ft_b: Vec<f32>,
    /// By bucket, `2 * hidden` each: the side to move's half, then the opponent's.
    pub out_w: Vec<f32>,
    /// By bucket.
    pub out_b: Vec<f32>,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a record (side to move's view).
fn target(b: &ChessBoard, wdl: f32) -> f32 {
    let result = f32::from(b.result) / 2.0;
    (1.0 - wdl) * sigmoid(f32::from(b.score) / SCALE) + wdl * result
}

impl ValueParams {
    /// Random weights for `hidden` units and `buckets` output buckets (the same output weights
    /// in every bucket, so that the buckets start as one net and part as they learn).
    pub fn random(hidden: usize, buckets: usize, seed: u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let b0 = 1.0 / (DEEPPINK_INPUTS as f32).sqrt();
        let b1 = 1.0 / ((2 * hidden) as f32).sqrt();
        ValueParams {
            hidden,
            ft_w: (0..DEEPPINK_INPUTS * hidden)
                .map(|_| rng.random_range(-b0..b0))
                .collect(),
            ft_b: vec![0.0; hidden],
            out_w: (0..2 * hidden)
                .map(|_| rng.random_range(-b1..b1))
                .collect::<Vec<_>>()
                .repeat(buckets),
            out_b: vec![0.0; buckets],
            buckets,
        }
    }

    /// The f32 weights of a net file (the trainer's view, before the engine quantises them).
    pub fn load(path: &Path) -> Result<Self, Error> {
        use crate::nn::net::{Kind, NetFile};
        let f = NetFile::load(path, Some(Kind::Learned))?;
        let (_, hidden, w, b) = f.linear("ft", Some(DEEPPINK_INPUTS), None)?;
        let (_, buckets, ow, ob) = f.linear("out", Some(2 * hidden), None)?;
        check_buckets(buckets).map_err(|p| Error::NoData(format!("'{}': {p}", path.display())))?;
        // `w` is [hidden, 768]: feature-major here.
        let mut ft_w = vec![0.0; DEEPPINK_INPUTS * hidden];
        for j in 0..hidden {
            for i in 0..DEEPPINK_INPUTS {
                ft_w[i * hidden + j] = w[j * DEEPPINK_INPUTS + i];
            }
        }
        Ok(ValueParams {
            hidden,
            ft_w,
            ft_b: b.to_vec(),
            out_w: ow.to_vec(),
            out_b: ob.to_vec(),
            buckets,
        })
    }

    fn len(&self) -> usize {
        self.ft_w.len() + self.ft_b.len() + self.out_w.len() + self.out_b.len()
    }

    /// The output bucket of a record (its pieces are its side to move's features).
    fn bucket(&self, feats: &Features) -> usize {
        output_bucket(feats.0.len(), self.buckets)
    }

    /// The accumulators of both views.
    fn accumulate(&self, feats: &Features, us: &mut [f32], them: &mut [f32]) {
        let h = self.hidden;
        for (acc, fs) in [(us, &feats.0), (them, &feats.1)] {
            acc.copy_from_slice(&self.ft_b);
            for &f in fs {
                let row = &self.ft_w[usize::from(f) * h..][..h];
                acc.iter_mut().zip(row).for_each(|(a, w)| *a += w);
            }
        }
    }

    /// The raw output (centipawns / 400) for the side to move of a record.
    pub fn forward(&self, b: &ChessBoard) -> f32 {
        let h = self.hidden;
        let (mut us, mut them) = (vec![0.0; h], vec![0.0; h]);
        let feats = features(b);
        self.accumulate(&feats, &mut us, &mut them);
        let k = self.bucket(&feats);
        let w = &self.out_w[2 * h * k..2 * h * (k + 1)];
        let act = |x: f32| x.clamp(0.0, 1.0).powi(2);
        let mut out = self.out_b[k];
        for j in 0..h {
            out += act(us[j]) * w[j] + act(them[j]) * w[h + j];
        }
        out
    }

    /// Adds the gradient of the loss of `b` to `g` (laid out as `flatten`); returns the loss.
    fn backward(
        &self,
        b: &ChessBoard,
        wdl: f32,
        g: &mut [f32],
        us: &mut [f32],
        them: &mut [f32],
    ) -> f32 {
        let h = self.hidden;
        // The features once, for the forward and the backward pass.
        let feats = features(b);
        self.accumulate(&feats, us, them);
        let k = self.bucket(&feats);
        let w = &self.out_w[2 * h * k..2 * h * (k + 1)];
        let mut out = self.out_b[k];
        for j in 0..h {
            out +=
                us[j].clamp(0.0, 1.0).powi(2) * w[j] + them[j].clamp(0.0, 1.0).powi(2) * w[h + j];
        }
        let p = sigmoid(out);
        let t = target(b, wdl);
        let gout = 2.0 * (p - t) * p * (1.0 - p);
        let (g_ftw, rest) = g.split_at_mut(self.ft_w.len());
        let (g_ftb, rest) = rest.split_at_mut(h);
        let (g_outw, g_outb) = rest.split_at_mut(2 * h * self.buckets);
        let g_outw = &mut g_outw[2 * h * k..2 * h * (k + 1)];
        g_outb[k] += gout;
        // The accumulators become their gradients.
        for (side, acc) in [&mut *us, &mut *them].into_iter().enumerate() {
            for j in 0..h {
                let a = acc[j];
                let c = a.clamp(0.0, 1.0);
                g_outw[side * h + j] += gout * c * c;
                acc[j] = if a > 0.0 && a < 1.0 {
                    gout * w[side * h + j] * 2.0 * a
                } else {
                    0.0
                };
            }
        }
        for j in 0..h {
            g_ftb[j] += us[j] + them[j];
        }
        for (fs, grad) in [(&feats.0, &*us), (&feats.1, &*them)] {
            for &f in fs {
                let row = &mut g_ftw[usize::from(f) * h..][..h];
                row.iter_mut().zip(grad).for_each(|(r, d)| *r += d);
            }
        }
        (p - t) * (p - t)
    }

    fn loss(&self, b: &ChessBoard, wdl: f32) -> f32 {
        let d = sigmoid(self.forward(b)) - target(b, wdl);
        d * d
    }

    fn for_each_mut(&mut self, mut f: impl FnMut(usize, &mut f32)) {
        for (i, x) in self
            .ft_w
            .iter_mut()
            .chain(self.ft_b.iter_mut())
            .chain(self.out_w.iter_mut())
            .chain(self.out_b.iter_mut())
            .enumerate()
        {
            f(i, x);
        }
    }

    /// The net file: PyTorch-layout tensors (`ft.weight [H, 768]`, ...) and the metadata of
    /// `nn::net`.
    pub fn save(&self, path: &Path, meta: HashMap<String, String>) -> Result<(), Error> {
        let h = self.hidden;
        let mut w = vec![0.0f32; h * DEEPPINK_INPUTS];
        for i in 0..DEEPPINK_INPUTS {
            for j in 0..h {
                w[j * DEEPPINK_INPUTS + i] = self.ft_w[i * h + j];
            }
        }
        let tensors = vec![
            ("ft.weight".to_string(), vec![h, DEEPPINK_INPUTS], w),
            ("ft.bias".to_string(), vec![h], self.ft_b.clone()),
            (
                "out.weight".to_string(),
                vec![self.buckets, 2 * h],
                self.out_w.clone(),
            ),
            (
                "out.bias".to_string(),
                vec![self.buckets],
                self.out_b.clone(),
            ),
        ];
        let bytes = crate::nn::random::serialize(&tensors, meta)?;
        super::calibrate::write_replacing(path, &bytes)
    }
}

/// Adam's moments.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

/// The weights training starts from: `opts.init`'s, else random ones.
fn initial_params(opts: &ValueTrainOptions) -> Result<ValueParams, Error> {
    let hidden = opts.hidden.max(16);
    check_buckets(opts.buckets).map_err(|p| Error::NoData(p.to_string()))?;
    let Some(path) = &opts.init else {
        return Ok(ValueParams::random(hidden, opts.buckets, opts.seed));
    };
    let mut p = ValueParams::load(path)?;
    if p.hidden != hidden {
        return Err(Error::NoData(format!(
            "the net to start from, '{}', has {} hidden units where the training asks {hidden}",
            path.display(),
            p.hidden
        )));
    }
    if !grows_into(p.buckets, opts.buckets) {
        return Err(Error::NoData(format!(
            "the net to start from, '{}', has {} output buckets where the training asks {} (a net of one bucket can start any number)",
            path.display(),
            p.buckets,
            opts.buckets
        )));
    }
    if p.buckets != opts.buckets {
        // A net of one bucket grows into several, each starting as its output row: the child
        // first computes what the parent computes.
        p.out_w = p.out_w.repeat(opts.buckets);
        p.out_b = p.out_b.repeat(opts.buckets);
        p.buckets = opts.buckets;
    }
    Ok(p)
}

/// Trains a net on the records `data` (from `deepred datagen` files, [`read_records`], or from
/// the experience store); `epoch_done` after each epoch (the net file is rewritten then).
/// Returns the epochs' figures.
pub fn train_value(
    opts: &ValueTrainOptions,
    mut data: Vec<ChessBoard>,
    mut epoch_done: impl FnMut(&ValueEpoch, &ValueParams),
) -> Result<Vec<ValueEpoch>, Error> {
    if data.is_empty() {
        return Err(Error::NoData("no training positions".to_string()));
    }
    let mut rng = StdRng::seed_from_u64(opts.seed);
    data.shuffle(&mut rng);
    let n_val = ((data.len() as f64 * opts.val_fraction) as usize).min(data.len() / 2);
    let (val, train) = data.split_at(n_val);
    let mut train = train.to_vec();
    let mut p = initial_params(opts)?;
    let n = p.len();
    let mut adam = Adam {
        m: vec![0.0; n],
        v: vec![0.0; n],
        t: 0,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build()
        .map_err(|e| Error::NoData(format!("cannot start the trainer's threads: {e}")))?;
    let mut log = Vec::new();
    let mut lr = opts.lr;
    let batch = opts.batch.max(1);
    let chunks = opts.threads.max(1);
    for epoch in 1..=opts.epochs {
        let t0 = std::time::Instant::now();
        train.shuffle(&mut rng);
        let mut total = 0.0f64;
        for b in train.chunks(batch) {
            let per = b.len().div_ceil(chunks);
            let parts: Vec<(Vec<f32>, f64)> = pool.install(|| {
                b.par_chunks(per)
                    .map(|part| {
                        let mut g = vec![0.0f32; n];
                        let (mut us, mut them) = (vec![0.0; p.hidden], vec![0.0; p.hidden]);
                        let mut loss = 0.0f64;
                        for r in part {
                            loss += f64::from(p.backward(r, opts.wdl, &mut g, &mut us, &mut them));
                        }
                        (g, loss)
                    })
                    .collect()
            });
            let mut g = vec![0.0f32; n];
            for (pg, l) in &parts {
                total += l;
                g.iter_mut().zip(pg).for_each(|(a, b)| *a += b);
            }
            let scale = 1.0 / b.len() as f32;
            adam.t += 1;
            let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
            let c1 = 1.0 - b1.powi(adam.t);
            let c2 = 1.0 - b2.powi(adam.t);
            let Adam { m, v, .. } = &mut adam;
            p.for_each_mut(|i, w| {
                let gi = g[i] * scale;
                if gi == 0.0 && m[i] == 0.0 {
                    return;
                }
                m[i] = b1 * m[i] + (1.0 - b1) * gi;
                v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
                let step = lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
                *w = (*w - step).clamp(-CLIP, CLIP);
            });
        }
        let val_loss = if val.is_empty() {
            f64::NAN
        } else {
            pool.install(|| {
                val.par_iter()
                    .map(|r| f64::from(p.loss(r, opts.wdl)))
                    .sum::<f64>()
            }) / val.len() as f64
        };
        let train_loss = total / train.len().max(1) as f64;
        if !train_loss.is_finite() || !(val.is_empty() || val_loss.is_finite()) {
            // A net whose weights went NaN would evaluate nothing: not written over the last
            // good epoch's file.
            return Err(Error::NoData(format!(
                "training diverged in epoch {epoch} (loss {train_loss}, validation loss {val_loss}): try a lower --lr"
            )));
        }
        let e = ValueEpoch {
            epoch,
            train_loss,
            val_loss,
            seconds: t0.elapsed().as_secs_f64(),
        };
        let mut meta = HashMap::from([
            ("format".to_string(), "deepred-nn".to_string()),
            ("kind".to_string(), "learned".to_string()),
            ("features".to_string(), "deeppink768".to_string()),
            (
                "architecture".to_string(),
                architecture(p.hidden, p.buckets),
            ),
            ("positions".to_string(), train.len().to_string()),
            ("generation".to_string(), opts.generation.clone()),
            ("epochs".to_string(), epoch.to_string()),
            ("wdl".to_string(), opts.wdl.to_string()),
        ]);
        // No validation positions: no key (it was "NaN").
        if val_loss.is_finite() {
            meta.insert("validation_loss".to_string(), format!("{val_loss:.6}"));
        }
        meta.extend(opts.meta.iter().cloned());
        p.save(&opts.out, meta)?;
        epoch_done(&e, &p);
        log.push(e);
        lr *= opts.lr_decay;
    }
    Ok(log)
}

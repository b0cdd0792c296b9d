//! Deep Pink training (feature `torch`): f(p) on (p, q, r) triplets, and the centipawn scale
//! fitted against the pst evaluation.

use std::time::Instant;

use tch::nn::{self, Module};
use tch::{Device, Kind as TKind, Tensor};

use super::data::{self, BOARD_LEN};
use super::error::Error;
use super::run::{
    EpochLog, RunFiles, TrainOptions, adamw, export, feature_rows, load_init, progress, shuffled,
    training_note, validate,
};
use crate::nn::net::Kind;

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

pub(super) fn train_deeppink(
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
    if let Some(p) = &o.init {
        load_init(&mut vs, p, false)?;
    }
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
        let (val_loss, val_acc) = validate(val.size()[0] as usize, |i, len| {
            let ids = val.narrow(0, i as i64, len as i64);
            let (fp, fq, fr) = (
                net.forward(&rows(&ids, 0)),
                net.forward(&rows(&ids, 1)),
                net.forward(&rows(&ids, 2)),
            );
            (
                loss_of(&fp, &fq, &fr),
                fq.lt_tensor(&fr).to_kind(TKind::Float).mean(TKind::Float),
            )
        });
        let e = EpochLog::main(
            epoch,
            (loss_sum / count, correct / count),
            (val_loss, val_acc),
            lr,
            t0,
        );
        if !files.end_epoch(&vs, &e, &mut lr, o, &mut best)? {
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
    Ok(files.summary(
        &format!(
            "Deep Pink: {} train triplets, {} validation triplets",
            train_ids.len(),
            val_ids.len()
        ),
        best,
        &o.out,
    ))
}

/// The factor that turns f into centipawns (`calibrate::fit_cp_scale`) on validation
/// positions p, so that the search's centipawn margins fit.
pub(super) fn cp_scale(
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
    let samples: Vec<(f32, shakmaty::Chess)> = ids
        .iter()
        .zip(fv)
        .filter_map(|(&row, v)| Some((v, data::decode(&boards[row as usize]).ok()?)))
        .collect();
    super::calibrate::fit_cp_scale(samples.iter().map(|(v, p)| (*v, p)))
}

//! DeepChess training (feature `torch`): Pos2Vec pretrained layer by layer as stacked
//! autoencoders, then the siamese network trained end to end on pairs.

use std::time::Instant;

use rayon::prelude::*;

use tch::nn::{self, Module};
use tch::{Device, Kind as TKind, Tensor};

use super::data::{self, BOARD_LEN};
use super::error::Error;
use super::run::{
    EpochLog, RunFiles, TrainOptions, adamw, export, load_init, progress, shuffled, training_note,
    validate,
};
use crate::nn::net::Kind;

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

/// Record indices by split and result: White wins and Black wins of the training split (with
/// their mirrors as rows `n..2n` under --mirror) and of the validation split.
struct Splits {
    tw: Vec<i64>,
    tb: Vec<i64>,
    vw: Vec<i64>,
    vb: Vec<i64>,
}

impl Splits {
    fn of(o: &TrainOptions, set: &data::Dataset) -> Result<Splits, Error> {
        let n = set.records.len() as i64;
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
        Ok(Splits { tw, tb, vw, vb })
    }
}

/// One training run: the options, the net and its variables, the rows pairs index, the files.
struct Trainer<'a> {
    o: &'a TrainOptions,
    files: &'a RunFiles,
    vs: nn::VarStore,
    net: DeepChessNet,
    x: Rows,
    batch: i64,
}

impl Trainer<'_> {
    /// The feature rows of `idx` on the training device.
    fn xf(&self, idx: &Tensor) -> Tensor {
        self.x.batch(idx).to_device(self.o.device)
    }
}

pub(super) fn train_deepchess(
    o: &TrainOptions,
    set: &data::Dataset,
    files: &RunFiles,
) -> Result<String, Error> {
    let boards: Vec<data::Board> = set.records.iter().map(|r| data::board_at(r, 0)).collect();
    // Rows 0..n: the positions; with --mirror, rows n..2n: their mirrors.
    let n = boards.len() as i64;
    let sp = Splits::of(o, set)?;
    // Sibling pairs: rows base + 2i (q, after the searched best move) and base + 2i + 1 (r,
    // after a random other move) of triplet i.
    let base = if o.mirror { 2 * n } else { n };
    let mut sib = match &o.siblings {
        Some(path) => Some(Siblings::load(path, base)?),
        None => None,
    };
    let x = Rows {
        positions: boards,
        mirror: o.mirror,
        siblings: sib
            .as_mut()
            .map(|s| std::mem::take(&mut s.boards))
            .unwrap_or_default(),
    };
    let vs = nn::VarStore::new(o.device);
    let net = DeepChessNet::new(&vs);
    let mut t = Trainer {
        o,
        files,
        vs,
        net,
        x,
        batch: o.batch.max(16) as i64,
    };
    let (mut stage, mut done, mut lr) = ("ae0".to_string(), 0usize, o.lr);
    if let Some(p) = &o.init {
        load_init(&mut t.vs, p, true)?;
        stage = "main".into();
    }
    if o.resume {
        (stage, done, lr) = files.load(&mut t.vs)?;
    }
    let train_rows: Vec<i64> = sp.tw.iter().chain(&sp.tb).copied().collect();
    // Stage 1: stacked autoencoders, layer by layer.
    let ae_stage = |s: &str| s.strip_prefix("ae").and_then(|k| k.parse::<usize>().ok());
    for layer in ae_stage(&stage).unwrap_or(4)..4 {
        let start_epoch = if ae_stage(&stage) == Some(layer) {
            done + 1
        } else {
            1
        };
        t.pretrain_layer(layer, start_epoch, &train_rows, lr)?;
        stage = format!("ae{layer}");
        done = o.ae_epochs;
    }
    // Stage 2: the siamese network, end to end, on pairs re-drawn every epoch.
    let start_epoch = if stage == "main" { done + 1 } else { 1 };
    if stage != "main" || (o.init.is_some() && !o.resume) {
        lr = o.lr;
    }
    let best = t.train_siamese(&sp, sib.as_ref(), start_epoch, lr)?;
    Ok(files.summary(
        &format!(
            "DeepChess: {} train positions, {} validation positions",
            sp.tw.len() + sp.tb.len(),
            sp.vw.len() + sp.vb.len()
        ),
        best,
        &o.out,
    ))
}

/// `n` rows drawn from `rows` (with replacement), seeded.
fn pick(rows: &[i64], n: i64, seed: u64) -> Tensor {
    tch::manual_seed(seed as i64);
    let at = Tensor::randint(rows.len() as i64, [n], (TKind::Int64, Device::Cpu));
    Tensor::from_slice(rows).index_select(0, &at)
}

/// Validation pairs drawn once: (White-won rows, Black-won rows, swaps), and the sibling pairs'
/// (first, second, label) when there are siblings.
struct Validation {
    white: Tensor,
    black: Tensor,
    swap: Tensor,
    siblings: Option<(Tensor, Tensor, Tensor)>,
}

impl Trainer<'_> {
    /// Autoencoder `layer` (0..4) of Pos2Vec, epochs `start_epoch..=ae_epochs`: the layers
    /// below it frozen, its decoder rebuilding its input.
    fn pretrain_layer(
        &mut self,
        layer: usize,
        start_epoch: usize,
        train_rows: &[i64],
        lr: f64,
    ) -> Result<(), Error> {
        let o = self.o;
        let mut opt = adamw(&self.vs, o.lr, o.weight_decay)?;
        for epoch in start_epoch..=o.ae_epochs {
            let t0 = Instant::now();
            let idx = shuffled(train_rows, o.seed ^ (layer as u64 * 1000 + epoch as u64));
            let n = idx.size()[0];
            let bar = progress(
                n as u64,
                o.quiet,
                &format!("autoencoder {} epoch {epoch}/{}", layer + 1, o.ae_epochs),
            );
            let (mut sum, mut count) = (0.0, 0.0);
            let mut i = 0;
            while i < n {
                let b = idx.narrow(0, i, self.batch.min(n - i));
                let input = tch::no_grad(|| self.net.embed_upto(&self.xf(&b), layer));
                let code = self.net.pos2vec[layer].forward(&input).relu();
                let recon = self.net.decoders[layer].forward(&code);
                let loss = recon.mse_loss(&input, tch::Reduction::Mean);
                opt.backward_step(&loss);
                sum += f64::try_from(&loss).unwrap_or(f64::NAN) * b.size()[0] as f64;
                count += b.size()[0] as f64;
                i += self.batch;
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
            self.files.log(&e)?;
            self.files.save(&self.vs, &e.stage, epoch, lr)?;
            if !o.quiet {
                eprintln!(
                    "autoencoder {} epoch {epoch}: reconstruction loss {:.5} ({:.0} s)",
                    layer + 1,
                    e.train_loss,
                    e.seconds
                );
            }
        }
        Ok(())
    }

    /// The siamese network, epochs `start_epoch..=epochs`: cross-game pairs (and sibling pairs)
    /// re-drawn every epoch, the net file rewritten at each better validation accuracy.
    /// Returns the best validation accuracy.
    fn train_siamese(
        &mut self,
        sp: &Splits,
        sib: Option<&Siblings>,
        start_epoch: usize,
        mut lr: f64,
    ) -> Result<f64, Error> {
        let o = self.o;
        let mut opt = adamw(&self.vs, lr, o.weight_decay)?;
        // Fixed validation pairs.
        let val_pairs = (sp.vw.len().min(sp.vb.len()) * 4).clamp(1, 200_000) as i64;
        let white = pick(&sp.vw, val_pairs, o.seed ^ 1);
        let black = pick(&sp.vb, val_pairs, o.seed ^ 2);
        tch::manual_seed((o.seed ^ 3) as i64);
        let val = Validation {
            white,
            black,
            swap: Tensor::randint(2, [val_pairs], (TKind::Int64, Device::Cpu)),
            // Fixed validation sibling pairs.
            siblings: sib.filter(|s| !s.val.is_empty()).map(|s| {
                let n = s.val.len().min(200_000) as i64;
                s.draw(&s.val, n, o.seed ^ 4)
            }),
        };
        let mut best = self.files.best_val_acc();
        for epoch in start_epoch..=o.epochs {
            let t0 = Instant::now();
            opt.set_lr(lr);
            let (ea, eb, ey) = epoch_pairs(o, sp, sib, epoch);
            let train = self.fit(&mut opt, &ea, &eb, &ey, epoch);
            let (val_loss, val_acc, sib_note) = self.validate(&val, epoch);
            let e = EpochLog::main(epoch, train, (val_loss, val_acc), lr, t0);
            if !self.files.end_epoch(&self.vs, &e, &mut lr, o, &mut best)? {
                continue; // the net file keeps the best epoch so far
            }
            let acc = format!(
                "{:.2}% (held-out pairs, epoch {epoch}{sib_note})",
                100.0 * val_acc
            );
            export(
                &self.vs,
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
        Ok(best)
    }

    /// One pass over the epoch's pairs (first rows, second rows, labels): (mean loss,
    /// accuracy).
    fn fit(
        &self,
        opt: &mut nn::Optimizer,
        ea: &Tensor,
        eb: &Tensor,
        ey: &Tensor,
        epoch: usize,
    ) -> (f64, f64) {
        let o = self.o;
        let total = ea.size()[0];
        let bar = progress(
            total as u64,
            o.quiet,
            &format!("siamese epoch {epoch}/{}", o.epochs),
        );
        let (mut loss_sum, mut correct, mut count) = (0.0, 0.0, 0.0);
        let mut i = 0;
        while i < total {
            let len = self.batch.min(total - i);
            let (a, b, y) = (
                ea.narrow(0, i, len),
                eb.narrow(0, i, len),
                ey.narrow(0, i, len),
            );
            let logits = self.net.logits_train(&self.xf(&a), &self.xf(&b), o.dropout);
            let y = y.to_device(o.device);
            let loss = logits.cross_entropy_for_logits(&y);
            opt.backward_step(&loss);
            let n = len as f64;
            loss_sum += f64::try_from(&loss).unwrap_or(f64::NAN) * n;
            correct += f64::try_from(&logits.accuracy_for_logits(&y)).unwrap_or(0.0) * n;
            count += n;
            i += self.batch;
            bar.set_position(i.min(total) as u64);
        }
        bar.finish_and_clear();
        (loss_sum / count, correct / count)
    }

    /// Validation loss and accuracy on the fixed pairs (with siblings: the mean of the
    /// cross-game and sibling figures), and a note of both for the net's metadata.
    fn validate(&self, val: &Validation, epoch: usize) -> (f64, f64, String) {
        let dev = self.o.device;
        let n = val.white.size()[0] as usize;
        let (val_loss, val_acc) = validate(n, |i, len| {
            let (a, b, y) = pair_batch(&val.white, &val.black, &val.swap, i as i64, len as i64);
            let logits = self.net.logits(&self.xf(&a), &self.xf(&b));
            let y = y.to_device(dev);
            (
                logits.cross_entropy_for_logits(&y),
                logits.accuracy_for_logits(&y),
            )
        });
        let Some((a, b, y)) = &val.siblings else {
            return (val_loss, val_acc, String::new());
        };
        let (sl, sa) = validate(a.size()[0] as usize, |i, len| {
            let (i, len) = (i as i64, len as i64);
            let logits = self.net.logits(
                &self.xf(&a.narrow(0, i, len)),
                &self.xf(&b.narrow(0, i, len)),
            );
            let y = y.narrow(0, i, len).to_device(dev);
            (
                logits.cross_entropy_for_logits(&y),
                logits.accuracy_for_logits(&y),
            )
        });
        if !self.o.quiet {
            eprintln!(
                "epoch {epoch}: cross-game validation acc {:.2}%, sibling validation acc {:.2}% (logged: their mean)",
                100.0 * val_acc,
                100.0 * sa
            );
        }
        let note = format!(
            "; cross-game pairs {:.2}%, sibling pairs {:.2}%",
            100.0 * val_acc,
            100.0 * sa
        );
        ((val_loss + sl) / 2.0, (val_acc + sa) / 2.0, note)
    }
}

/// The training pairs of `epoch`: cross-game pairs (a White-won and a Black-won position, in
/// random order), with the sibling pairs shuffled in when there are any.
fn epoch_pairs(
    o: &TrainOptions,
    sp: &Splits,
    sib: Option<&Siblings>,
    epoch: usize,
) -> (Tensor, Tensor, Tensor) {
    let pairs = if o.pairs == 0 {
        sp.tw.len().min(sp.tb.len())
    } else {
        o.pairs
    } as i64;
    let ws = pick(&sp.tw, pairs, o.seed ^ (epoch as u64 * 7 + 100));
    let bs = pick(&sp.tb, pairs, o.seed ^ (epoch as u64 * 7 + 101));
    tch::manual_seed((o.seed ^ (epoch as u64 * 7 + 102)) as i64);
    let swap = Tensor::randint(2, [pairs], (TKind::Int64, Device::Cpu));
    let (ea, eb, ey) = pair_batch(&ws, &bs, &swap, 0, pairs);
    let Some(s) = sib else {
        return (ea, eb, ey);
    };
    // Sibling pairs join the cross-game pairs, shuffled together.
    let n = if o.sibling_pairs == 0 {
        s.train.len()
    } else {
        o.sibling_pairs
    } as i64;
    let (a, b, y) = s.draw(&s.train, n, o.seed ^ (epoch as u64 * 7 + 103));
    tch::manual_seed((o.seed ^ (epoch as u64 * 7 + 104)) as i64);
    let perm = Tensor::randperm(pairs + n, (TKind::Int64, Device::Cpu));
    (
        Tensor::cat(&[ea, a], 0).index_select(0, &perm),
        Tensor::cat(&[eb, b], 0).index_select(0, &perm),
        Tensor::cat(&[ey, y], 0).index_select(0, &perm),
    )
}

/// The feature rows that pairs index: rows 0..n the positions, n..2n their colour mirrors (with
/// --mirror), then the sibling children. Kept as boards (66 bytes) and made into 773 features a
/// batch at a time: as dense rows (773 bytes, twice with --mirror) 3.8 million positions and
/// 3.7 million sibling pairs did not fit in 23 GB; a batch's rows cost microseconds.
struct Rows {
    positions: Vec<data::Board>,
    mirror: bool,
    siblings: Vec<data::Board>,
}

impl Rows {
    fn features(&self, row: usize) -> crate::nn::features::Features {
        let n = self.positions.len();
        let m = if self.mirror { 2 * n } else { n };
        if row < n {
            data::deepchess_features(&self.positions[row])
        } else if row < m {
            crate::nn::features::deepchess_mirror(&data::deepchess_features(
                &self.positions[row - n],
            ))
        } else {
            data::deepchess_features(&self.siblings[row - m])
        }
    }

    /// The rows `idx` (a 1-D int64 tensor) as a float tensor [len, 773].
    fn batch(&self, idx: &Tensor) -> Tensor {
        let rows = Vec::<i64>::try_from(idx.contiguous()).unwrap_or_default();
        let mut dense = vec![0f32; rows.len() * 773];
        for (i, &r) in rows.iter().enumerate() {
            for &k in &self.features(r as usize) {
                dense[i * 773 + usize::from(k)] = 1.0;
            }
        }
        Tensor::from_slice(&dense).view([rows.len() as i64, 773])
    }
}

/// DeepChess's sibling pairs: the children q and r of Deep Pink triplets, as boards whose rows
/// follow the position rows, and the triplets of each split.
struct Siblings {
    boards: Vec<data::Board>,
    /// Row of q (r is the next row) and whether q is the better for White (White to move at p).
    train: Vec<(i64, bool)>,
    val: Vec<(i64, bool)>,
}

impl Siblings {
    fn load(path: &std::path::Path, base: i64) -> Result<Siblings, Error> {
        let set = data::read(path)?;
        if set.kind != Kind::DeepPink {
            return Err(Error::NoData(format!(
                "--siblings '{}' is a {} data set; sibling pairs come from Deep Pink triplets (deepred dataset deeppink --datagen ...)",
                path.display(),
                set.kind.name()
            )));
        }
        // Only pairs of equal SEE-resolved material: the comparator search orders positions of
        // different material by material, and asks the net only about the others.
        let keep: Vec<bool> = set
            .records
            .par_iter()
            .map(|r| {
                data::equal_material(
                    &data::board_at(r, BOARD_LEN),
                    &data::board_at(r, 2 * BOARD_LEN),
                )
            })
            .collect();
        let mut boards = Vec::new();
        let (mut train, mut val) = (Vec::new(), Vec::new());
        for (r, _) in set.records.iter().zip(&keep).filter(|(_, k)| **k) {
            let item = (base + boards.len() as i64, r[64] == 0);
            boards.push(data::board_at(r, BOARD_LEN));
            boards.push(data::board_at(r, 2 * BOARD_LEN));
            if r[3 * BOARD_LEN] == 0 {
                train.push(item);
            } else {
                val.push(item);
            }
        }
        eprintln!(
            "sibling pairs: {} of {} triplets have children of equal material (train {}, validation {})",
            train.len() + val.len(),
            set.records.len(),
            train.len(),
            val.len()
        );
        if train.is_empty() {
            return Err(Error::NoData(format!(
                "--siblings '{}' has no triplets in the train split",
                path.display()
            )));
        }
        Ok(Siblings { boards, train, val })
    }

    /// `n` pairs drawn from `items` (with replacement), each in random order: (first rows,
    /// second rows, label 0 when the first is the better for White).
    fn draw(&self, items: &[(i64, bool)], n: i64, seed: u64) -> (Tensor, Tensor, Tensor) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (mut a, mut b, mut y) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..n {
            let (q, q_white) = items[rng.random_range(0..items.len())];
            let swap = rng.random_bool(0.5);
            let (first, second) = if swap { (q + 1, q) } else { (q, q + 1) };
            a.push(first);
            b.push(second);
            // First better for White: q and White to move at p, or r and Black to move.
            y.push(i64::from(q_white == swap));
        }
        (
            Tensor::from_slice(&a),
            Tensor::from_slice(&b),
            Tensor::from_slice(&y),
        )
    }
}

/// Rows `i..i+len` of a pair list: (first, second, label) with label 0 when the first is the
/// White-won position (it is better for White), 1 when the pair was swapped.
pub(super) fn pair_batch(
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

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

use super::data::{self};
use super::deepchess::train_deepchess;
use super::deeppink::train_deeppink;
use super::error::Error;
use super::run::{RunFiles, TrainOptions};
use crate::nn::net::Kind;

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
        Kind::Learned => Err(Error::Torch(
            "the learned net is trained by `deepred train-learned`, not with libtorch".into(),
        )),
    }
}

//! Neural nets as maths (no evaluator traits, no search): native (no libtorch) inference of
//! DeepChess and Deep Pink, their input features, the incremental first layer, SIMD layers, net
//! files and random nets.
//!
//! # Net files
//! safetensors, f32 little-endian, PyTorch `nn.Linear` layout (weight `[out, in]`, bias `[out]`).
//! `__metadata__` (string map) holds at least `format` = `deepred-nn`, `kind` = `deepchess` |
//! `deeppink`, `architecture` (e.g. `773-600-400-200-100/200-400-200-100-2`), `features`
//! (`deepchess773` | `deeppink768`), `games` and `validation_accuracy` (free text), and for Deep
//! Pink optionally `cp_scale` (default `100`). Every layer is ReLU except the last of a stack.
//! - deepchess: Pos2Vec `pos2vec.{0,1,2,3}.{weight,bias}` (773-600-400-200-100, ReLU after every
//!   layer including the last), comparator `cmp.{0,1,2,3}.*` (200-400-200-100-2, ReLU after the
//!   first three). Comparator input = concat(pos2vec(a), pos2vec(b)); softmax(logits)[0] is the
//!   probability that `a` is better for White than `b`.
//! - deeppink: `layers.{0..k}.*`, 768-H1-...-1 (sizes read from the tensors); output f(p) is the
//!   score for the side to move, centipawns = f * cp_scale.
//!
//! - learned: `ft.{weight,bias}` (768-H, the feature transformer shared by both views) and
//!   `out.{weight,bias}` (2H-1); see [`value`] (quantised when loaded).
//!
//! A missing, truncated or foreign file, a wrong kind, a missing tensor or a wrong shape is an
//! error that names the file and the problem (see [`net`]).
//!
//! # Features
//! Square index = shakmaty `Square as usize` (a1 = 0 .. h8 = 63); piece index 0..5 = pawn, knight,
//! bishop, rook, queen, king.
//! - deepchess773: `colour*384 + piece*64 + square` (white 0, black 1); 768 = White to move;
//!   769..772 = castling rights White king-side, White queen-side, Black king-side, Black
//!   queen-side.
//! - deeppink768: from the side to move's view: with Black to move, ranks are mirrored
//!   (`square ^ 56`) and colours swapped; index = (0 mover, 1 opponent)*384 + piece*64 + square.

pub mod cache;
pub mod deepchess;
pub mod deeppink;
pub mod embedded;
mod error;
pub mod features;
pub mod layers;
pub mod net;
pub mod random;
pub mod value;

pub use deepchess::DeepChess;
pub use deeppink::DeepPink;
pub use error::{Error, Problem};

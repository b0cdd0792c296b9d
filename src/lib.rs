//! Deep Red: a UCI chess engine with pluggable evaluators that learns from experience.
//!
//! Layers, bottom up; each imports only the layers below it (`tests/layers.rs` checks it):
//! - [`chess`]: the ground floor on shakmaty alone (FEN, keys, move text, rules, scores, PGN);
//! - [`nn`]: neural nets as maths (layers, net files, features, DeepChess, Deep Pink);
//! - [`experience`]: the experience store, its records, the book, import and live learning;
//! - [`eval`]: the evaluator traits and one file per evaluator;
//! - [`search`]: the searches, reporting through a callback;
//! - [`player`]: one game played with Deep Red, protocol-free (the evaluator choice, learning
//!   from the game, the search memory, the book);
//! - [`uci`]: the protocol;
//! - [`games`]: self-play, terminal play, matches and the client for child engines;
//! - [`train`]: data sets, training (feature `torch`), accuracy, plots;
//! - [`tools`]: the EPD/STS runner and the kernel benchmark;
//! - [`learn`]: the learning loop (self-play, training, gating, promotion), on one machine or a
//!   farm.
//!
//! The binary (`main.rs`, `cli.rs`, `cmd/`) sits on top and only dispatches.

pub mod chess;
pub mod eval;
pub mod experience;
pub mod games;
pub mod learn;
pub mod nn;
pub mod player;
pub mod search;
pub mod tools;
pub mod train;
pub mod uci;
pub mod web;

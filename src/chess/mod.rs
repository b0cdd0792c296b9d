//! The ground floor: the chess every other layer shares, on shakmaty (and shakmaty-syzygy). FEN, position keys
//! and incremental play, move text, the rules of a finished game, scores and piece values,
//! extra move generation and static exchange for the search, perft, the board diagram, PGN,
//! Syzygy tablebases, training positions (bulletformat).

pub mod bullet;
pub mod display;
mod error;
pub mod fen;
pub mod files;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod pgn;
pub mod rules;
pub mod score;
pub mod see;
pub mod syzygy;
pub mod zobrist;

pub use error::Error;

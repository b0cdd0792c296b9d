//! The ground floor: the chess every other layer shares, on shakmaty alone. FEN, position keys
//! and incremental play, move text, the rules of a finished game, scores and piece values,
//! extra move generation and static exchange for the search, perft, the board diagram, PGN.

pub mod display;
pub mod fen;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod pgn;
pub mod rules;
pub mod score;
pub mod see;
pub mod zobrist;

/// Why a position could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Not FEN at all (the text as given, shakmaty's reason).
    #[error("invalid FEN '{fen}': {reason}")]
    InvalidFen { fen: String, reason: String },
    /// FEN that describes no legal position.
    #[error("illegal position '{fen}': {reason}")]
    IllegalPosition { fen: String, reason: String },
}

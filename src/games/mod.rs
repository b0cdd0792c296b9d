//! Games: reading and writing PGN, self-play, terminal play (and, to come, matches).

pub mod pgn;
pub mod play;
pub mod selfplay;

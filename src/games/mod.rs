//! Games: PGN, self-play, matches against other engines, terminal play.

pub mod matchrun;
pub mod pgn;
pub mod play;
pub mod selfplay;

//! Games: PGN, self-play, matches against other engines, terminal play.

pub mod matchrun;

pub mod play;
pub mod selfplay;

//! Games: reading PGN (and, with the experience issue, self-play, matches and terminal play).

pub mod pgn;
pub mod selfplay;

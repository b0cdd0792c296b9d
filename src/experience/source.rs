//! Where a game of the store came from: each game Deep Red played carries one of these names;
//! an imported game carries its PGN file's name. Training weighs games by these names
//! (`positions::PositionFilter`), so every caller that stores a game names its source here.

/// `deepred selfplay`.
pub const SELFPLAY: &str = "selfplay";
/// `deepred learn`'s self-play.
pub const LEARN: &str = "learn";
/// `deepred match --learn`.
pub const MATCH: &str = "match";
/// `deepred play`, against a human at the terminal.
pub const PLAY: &str = "play";
/// A game followed over UCI with `Learning` on (a GUI, a tournament manager).
pub const UCI: &str = "uci";
/// A game played in the browser (`deepred web`).
pub const WEB: &str = "web";

/// The sources of the games Deep Red played.
pub const PLAYED: [&str; 6] = [SELFPLAY, LEARN, MATCH, PLAY, UCI, WEB];

/// Whether a game of this source was imported (any name but Deep Red's own).
pub fn is_import(source: &str) -> bool {
    !PLAYED.contains(&source)
}

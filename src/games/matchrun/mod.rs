//! `deepred match`: Deep Red (or any UCI engine) against another UCI engine.
//!
//! Both players run as UCI child processes (Deep Red is this executable started with `uci`), so
//! every engine is driven through the same protocol path a GUI uses. Games go in pairs: each
//! opening is played twice with colours swapped. The runner keeps the clocks, adjudicates
//! (rules, score-based draw and resignation, a ply cap), turns crashes, illegal moves and time
//! losses into lost games, restarts a crashed engine for the next game, appends every finished
//! game to the PGN file at once, learns the games decided on the board into the experience store
//! (`--learn`), and sums the result up with an Elo estimate and its 95% error bar from games
//! (trinomial) and from game pairs (pentanomial); `--sprt` stops the match once a sequential
//! probability ratio test on the pairs accepts a hypothesis; `--resume` counts the games
//! already in the PGN file and plays the rest. Ctrl-C (under `deepred match`) stops it with the
//! summary of the games finished.

mod adjudication;
mod clock;
mod options;
mod report;
mod resume;
mod runner;
mod sprt;
mod stats;

pub use adjudication::{Adjudication, adjudicate};
pub use clock::{GameClock, MoveLimit, TimeControl};
pub use options::{EngineSpec, MatchOptions};
pub use report::{Ending, GameOutcome, MatchReport, SprtState, game_line};
pub use runner::{STOP, STOP_WATCHED, run};
pub use sprt::{Sprt, Verdict};
pub use stats::{Pentanomial, Tally, format_elo};

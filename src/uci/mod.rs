//! The protocol over the player (`crate::player`): the engine's command loop ([`engine`]), the
//! parsing of `position` and `go` ([`command`]), the options ([`options`]) and the output lines
//! ([`output`]).

pub mod command;
pub mod engine;
mod error;
pub mod options;
pub mod output;

pub use command::{Game, parse_go, parse_position};
pub use engine::{ENGINE_AUTHOR, ENGINE_NAME, Engine};
pub use error::Error;

//! The protocol: the engine's command loop ([`engine`]), the parsing of `position` and `go`
//! ([`command`]), the options ([`options`]), the output lines ([`output`]) and the experience
//! hooks (following games to learn them, the book: [`experience`]).

pub mod command;
pub mod engine;
mod error;
pub mod experience;
pub mod options;
pub mod output;

pub use command::{Game, parse_go, parse_position};
pub use engine::{ENGINE_AUTHOR, ENGINE_NAME, Engine};
pub use error::Error;

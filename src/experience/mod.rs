//! The experience tree: every finished game updates per-move win/draw/loss counts in a store
//! (SQLite) split into White's and Black's moves. Board codecs, the records, the store, the one
//! book lookup, PGN import, and the learning of games followed over UCI.

pub mod book;
pub mod codec;
mod error;
pub mod import;
pub mod live;
pub mod location;
pub mod memory;
pub mod polyglot;
pub mod positions;
pub mod records;
pub mod source;
pub mod store;
pub mod walk;

pub use error::Error;

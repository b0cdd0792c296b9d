//! The experience tree (issue 3): board codecs and the SQLite store.

pub mod codec;
pub mod import;
pub mod live;
pub mod store;

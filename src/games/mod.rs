//! Games Deep Red plays: self-play, terminal play against a human, matches against other UCI
//! engines, and the UCI client that drives child engines.

pub mod client;
pub mod datagen;
mod error;
pub mod genfens;
pub mod matchrun;
pub mod play;
pub mod selfplay;

pub use error::Error;

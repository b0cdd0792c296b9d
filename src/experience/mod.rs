//! The experience tree (issue 3). So far: the board codecs.

pub mod codec;

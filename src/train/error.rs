//! What can go wrong while building data sets, training, scoring or plotting nets.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read '{}': {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot create '{}': {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write '{}': {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A data set file that cannot be used.
    #[error("data set '{}': {problem}", path.display())]
    Dataset { path: PathBuf, problem: String },
    /// A board block of a data set that is no position.
    #[error("{0}")]
    Board(String),
    #[error("{0} records do not fit the format's u32 count")]
    TooManyRecords(u64),
    /// Nothing to score or train on.
    #[error("{0}")]
    NoData(String),
    #[error(transparent)]
    Net(#[from] crate::nn::Error),
    #[error(transparent)]
    Chess(#[from] crate::chess::Error),
    /// The experience store, read for its games.
    #[error(transparent)]
    Store(#[from] crate::experience::Error),
    /// libtorch refused (feature `torch`).
    #[error("{0}")]
    Torch(String),
    /// Nets that cannot be averaged (`deepred nn average`).
    #[error("{0}")]
    Average(String),
    /// A plot that cannot be drawn or written (the message names the file).
    #[error("{0}")]
    Plot(String),
    /// A checkpoint or a run directory that cannot be used for `--resume`.
    #[error("{0}")]
    Resume(String),
}

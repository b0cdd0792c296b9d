//! Why the chess layer refused something: a position that could not be read, a Syzygy table
//! directory or file that could not be used, a tablebase probe that failed.

/// Why a position could not be read, or the tablebases could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Not FEN at all (the text as given, shakmaty's reason).
    #[error("invalid FEN '{fen}': {reason}")]
    InvalidFen { fen: String, reason: String },
    /// FEN that describes no legal position.
    #[error("illegal position '{fen}': {reason}")]
    IllegalPosition { fen: String, reason: String },
    /// A `SyzygyPath` directory that cannot be listed (missing, not a directory, no permission).
    #[error("Syzygy directory '{dir}': {reason}")]
    SyzygyDir { dir: String, reason: String },
    /// A table file that cannot be used; it is left out, the other tables stay.
    #[error("Syzygy table '{file}': {reason}; left out")]
    SyzygyTable { file: String, reason: String },
    /// A file of training positions that cannot be read.
    #[error("training data '{file}': {reason}")]
    TrainingData { file: String, reason: String },
    /// A probe that failed (a corrupt or unreadable table found while probing: `what` names
    /// the file where it is known).
    #[error("Syzygy probe of {what}: {reason}")]
    SyzygyProbe { what: String, reason: String },
}

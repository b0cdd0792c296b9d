//! Why a UCI command or option value was refused (sent as `info string error: ...`; the
//! previous state stays).

#[derive(Debug, thiserror::Error)]
pub enum Error {
    // `position`
    #[error("expected 'position startpos' or 'position fen <FEN>'")]
    PositionSyntax,
    /// A position that cannot be read, a tablebase file or directory that cannot be used.
    #[error(transparent)]
    Chess(#[from] crate::chess::Error),
    #[error("move {number} '{text}' is not a UCI move")]
    NotAMove { number: usize, text: String },
    #[error("move {number} '{text}' is illegal in {fen}")]
    IllegalMove {
        number: usize,
        text: String,
        fen: String,
    },

    // `setoption`
    #[error("option '{name}' needs a value")]
    NeedsValue { name: String },
    #[error("option '{name}': '{value}' is not a number")]
    NotANumber { name: String, value: String },
    #[error("option '{name}': {value} is outside {min}..{max}; unchanged")]
    OutOfRange {
        name: String,
        /// As given (a number past i64 too: it was called "not a number").
        value: String,
        min: i64,
        max: i64,
    },
    #[error("option '{name}' takes true or false")]
    NotABool { name: String },
    #[error(
        "option 'Hash': {mb} MB is more than this machine can spare ({available} MB available); unchanged"
    )]
    HashTooLarge { mb: usize, available: u64 },
    #[error("option 'ExperienceFile' needs a file name")]
    NeedsFileName,
    #[error("unknown option '{name}'")]
    UnknownOption { name: String },
    /// A change of evaluator refused or undone (`Evaluator`, `EvalFile`, the store it reads).
    #[error(transparent)]
    Choice(#[from] crate::player::evaluator::Error),
    #[error(transparent)]
    Evaluator(#[from] crate::eval::Error),
    /// The experience store cannot be used (its folder cannot be made...).
    #[error(transparent)]
    Store(crate::experience::Error),
}

//! Why a test suite cannot be read or run.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("fewer than 4 FEN fields")]
    FenFields,
    #[error(transparent)]
    Fen(#[from] crate::chess::Error),
    #[error("bad c8 points '{0}'")]
    Points(String),
    #[error("bad bm move '{0}'")]
    BadBestMove(String),
    #[error("illegal bm move '{0}'")]
    IllegalBestMove(String),
    #[error("illegal c9 move '{0}' (c9 gives moves in UCI, or SAN)")]
    IllegalPointsMove(String),
    #[error("c8 and c9 have different lengths")]
    PointsMismatch,
    #[error("no c8/c9 points and no bm move")]
    NoAnswer,
    /// A learning curve that cannot be read or drawn.
    #[error("learning curve: {0}")]
    Curve(String),
    /// A plot that cannot be drawn or written (the message names the file).
    #[error("{0}")]
    Plot(String),
    /// The engine under test.
    #[error(transparent)]
    Engine(#[from] crate::games::Error),
}

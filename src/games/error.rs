//! What can stop a game, a match or self-play: engines that cannot be started or do not speak
//! UCI, unreadable openings, bad time controls, files that cannot be written, the store.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `datagen`: its output file or progress record.
    #[error("datagen: {0}")]
    Datagen(String),
    #[error("cannot start engine '{program}': {source}")]
    Start {
        program: String,
        source: std::io::Error,
    },
    #[error("engine '{program}' has no {pipe}")]
    NoPipe { program: String, pipe: &'static str },
    #[error("{source} (is it a UCI engine?)")]
    NotUci { source: Box<Error> },
    #[error("empty engine command")]
    EmptyCommand,
    #[error("engine '{name}' closed its input: {source}")]
    Closed {
        name: String,
        source: std::io::Error,
    },
    #[error("engine '{name}' refused its options: {why}")]
    OptionRefused { name: String, why: String },
    #[error("engine '{name}' did not answer in time: no '{awaited}'")]
    NoAnswer { name: String, awaited: &'static str },
    #[error("engine '{name}' exited")]
    Exited { name: String },
    #[error("cannot find the deepred executable: {0}")]
    NoExecutable(std::io::Error),
    #[error("time control '{text}': {why}")]
    TimeControl { text: String, why: &'static str },
    #[error("bad --sprt '{text}': {why}")]
    Sprt { text: String, why: &'static str },
    #[error("cannot open '{}': {source}", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read '{}': {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {source}", path.display())]
    Opening {
        path: PathBuf,
        line: usize,
        source: crate::chess::Error,
    },
    #[error("{0}")]
    PgnWrite(String),
    #[error("cannot resume from '{}': {why}", path.display())]
    Resume { path: PathBuf, why: String },
    #[error("{}:{line}: the game is over in this position (mate, stalemate or no mating material): not an opening", path.display())]
    FinishedOpening { path: PathBuf, line: usize },
    #[error("'{}': no game could be read ({why})", path.display())]
    NoGames { path: PathBuf, why: String },
    #[error("'{}' has no opening", path.display())]
    NoOpenings { path: PathBuf },
    /// A game could not be played (the engines could not be set up for it).
    #[error("game {round}: {source}")]
    Game { round: usize, source: Box<Error> },
    #[error(transparent)]
    Experience(#[from] crate::experience::Error),
    /// The match was stopped (Ctrl-C) while the game was played: it is dropped.
    #[error("stopped")]
    Stopped,
}

//! What can go wrong with the experience store, its codecs and imports. Every message names the
//! file; store errors say whether anything was lost (never: writes are whole transactions).

use std::path::{Path, PathBuf};

use shakmaty::Square;

use super::store::SCHEMA_VERSION;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An import that failed part-way: the batches before the failing one are in the store.
    #[error(
        "{source}; the import stopped there: {learned} games were learned before it ({known} already known), and the batch that failed was rolled back whole (import the same files again to go on)"
    )]
    ImportStopped {
        learned: usize,
        known: usize,
        source: Box<Error>,
    },
    #[error(
        "experience store '{}' is not a Deep Red experience database or is corrupt ({detail})",
        path.display()
    )]
    NotADatabase { path: PathBuf, detail: String },
    #[error("experience store '{}' is read-only ({detail})", path.display())]
    ReadOnly { path: PathBuf, detail: String },
    #[error(
        "experience store '{}': the disk is full; nothing of the current game was written ({detail})",
        path.display()
    )]
    DiskFull { path: PathBuf, detail: String },
    #[error(
        "experience store '{}': a write failed (disk full, file size limit or I/O error); nothing of the current game was written ({detail})",
        path.display()
    )]
    WriteFailed { path: PathBuf, detail: String },
    /// Any other error of the database engine.
    #[error("experience store '{}': {detail}", path.display())]
    Database { path: PathBuf, detail: String },
    #[error("experience store '{}' does not exist", path.display())]
    Missing { path: PathBuf },
    /// Deep Red's data folder cannot be made (the default store lives there).
    #[error(
        "cannot create Deep Red's data folder '{}' ({source}); set ExperienceFile (or --db) to a writable file, or DEEPRED_HOME to a writable folder",
        path.display()
    )]
    DataDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot make the store '{}': its folder does not exist (make it first, or name another store: --db, ExperienceFile)",
        path.display()
    )]
    NoFolder { path: PathBuf },
    #[error(
        "cannot use '{}' as a store: it is {what}, not a file (name a file)",
        path.display()
    )]
    NotAFile { path: PathBuf, what: &'static str },
    /// An SQLite file without any table: new, or its first import was stopped before the
    /// first batch committed. Importing into it makes it a store.
    #[error(
        "experience store '{}' is empty: nothing has been learned into it yet (import games into it first)",
        path.display()
    )]
    Empty { path: PathBuf },
    #[error(
        "'{}' is a database of another application (tables, but no 'meta' table); refusing to use it",
        path.display()
    )]
    ForeignDatabase { path: PathBuf },
    #[error(
        "'{}' belongs to another application ({}); refusing to use it",
        path.display(),
        application.as_deref().map_or("its 'meta' table names none".to_string(), |a| format!("'{a}'"))
    )]
    OtherApplication {
        path: PathBuf,
        application: Option<String>,
    },
    #[error("'{}' has no valid schema version", path.display())]
    NoSchemaVersion { path: PathBuf },
    #[error(
        "'{}' has schema version {version}, newer than this Deep Red ({SCHEMA_VERSION}); update Deep Red",
        path.display()
    )]
    Newer { path: PathBuf, version: i64 },
    #[error("experience store '{}': corrupt key: {source}", path.display())]
    CorruptKey {
        path: PathBuf,
        #[source]
        source: Box<Error>,
    },
    #[error("experience store '{}': a stored game does not replay ({detail})", path.display())]
    CorruptGame { path: PathBuf, detail: String },
    #[error(
        "cannot merge '{}' into '{}': both know the game {game}, and neither kept its moves (learned before schema version 4), so its counts cannot be taken off once; nothing was written. Re-import that game's PGN into a fresh store instead",
        from.display(), into.display()
    )]
    MergeWithoutMoves {
        from: PathBuf,
        into: PathBuf,
        /// "White - Black (date)".
        game: String,
    },
    /// The PostgreSQL server could not be reached or refused the connection.
    #[error("experience server '{}': cannot connect ({detail}); nothing was written", path.display())]
    Connect { path: PathBuf, detail: String },
    #[error("experience server '{}': the server refused the user or password ({detail}); nothing was written", path.display())]
    Credentials { path: PathBuf, detail: String },
    #[error("experience server URL '{}' is not valid: {detail}", path.display())]
    BadUrl { path: PathBuf, detail: String },
    /// An error of the server while reading or writing; `code` is the SQLSTATE.
    #[error("experience server '{}': {detail}; nothing of the current transaction was written", path.display())]
    Server {
        path: PathBuf,
        detail: String,
        code: Option<String>,
    },
    /// The import's writer thread died.
    #[error("the store writer thread panicked")]
    WriterPanicked,

    // The codecs.
    #[error("a key has at least 8 bytes, this one {len}")]
    KeyTooShort { len: usize },
    #[error("key of {len} bytes does not match its {occupied} occupied squares")]
    KeyLength { len: usize, occupied: usize },
    #[error("en passant pawn on {square}, not on rank 4 or 5")]
    KeyEnPassant { square: Square },
    #[error("key decodes to an illegal position: {reason}")]
    KeyIllegal { reason: String },
    #[error("a board string has 64 characters, not {len}")]
    BoardStringLength { len: usize },
    #[error("invalid character '{ch}' at index {index} of a board string")]
    BoardStringChar { ch: char, index: usize },
}

impl Error {
    /// The store error of an SQLite error, classified by what the user can do about it.
    pub(crate) fn sqlite(path: &Path, e: rusqlite::Error) -> Error {
        let detail = e.to_string();
        let path = path.to_path_buf();
        if detail.contains("not a database") || detail.contains("malformed") {
            Error::NotADatabase { path, detail }
        } else if detail.contains("readonly") || detail.contains("read-only") {
            Error::ReadOnly { path, detail }
        } else if detail.contains("disk is full") || detail.contains("database or disk is full") {
            Error::DiskFull { path, detail }
        } else if detail.contains("disk I/O error") {
            Error::WriteFailed { path, detail }
        } else if detail.contains("database is locked") {
            let detail = format!(
                "{detail}: another process held its write lock for the {} s this one waited (an import, a merge, a vacuum?); try again when it is done",
                super::store::BUSY_TIMEOUT.as_secs()
            );
            Error::Database { path, detail }
        } else {
            Error::Database { path, detail }
        }
    }

    /// Whether this says the store's server went away (restarted, the connection cut by the
    /// server or the network), not that it refused what was asked: no connection, or one the
    /// server ended (SQLSTATE class 57P, operator intervention: a shutdown) or lost (class 08,
    /// or no SQLSTATE at all). The same store opened again may work once the server is back.
    pub fn server_gone(&self) -> bool {
        match self {
            Error::Connect { .. } => true,
            Error::Server { code, .. } => code
                .as_deref()
                .is_none_or(|c| c.starts_with("57P") || c.starts_with("08")),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store another process keeps locked says why and what to do, not only SQLite's words.
    #[test]
    fn a_locked_store_says_who_holds_it() {
        let a = std::env::temp_dir().join(format!("deepred-lock-{}.sqlite", std::process::id()));
        let first = rusqlite::Connection::open(&a).unwrap();
        first
            .execute_batch("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1);")
            .unwrap();
        let second = rusqlite::Connection::open(&a).unwrap();
        second.busy_timeout(std::time::Duration::ZERO).unwrap();
        let e = second.execute("INSERT INTO t VALUES (2)", []).unwrap_err();
        let text = Error::sqlite(&a, e).to_string();
        assert!(
            text.contains("database is locked: another process held its write lock"),
            "{text}"
        );
        drop((first, second));
        let _ = std::fs::remove_file(&a);
    }
}

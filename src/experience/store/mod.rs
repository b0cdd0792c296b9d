//! The experience store: one row per known move, in an SQLite file (the embedded default) or
//! on a PostgreSQL server (`postgresql://user@host/db` where a file name goes; postgres.rs),
//! behind one interface: the write primitives of a transaction (tx.rs) are the backends' only
//! difference for writes, reads have one query per backend.
//!
//! Tables (see DESIGN.md): `white_moves` and `black_moves` (the mover's colour) with `id`,
//! `parent` (compact key), `mv` (UCI), `child` (compact key), `white_wins`, `black_wins`,
//! `draws`. Since schema version 2 they are `WITHOUT ROWID` tables whose primary key is
//! (parent, mv): the unique key is the table itself and also the index by parent, which makes
//! rows 37% smaller and imports faster than a rowid table plus a unique index (version 1, which
//! is migrated on first write). `id` numbers rows in the order they were first learned: unique
//! and increasing, with gaps (the next id of each table is kept in `meta`); `games`
//! (source, players, result, date, a content hash, unique); `meta` (application, schema version).
//! Version 3 adds `search_memory` (what the searches of learned games found, by Zobrist key:
//! best move, score, depth; see `experience::memory`), migrated in place from 2 (empty).
//! Version 4 keeps each game's start position and moves (`games.start`, `games.moves`), so that
//! `merge` can count a game known to two stores once and `export --pgn` can write the games;
//! games learned before have none.
//! WAL mode with a busy timeout, so several processes can learn into one file. Games are learned
//! in transactions that hold whole games only: a crash never leaves half a game.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use shakmaty::Color;

use super::{Error, location};

/// The SQLite connection of `$store`, or (returned from the calling function) the PostgreSQL
/// backend's answer `$call` to the same question.
macro_rules! sqlite_or {
    ($store:ident, $pg:ident => $call:expr) => {
        match &$store.backend {
            Backend::Sqlite(conn) => conn,
            Backend::Postgres($pg) => return $call,
        }
    };
}

mod memory;
mod merge;
mod nets;
mod postgres;
mod prune;
mod read;
mod tx;
mod write;

pub use super::location::is_server_url;
pub use memory::GameSearches;
pub use merge::{Merged, record_of};
pub use nets::StoredNet;
pub use prune::Pruned;
pub use tx::{MemoryRow, StoredGame};

use tx::{SqliteTx, Tx};

pub const APPLICATION: &str = "deepred-experience";
pub const SCHEMA_VERSION: i64 = 5;

/// Summary for `deepred experience stats`.
#[derive(Clone, Debug)]
pub struct Stats {
    pub games: u64,
    pub white_rows: u64,
    pub black_rows: u64,
    pub positions: u64,
    pub file_bytes: u64,
}

impl Stats {
    pub fn bytes_per_row(&self) -> f64 {
        self.file_bytes as f64 / (self.white_rows + self.black_rows).max(1) as f64
    }
    pub fn bytes_per_game(&self) -> f64 {
        self.file_bytes as f64 / self.games.max(1) as f64
    }
}

/// What learning one game did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learned {
    /// New game: its rows were added or updated.
    New { rows: usize },
    /// The same game (content hash) was learned before: nothing changed.
    AlreadyKnown,
}

/// Each result's count column and its PGN text.
const RESULT_COLUMNS: [(&str, &str); 3] = [
    ("white_wins", "1-0"),
    ("black_wins", "0-1"),
    ("draws", "1/2-1/2"),
];

/// A whole row as read back: (parent, move, child, white wins, black wins, draws).
pub type StoredRow = (Vec<u8>, String, Vec<u8>, u64, u64, u64);

/// An open experience store.
pub struct Store {
    backend: Backend,
    /// The file, or the server's URL without its password (what messages name).
    path: PathBuf,
    /// The schema version (older only when opened read-only: then columns of later versions
    /// read as empty).
    version: i64,
}

enum Backend {
    Sqlite(Connection),
    Postgres(Box<postgres::PgStore>),
}

/// `location` as messages show it: a file's path, or a server URL without its password.
pub fn shown(location: &Path) -> String {
    if is_server_url(location) {
        postgres::redact(&location.to_string_lossy())
    } else {
        location.display().to_string()
    }
}

/// One line for people about the store `path`: where it is, and how to move a store found in
/// the old default place.
pub fn describe(path: &Path) -> String {
    let shown = shown(path);
    if path == Path::new(location::LEGACY_STORE)
        && let Some(dir) = location::data_dir()
    {
        return format!(
            "experience store '{shown}' (the old default place, the working directory; to use it from every folder, move it: mv {} '{}')",
            location::LEGACY_STORE,
            dir.join(location::STORE_NAME).display()
        );
    }
    format!("experience store '{shown}'")
}

/// The DDL of a moves table (version 2).
fn moves_table_sql(name: &str) -> String {
    format!(
        "CREATE TABLE {name} (
             parent BLOB NOT NULL, mv TEXT NOT NULL, id INTEGER NOT NULL, child BLOB NOT NULL,
             white_wins INTEGER NOT NULL DEFAULT 0, black_wins INTEGER NOT NULL DEFAULT 0,
             draws INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (parent, mv)) WITHOUT ROWID;"
    )
}

/// The DDL of the search memory (version 3): one row per remembered position, keyed by its
/// Zobrist key (as a signed 64-bit integer), with the best move's 16-bit code, the search's score
/// for the side to move, the depth searched, what game results added to the score (`learned`)
/// and how many results did; since version 5 `seq`, the number of the write that last changed
/// the row (`meta` `memory_seq` counts them), so that a reader can fetch what changed since it
/// last read.
const MEMORY_TABLE_SQL: &str = "CREATE TABLE IF NOT EXISTS search_memory (
     key INTEGER PRIMARY KEY, mv INTEGER NOT NULL, score INTEGER NOT NULL,
     depth INTEGER NOT NULL, learned INTEGER NOT NULL DEFAULT 0,
     updates INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
     CREATE INDEX IF NOT EXISTS search_memory_seq ON search_memory (seq);";

/// Runs `f` in an IMMEDIATE transaction (committed if it succeeds, rolled back if not).
fn in_transaction(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match f(conn) {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// How many tables the SQLite file holds, or whether it holds the one named `name` (0 or 1).
fn table_count(conn: &Connection, name: Option<&str>) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND (?1 IS NULL OR name = ?1)",
        [name],
        |r| r.get(0),
    )
}

fn table(mover: Color) -> &'static str {
    match mover {
        Color::White => "white_moves",
        Color::Black => "black_moves",
    }
}

/// How long a store waits for another process's lock before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Switches the store to WAL mode. On a file not yet in WAL mode SQLite does that by upgrading a
/// read transaction to a write one, and answers `SQLITE_BUSY` at once (without its busy handler)
/// while another process holds the write lock, e.g. two imports starting together on a new
/// store: so retry until `BUSY_TIMEOUT`.
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let start = std::time::Instant::now();
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0)) {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::DatabaseBusy
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(err) => return Err(err),
        }
    }
}

/// The schema version of the SQLite store in `conn`, or why it is not a store this version can
/// open (another application's file, or a newer schema).
fn meta_version(conn: &Connection, path: &Path) -> Result<i64, Error> {
    let get = |k: &str| -> Result<Option<String>, Error> {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0))
            .optional()
            .map_err(|e| Error::sqlite(path, e))
    };
    let path = || path.to_path_buf();
    match get("application")? {
        Some(app) if app == APPLICATION => {}
        application => {
            return Err(Error::OtherApplication {
                path: path(),
                application,
            });
        }
    }
    let version: i64 = get("schema_version")?
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| Error::NoSchemaVersion { path: path() })?;
    if version > SCHEMA_VERSION {
        return Err(Error::Newer {
            path: path(),
            version,
        });
    }
    Ok(version)
}

impl Store {
    /// Opens (creating it if missing) the store at `path`. A file of another application or of
    /// a newer schema is refused with a clear message and left untouched.
    pub fn open(path: &Path) -> Result<Store, Error> {
        if is_server_url(path) {
            return postgres::PgStore::open(path, false);
        }
        location::prepare(path)?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| Error::sqlite(path, e))?;
        Self::setup(conn, path)
    }

    /// Opens an existing store read-only (for `stats` and `show`).
    pub fn open_read_only(path: &Path) -> Result<Store, Error> {
        if is_server_url(path) {
            return postgres::PgStore::open(path, true);
        }
        if !crate::experience::location::is_sqlite_uri(path) && !path.exists() {
            return Err(Error::Missing {
                path: path.to_path_buf(),
            });
        }
        if path.is_dir() {
            return Err(Error::Database {
                path: path.to_path_buf(),
                detail: "it is a folder, not a store file".into(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| Error::sqlite(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| Error::sqlite(path, e))?;
        // A file with no table at all is a store whose first write never committed (or an
        // empty file): say so, rather than "no such table".
        let tables = table_count(&conn, None).map_err(|e| Error::sqlite(path, e))?;
        if tables == 0 {
            return Err(Error::Empty {
                path: path.to_path_buf(),
            });
        }
        // Tables, but no `meta`: another application's database, said so (it was SQLite's
        // "no such table: meta").
        if table_count(&conn, Some("meta")).map_err(|e| Error::sqlite(path, e))? == 0 {
            return Err(Error::ForeignDatabase {
                path: path.to_path_buf(),
            });
        }
        let mut store = Store {
            backend: Backend::Sqlite(conn),
            path: path.to_path_buf(),
            version: SCHEMA_VERSION,
        };
        store.version = store.check_meta()?;
        Ok(store)
    }

    fn setup(conn: Connection, path: &Path) -> Result<Store, Error> {
        let e = |err| Error::sqlite(path, err);
        conn.busy_timeout(BUSY_TIMEOUT).map_err(e)?;
        // Refuse foreign files before writing anything to them.
        let has_tables = table_count(&conn, None).map_err(e)?;
        let has_meta = table_count(&conn, Some("meta")).map_err(e)?;
        if has_tables > 0 && has_meta == 0 {
            return Err(Error::ForeignDatabase {
                path: path.to_path_buf(),
            });
        }
        // Another application's `meta` table, or a newer schema: refused untouched too.
        if has_tables > 0 {
            meta_version(&conn, path)?;
        }
        // Large pages: a bulk import inserts at random all over the key space, and big pages
        // split less often (32 KiB measured fastest; an existing file keeps its page size).
        conn.pragma_update(None, "page_size", 32_768).map_err(e)?;
        set_wal(&conn).map_err(e)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(e)?;
        // 256 MB of page cache: the (parent, mv) index is hit at random.
        conn.pragma_update(None, "cache_size", -262_144)
            .map_err(e)?;
        let create = |conn: &Connection| -> rusqlite::Result<()> {
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 INSERT OR IGNORE INTO meta (key, value) VALUES ('application', 'deepred-experience');
                 CREATE TABLE IF NOT EXISTS games (
                     id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, source TEXT NOT NULL,
                     white TEXT NOT NULL, black TEXT NOT NULL, result TEXT NOT NULL, date TEXT NOT NULL,
                     plies INTEGER NOT NULL, rows INTEGER NOT NULL, learned_at INTEGER NOT NULL,
                     start TEXT, moves BLOB, evals BLOB);
                 CREATE TABLE IF NOT EXISTS nets (
                     generation INTEGER PRIMARY KEY, kind TEXT NOT NULL, parent INTEGER,
                     created_at INTEGER NOT NULL, bytes BLOB NOT NULL);
                 CREATE INDEX IF NOT EXISTS games_source_white ON games (source, white);",
            )?;
            if table_count(conn, Some("white_moves"))? == 0 {
                conn.execute_batch(&format!(
                    "{} {} {MEMORY_TABLE_SQL} INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');",
                    moves_table_sql("white_moves"),
                    moves_table_sql("black_moves")
                ))?;
            }
            Ok(())
        };
        in_transaction(&conn, create).map_err(e)?;
        let store = Store {
            backend: Backend::Sqlite(conn),
            path: path.to_path_buf(),
            version: SCHEMA_VERSION,
        };
        if store.check_meta()? < SCHEMA_VERSION {
            store.migrate()?;
        }
        Ok(store)
    }

    /// Brings an older store to this version in one transaction, step by step: version 1
    /// (rowid tables with a unique index) to 2 (`WITHOUT ROWID` tables keyed on (parent, mv)),
    /// keeping every row and its id; 2 to 3 (the search memory table, empty); 3 to 4 (games'
    /// start and moves, unknown for the games already learned); 4 to 5 (games' evaluations,
    /// none for the games already learned; the memory rows' write numbers, 0 for the rows
    /// already there).
    fn migrate(&self) -> Result<(), Error> {
        let e = |err| Error::sqlite(&self.path, err);
        let conn = sqlite_or!(self, _pg => Ok(()));
        in_transaction(conn, |conn| {
            let version: String = conn.query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )?;
            // Another process may have migrated it meanwhile: start from what is there now.
            let mut version: i64 = version.parse().unwrap_or(SCHEMA_VERSION);
            if version == 1 {
                for t in ["white_moves", "black_moves"] {
                    conn.execute_batch(&format!(
                        "{}
                         INSERT INTO {t}_v2 (parent, mv, id, child, white_wins, black_wins, draws)
                             SELECT parent, mv, id, child, white_wins, black_wins, draws FROM {t};
                         DROP TABLE {t};
                         ALTER TABLE {t}_v2 RENAME TO {t};",
                        moves_table_sql(&format!("{t}_v2"))
                    ))?;
                }
                version = 2;
            }
            if version == 2 {
                // Created as version 5 has it: the step to 5 below finds `seq` there.
                conn.execute_batch(MEMORY_TABLE_SQL)?;
                version = 3;
            }
            if version == 3 {
                conn.execute_batch(
                    "ALTER TABLE games ADD COLUMN start TEXT; ALTER TABLE games ADD COLUMN moves BLOB;",
                )?;
                version = 4;
            }
            if version == 4 {
                conn.execute_batch("ALTER TABLE games ADD COLUMN evals BLOB;")?;
                let has_seq: i64 = conn.query_row(
                    "SELECT count(*) FROM pragma_table_info('search_memory') WHERE name = 'seq'",
                    [],
                    |r| r.get(0),
                )?;
                if has_seq == 0 {
                    conn.execute_batch(
                        "ALTER TABLE search_memory ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
                         CREATE INDEX IF NOT EXISTS search_memory_seq ON search_memory (seq);",
                    )?;
                }
                version = 5;
            }
            conn.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                [version.to_string()],
            )?;
            Ok(())
        })
        .map_err(e)
    }

    /// Checks that the file is ours and not newer than this build; returns its schema version.
    fn check_meta(&self) -> Result<i64, Error> {
        let conn = sqlite_or!(self, _pg => Ok(SCHEMA_VERSION));
        meta_version(conn, &self.path)
    }

    /// The file of the store, or its server's URL without the password.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A column of schema version `since` and later, as a query reads it: the column, or NULL
    /// in an older store opened read-only.
    pub(super) fn column(&self, name: &'static str, since: i64) -> &'static str {
        if self.version >= since { name } else { "NULL" }
    }

    /// Whether the store is on a PostgreSQL server.
    pub fn is_server(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }

    /// Runs `f` in one write transaction: committed if it succeeds, rolled back (nothing
    /// written) if not. On a server, a transaction that lost a deadlock or a serialization
    /// conflict against another writer is run again.
    pub(super) fn write<T>(
        &mut self,
        mut f: impl FnMut(&mut dyn Tx) -> Result<T, Error>,
    ) -> Result<T, Error> {
        match &mut self.backend {
            Backend::Postgres(pg) => pg.write(f),
            Backend::Sqlite(conn) => {
                let tx = conn
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(|e| Error::sqlite(&self.path, e))?;
                let mut tx = SqliteTx::new(tx, &self.path);
                let out = f(&mut tx)?;
                tx.commit()?;
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!(
            "deepred-store-{}-{name}.sqlite",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn opening_a_new_store_waits_for_another_writer() {
        // Another process that opened the same new store is writing to it (it holds the
        // RESERVED lock, as while it switches the file to WAL mode). SQLite refuses our switch
        // to WAL with SQLITE_BUSY at once, without its busy handler: opening must wait instead.
        let p = temp("wal-wait");
        let other = Connection::open(&p).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let opener = std::thread::spawn({
            let p = p.clone();
            move || {
                Store::open(&p)
                    .and_then(|s| s.stats())
                    .map(|st| st.games)
                    .map_err(|e| e.to_string())
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
        assert_eq!(opener.join().unwrap(), Ok(0));
        drop(other);
        let mode: String = Connection::open(&p)
            .unwrap()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let _ = std::fs::remove_file(&p);
    }

    /// The bulk-import limit of the write-ahead log is in bytes, whatever the page size.
    #[test]
    fn the_bulk_wal_limit_counts_the_stores_pages() {
        let path = temp("wal-limit");
        let store = Store::open(&path).unwrap();
        let Backend::Sqlite(conn) = &store.backend else {
            panic!("an SQLite store")
        };
        let get = |k: &str| -> i64 { conn.pragma_query_value(None, k, |r| r.get(0)).unwrap() };
        assert_eq!(get("page_size"), 32_768);
        store.set_autocheckpoint(Some(256 << 20)).unwrap();
        assert_eq!(get("wal_autocheckpoint"), 8_192);
        store.set_autocheckpoint(None).unwrap();
        assert_eq!(get("wal_autocheckpoint"), 1_000);
        drop(store);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn foreign_and_newer_files_are_refused() {
        let path = temp("foreign");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch("CREATE TABLE customers (id INTEGER);")
                .unwrap();
        }
        let err = Store::open(&path).err().unwrap().to_string();
        assert!(err.contains("another application"), "{err}");
        // Read-only (stats, show, export) too: it said SQLite's "no such table: meta".
        let err = Store::open_read_only(&path).err().unwrap().to_string();
        assert!(err.contains("another application"), "{err}");
        let _ = std::fs::remove_file(&path);

        // Another application's file with a `meta (key, value)` table of its own, and a store
        // of a newer schema (in rollback-journal mode, without the nets table): refused, and
        // the file is left byte for byte as it was (no WAL, no table added).
        let path = temp("foreign-meta");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE customers (id INTEGER);",
            )
            .unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let err = Store::open(&path).err().unwrap().to_string();
        assert!(err.contains("another application"), "{err}");
        assert!(
            std::fs::read(&path).unwrap() == before,
            "the foreign file was changed"
        );
        let _ = std::fs::remove_file(&path);

        let path = temp("newer");
        drop(Store::open(&path).unwrap());
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                "UPDATE meta SET value = '99' WHERE key = 'schema_version';
                 DROP TABLE nets; PRAGMA journal_mode = DELETE;",
            )
            .unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let err = Store::open(&path).err().unwrap().to_string();
        assert!(err.contains("newer"), "{err}");
        assert!(
            std::fs::read(&path).unwrap() == before,
            "the newer store was changed"
        );
        let _ = std::fs::remove_file(&path);

        let path = temp("garbage");
        std::fs::write(
            &path,
            b"this is not an sqlite file at all, just some text that is long enough",
        )
        .unwrap();
        let err = Store::open(&path).err().unwrap().to_string();
        assert!(err.contains("not a Deep Red experience database"), "{err}");
        let _ = std::fs::remove_file(&path);
    }
}

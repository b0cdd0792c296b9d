//! The experience store: an SQLite file with one row per known move.
//!
//! Tables (see DESIGN.md): `white_moves` and `black_moves` (the mover's colour) with `id`,
//! `parent` (compact key), `mv` (UCI), `child` (compact key), `white_wins`, `black_wins`,
//! `draws`. Since schema version 2 they are `WITHOUT ROWID` tables whose primary key is
//! (parent, mv): the unique key is the table itself and also the index by parent, which makes
//! rows 37% smaller and imports faster than a rowid table plus a unique index (version 1, which
//! is migrated on first write). `id` numbers rows in the order they were first learned: unique
//! and increasing, with gaps (the next id of each table is kept in `meta`); `games`
//! (source, players, result, date, a content hash, unique); `meta` (application, schema version).
//! WAL mode with a busy timeout, so several processes can learn into one file. Games are learned
//! in transactions that hold whole games only: a crash never leaves half a game.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use shakmaty::{Chess, Color, Move, Position};

use super::codec::compact_key;
use crate::chess::notation::move_text;
use crate::chess::rules::GameResult;

pub const APPLICATION: &str = "deepred-experience";
pub const SCHEMA_VERSION: i64 = 2;
pub const DEFAULT_FILE: &str = "deepred-experience.sqlite";

/// A finished game to learn.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub source: String,
    pub white: String,
    pub black: String,
    pub date: String,
    pub result: GameResult,
    pub start: Chess,
    pub moves: Vec<Move>,
}

/// One move row ready to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    pub mover: Color,
    pub parent: Vec<u8>,
    pub mv: String,
    pub child: Vec<u8>,
}

impl GameRecord {
    /// The distinct (position, move) pairs of the game, in order: a pair that comes back (a
    /// repetition) is learned once per game.
    pub fn rows(&self) -> Vec<MoveRow> {
        let mut rows: Vec<MoveRow> = Vec::with_capacity(self.moves.len());
        let mut seen = std::collections::HashSet::with_capacity(self.moves.len());
        let mut pos = self.start.clone();
        let mut parent = compact_key(&pos);
        for &m in &self.moves {
            let mover = pos.turn();
            let mv = move_text(&pos, m);
            pos.play_unchecked(m);
            let child = compact_key(&pos);
            if seen.insert((parent.clone(), mv.clone())) {
                rows.push(MoveRow {
                    mover,
                    parent: parent.clone(),
                    mv,
                    child: child.clone(),
                });
            }
            parent = child;
        }
        rows
    }

    /// Content hash: the same game (start, moves, result) always hashes the same, whatever
    /// its tags say. 128 bits (two FNV-1a 64 streams).
    pub fn content_hash(&self) -> [u8; 16] {
        let mut text = crate::chess::fen::fen_of(&self.start);
        for &m in &self.moves {
            text.push(' ');
            text.push_str(&m.to_uci(shakmaty::CastlingMode::Chess960).to_string());
        }
        text.push(' ');
        text.push_str(self.result.as_pgn());
        let fnv = |seed: u64| {
            let mut h = seed;
            for b in text.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01B3);
            }
            h
        };
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&fnv(0xcbf2_9ce4_8422_2325).to_le_bytes());
        out[8..].copy_from_slice(&fnv(0x6c62_272e_07bb_0142).to_le_bytes());
        out
    }
}

/// Counts of a known move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveStats {
    pub mv: String,
    pub child: Vec<u8>,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
}

impl MoveStats {
    pub fn games(&self) -> u64 {
        self.white_wins + self.black_wins + self.draws
    }

    /// The mover's score (wins + half the draws) over games.
    pub fn score_for(&self, mover: Color) -> f64 {
        let wins = if mover == Color::White {
            self.white_wins
        } else {
            self.black_wins
        };
        (wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }

    /// Confidence-aware score: the lower bound of the Wilson interval (95%) of the mover's
    /// score, so 1 win out of 1 (0.21) ranks below 900 out of 1000 (0.88).
    pub fn confidence_score(&self, mover: Color) -> f64 {
        wilson_lower_bound(self.score_for(mover), self.games())
    }
}

pub fn wilson_lower_bound(p: f64, n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    let z = 1.96f64;
    let z2 = z * z;
    (p + z2 / (2.0 * n) - z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt()) / (1.0 + z2 / n)
}

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

/// One row of a batch on its way to an upsert.
struct MergedRow<'a> {
    mover: u8,
    parent: &'a [u8],
    mv: &'a [u8],
    child: &'a [u8],
    counts: [i64; 3],
}

/// A whole row as read back: (parent, move, child, white wins, black wins, draws).
pub type StoredRow = (Vec<u8>, String, Vec<u8>, u64, u64, u64);

pub struct Store {
    conn: Connection,
    path: PathBuf,
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

fn table(mover: Color) -> &'static str {
    match mover {
        Color::White => "white_moves",
        Color::Black => "black_moves",
    }
}

fn db_err(path: &Path, e: rusqlite::Error) -> String {
    let text = e.to_string();
    if text.contains("not a database") || text.contains("malformed") {
        format!(
            "experience store '{}' is not a Deep Red experience database or is corrupt ({text})",
            path.display()
        )
    } else if text.contains("readonly") || text.contains("read-only") {
        format!(
            "experience store '{}' is read-only ({text})",
            path.display()
        )
    } else if text.contains("disk is full") || text.contains("database or disk is full") {
        format!(
            "experience store '{}': the disk is full; nothing of the current game was written ({text})",
            path.display()
        )
    } else if text.contains("disk I/O error") {
        format!(
            "experience store '{}': a write failed (disk full, file size limit or I/O error); nothing of the current game was written ({text})",
            path.display()
        )
    } else {
        format!("experience store '{}': {text}", path.display())
    }
}

/// How long a store waits for another process's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

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

impl Store {
    /// Opens (creating it if missing) the store at `path`. A file of another application or of
    /// a newer schema is refused with a clear message and left untouched.
    pub fn open(path: &Path) -> Result<Store, String> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| db_err(path, e))?;
        Self::setup(conn, path)
    }

    /// Opens an existing store read-only (for `stats` and `show`).
    pub fn open_read_only(path: &Path) -> Result<Store, String> {
        if !path.exists() {
            return Err(format!(
                "experience store '{}' does not exist",
                path.display()
            ));
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| db_err(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| db_err(path, e))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.check_meta()?;
        Ok(store)
    }

    fn setup(conn: Connection, path: &Path) -> Result<Store, String> {
        let e = |err| db_err(path, err);
        conn.busy_timeout(BUSY_TIMEOUT).map_err(e)?;
        // Refuse foreign files before writing anything to them.
        let has_tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(e)?;
        let has_meta: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get(0),
            )
            .map_err(e)?;
        if has_tables > 0 && has_meta == 0 {
            return Err(format!(
                "'{}' is an SQLite database of another application (no 'meta' table); refusing to use it",
                path.display()
            ));
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
                     plies INTEGER NOT NULL, rows INTEGER NOT NULL, learned_at INTEGER NOT NULL);",
            )?;
            let fresh: i64 = conn.query_row(
                "SELECT count(*) = 0 FROM sqlite_master WHERE name = 'white_moves'",
                [],
                |r| r.get(0),
            )?;
            if fresh == 1 {
                conn.execute_batch(&format!(
                    "{} {} INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');",
                    moves_table_sql("white_moves"),
                    moves_table_sql("black_moves")
                ))?;
            }
            Ok(())
        };
        in_transaction(&conn, create).map_err(e)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        if store.check_meta()? < SCHEMA_VERSION {
            store.migrate()?;
        }
        Ok(store)
    }

    /// Brings a version 1 store (rowid tables with a unique index) to version 2 (`WITHOUT
    /// ROWID` tables keyed on (parent, mv)), keeping every row and its id. One transaction.
    fn migrate(&self) -> Result<(), String> {
        let e = |err| db_err(&self.path, err);
        in_transaction(&self.conn, |conn| {
            let version: String = conn.query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )?;
            if version != "1" {
                return Ok(()); // another process migrated it meanwhile
            }
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
            conn.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                [SCHEMA_VERSION.to_string()],
            )?;
            Ok(())
        })
        .map_err(e)
    }

    /// Checks that the file is ours and not newer than this build; returns its schema version.
    fn check_meta(&self) -> Result<i64, String> {
        let get = |k: &str| -> Result<Option<String>, String> {
            self.conn
                .query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0))
                .optional()
                .map_err(|e| db_err(&self.path, e))
        };
        match get("application")?.as_deref() {
            Some(APPLICATION) => {}
            other => {
                return Err(format!(
                    "'{}' belongs to another application ({other:?}); refusing to use it",
                    self.path.display()
                ));
            }
        }
        let version: i64 = get("schema_version")?
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("'{}' has no valid schema version", self.path.display()))?;
        if version > SCHEMA_VERSION {
            return Err(format!(
                "'{}' has schema version {version}, newer than this Deep Red ({SCHEMA_VERSION}); update Deep Red",
                self.path.display()
            ));
        }
        Ok(version)
    }

    /// For bulk imports: let the write-ahead log grow to `pages` pages before it is copied back
    /// into the database (fewer, larger checkpoints). `checkpoint` ends the bulk phase.
    pub fn set_autocheckpoint(&self, pages: u32) -> Result<(), String> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", pages)
            .map_err(|e| db_err(&self.path, e))
    }

    /// Copies the write-ahead log back into the database file and truncates it.
    pub fn checkpoint(&self) -> Result<(), String> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(|e| db_err(&self.path, e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Learns `games` in one transaction (whole games only). Returns what happened to each.
    /// On error nothing of the batch is written.
    pub fn learn(&mut self, games: &[(GameRecord, Vec<MoveRow>)]) -> Result<Vec<Learned>, String> {
        let path = self.path.clone();
        let e = |err| db_err(&path, err);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(e)?;
        let mut out = Vec::with_capacity(games.len());
        {
            let mut insert_game = tx
                .prepare_cached(
                    "INSERT INTO games (hash, source, white, black, result, date, plies, rows, learned_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, strftime('%s','now'))
                     ON CONFLICT (hash) DO NOTHING",
                )
                .map_err(e)?;
            let upsert = |t: &str| {
                format!(
                    "INSERT INTO {t} (parent, mv, child, white_wins, black_wins, draws, id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT (parent, mv) DO UPDATE SET
                       white_wins = white_wins + excluded.white_wins,
                       black_wins = black_wins + excluded.black_wins,
                       draws = draws + excluded.draws"
                )
            };
            let mut up_white = tx.prepare_cached(&upsert("white_moves")).map_err(e)?;
            let mut up_black = tx.prepare_cached(&upsert("black_moves")).map_err(e)?;
            // The id a new row of each table gets (kept in meta; read inside the transaction,
            // so concurrent writers never hand out the same id).
            let mut next_id = [0i64; 2];
            for (i, t) in ["white_moves", "black_moves"].iter().enumerate() {
                let stored: Option<String> = tx
                    .query_row(
                        "SELECT value FROM meta WHERE key = ?1",
                        [format!("next_id.{t}")],
                        |r| r.get(0),
                    )
                    .optional()
                    .map_err(e)?;
                next_id[i] = match stored.and_then(|v| v.parse().ok()) {
                    Some(n) => n,
                    None => tx
                        .query_row(
                            &format!("SELECT coalesce(max(id), 0) + 1 FROM {t}"),
                            [],
                            |r| r.get(0),
                        )
                        .map_err(e)?,
                };
            }
            let first_id = next_id;
            // Rows of the new games, sorted by key (B-tree locality) and merged: the same
            // (position, move) from several games of the batch becomes one upsert.
            let mut merged: Vec<MergedRow<'_>> = Vec::new();
            for (g, rows) in games {
                let inserted = insert_game
                    .execute(params![
                        &g.content_hash()[..],
                        g.source,
                        g.white,
                        g.black,
                        g.result.as_pgn(),
                        g.date,
                        g.moves.len() as i64,
                        rows.len() as i64
                    ])
                    .map_err(e)?;
                if inserted == 0 {
                    out.push(Learned::AlreadyKnown);
                    continue;
                }
                let counts = match g.result {
                    GameResult::WhiteWins => [1, 0, 0],
                    GameResult::BlackWins => [0, 1, 0],
                    GameResult::Draw => [0, 0, 1],
                };
                merged.extend(rows.iter().map(|r| MergedRow {
                    mover: r.mover as u8,
                    parent: &r.parent,
                    mv: r.mv.as_bytes(),
                    child: &r.child,
                    counts,
                }));
                out.push(Learned::New { rows: rows.len() });
            }
            merged
                .sort_unstable_by(|a, b| (a.mover, a.parent, a.mv).cmp(&(b.mover, b.parent, b.mv)));
            let mut i = 0;
            while i < merged.len() {
                let first = &merged[i];
                let mut counts = first.counts;
                let mut j = i + 1;
                while j < merged.len()
                    && (merged[j].mover, merged[j].parent, merged[j].mv)
                        == (first.mover, first.parent, first.mv)
                {
                    for (c, add) in counts.iter_mut().zip(merged[j].counts) {
                        *c += add;
                    }
                    j += 1;
                }
                let side = usize::from(first.mover != Color::White as u8);
                let stmt = if side == 0 {
                    &mut up_white
                } else {
                    &mut up_black
                };
                let mv = std::str::from_utf8(first.mv).unwrap_or_default();
                // The candidate id is used only if the row is new; it is consumed either way
                // (asking SQLite which case it was, with RETURNING, costs more than the whole
                // rest of the upsert), so ids are unique and increasing but not contiguous.
                stmt.execute(params![
                    first.parent,
                    mv,
                    first.child,
                    counts[0],
                    counts[1],
                    counts[2],
                    next_id[side]
                ])
                .map_err(e)?;
                next_id[side] += 1;
                i = j;
            }
            for (i, t) in ["white_moves", "black_moves"].iter().enumerate() {
                if next_id[i] != first_id[i] {
                    tx.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                        [format!("next_id.{t}"), next_id[i].to_string()],
                    )
                    .map_err(e)?;
                }
            }
        }
        tx.commit().map_err(e)?;
        Ok(out)
    }

    /// Learns one game (its own transaction).
    pub fn learn_game(&mut self, game: GameRecord) -> Result<Learned, String> {
        let rows = game.rows();
        Ok(self.learn(&[(game, rows)])?[0])
    }

    /// Known moves from `pos`, most played first.
    pub fn moves_from(&self, pos: &Chess) -> Result<Vec<MoveStats>, String> {
        let sql = format!(
            "SELECT mv, child, white_wins, black_wins, draws FROM {} WHERE parent = ?1
             ORDER BY white_wins + black_wins + draws DESC, mv",
            table(pos.turn())
        );
        let mut stmt = self
            .conn
            .prepare_cached(&sql)
            .map_err(|e| db_err(&self.path, e))?;
        let rows = stmt
            .query_map([&compact_key(pos)[..]], |r| {
                Ok(MoveStats {
                    mv: r.get(0)?,
                    child: r.get(1)?,
                    white_wins: r.get::<_, i64>(2)? as u64,
                    black_wins: r.get::<_, i64>(3)? as u64,
                    draws: r.get::<_, i64>(4)? as u64,
                })
            })
            .map_err(|e| db_err(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| db_err(&self.path, e))
    }

    /// (white wins, black wins, draws) of the games that went on from `pos`.
    pub fn position_record(&self, pos: &Chess) -> Result<(u64, u64, u64), String> {
        let moves = self.moves_from(pos)?;
        Ok(moves.iter().fold((0, 0, 0), |a, m| {
            (a.0 + m.white_wins, a.1 + m.black_wins, a.2 + m.draws)
        }))
    }

    /// Number of games learned.
    pub fn game_count(&self) -> Result<u64, String> {
        self.conn
            .query_row("SELECT count(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| db_err(&self.path, e))
    }

    pub fn stats(&self) -> Result<Stats, String> {
        let count = |sql: &str| -> Result<u64, String> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(|e| db_err(&self.path, e))
        };
        let wal = PathBuf::from(format!("{}-wal", self.path.display()));
        let file_bytes = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0)
            + std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        Ok(Stats {
            games: count("SELECT count(*) FROM games")?,
            white_rows: count("SELECT count(*) FROM white_moves")?,
            black_rows: count("SELECT count(*) FROM black_moves")?,
            positions: count(
                "SELECT count(*) FROM (SELECT parent FROM white_moves UNION SELECT parent FROM black_moves)",
            )?,
            file_bytes,
        })
    }

    /// Every row of one table, for checks and export: (parent, mv, child, w, b, d).
    pub fn all_rows(&self, mover: Color) -> Result<Vec<StoredRow>, String> {
        let sql = format!(
            "SELECT parent, mv, child, white_wins, black_wins, draws FROM {} ORDER BY id",
            table(mover)
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| db_err(&self.path, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get::<_, i64>(3)? as u64,
                    r.get::<_, i64>(4)? as u64,
                    r.get::<_, i64>(5)? as u64,
                ))
            })
            .map_err(|e| db_err(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| db_err(&self.path, e))
    }

    /// Calls `f(position, (white wins, black wins, draws))` for every known position, with the
    /// games that went on from it (summed over its moves).
    pub fn for_each_position(
        &self,
        mut f: impl FnMut(&Chess, (u32, u32, u32)),
    ) -> Result<(), String> {
        for t in ["white_moves", "black_moves"] {
            let sql = format!(
                "SELECT parent, sum(white_wins), sum(black_wins), sum(draws) FROM {t} GROUP BY parent"
            );
            let mut stmt = self.conn.prepare(&sql).map_err(|e| db_err(&self.path, e))?;
            let mut rows = stmt.query([]).map_err(|e| db_err(&self.path, e))?;
            while let Some(r) = rows.next().map_err(|e| db_err(&self.path, e))? {
                let key: Vec<u8> = r.get(0).map_err(|e| db_err(&self.path, e))?;
                let get = |i| {
                    r.get::<_, i64>(i)
                        .map(|v| v.clamp(0, i64::from(u32::MAX)) as u32)
                };
                let rec = (
                    get(1).map_err(|e| db_err(&self.path, e))?,
                    get(2).map_err(|e| db_err(&self.path, e))?,
                    get(3).map_err(|e| db_err(&self.path, e))?,
                );
                match super::codec::decode_key(&key) {
                    Ok(pos) => f(&pos, rec),
                    Err(e) => {
                        return Err(format!(
                            "experience store '{}': corrupt key: {e}",
                            self.path.display()
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Consistency of the store: for each result, the counts in the move tables must add up to
    /// the rows of the learned games with that result. Returns the three pairs
    /// ((counted in moves, expected from games) for 1-0, 0-1, draws).
    pub fn consistency(&self) -> Result<[(u64, u64); 3], String> {
        let q = |sql: &str| -> Result<u64, String> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(|e| db_err(&self.path, e))
        };
        let mut out = [(0, 0); 3];
        for (i, (col, res)) in [
            ("white_wins", "1-0"),
            ("black_wins", "0-1"),
            ("draws", "1/2-1/2"),
        ]
        .iter()
        .enumerate()
        {
            let moves = q(&format!(
                "SELECT (SELECT coalesce(sum({col}), 0) FROM white_moves) + (SELECT coalesce(sum({col}), 0) FROM black_moves)"
            ))?;
            let games = q(&format!(
                "SELECT coalesce(sum(rows), 0) FROM games WHERE result = '{res}'"
            ))?;
            out[i] = (moves, games);
        }
        Ok(out)
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
            move || Store::open(&p).and_then(|s| s.stats()).map(|st| st.games)
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

    fn game(moves: &[&str], result: GameResult) -> GameRecord {
        let mut pos = Chess::default();
        let mut ms = Vec::new();
        for u in moves {
            let m = u
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
            ms.push(m);
        }
        GameRecord {
            source: "test".into(),
            white: "w".into(),
            black: "b".into(),
            date: "2026.11.21".into(),
            result,
            start: Chess::default(),
            moves: ms,
        }
    }

    #[test]
    fn learns_counts_and_dedupes_games() {
        let path = temp("learn");
        let mut s = Store::open(&path).unwrap();
        let g = game(&["e2e4", "e7e5", "g1f3"], GameResult::WhiteWins);
        assert_eq!(s.learn_game(g.clone()).unwrap(), Learned::New { rows: 3 });
        assert_eq!(s.learn_game(g).unwrap(), Learned::AlreadyKnown);
        s.learn_game(game(&["e2e4", "c7c5"], GameResult::Draw))
            .unwrap();
        s.learn_game(game(&["d2d4"], GameResult::BlackWins))
            .unwrap();
        let start = s.moves_from(&Chess::default()).unwrap();
        assert_eq!(start.len(), 2);
        assert_eq!(start[0].mv, "e2e4");
        assert_eq!(
            (start[0].white_wins, start[0].black_wins, start[0].draws),
            (1, 0, 1)
        );
        assert_eq!(
            (start[1].white_wins, start[1].black_wins, start[1].draws),
            (0, 1, 0)
        );
        let st = s.stats().unwrap();
        assert_eq!((st.games, st.white_rows, st.black_rows), (3, 3, 2));
        // Parents: the start, after 1.e4, after 1.e4 e5.
        assert_eq!(st.positions, 3);
        drop(s);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn repeated_position_counts_once_per_game() {
        let g = game(
            &["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"],
            GameResult::Draw,
        );
        let rows = g.rows();
        assert_eq!(rows.len(), 4);
    }

    #[test]
    fn wilson_ranks_sample_size() {
        let one = MoveStats {
            mv: String::new(),
            child: vec![],
            white_wins: 1,
            black_wins: 0,
            draws: 0,
        };
        let many = MoveStats {
            mv: String::new(),
            child: vec![],
            white_wins: 900,
            black_wins: 100,
            draws: 0,
        };
        assert!(one.confidence_score(Color::White) < many.confidence_score(Color::White));
        assert!((many.confidence_score(Color::White) - 0.88).abs() < 0.01);
    }

    #[test]
    fn foreign_and_newer_files_are_refused() {
        let path = temp("foreign");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch("CREATE TABLE customers (id INTEGER);")
                .unwrap();
        }
        let err = Store::open(&path).err().unwrap();
        assert!(err.contains("another application"), "{err}");
        let _ = std::fs::remove_file(&path);

        let path = temp("newer");
        drop(Store::open(&path).unwrap());
        {
            let c = Connection::open(&path).unwrap();
            c.execute(
                "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
                [],
            )
            .unwrap();
        }
        let err = Store::open(&path).err().unwrap();
        assert!(err.contains("newer"), "{err}");
        let _ = std::fs::remove_file(&path);

        let path = temp("garbage");
        std::fs::write(
            &path,
            b"this is not an sqlite file at all, just some text that is long enough",
        )
        .unwrap();
        let err = Store::open(&path).err().unwrap();
        assert!(err.contains("not a Deep Red experience database"), "{err}");
        let _ = std::fs::remove_file(&path);
    }
}

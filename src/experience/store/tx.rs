//! What a write transaction can do, whatever the backend: the primitives that learning, the
//! search memory's updates, `prune` and `merge` are written in once (write.rs, memory.rs,
//! prune.rs, merge.rs), with one implementation per backend (SQLite here, PostgreSQL in
//! postgres.rs).

use std::path::Path;

use rusqlite::{OptionalExtension, params};
use shakmaty::Color;

use super::table;
use crate::experience::Error;
use crate::experience::memory::Remembered;

/// A game row as written (and as read back for `merge`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Content hash (`GameRecord::content_hash`).
    pub hash: Vec<u8>,
    pub source: String,
    pub white: String,
    pub black: String,
    /// PGN result text ("1-0", "0-1", "1/2-1/2").
    pub result: String,
    pub date: String,
    pub plies: i64,
    /// Distinct (position, move) rows the game added to.
    pub rows: i64,
    /// Unix seconds; `None`: now.
    pub learned_at: Option<i64>,
    /// The moves as 16-bit codes (`chess::notation::encode_move`, little-endian): kept since
    /// schema version 4; `None` for games learned before.
    pub moves: Option<Vec<u8>>,
    /// The start position (FEN); `None`: the standard start (or, without moves, unknown).
    pub start: Option<String>,
    /// The moves' evaluations (`records::encode_evals`): since schema version 5; `None` when
    /// no move has one.
    pub evals: Option<Vec<u8>>,
}

/// Counts to add to one (position, move) row, creating it if new.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountRow<'a> {
    pub mover: Color,
    pub parent: &'a [u8],
    pub mv: &'a str,
    pub child: &'a [u8],
    /// (white wins, black wins, draws) to add.
    pub counts: [i64; 3],
}

/// A search memory row with its update count, as `merge` copies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryRow {
    pub entry: Remembered,
    pub updates: i64,
}

/// What a game row keeps of its moves: the start FEN (`None`: the standard start), the move
/// codes and their evaluations.
pub type KeptMoves = (Option<String>, Vec<u8>, Option<Vec<u8>>);

/// A row as `prune` sees it: (parent, move, counts).
pub type CountedRow = (Vec<u8>, String, [i64; 3]);

/// The write primitives of one transaction.
pub trait Tx {
    /// Inserts the games whose hash is new; per game, whether it was inserted (a game twice in
    /// `games` is inserted once, the first time).
    fn insert_games(&mut self, games: &[StoredGame]) -> Result<Vec<bool>, Error>;
    /// Adds the counts to their rows (creating new rows with a fresh id). `rows` is sorted by
    /// (mover, parent, move) with each key once: concurrent writers lock rows in one order.
    fn add_counts(&mut self, rows: &[CountRow<'_>]) -> Result<(), Error>;
    /// The start FEN (`None`: the standard start) and the moves stored with a game, if the
    /// game is known and has them.
    fn game_moves(&mut self, hash: &[u8]) -> Result<Option<KeptMoves>, Error>;
    /// Stores search results; an existing entry is replaced only by one at least as deep
    /// (what results taught, `learned`, stays).
    fn remember(&mut self, found: &[Remembered]) -> Result<(), Error>;
    fn memory_of(&mut self, key: u64) -> Result<Option<Remembered>, Error>;
    /// Sets what results taught a remembered position, counting one more update.
    fn set_learned(&mut self, key: u64, learned: i32) -> Result<(), Error>;
    /// Copies memory rows of another store: a new key is inserted; a known one takes the deeper
    /// search's move, score and depth, and the learned value of the row updated more often.
    fn merge_memory(&mut self, rows: &[MemoryRow]) -> Result<(), Error>;
    /// Rows of `mover` seen in fewer than `min_games` games: (parent, move, counts).
    fn rows_below(&mut self, mover: Color, min_games: u64) -> Result<Vec<CountedRow>, Error>;
    fn row_count(&mut self, mover: Color) -> Result<u64, Error>;
    fn delete_row(&mut self, mover: Color, parent: &[u8], mv: &str) -> Result<(), Error>;
    /// Adds to the counts dropped by prunes, by result (1-0, 0-1, draws).
    fn add_pruned(&mut self, counts: [i64; 3]) -> Result<(), Error>;
}

/// The `meta` keys of the counts dropped by prunes.
pub const PRUNED_KEYS: [&str; 3] = ["pruned.1-0", "pruned.0-1", "pruned.1/2-1/2"];

/// Sums rows with the same (mover, parent, move) and sorts them: the form `add_counts` takes.
pub fn merge_rows(mut rows: Vec<CountRow<'_>>) -> Vec<CountRow<'_>> {
    rows.sort_unstable_by(|a, b| {
        (a.mover as u8, a.parent, a.mv).cmp(&(b.mover as u8, b.parent, b.mv))
    });
    let mut out: Vec<CountRow<'_>> = Vec::with_capacity(rows.len());
    for r in rows {
        match out.last_mut() {
            Some(last) if (last.mover, last.parent, last.mv) == (r.mover, r.parent, r.mv) => {
                for (c, add) in last.counts.iter_mut().zip(r.counts) {
                    *c += add;
                }
            }
            _ => out.push(r),
        }
    }
    out
}

/// A write transaction on an SQLite store.
pub struct SqliteTx<'a> {
    pub tx: rusqlite::Transaction<'a>,
    pub path: &'a Path,
    /// The id the next new row of each table gets (kept in `meta`; read inside the transaction
    /// so concurrent writers never hand out the same id), and the first one, to know whether
    /// to write it back.
    next_id: Option<([i64; 2], [i64; 2])>,
    /// The number of this transaction's search memory writes (see [`SqliteTx::memory_seq`]).
    memory_seq: Option<i64>,
}

impl<'a> SqliteTx<'a> {
    pub fn new(tx: rusqlite::Transaction<'a>, path: &'a Path) -> Self {
        SqliteTx {
            tx,
            path,
            next_id: None,
            memory_seq: None,
        }
    }

    /// The number this transaction's writes to the search memory carry (`seq`): `meta`'s
    /// `memory_seq` plus one, taken once per transaction. Writers take turns (IMMEDIATE
    /// transactions), so numbers rise in commit order and a reader that saw number n has seen
    /// every row written before.
    fn memory_seq(&mut self) -> Result<i64, Error> {
        if let Some(n) = self.memory_seq {
            return Ok(n);
        }
        let n: i64 = self
            .tx
            .query_row(
                "INSERT INTO meta (key, value) VALUES ('memory_seq', '1')
                 ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                 RETURNING CAST(value AS INTEGER)",
                [],
                |r| r.get(0),
            )
            .map_err(self.e())?;
        self.memory_seq = Some(n);
        Ok(n)
    }

    fn e(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        |err| Error::sqlite(self.path, err)
    }

    /// Writes the ids back and commits.
    pub fn commit(self) -> Result<(), Error> {
        let path = self.path;
        if let Some((next, first)) = self.next_id {
            for (i, t) in ["white_moves", "black_moves"].iter().enumerate() {
                if next[i] != first[i] {
                    self.tx
                        .execute(
                            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                            [format!("next_id.{t}"), next[i].to_string()],
                        )
                        .map_err(|e| Error::sqlite(path, e))?;
                }
            }
        }
        self.tx.commit().map_err(|e| Error::sqlite(path, e))
    }

    fn load_next_id(&mut self) -> Result<[i64; 2], Error> {
        if let Some((next, _)) = self.next_id {
            return Ok(next);
        }
        let mut next = [0i64; 2];
        for (i, t) in ["white_moves", "black_moves"].iter().enumerate() {
            let stored: Option<String> = self
                .tx
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    [format!("next_id.{t}")],
                    |r| r.get(0),
                )
                .optional()
                .map_err(self.e())?;
            next[i] = match stored.and_then(|v| v.parse().ok()) {
                Some(n) => n,
                None => self
                    .tx
                    .query_row(
                        &format!("SELECT coalesce(max(id), 0) + 1 FROM {t}"),
                        [],
                        |r| r.get(0),
                    )
                    .map_err(self.e())?,
            };
        }
        self.next_id = Some((next, next));
        Ok(next)
    }
}

pub(super) fn memory_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Remembered> {
    Ok(Remembered {
        key: r.get::<_, i64>(0)? as u64,
        mv: r.get::<_, i64>(1)? as u16,
        score: r.get(2)?,
        depth: r.get(3)?,
        learned: r.get(4)?,
    })
}

impl Tx for SqliteTx<'_> {
    fn insert_games(&mut self, games: &[StoredGame]) -> Result<Vec<bool>, Error> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT INTO games (hash, source, white, black, result, date, plies, rows,
                     learned_at, start, moves, evals)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, coalesce(?9, strftime('%s','now')),
                     ?10, ?11, ?12)
                 ON CONFLICT (hash) DO NOTHING",
            )
            .map_err(self.e())?;
        games
            .iter()
            .map(|g| {
                stmt.execute(params![
                    g.hash,
                    g.source,
                    g.white,
                    g.black,
                    g.result,
                    g.date,
                    g.plies,
                    g.rows,
                    g.learned_at,
                    g.start,
                    g.moves,
                    g.evals
                ])
                .map(|n| n > 0)
                .map_err(|e| Error::sqlite(self.path, e))
            })
            .collect()
    }

    fn add_counts(&mut self, rows: &[CountRow<'_>]) -> Result<(), Error> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut next_id = self.load_next_id()?;
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
        let mut up = [
            self.tx
                .prepare_cached(&upsert("white_moves"))
                .map_err(self.e())?,
            self.tx
                .prepare_cached(&upsert("black_moves"))
                .map_err(self.e())?,
        ];
        for r in rows {
            let side = usize::from(r.mover == Color::Black);
            // The candidate id is used only if the row is new; it is consumed either way
            // (asking SQLite which case it was, with RETURNING, costs more than the whole rest
            // of the upsert), so ids are unique and increasing but not contiguous.
            up[side]
                .execute(params![
                    r.parent,
                    r.mv,
                    r.child,
                    r.counts[0],
                    r.counts[1],
                    r.counts[2],
                    next_id[side]
                ])
                .map_err(|e| Error::sqlite(self.path, e))?;
            next_id[side] += 1;
        }
        if let Some((next, _)) = self.next_id.as_mut() {
            *next = next_id;
        }
        Ok(())
    }

    fn game_moves(&mut self, hash: &[u8]) -> Result<Option<KeptMoves>, Error> {
        type Found = (Option<String>, Option<Vec<u8>>, Option<Vec<u8>>);
        let found: Option<Found> = self
            .tx
            .query_row(
                "SELECT start, moves, evals FROM games WHERE hash = ?1",
                [hash],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(self.e())?;
        Ok(found.and_then(|(s, m, e)| Some((s, m?, e))))
    }

    fn remember(&mut self, found: &[Remembered]) -> Result<(), Error> {
        if found.is_empty() {
            return Ok(());
        }
        let seq = self.memory_seq()?;
        let mut upsert = self
            .tx
            .prepare_cached(
                "INSERT INTO search_memory (key, mv, score, depth, seq) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (key) DO UPDATE SET
                   mv = excluded.mv, score = excluded.score, depth = excluded.depth,
                   seq = excluded.seq
                 WHERE excluded.depth >= search_memory.depth",
            )
            .map_err(self.e())?;
        for f in found {
            upsert
                .execute(params![
                    f.key as i64,
                    i64::from(f.mv),
                    f.score,
                    f.depth,
                    seq
                ])
                .map_err(|e| Error::sqlite(self.path, e))?;
        }
        Ok(())
    }

    fn memory_of(&mut self, key: u64) -> Result<Option<Remembered>, Error> {
        let mut get = self
            .tx
            .prepare_cached(
                "SELECT key, mv, score, depth, learned FROM search_memory WHERE key = ?1",
            )
            .map_err(self.e())?;
        get.query_row([key as i64], memory_row)
            .optional()
            .map_err(|e| Error::sqlite(self.path, e))
    }

    fn set_learned(&mut self, key: u64, learned: i32) -> Result<(), Error> {
        let seq = self.memory_seq()?;
        self.tx
            .prepare_cached(
                "UPDATE search_memory SET learned = ?2, updates = updates + 1, seq = ?3
                 WHERE key = ?1",
            )
            .and_then(|mut s| s.execute(params![key as i64, learned, seq]))
            .map(|_| ())
            .map_err(self.e())
    }

    fn merge_memory(&mut self, rows: &[MemoryRow]) -> Result<(), Error> {
        if rows.is_empty() {
            return Ok(());
        }
        let seq = self.memory_seq()?;
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT INTO search_memory (key, mv, score, depth, learned, updates, seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (key) DO UPDATE SET
                   seq = excluded.seq,
                   mv = iif(excluded.depth > depth, excluded.mv, mv),
                   score = iif(excluded.depth > depth, excluded.score, score),
                   learned = iif(excluded.updates > updates, excluded.learned, learned),
                   updates = max(updates, excluded.updates),
                   depth = max(depth, excluded.depth)",
            )
            .map_err(self.e())?;
        for m in rows {
            let r = m.entry;
            stmt.execute(params![
                r.key as i64,
                i64::from(r.mv),
                r.score,
                r.depth,
                r.learned,
                m.updates,
                seq
            ])
            .map_err(|e| Error::sqlite(self.path, e))?;
        }
        Ok(())
    }

    fn rows_below(&mut self, mover: Color, min_games: u64) -> Result<Vec<CountedRow>, Error> {
        let mut stmt = self
            .tx
            .prepare(&format!(
                "SELECT parent, mv, white_wins, black_wins, draws FROM {}
                 WHERE white_wins + black_wins + draws < ?1",
                table(mover)
            ))
            .map_err(self.e())?;
        let rows = stmt
            .query_map([i64::try_from(min_games).unwrap_or(i64::MAX)], |r| {
                Ok((r.get(0)?, r.get(1)?, [r.get(2)?, r.get(3)?, r.get(4)?]))
            })
            .map_err(self.e())?;
        rows.collect::<Result<_, _>>().map_err(self.e())
    }

    fn row_count(&mut self, mover: Color) -> Result<u64, Error> {
        self.tx
            .query_row(&format!("SELECT count(*) FROM {}", table(mover)), [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(self.e())
    }

    fn delete_row(&mut self, mover: Color, parent: &[u8], mv: &str) -> Result<(), Error> {
        self.tx
            .prepare_cached(&format!(
                "DELETE FROM {} WHERE parent = ?1 AND mv = ?2",
                table(mover)
            ))
            .and_then(|mut s| s.execute(params![parent, mv]))
            .map(|_| ())
            .map_err(self.e())
    }

    fn add_pruned(&mut self, counts: [i64; 3]) -> Result<(), Error> {
        for (key, n) in PRUNED_KEYS.iter().zip(counts) {
            self.tx
                .execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)
                     ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + ?2",
                    params![key, n],
                )
                .map_err(self.e())?;
        }
        Ok(())
    }
}

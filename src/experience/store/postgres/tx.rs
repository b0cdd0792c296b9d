//! The write primitives of a transaction on the server (`Tx` for PostgreSQL): batches through
//! `unnest` arrays, one statement per table.

use std::path::Path;

use shakmaty::Color;

use super::{memory_entry, server_error};
use crate::experience::Error;
use crate::experience::memory::Remembered;
use crate::experience::store::table;
use crate::experience::store::tx::{
    CountRow, CountedRow, KeptMoves, MemoryRow, PRUNED_KEYS, StoredGame, Tx,
};

/// A write transaction on the server.
pub(super) struct PgTx<'a, 'c> {
    pub(super) tx: postgres::Transaction<'c>,
    pub(super) path: &'a Path,
    /// The number of this transaction's search memory writes (see [`PgTx::memory_seq`]).
    pub(super) memory_seq: Option<i64>,
}

impl PgTx<'_, '_> {
    fn e(&self) -> impl Fn(postgres::Error) -> Error + '_ {
        |err| server_error(self.path, err)
    }

    /// The number this transaction's writes to the search memory carry (`seq`): `meta`'s
    /// `memory_seq` plus one. Updating that row locks it until the commit, so writers of the
    /// memory take turns and numbers rise in commit order: a reader that saw number n has seen
    /// every row written before.
    fn memory_seq(&mut self) -> Result<i64, Error> {
        if let Some(n) = self.memory_seq {
            return Ok(n);
        }
        let n: i64 = self
            .tx
            .query_one(
                "INSERT INTO meta AS t (key, value) VALUES ('memory_seq', '1')
                 ON CONFLICT (key) DO UPDATE SET value = (t.value::bigint + 1)::text
                 RETURNING value::bigint",
                &[],
            )
            .map(|r| r.get(0))
            .map_err(self.e())?;
        self.memory_seq = Some(n);
        Ok(n)
    }
}

impl Tx for PgTx<'_, '_> {
    fn insert_games(&mut self, games: &[StoredGame]) -> Result<Vec<bool>, Error> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let col = |f: fn(&StoredGame) -> String| games.iter().map(f).collect::<Vec<String>>();
        let hashes: Vec<&[u8]> = games.iter().map(|g| &g.hash[..]).collect();
        let plies: Vec<i64> = games.iter().map(|g| g.plies).collect();
        let rows: Vec<i64> = games.iter().map(|g| g.rows).collect();
        let at: Vec<Option<i64>> = games.iter().map(|g| g.learned_at).collect();
        let start: Vec<Option<&str>> = games.iter().map(|g| g.start.as_deref()).collect();
        let moves: Vec<Option<&[u8]>> = games.iter().map(|g| g.moves.as_deref()).collect();
        let evals: Vec<Option<&[u8]>> = games.iter().map(|g| g.evals.as_deref()).collect();
        let inserted = self
            .tx
            .query(
                "INSERT INTO games (hash, source, white, black, result, date, plies, rows,
                     learned_at, start, moves, evals)
                 SELECT h, s, w, b, r, d, p, n, coalesce(l, extract(epoch from now())::bigint),
                     st, mv, ev
                 FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::text[],
                     $6::text[], $7::int8[], $8::int8[], $9::int8[], $10::text[], $11::bytea[],
                     $12::bytea[])
                     WITH ORDINALITY AS u(h, s, w, b, r, d, p, n, l, st, mv, ev, i)
                 ORDER BY i
                 ON CONFLICT (hash) DO NOTHING RETURNING hash",
                &[
                    &hashes,
                    &col(|g| g.source.clone()),
                    &col(|g| g.white.clone()),
                    &col(|g| g.black.clone()),
                    &col(|g| g.result.clone()),
                    &col(|g| g.date.clone()),
                    &plies,
                    &rows,
                    &at,
                    &start,
                    &moves,
                    &evals,
                ],
            )
            .map_err(self.e())?;
        let mut new: std::collections::HashSet<Vec<u8>> =
            inserted.iter().map(|r| r.get::<_, Vec<u8>>(0)).collect();
        Ok(games.iter().map(|g| new.remove(&g.hash)).collect())
    }

    fn add_counts(&mut self, rows: &[CountRow<'_>]) -> Result<(), Error> {
        for mover in [Color::White, Color::Black] {
            let mine: Vec<&CountRow<'_>> = rows.iter().filter(|r| r.mover == mover).collect();
            if mine.is_empty() {
                continue;
            }
            let t = table(mover);
            let parents: Vec<&[u8]> = mine.iter().map(|r| r.parent).collect();
            let mvs: Vec<&str> = mine.iter().map(|r| r.mv).collect();
            let children: Vec<&[u8]> = mine.iter().map(|r| r.child).collect();
            let n = |i: usize| mine.iter().map(|r| r.counts[i]).collect::<Vec<i64>>();
            self.tx
                .execute(
                    &format!(
                        "INSERT INTO {t} (parent, mv, child, white_wins, black_wins, draws)
                         SELECT p, m, c, w, b, d FROM unnest($1::bytea[], $2::text[],
                             $3::bytea[], $4::int8[], $5::int8[], $6::int8[])
                             WITH ORDINALITY AS u(p, m, c, w, b, d, i)
                         ORDER BY i
                         ON CONFLICT (parent, mv) DO UPDATE SET
                           white_wins = {t}.white_wins + excluded.white_wins,
                           black_wins = {t}.black_wins + excluded.black_wins,
                           draws = {t}.draws + excluded.draws"
                    ),
                    &[&parents, &mvs, &children, &n(0), &n(1), &n(2)],
                )
                .map_err(self.e())?;
        }
        Ok(())
    }

    fn game_moves(&mut self, hash: &[u8]) -> Result<Option<KeptMoves>, Error> {
        let row = self
            .tx
            .query_opt(
                "SELECT start, moves, evals FROM games WHERE hash = $1",
                &[&hash],
            )
            .map_err(self.e())?;
        Ok(row.and_then(|r| {
            let start: Option<String> = r.get(0);
            let moves: Option<Vec<u8>> = r.get(1);
            Some((start, moves?, r.get(2)))
        }))
    }

    fn remember(&mut self, found: &[Remembered]) -> Result<(), Error> {
        if found.is_empty() {
            return Ok(());
        }
        let seq = self.memory_seq()?;
        let keys: Vec<i64> = found.iter().map(|f| f.key as i64).collect();
        let mvs: Vec<i32> = found.iter().map(|f| i32::from(f.mv)).collect();
        let scores: Vec<i32> = found.iter().map(|f| f.score).collect();
        let depths: Vec<i32> = found.iter().map(|f| f.depth).collect();
        self.tx
            .execute(
                "INSERT INTO search_memory (key, mv, score, depth, seq)
                 SELECT k, m, s, d, $5 FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::int4[])
                     WITH ORDINALITY AS u(k, m, s, d, i)
                 ORDER BY i
                 ON CONFLICT (key) DO UPDATE SET
                   mv = excluded.mv, score = excluded.score, depth = excluded.depth,
                   seq = excluded.seq
                 WHERE excluded.depth >= search_memory.depth",
                &[&keys, &mvs, &scores, &depths, &seq],
            )
            .map(|_| ())
            .map_err(self.e())
    }

    fn memory_of(&mut self, key: u64) -> Result<Option<Remembered>, Error> {
        self.tx
            .query_opt(
                "SELECT key, mv, score, depth, learned FROM search_memory WHERE key = $1",
                &[&(key as i64)],
            )
            .map(|r| r.as_ref().map(memory_entry))
            .map_err(self.e())
    }

    fn set_learned(&mut self, key: u64, learned: i32) -> Result<(), Error> {
        let seq = self.memory_seq()?;
        self.tx
            .execute(
                "UPDATE search_memory SET learned = $2, updates = updates + 1, seq = $3
                 WHERE key = $1",
                &[&(key as i64), &learned, &seq],
            )
            .map(|_| ())
            .map_err(self.e())
    }

    fn merge_memory(&mut self, rows: &[MemoryRow]) -> Result<(), Error> {
        if rows.is_empty() {
            return Ok(());
        }
        let seq = self.memory_seq()?;
        let keys: Vec<i64> = rows.iter().map(|m| m.entry.key as i64).collect();
        let mvs: Vec<i32> = rows.iter().map(|m| i32::from(m.entry.mv)).collect();
        let scores: Vec<i32> = rows.iter().map(|m| m.entry.score).collect();
        let depths: Vec<i32> = rows.iter().map(|m| m.entry.depth).collect();
        let learned: Vec<i32> = rows.iter().map(|m| m.entry.learned).collect();
        let updates: Vec<i64> = rows.iter().map(|m| m.updates).collect();
        self.tx
            .execute(
                "INSERT INTO search_memory AS t (key, mv, score, depth, learned, updates, seq)
                 SELECT k, m, s, d, l, n, $7 FROM unnest($1::int8[], $2::int4[], $3::int4[],
                     $4::int4[], $5::int4[], $6::int8[]) WITH ORDINALITY AS u(k, m, s, d, l, n, i)
                 ORDER BY i
                 ON CONFLICT (key) DO UPDATE SET
                   seq = excluded.seq,
                   mv = CASE WHEN excluded.depth > t.depth THEN excluded.mv ELSE t.mv END,
                   score = CASE WHEN excluded.depth > t.depth THEN excluded.score ELSE t.score END,
                   learned = CASE WHEN excluded.updates > t.updates THEN excluded.learned
                             ELSE t.learned END,
                   updates = greatest(t.updates, excluded.updates),
                   depth = greatest(t.depth, excluded.depth)",
                &[&keys, &mvs, &scores, &depths, &learned, &updates, &seq],
            )
            .map(|_| ())
            .map_err(self.e())
    }

    fn rows_below(&mut self, mover: Color, min_games: u64) -> Result<Vec<CountedRow>, Error> {
        let rows = self
            .tx
            .query(
                &format!(
                    "SELECT parent, mv, white_wins, black_wins, draws FROM {}
                     WHERE white_wins + black_wins + draws < $1",
                    table(mover)
                ),
                &[&i64::try_from(min_games).unwrap_or(i64::MAX)],
            )
            .map_err(self.e())?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), [r.get(2), r.get(3), r.get(4)]))
            .collect())
    }

    fn row_count(&mut self, mover: Color) -> Result<u64, Error> {
        self.tx
            .query_one(&format!("SELECT count(*) FROM {}", table(mover)), &[])
            .map(|r| r.get::<_, i64>(0) as u64)
            .map_err(self.e())
    }

    fn delete_row(&mut self, mover: Color, parent: &[u8], mv: &str) -> Result<(), Error> {
        self.tx
            .execute(
                &format!("DELETE FROM {} WHERE parent = $1 AND mv = $2", table(mover)),
                &[&parent, &mv],
            )
            .map(|_| ())
            .map_err(self.e())
    }

    fn add_pruned(&mut self, counts: [i64; 3]) -> Result<(), Error> {
        for (key, n) in PRUNED_KEYS.iter().zip(counts) {
            self.tx
                .execute(
                    "INSERT INTO meta AS t (key, value) VALUES ($1, $2::bigint::text)
                     ON CONFLICT (key) DO UPDATE SET
                       value = (t.value::bigint + excluded.value::bigint)::text",
                    &[key, &n],
                )
                .map_err(self.e())?;
        }
        Ok(())
    }
}

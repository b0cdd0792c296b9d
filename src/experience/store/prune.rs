//! Making a store smaller: `prune` drops the move rows seen in fewer than N games outside the
//! first plies (what a book and the search use least), `vacuum` gives the freed pages back to
//! the file system. Pruned counts are kept in `meta` (`pruned.<result>`), so that the store's
//! consistency check (move counts against learned games) still adds up.

use std::collections::HashSet;

use rusqlite::params;
use shakmaty::Color;

use super::{Store, in_transaction, table};
use crate::experience::Error;

/// What a prune did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub rows_before: u64,
    pub rows_removed: u64,
    /// Positions kept whole (their rows all stay).
    pub kept_positions: u64,
}

impl Store {
    /// Drops, in one transaction, every move row with fewer than `min_games` games whose
    /// position is not in `keep` (compact keys; `experience::walk::positions_near_roots` gives
    /// the first plies of the store's games).
    pub fn prune(&mut self, keep: &HashSet<Vec<u8>>, min_games: u64) -> Result<Pruned, Error> {
        let near = keep;
        let mut out = Pruned {
            kept_positions: near.len() as u64,
            ..Pruned::default()
        };
        let path = self.path.clone();
        in_transaction(&self.conn, |conn| {
            let mut removed = [0i64; 3];
            for mover in [Color::White, Color::Black] {
                let t = table(mover);
                let rows: Vec<(Vec<u8>, String, [i64; 3])> = {
                    let mut stmt = conn.prepare(&format!(
                        "SELECT parent, mv, white_wins, black_wins, draws FROM {t}
                         WHERE white_wins + black_wins + draws < ?1"
                    ))?;
                    let rows = stmt.query_map([min_games as i64], |r| {
                        Ok((r.get(0)?, r.get(1)?, [r.get(2)?, r.get(3)?, r.get(4)?]))
                    })?;
                    rows.collect::<Result<_, _>>()?
                };
                out.rows_before +=
                    conn.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| {
                        r.get::<_, i64>(0)
                    })? as u64;
                let mut delete =
                    conn.prepare(&format!("DELETE FROM {t} WHERE parent = ?1 AND mv = ?2"))?;
                for (parent, mv, counts) in rows {
                    if near.contains(&parent) {
                        continue;
                    }
                    delete.execute(params![parent, mv])?;
                    out.rows_removed += 1;
                    for (r, c) in removed.iter_mut().zip(counts) {
                        *r += c;
                    }
                }
            }
            for (key, n) in ["pruned.1-0", "pruned.0-1", "pruned.1/2-1/2"]
                .iter()
                .zip(removed)
            {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)
                     ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + ?2",
                    params![key, n],
                )?;
            }
            Ok(())
        })
        .map_err(|e| Error::sqlite(&path, e))?;
        Ok(out)
    }

    /// Copies the write-ahead log back and rebuilds the file without its free pages. Returns
    /// the file's size before and after (with its log), in bytes.
    pub fn vacuum(&self) -> Result<(u64, u64), Error> {
        let before = self.stats()?.file_bytes;
        self.conn
            .execute_batch(
                "PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .map_err(|e| Error::sqlite(&self.path, e))?;
        Ok((before, self.stats()?.file_bytes))
    }

    /// The store's growth: (seconds since the first game, games learned by then, move rows the
    /// games touched by then), one point per learned game, in order.
    pub fn growth(&self) -> Result<Vec<(f64, u64, u64)>, Error> {
        let e = |err| Error::sqlite(&self.path, err);
        let mut stmt = self
            .conn
            .prepare("SELECT learned_at, rows FROM games ORDER BY id")
            .map_err(e)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .map_err(e)?;
        let mut out = Vec::new();
        let (mut first, mut rows_so_far) = (None, 0u64);
        for (i, row) in rows.enumerate() {
            let (at, n) = row.map_err(e)?;
            let t0 = *first.get_or_insert(at);
            rows_so_far += n.max(0) as u64;
            out.push(((at - t0) as f64, i as u64 + 1, rows_so_far));
        }
        Ok(out)
    }

    /// Counts dropped by `prune`, by result (1-0, 0-1, draws).
    pub fn pruned_counts(&self) -> Result<[u64; 3], Error> {
        let mut out = [0; 3];
        for (o, key) in out
            .iter_mut()
            .zip(["pruned.1-0", "pruned.0-1", "pruned.1/2-1/2"])
        {
            *o = self
                .conn
                .query_row(
                    "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1",
                    [key],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap_or(0) as u64;
        }
        Ok(out)
    }
}

//! Making a store smaller: `prune` drops the move rows seen in fewer than N games outside the
//! first plies (what a book and the search use least), `vacuum` gives the freed pages back to
//! the file system. Pruned counts are kept in `meta` (`pruned.<result>`), so that the store's
//! consistency check (move counts against learned games) still adds up.

use std::collections::HashSet;

use shakmaty::Color;

use super::tx::PRUNED_KEYS;
use super::{Backend, Store};
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
        self.write(|tx| {
            let mut out = Pruned {
                kept_positions: keep.len() as u64,
                ..Pruned::default()
            };
            let mut removed = [0i64; 3];
            for mover in [Color::White, Color::Black] {
                let rows = tx.rows_below(mover, min_games)?;
                out.rows_before += tx.row_count(mover)?;
                for (parent, mv, counts) in rows {
                    if keep.contains(&parent) {
                        continue;
                    }
                    tx.delete_row(mover, &parent, &mv)?;
                    out.rows_removed += 1;
                    for (r, c) in removed.iter_mut().zip(counts) {
                        *r += c;
                    }
                }
            }
            tx.add_pruned(removed)?;
            Ok(out)
        })
    }

    /// Copies the write-ahead log back and rebuilds the file without its free pages. Returns
    /// the file's size before and after (with its log), in bytes.
    pub fn vacuum(&self) -> Result<(u64, u64), Error> {
        let before = self.stats()?.file_bytes;
        let conn = sqlite_or!(self, pg => pg.vacuum(before));
        conn.execute_batch(
            "PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);",
        )
        .map_err(|e| Error::sqlite(&self.path, e))?;
        Ok((before, self.stats()?.file_bytes))
    }

    /// The store's growth: (seconds since the first game, games learned by then, move rows the
    /// games touched by then), one point per learned game, in order.
    pub fn growth(&self) -> Result<Vec<(f64, u64, u64)>, Error> {
        let raw: Vec<(i64, i64)> = match &self.backend {
            Backend::Postgres(pg) => pg.growth_rows()?,
            Backend::Sqlite(conn) => {
                let e = |err| Error::sqlite(&self.path, err);
                let mut stmt = conn
                    .prepare("SELECT learned_at, rows FROM games ORDER BY id")
                    .map_err(e)?;
                let rows = stmt
                    .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                    .map_err(e)?;
                rows.collect::<Result<_, _>>().map_err(e)?
            }
        };
        let mut out = Vec::new();
        let (mut first, mut rows_so_far) = (None, 0u64);
        for (i, (at, n)) in raw.into_iter().enumerate() {
            let t0 = *first.get_or_insert(at);
            rows_so_far += n.max(0) as u64;
            out.push(((at - t0) as f64, i as u64 + 1, rows_so_far));
        }
        Ok(out)
    }

    /// Counts dropped by `prune`, by result (1-0, 0-1, draws).
    pub fn pruned_counts(&self) -> Result<[u64; 3], Error> {
        let conn = sqlite_or!(self, pg => pg.pruned_counts());
        let mut out = [0; 3];
        for (o, key) in out.iter_mut().zip(PRUNED_KEYS) {
            *o = conn
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

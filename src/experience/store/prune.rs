//! Making a store smaller: `prune` drops the move rows seen in fewer than N games outside the
//! first plies (what a book and the search use least), `vacuum` gives the freed pages back to
//! the file system. Pruned counts are kept in `meta` (`pruned.<result>`), so that the store's
//! consistency check (move counts against learned games) still adds up.

use std::collections::{HashSet, VecDeque};

use rusqlite::params;
use shakmaty::{Chess, Color, Position};

use super::{Store, in_transaction, table};
use crate::experience::Error;
use crate::experience::codec::{compact_key, decode_key};

/// What a prune did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub rows_before: u64,
    pub rows_removed: u64,
    /// Positions within the kept plies (their rows all stay).
    pub kept_positions: u64,
}

impl Store {
    /// The positions within `plies` plies of a root of the store's games (a known position that
    /// no known move leads to), through known moves, as compact keys.
    pub fn positions_near_roots(&self, plies: usize) -> Result<HashSet<Vec<u8>>, Error> {
        let mut parents = Vec::new();
        let mut children = HashSet::new();
        for mover in [Color::White, Color::Black] {
            for (parent, _, child, ..) in self.all_rows(mover)? {
                parents.push(parent);
                children.insert(child);
            }
        }
        let mut near = HashSet::new();
        let mut queue = VecDeque::new();
        for p in parents {
            if !children.contains(&p) && near.insert(p.clone()) {
                queue.push_back((decode_key(&p)?, 0usize));
            }
        }
        while let Some((pos, ply)) = queue.pop_front() {
            if ply >= plies {
                continue;
            }
            for m in self.moves_from(&pos)? {
                let Ok(uci) = m.mv.parse::<shakmaty::uci::UciMove>() else {
                    continue;
                };
                let Ok(mv) = uci.to_move(&pos) else { continue };
                let mut child: Chess = pos.clone();
                child.play_unchecked(mv);
                let key = compact_key(&child);
                if near.insert(key) {
                    queue.push_back((child, ply + 1));
                }
            }
        }
        Ok(near)
    }

    /// Drops, in one transaction, every move row with fewer than `min_games` games whose
    /// position is more than `keep_plies` plies from every root of the store's games.
    pub fn prune(&mut self, min_games: u64, keep_plies: usize) -> Result<Pruned, Error> {
        let near = self.positions_near_roots(keep_plies)?;
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

    /// The learned book's depth: known positions by their distance in plies from the nearest
    /// root of the store's games, up to `max_ply`.
    pub fn book_depths(&self, max_ply: usize) -> Result<Vec<u64>, Error> {
        let mut by_ply = vec![0u64; max_ply + 1];
        let mut seen = HashSet::new();
        let mut queue = VecDeque::new();
        for root in self.positions_near_roots(0)? {
            if seen.insert(root.clone()) {
                queue.push_back((decode_key(&root)?, 0usize));
            }
        }
        while let Some((pos, ply)) = queue.pop_front() {
            let moves = self.moves_from(&pos)?;
            if moves.is_empty() {
                continue;
            }
            by_ply[ply] += 1;
            if ply >= max_ply {
                continue;
            }
            for m in moves {
                let Ok(mv) =
                    m.mv.parse::<shakmaty::uci::UciMove>()
                        .map(|u| u.to_move(&pos))
                else {
                    continue;
                };
                let Ok(mv) = mv else { continue };
                let mut child: Chess = pos.clone();
                child.play_unchecked(mv);
                if seen.insert(compact_key(&child)) {
                    queue.push_back((child, ply + 1));
                }
            }
        }
        while by_ply.len() > 1 && by_ply.last() == Some(&0) {
            by_ply.pop();
        }
        Ok(by_ply)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::rules::GameResult;
    use crate::experience::records::test_game;

    #[test]
    fn rare_deep_rows_go_and_the_counts_still_add_up() {
        let p = std::env::temp_dir().join(format!("deepred-prune-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let mut s = Store::open(&p).unwrap();
        // Two games share 1.e4 e5 2.Nf3; then they part.
        s.learn_game(test_game(
            &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"],
            GameResult::WhiteWins,
        ))
        .unwrap();
        s.learn_game(test_game(
            &["e2e4", "e7e5", "g1f3", "g8f6", "f3e5"],
            GameResult::Draw,
        ))
        .unwrap();
        assert_eq!(s.positions_near_roots(2).unwrap().len(), 3);
        // Known positions by ply: the start, after 1.e4, after 1...e5, after 2.Nf3 (the games
        // part there), then after 2...Nc6 and 2...Nf6.
        assert_eq!(s.book_depths(10).unwrap(), vec![1, 1, 1, 1, 2]);
        let growth = s.growth().unwrap();
        assert_eq!(growth.len(), 2);
        assert_eq!((growth[1].1, growth[1].2), (2, 10));
        // Rows with fewer than 2 games beyond ply 2: b8c6, f1b5, g8f6, f3e5.
        let r = s.prune(2, 2).unwrap();
        assert_eq!(
            r,
            Pruned {
                rows_before: 7,
                rows_removed: 4,
                kept_positions: 3
            }
        );
        let start = s.moves_from(&Chess::default()).unwrap();
        assert_eq!(start.len(), 1);
        assert_eq!(start[0].games(), 2);
        let st = s.stats().unwrap();
        assert_eq!(st.white_rows + st.black_rows, 3);
        // The pruned counts make up the difference: moves + pruned = learned games' rows.
        let pruned = s.pruned_counts().unwrap();
        for (i, (moves, games)) in s.consistency().unwrap().into_iter().enumerate() {
            assert_eq!(moves + pruned[i], games);
        }
        let (before, after) = s.vacuum().unwrap();
        assert!(after <= before, "{before} -> {after}");
        drop(s);
        let _ = std::fs::remove_file(&p);
    }
}

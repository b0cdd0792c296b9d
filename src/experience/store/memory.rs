//! The search memory table (`search_memory`, schema 3): read whole (the engine keeps a copy in
//! memory and never asks SQL during a search), and written once per game: what the game's
//! searches found, the Q-learning step of the game's result over its remembered positions, and
//! the game's move counts, all in one transaction.

use rusqlite::OptionalExtension;

use super::tx::{Tx, memory_row as row};
use super::write::learn_in;
use super::{Backend, Learned, Store};
use crate::chess::rules::GameResult;
use crate::experience::Error;
use crate::experience::memory::{QParams, Remembered, q_update};
use crate::experience::records::GameRecord;

/// What a game taught the search memory.
#[derive(Clone, Debug)]
pub struct GameSearches<'a> {
    /// The finished game, to count its moves' results as [`Store::learn_game`] does; `None`
    /// when the game ended without a result on the board (abandoned, adjudicated).
    pub record: Option<&'a GameRecord>,
    /// What the game's searches found, in the order they ran.
    pub found: &'a [Remembered],
    /// The game's positions in order, each with its side to move (`true`: White).
    pub path: &'a [(u64, bool)],
    /// The result for the Q-learning step (`None`: the last remembered value is the target).
    pub result: Option<GameResult>,
    pub q: QParams,
    /// The record's win/draw/loss counts cover its first this many plies only (`None`: all).
    pub tree_plies: Option<usize>,
    /// A try again after a write of this game failed. A failed commit to a server may have
    /// committed all the same (the connection lost before its answer): when the store already
    /// knows the record, its searches and Q-learning step were learned with it, and are not
    /// learned a second time. (A game played again, move for move, is learned again.)
    pub retry: bool,
}

impl Store {
    /// Every remembered position.
    pub fn memory_rows(&self) -> Result<Vec<Remembered>, Error> {
        let conn = sqlite_or!(self, pg => pg.memory_rows());
        let e = |err| Error::sqlite(&self.path, err);
        let mut stmt = conn
            .prepare("SELECT key, mv, score, depth, learned FROM search_memory")
            .map_err(e)?;
        let rows = stmt.query_map([], row).map_err(e)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(e)
    }

    /// Calls `f` with every remembered position written after write number `after` (every one
    /// for a negative `after`), as they stream from the store; returns the highest write number
    /// seen (`after` if none). A reader that passes back what it got misses nothing and reads
    /// nothing twice: write numbers rise in commit order.
    pub fn memory_rows_since(
        &self,
        after: i64,
        mut f: impl FnMut(Remembered),
    ) -> Result<i64, Error> {
        let seq = self.column("seq", 5);
        let sql = format!(
            "SELECT key, mv, score, depth, learned, coalesce({seq}, 0) FROM search_memory
             WHERE coalesce({seq}, 0) > ?1"
        );
        let conn = sqlite_or!(self, pg => pg.memory_rows_since(&sql.replace("?1", "$1"), after, f));
        let e = |err| Error::sqlite(&self.path, err);
        let mut stmt = conn.prepare(&sql).map_err(e)?;
        let mut rows = stmt.query([after]).map_err(e)?;
        let mut top = after;
        while let Some(r) = rows.next().map_err(e)? {
            f(row(r).map_err(e)?);
            top = top.max(r.get::<_, i64>(5).map_err(e)?);
        }
        Ok(top)
    }

    /// The remembered entry of the position with Zobrist key `key`.
    pub fn memory_of(&self, key: u64) -> Result<Option<Remembered>, Error> {
        let conn = sqlite_or!(self, pg => pg.memory_of(key));
        conn.query_row(
            "SELECT key, mv, score, depth, learned FROM search_memory WHERE key = ?1",
            [key as i64],
            row,
        )
        .optional()
        .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// Learns a game's searches in one transaction: each found entry replaces the stored move,
    /// score and depth of its position unless that one is deeper (what results taught stays);
    /// then the Q-learning step moves the values (score + learned) of the game's remembered
    /// positions (those of `path`) toward the result, by changing what they learned; with a record, the
    /// game's move counts are learned too. Returns what the game's counts did (when there was a
    /// record) and the rows as they now stand, for the engine's in-memory copy.
    pub fn learn_searches(
        &mut self,
        game: &GameSearches<'_>,
    ) -> Result<(Option<Learned>, Vec<Remembered>), Error> {
        self.write(|tx| learn_searches_in(tx, game))
    }

    pub fn memory_count(&self) -> Result<u64, Error> {
        let conn = sqlite_or!(self, pg => pg.count("SELECT count(*) FROM search_memory"));
        conn.query_row("SELECT count(*) FROM search_memory", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n as u64)
        .map_err(|e| Error::sqlite(&self.path, e))
    }
}

/// The work of [`Store::learn_searches`] inside the caller's transaction.
fn learn_searches_in(
    tx: &mut dyn Tx,
    game: &GameSearches<'_>,
) -> Result<(Option<Learned>, Vec<Remembered>), Error> {
    let learned = match game.record {
        Some(g) => {
            let rows = g.rows_first(game.tree_plies.unwrap_or(usize::MAX));
            Some(learn_in(tx, &[(g.clone(), rows)])?[0])
        }
        None => None,
    };
    if game.retry && learned == Some(Learned::AlreadyKnown) {
        // Each key once: a position both searched and on the game's path is one row.
        let mut keys: Vec<u64> = game
            .found
            .iter()
            .map(|f| f.key)
            .chain(game.path.iter().map(|p| p.0))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let mut now = Vec::new();
        for key in keys {
            now.extend(tx.memory_of(key)?);
        }
        return Ok((learned, now));
    }
    // In key order: concurrent writers lock the rows in one order.
    let mut found = game.found.to_vec();
    found.sort_by_key(|f| f.key);
    found.dedup_by(|later, first| {
        // Of one key, the deepest search is the one kept (as `remember` would).
        if later.key == first.key && later.depth >= first.depth {
            *first = *later;
        }
        later.key == first.key
    });
    tx.remember(&found)?;
    let mut seen = std::collections::HashSet::new();
    let mut on_path: Vec<(Remembered, bool)> = Vec::new();
    for &(key, white) in game.path.iter().rev() {
        if !seen.insert(key) {
            continue;
        }
        if let Some(r) = tx.memory_of(key)? {
            on_path.push((r, white));
        }
    }
    on_path.reverse();
    let mut values: Vec<(bool, i32)> = on_path.iter().map(|(r, w)| (*w, r.value())).collect();
    q_update(&mut values, game.result, &game.q);
    let mut updates: Vec<(u64, i32)> = on_path
        .iter()
        .zip(&values)
        .map(|((r, _), (_, v))| (r.key, v - r.score))
        .collect();
    updates.sort_by_key(|u| u.0);
    for &(key, learned) in &updates {
        tx.set_learned(key, learned)?;
    }
    let mut now = Vec::new();
    for f in game.found {
        if let Some(r) = tx.memory_of(f.key)? {
            now.push(r);
        }
    }
    for ((r, _), (_, v)) in on_path.iter().zip(&values) {
        now.push(Remembered {
            learned: v - r.score,
            ..*r
        });
    }
    Ok((learned, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experience::records::test_game;

    fn temp(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!(
            "deepred-memory-{}-{name}.sqlite",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&p);
        p
    }

    fn at(key: u64, score: i32, depth: i32) -> Remembered {
        Remembered {
            key,
            mv: 7 | (8 << 6),
            score,
            depth,
            learned: 0,
        }
    }

    #[test]
    fn deeper_entries_win_and_results_flow_back() {
        let p = temp("q");
        let mut s = Store::open(&p).unwrap();
        let q = QParams {
            rate: 0.5,
            discount: 1.0,
            reward: 1000,
        };
        let game = test_game(&["e2e4", "e7e5"], GameResult::BlackWins);
        // Keys 1 (White to move), 2 (Black), 3 (White).
        let path = [(1, true), (2, false), (3, true)];
        let found = [at(1, 40, 10), at(2, -30, 9), at(1, 99, 8)];
        let (learned, now) = s
            .learn_searches(&GameSearches {
                record: Some(&game),
                found: &found,
                path: &path,
                result: Some(GameResult::BlackWins),
                q,
                tree_plies: None,
                retry: false,
            })
            .unwrap();
        assert_eq!(learned, Some(Learned::New { rows: 2 }));
        // The shallower second search of key 1 did not replace the deeper one; then the loss:
        // w(2) = 0.5·30 + 0.5·(−1000) = −485 → Black to move: +485; w(1) = 0.5·40 + 0.5·(−485).
        let one = s.memory_of(1).unwrap().unwrap();
        assert_eq!((one.score, one.depth, one.value()), (40, 10, -223));
        assert_eq!(s.memory_of(2).unwrap().unwrap().value(), 485);
        assert_eq!(s.memory_of(3).unwrap(), None);
        assert!(now.contains(&Remembered {
            learned: -263,
            ..at(1, 40, 10)
        }));
        assert_eq!(s.memory_count().unwrap(), 2);
        assert_eq!(s.game_count().unwrap(), 1);
        // A deeper search replaces the score; no record: the counts stay.
        let (learned, _) = s
            .learn_searches(&GameSearches {
                record: None,
                found: &[at(1, 15, 12)],
                path: &[],
                result: None,
                q,
                tree_plies: None,
                retry: false,
            })
            .unwrap();
        assert_eq!(learned, None);
        // The deeper search's score, and what the loss taught, kept.
        assert_eq!(
            s.memory_of(1).unwrap().unwrap(),
            Remembered {
                learned: -263,
                ..at(1, 15, 12)
            }
        );
        assert_eq!(s.memory_rows().unwrap().len(), 2);
        assert_eq!(s.game_count().unwrap(), 1);
        drop(s);
        let _ = std::fs::remove_file(&p);
    }

    /// A retry of a game the store already knows (its first try committed, though the answer
    /// was lost) learns nothing twice; the same game played again is learned again.
    #[test]
    fn a_retry_of_a_known_game_learns_nothing_twice() {
        let p = temp("retry");
        let mut s = Store::open(&p).unwrap();
        let game = test_game(&["e2e4", "e7e5"], GameResult::BlackWins);
        let path = [(1, true), (2, false), (3, true)];
        let found = [at(1, 40, 10), at(2, -30, 9)];
        let learn = |s: &mut Store, found: &[Remembered], retry| {
            s.learn_searches(&GameSearches {
                record: Some(&game),
                found,
                path: &path,
                result: Some(GameResult::BlackWins),
                q: QParams::default(),
                tree_plies: None,
                retry,
            })
            .unwrap()
        };
        assert_eq!(
            learn(&mut s, &found, true).0,
            Some(Learned::New { rows: 2 })
        );
        let mut once = s.memory_rows().unwrap();
        once.sort_by_key(|r| r.key);
        // Tried again with a deeper search of key 1: nothing changes, and the rows as they
        // stand are handed back for the engine's copy.
        let (learned, now) = learn(&mut s, &[at(1, 70, 20), found[1]], true);
        assert_eq!(learned, Some(Learned::AlreadyKnown));
        let mut rows = s.memory_rows().unwrap();
        rows.sort_by_key(|r| r.key);
        assert_eq!(rows, once);
        // Each row once, though keys 1 and 2 are both searched and on the path.
        let mut now = now;
        now.sort_by_key(|r| r.key);
        assert_eq!(now, once);
        // Played again: the deeper search and a second Q-learning step.
        assert_eq!(learn(&mut s, &found, false).0, Some(Learned::AlreadyKnown));
        let twice = s.memory_of(2).unwrap().unwrap();
        assert!(twice.value() > once[1].value(), "{twice:?} {once:?}");
        assert_eq!(s.game_count().unwrap(), 1);
        drop(s);
        let _ = std::fs::remove_file(&p);
    }
}

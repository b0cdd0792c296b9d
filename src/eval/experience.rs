//! `Evaluator=experience`: leaves scored by the recorded results of the position (all games that
//! went through it and went on), converted to centipawns; pst where the position is unknown or
//! has fewer than `min_games` games. The records live in memory (a DashMap keyed by Zobrist
//! key, loaded once from the store), never read with SQL during the search.

use std::path::Path;

use dashmap::DashMap;
use shakmaty::{Chess, Color, Position};

use super::ScalarEvaluator;
use crate::chess::score::cp_from_expectation;
use crate::experience::store::Store;

/// (white wins, black wins, draws) of the games through a position.
pub type Record = (u32, u32, u32);

#[derive(Debug)]
pub struct ExperienceEval {
    records: DashMap<u64, Record>,
    min_games: u32,
}

impl ExperienceEval {
    /// Loads the per-position records of the store at `path`. A store that does not exist yet
    /// (no file, or a server database without one) gives an evaluator with no records (pst everywhere until games are learned).
    pub fn load(path: &Path, min_games: u32) -> Result<Self, crate::experience::Error> {
        let store = match Store::open_read_only(path) {
            Ok(s) => s,
            // No store there yet (no file, or an empty server database).
            Err(crate::experience::Error::Missing { .. }) => {
                return Ok(ExperienceEval {
                    records: DashMap::new(),
                    min_games,
                });
            }
            Err(e) => return Err(e),
        };
        let records = DashMap::new();
        store.for_each_position(|pos, rec| {
            records.insert(crate::chess::zobrist::hash_of(pos), rec);
        })?;
        Ok(ExperienceEval { records, min_games })
    }

    pub fn from_records(records: DashMap<u64, Record>, min_games: u32) -> Self {
        ExperienceEval { records, min_games }
    }

    /// Adds a learned game's result to the positions it went through (each once), as the store
    /// does, so that the evaluator follows learning without reloading.
    pub fn add_game(&self, game: &crate::experience::records::GameRecord) {
        use crate::chess::rules::GameResult;
        let mut seen = std::collections::HashSet::new();
        let mut pos = game.start.clone();
        for &m in &game.moves {
            let key = crate::chess::zobrist::hash_of(&pos);
            if seen.insert(key) {
                let mut r = self.records.entry(key).or_insert((0, 0, 0));
                match game.result {
                    GameResult::WhiteWins => r.0 += 1,
                    GameResult::BlackWins => r.1 += 1,
                    GameResult::Draw => r.2 += 1,
                }
            }
            pos.play_unchecked(m);
        }
    }

    pub fn positions(&self) -> usize {
        self.records.len()
    }

    /// The record's score for the side to move in centipawns, if there are enough games.
    pub fn experience_cp(&self, pos: &Chess, hash: u64) -> Option<i32> {
        let r = *self.records.get(&hash)?;
        let n = r.0 + r.1 + r.2;
        if n < self.min_games.max(1) {
            return None;
        }
        let wins = if pos.turn() == Color::White { r.0 } else { r.1 };
        let p = (f64::from(wins) + 0.5 * f64::from(r.2)) / f64::from(n);
        Some(cp_from_expectation(p))
    }
}

impl ScalarEvaluator for ExperienceEval {
    fn name(&self) -> &'static str {
        "experience"
    }
    fn evaluate(&self, pos: &Chess, hash: u64) -> i32 {
        self.experience_cp(pos, hash)
            .unwrap_or_else(|| super::pst::evaluate(pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_positions_use_the_record_and_others_pst() {
        let start = Chess::default();
        let key = crate::chess::zobrist::hash_of(&start);
        let records = DashMap::new();
        records.insert(key, (30, 10, 10));
        let e = ExperienceEval::from_records(records, 20);
        // White to move scores 35/50 = 0.7.
        assert_eq!(e.evaluate(&start, key), cp_from_expectation(0.7));
        // Too few games: pst.
        let e2 = ExperienceEval::from_records(DashMap::from_iter([(key, (3, 1, 1))]), 20);
        assert_eq!(
            e2.evaluate(&start, key),
            super::super::pst::evaluate(&start)
        );
    }
}

//! The search memory as the search reads it: an in-memory copy of the store's remembered
//! positions (`experience::memory`), looked up by Zobrist key at every node like a second,
//! never-overwritten transposition table. Built from the store before the search, updated
//! between searches; the search itself never asks SQL.

use std::collections::HashMap;

use nohash_hasher::BuildNoHashHasher;

use crate::experience::Error;
use crate::experience::memory::Remembered;
use crate::experience::store::Store;

/// What the search knows of a remembered position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEntry {
    /// The best move's 16-bit code (`chess::notation::encode_move`).
    pub mv: u16,
    /// The search's score for the side to move (mates count from this position).
    pub score: i32,
    pub depth: i32,
    /// What game results added to the score (the root's bias of the move leading here).
    pub learned: i32,
}

/// The remembered positions by Zobrist key.
#[derive(Clone, Debug, Default)]
pub struct SearchMemory {
    map: HashMap<u64, MemoryEntry, BuildNoHashHasher<u64>>,
}

impl SearchMemory {
    /// Everything `store` remembers.
    pub fn load(store: &Store) -> Result<SearchMemory, Error> {
        let mut m = SearchMemory::default();
        m.update(&store.memory_rows()?);
        Ok(m)
    }

    /// Takes `rows` as they now stand in the store (they replace what this copy had).
    pub fn update(&mut self, rows: &[Remembered]) {
        for r in rows {
            self.map.insert(
                r.key,
                MemoryEntry {
                    mv: r.mv,
                    score: r.score,
                    depth: r.depth,
                    learned: r.learned,
                },
            );
        }
    }

    /// Takes one search's finding before the store has it: kept unless this copy knows the
    /// position deeper; what results taught stays.
    pub fn remember(&mut self, r: &Remembered) {
        let e = self.map.entry(r.key).or_insert(MemoryEntry {
            mv: r.mv,
            score: r.score,
            depth: r.depth,
            learned: 0,
        });
        if r.depth >= e.depth {
            *e = MemoryEntry {
                mv: r.mv,
                score: r.score,
                depth: r.depth,
                learned: e.learned,
            };
        }
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<MemoryEntry> {
        self.map.get(&key).copied()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeper_knowledge_stays() {
        let mut m = SearchMemory::default();
        let r = |score, depth| Remembered {
            key: 9,
            mv: 1,
            score,
            depth,
            learned: 0,
        };
        m.remember(&r(10, 5));
        m.remember(&r(20, 4));
        assert_eq!(m.get(9).unwrap().score, 10);
        m.remember(&r(30, 5));
        assert_eq!(m.get(9).unwrap().score, 30);
        // The store's word is final (another process may have searched deeper meanwhile).
        m.update(&[Remembered {
            learned: -70,
            ..r(-50, 3)
        }]);
        assert_eq!(
            m.get(9).unwrap(),
            MemoryEntry {
                mv: 1,
                score: -50,
                depth: 3,
                learned: -70
            }
        );
        // A new search keeps what results taught.
        m.remember(&r(5, 9));
        assert_eq!(m.get(9).unwrap().learned, -70);
        assert_eq!(m.get(8), None);
        assert_eq!(m.len(), 1);
    }
}

//! The search memory as the search reads it: an in-memory copy of the store's remembered
//! positions (`experience::memory`), looked up by Zobrist key at every node deep enough, like a
//! second, never-overwritten transposition table. Shared by the engine and its searches
//! (a concurrent map: readers never wait for a writer for long), and filled without ever making
//! a search wait: the store is read on a thread of its own ([`SearchMemory::catch_up_in_background`]),
//! first whole, then only what changed since (the rows' write numbers), while searches go on
//! with what is there so far. The search itself never asks SQL.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use dashmap::DashMap;
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

impl From<&Remembered> for MemoryEntry {
    fn from(r: &Remembered) -> Self {
        MemoryEntry {
            mv: r.mv,
            score: r.score,
            depth: r.depth,
            learned: r.learned,
        }
    }
}

/// The remembered positions by Zobrist key, and how far the copy has read the store.
#[derive(Debug)]
pub struct SearchMemory {
    map: DashMap<u64, MemoryEntry, BuildNoHashHasher<u64>>,
    /// The highest write number read from the store (-1: nothing read yet).
    seq: AtomicI64,
    /// A read of the store is under way on another thread.
    reading: AtomicBool,
    /// The first read (the whole table) has finished.
    loaded: AtomicBool,
    /// Why the last read failed, until someone takes the message.
    error: Mutex<Option<String>>,
}

impl Default for SearchMemory {
    fn default() -> Self {
        SearchMemory {
            map: DashMap::with_hasher(BuildNoHashHasher::default()),
            seq: AtomicI64::new(-1),
            reading: AtomicBool::new(false),
            loaded: AtomicBool::new(false),
            error: Mutex::new(None),
        }
    }
}

impl SearchMemory {
    /// Everything `store` remembers, read now (self-play and terminal play, between games).
    pub fn load(store: &Store) -> Result<SearchMemory, Error> {
        let m = SearchMemory::default();
        m.catch_up(store)?;
        Ok(m)
    }

    /// Reads what the store changed since this copy last read it (everything the first time);
    /// returns how many rows it read.
    pub fn catch_up(&self, store: &Store) -> Result<u64, Error> {
        let mut n = 0;
        let top = store.memory_rows_since(self.seq.load(Ordering::SeqCst), |r| {
            self.map.insert(r.key, MemoryEntry::from(&r));
            n += 1;
        })?;
        self.seq.fetch_max(top, Ordering::SeqCst);
        self.loaded.store(true, Ordering::SeqCst);
        Ok(n)
    }

    /// [`Self::catch_up`] on a thread of its own, from the store at `path` (opened read-only),
    /// unless a read is already under way. Searches meanwhile use what is there.
    pub fn catch_up_in_background(self: &Arc<Self>, path: PathBuf) {
        if self.reading.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new().spawn(move || {
            let read = Store::open_read_only(&path).and_then(|s| me.catch_up(&s));
            match read {
                Ok(_) | Err(Error::Missing { .. }) | Err(Error::Empty { .. }) => {
                    me.loaded.store(true, Ordering::SeqCst);
                }
                Err(e) => {
                    *me.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
                    // The reading is over, if without the store's rows.
                    me.loaded.store(true, Ordering::SeqCst);
                }
            }
            me.reading.store(false, Ordering::SeqCst);
        });
        // No thread to read on (a thread or memory limit): searches go on with what is there,
        // and the next search tries again.
        if let Err(e) = spawned {
            *self.error.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("the search memory cannot be read: {e}"));
            self.reading.store(false, Ordering::SeqCst);
        }
    }

    /// Whether the first read of the store has finished (or failed: see [`Self::take_error`]).
    pub fn is_loaded(&self) -> bool {
        self.loaded.load(Ordering::SeqCst)
    }

    /// Why the last read of the store failed, once.
    pub fn take_error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Takes `rows` as they now stand in the store (they replace what this copy had).
    pub fn update(&self, rows: &[Remembered]) {
        for r in rows {
            self.map.insert(r.key, MemoryEntry::from(r));
        }
    }

    /// Takes one search's finding before the store has it: kept unless this copy knows the
    /// position deeper; what results taught stays.
    pub fn remember(&self, r: &Remembered) {
        let mut e = self.map.entry(r.key).or_insert(MemoryEntry {
            learned: 0,
            ..MemoryEntry::from(r)
        });
        if r.depth >= e.depth {
            *e = MemoryEntry {
                learned: e.learned,
                ..MemoryEntry::from(r)
            };
        }
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<MemoryEntry> {
        self.map.get(&key).map(|e| *e)
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
        let m = SearchMemory::default();
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

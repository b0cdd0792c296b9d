//! A cache of Pos2Vec vectors by Zobrist key, shared by search threads: direct-mapped slots in
//! independently locked shards (a lookup holds one shard's lock for the copy of one vector).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

const SHARDS: usize = 64;

struct Shard {
    keys: Vec<Option<u64>>,
    data: Vec<f32>,
}

pub struct VecCache {
    shards: Vec<Mutex<Shard>>,
    dim: usize,
    slots: usize,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

impl VecCache {
    /// A cache of about `entries` vectors of length `dim`.
    pub fn new(dim: usize, entries: usize) -> Self {
        let slots = (entries / SHARDS).max(1);
        VecCache {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        keys: vec![None; slots],
                        data: vec![0.0; slots * dim],
                    })
                })
                .collect(),
            dim,
            slots,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    #[inline]
    fn place(&self, key: u64) -> (usize, usize) {
        let shard = (key as usize) % SHARDS;
        let slot = ((key >> 16) as usize) % self.slots;
        (shard, slot)
    }

    /// Copies the vector of `key` into `out` if it is cached.
    pub fn get(&self, key: u64, out: &mut [f32]) -> bool {
        let (shard, slot) = self.place(key);
        let s = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        if s.keys[slot] == Some(key) {
            out[..self.dim].copy_from_slice(&s.data[slot * self.dim..(slot + 1) * self.dim]);
            drop(s);
            self.hits.fetch_add(1, Ordering::Relaxed);
            true
        } else {
            drop(s);
            self.misses.fetch_add(1, Ordering::Relaxed);
            false
        }
    }

    pub fn put(&self, key: u64, v: &[f32]) {
        let (shard, slot) = self.place(key);
        let mut s = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        s.keys[slot] = Some(key);
        s.data[slot * self.dim..(slot + 1) * self.dim].copy_from_slice(&v[..self.dim]);
    }

    pub fn clear(&self) {
        for sh in &self.shards {
            let mut s = sh.lock().unwrap_or_else(|e| e.into_inner());
            s.keys.iter_mut().for_each(|k| *k = None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_replaces() {
        let c = VecCache::new(3, 128);
        let mut out = [0.0; 3];
        assert!(!c.get(42, &mut out));
        c.put(42, &[1.0, 2.0, 3.0]);
        assert!(c.get(42, &mut out));
        assert_eq!(out, [1.0, 2.0, 3.0]);
        // Same slot, other key: replaced.
        let other = 42 + (c.slots as u64) * (1 << 16) * SHARDS as u64;
        assert_eq!(c.place(other), c.place(42));
        c.put(other, &[4.0, 5.0, 6.0]);
        assert!(!c.get(42, &mut out));
        assert!(c.get(other, &mut out));
        assert_eq!(out, [4.0, 5.0, 6.0]);
    }
}

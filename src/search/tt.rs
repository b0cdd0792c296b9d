//! Shared lock-free transposition table.
//!
//! Each entry is two `AtomicU64`s: `key ^ data` and `data` (Hyatt's lockless hashing): a torn
//! write from another thread makes the XOR check fail and reads as a miss, never as a wrong hit.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::chess::score::TB_WIN_BOUND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    pub mv: u16,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

impl Bound {
    /// The bound of a node's best score: a fail high, an exact score (alpha was raised), or a
    /// fail low.
    #[inline]
    pub fn of(best: i32, alpha: i32, orig_alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if alpha > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

impl TtEntry {
    /// The entry's score at `ply` when its bound settles the window `(alpha, beta)`.
    #[inline]
    pub fn cutoff(&self, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
        let s = score_from_tt(self.score, ply);
        let usable = match self.bound {
            Bound::Exact => true,
            Bound::Lower => s >= beta,
            Bound::Upper => s <= alpha,
        };
        usable.then_some(s)
    }
}

#[derive(Default)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

pub struct TranspositionTable {
    slots: Vec<Slot>,
    age: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one entry).
    pub fn new(mb: usize) -> Self {
        let n = (mb.max(1) * 1024 * 1024 / std::mem::size_of::<Slot>()).max(1);
        let mut slots = Vec::with_capacity(n);
        slots.resize_with(n, Slot::default);
        TranspositionTable {
            slots,
            age: AtomicU8::new(0),
        }
    }

    pub fn clear(&self) {
        for s in &self.slots {
            s.key.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Called at the start of every search: older entries become cheaper to replace.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store((a + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    /// Asks the CPU to bring `key`'s slot into cache (a child is about to be searched).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = &self.slots[self.index(key)] as *const Slot as *const i8;
            // SAFETY: a prefetch is only a hint; the pointer is in bounds and never dereferenced.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let slot = &self.slots[self.index(key)];
        let data = slot.data.load(Ordering::Relaxed);
        let k = slot.key.load(Ordering::Relaxed);
        if k ^ data != key || data == 0 {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(TtEntry {
            mv: data as u16,
            score: i32::from((data >> 16) as i16),
            eval: i32::from((data >> 32) as i16),
            depth: i32::from((data >> 48) as u8),
            bound,
        })
    }

    pub fn store(&self, key: u64, mv: u16, score: i32, eval: i32, depth: i32, bound: Bound) {
        let slot = &self.slots[self.index(key)];
        let age = u64::from(self.age.load(Ordering::Relaxed));
        let old = slot.data.load(Ordering::Relaxed);
        let old_key = slot.key.load(Ordering::Relaxed) ^ old;
        let old_depth = ((old >> 48) & 0xff) as i32;
        let old_age = (old >> 58) & 63;
        let same = old_key == key;
        // Replace: different age, an empty slot, an exact result, or not much shallower.
        if !same && old_age == age && bound != Bound::Exact && depth + 2 < old_depth {
            return;
        }
        // Keep the old move when the new result has none for the same position.
        let mv = if mv == 0 && same { old as u16 } else { mv };
        let depth = depth.clamp(0, 255) as u64;
        let data = u64::from(mv)
            | (u64::from(score.clamp(-32767, 32767) as i16 as u16) << 16)
            | (u64::from(eval.clamp(-32767, 32767) as i16 as u16) << 32)
            | (depth << 48)
            | ((bound as u64) << 56)
            | (age << 58);
        slot.key.store(key ^ data, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
    }

    /// Permille of the first 1000 slots used by the current search.
    pub fn hashfull(&self) -> u32 {
        let age = u64::from(self.age.load(Ordering::Relaxed));
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && (d >> 58) & 63 == age
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

/// A score as the table keeps it: mate and tablebase scores count from this node, not from the
/// root.
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A score read from the table at `ply`: mate and tablebase scores count from the root again.
#[inline]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

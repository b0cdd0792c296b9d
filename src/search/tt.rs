//! Shared lock-free transposition table.
//!
//! Each entry is two `AtomicU64`s: `key ^ data` and `data` (Hyatt's lockless hashing): a torn
//! write from another thread makes the XOR check fail and reads as a miss, never as a wrong hit.
//! Entries come in buckets of four, one cache line: a position may sit in any slot of its
//! bucket, and a new one replaces the least valuable (shallow and old) of the four.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use super::kept::Kept;

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

/// Slots of a bucket.
const BUCKET: usize = 4;

/// Four slots in one cache line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; BUCKET],
}

/// The depth an entry is worth when choosing which to replace: each search since it was
/// written costs it this many plies.
const AGE_PLIES: i32 = 4;

/// The transposition table, and what else the searches of one game keep from move to move:
/// each search thread's histories ([`Kept`]). Clearing it clears both.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    age: AtomicU8,
    /// By search thread: what its last search learned (`None`: nothing yet, or in use).
    kept: Mutex<Vec<Option<Kept>>>,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one entry). Panics if the memory cannot be
    /// had: for the small tables of tools; a size a user asks for goes through [`Self::try_new`].
    pub fn new(mb: usize) -> Self {
        Self::try_new(mb).unwrap_or_else(|e| panic!("a hash table of {mb} MB: {e}"))
    }

    /// A table of about `mb` mebibytes, or the error of an allocation that failed (a memory
    /// limit), instead of the abort of an ordinary allocation.
    pub fn try_new(mb: usize) -> Result<Self, std::collections::TryReserveError> {
        let n = (mb.max(1).saturating_mul(1024 * 1024) / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(n)?;
        advise_huge_pages(buckets.spare_capacity_mut());
        buckets.resize_with(n, Bucket::default);
        Ok(TranspositionTable {
            buckets,
            age: AtomicU8::new(0),
            kept: Mutex::new(Vec::new()),
        })
    }

    /// Its size in mebibytes (as asked, rounded down to whole buckets).
    pub fn mb(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    pub fn clear(&self) {
        for s in self.buckets.iter().flat_map(|b| &b.slots) {
            s.key.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
        self.kept_slots().clear();
    }

    fn kept_slots(&self) -> std::sync::MutexGuard<'_, Vec<Option<Kept>>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What search thread `id` learned in the last search since the table was cleared, or
    /// empty histories (or the error of their allocation).
    pub(super) fn take_kept(&self, id: usize) -> Result<Kept, std::collections::TryReserveError> {
        let kept = self.kept_slots().get_mut(id).and_then(Option::take);
        kept.map_or_else(Kept::try_new, Ok)
    }

    /// Keeps what search thread `id` learned for its next search.
    pub(super) fn put_kept(&self, id: usize, kept: Kept) {
        let mut slots = self.kept_slots();
        if slots.len() <= id {
            slots.resize_with(id + 1, || None);
        }
        slots[id] = Some(kept);
    }

    /// Called at the start of every search: older entries become cheaper to replace.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store((a + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// Asks the CPU to bring `key`'s slot into cache (a child is about to be searched).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = &self.buckets[self.index(key)] as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint; the pointer is in bounds and never dereferenced.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let data = self.buckets[self.index(key)]
            .slots
            .iter()
            .find_map(|slot| {
                let data = slot.data.load(Ordering::Relaxed);
                let k = slot.key.load(Ordering::Relaxed);
                (k ^ data == key && data != 0).then_some(data)
            })?;
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

    /// The slot of `bucket` a new entry for `key` goes to: the position's own, else the one
    /// worth least (empty, else shallowest after [`AGE_PLIES`] per search of age).
    fn victim<'b>(&self, bucket: &'b Bucket, key: u64, age: u64) -> &'b Slot {
        let mut worst = &bucket.slots[0];
        let mut worst_value = i32::MAX;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            if data == 0 || slot.key.load(Ordering::Relaxed) ^ data == key {
                return slot;
            }
            let depth = ((data >> 48) & 0xff) as i32;
            let aged = ((age + 64 - ((data >> 58) & 63)) & 63) as i32;
            let value = depth - AGE_PLIES * aged;
            if value < worst_value {
                worst_value = value;
                worst = slot;
            }
        }
        worst
    }

    pub fn store(&self, key: u64, mv: u16, score: i32, eval: i32, depth: i32, bound: Bound) {
        let age = u64::from(self.age.load(Ordering::Relaxed));
        let slot = self.victim(&self.buckets[self.index(key)], key, age);
        let old = slot.data.load(Ordering::Relaxed);
        let same = slot.key.load(Ordering::Relaxed) ^ old == key && old != 0;
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
        let n = (self.buckets.len() * BUCKET).min(1000);
        let used = self
            .buckets
            .iter()
            .flat_map(|b| &b.slots)
            .take(n)
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

/// Asks Linux to back the table's memory with 2 MB pages (transparent huge pages), before it is
/// first touched, as Stockfish does: every probe lands on a random page, and with 4 KB pages
/// nearly every probe also misses the TLB (see BENCHMARKS.md, "A search worth the net"). Only
/// the whole 2 MB pages inside the allocation are advised. Where the kernel has no huge pages
/// (or another system runs this), nothing changes.
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    const HUGE: usize = 2 << 20;
    let start = memory.as_mut_ptr() as usize;
    let end = start + std::mem::size_of_val(memory);
    let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
    if to > from {
        // SAFETY: [from, to) lies inside `memory`, which this table owns; the advice changes how
        // the kernel backs those pages, not what they hold, and a refusal leaves them as they are.
        let _ = unsafe {
            rustix::mm::madvise(
                from as *mut std::ffi::c_void,
                to - from,
                rustix::mm::Advice::LinuxHugepage,
            )
        };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_: &mut [std::mem::MaybeUninit<T>]) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// On Linux with transparent huge pages on (`always` or `madvise`, the kernel's default),
    /// the table's memory is eligible for 2 MB pages: the kernel says so per mapping in
    /// `/proc/self/smaps` (`THPeligible: 1`). With `madvise` (as on this project's machines) a
    /// table that did not ask would read 0.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_table_asks_for_huge_pages() {
        let Ok(mode) = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        else {
            return;
        };
        if mode.contains("[never]") {
            return;
        }
        let tt = TranspositionTable::new(8);
        // 4 MB in: inside the whole 2 MB pages of the 8 MB allocation.
        let inside = tt.buckets.as_ptr() as usize + (4 << 20);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        if !smaps.contains("THPeligible:") {
            return; // a kernel before 5.0 does not say
        }
        let mut eligible = None;
        let mut current = false;
        for line in smaps.lines() {
            let range = line.split(' ').next().and_then(|r| r.split_once('-'));
            if let Some((a, b)) = range
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                current = (a..b).contains(&inside);
            } else if current && let Some(v) = line.strip_prefix("THPeligible:") {
                eligible = Some(v.trim().to_string());
            }
        }
        assert_eq!(eligible.as_deref(), Some("1"), "{mode}");
    }

    /// Each search thread's histories outlive its search, to start the game's next search
    /// from; clearing the table (a new game) clears them too.
    #[test]
    fn the_histories_are_kept_between_searches_and_cleared_with_the_table() {
        use crate::search::{Limits, SearchParams, Shared};
        let tt = TranspositionTable::new(1);
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
        let root = crate::chess::fen::parse_fen(fen, false).unwrap();
        let mut params = SearchParams::new(root, Limits::depth(7));
        params.threads = 2;
        super::super::search(&params, &Shared::default(), &tt);
        // Both threads' are kept (the helper's may have learned little: a busy machine can
        // give it few nodes before the main thread ends the search).
        assert_eq!(tt.kept_slots().iter().flatten().count(), 2);
        // The next search takes them: the main thread's are in use, nothing is left there.
        let main = tt.take_kept(0).unwrap();
        assert_eq!(main.fresh(), (false, false));
        assert!(tt.kept_slots()[0].is_none());
        tt.put_kept(0, main);
        tt.clear();
        assert!(tt.kept_slots().is_empty());
        assert_eq!(tt.take_kept(1).unwrap().fresh(), (true, true));
    }

    #[test]
    fn a_bucket_keeps_four_positions_and_replaces_the_least_valuable() {
        let tt = TranspositionTable::new(1);
        // Keys that share their top bits share a bucket.
        let key = |i: u64| (0xABCD_u64 << 48) | (i + 1);
        for i in 0..4 {
            tt.store(key(i), 1, 10, 0, 10 + i as i32, Bound::Exact);
        }
        for i in 0..4 {
            assert_eq!(tt.probe(key(i)).unwrap().depth, 10 + i as i32);
        }
        // A fifth position replaces the shallowest.
        tt.store(key(4), 2, 20, 0, 5, Bound::Lower);
        assert!(tt.probe(key(0)).is_none());
        assert!((1..5).all(|i| tt.probe(key(i)).is_some()));
        // Four searches later, old entries give way to fresh ones, deep or not.
        for _ in 0..4 {
            tt.new_search();
        }
        tt.store(key(5), 3, 0, 0, 6, Bound::Upper);
        assert!(tt.probe(key(4)).is_none());
        tt.store(key(6), 3, 0, 0, 3, Bound::Upper);
        assert!(tt.probe(key(1)).is_none());
        assert!(tt.probe(key(5)).is_some() && tt.probe(key(6)).is_some());
        // A fail low (no move) keeps the position's move.
        tt.store(key(2), 9, 30, 0, 14, Bound::Exact);
        tt.store(key(2), 0, -5, 0, 15, Bound::Upper);
        let e = tt.probe(key(2)).unwrap();
        assert_eq!((e.mv, e.score, e.depth, e.bound), (9, -5, 15, Bound::Upper));
        tt.clear();
        assert!(tt.probe(key(2)).is_none());
        assert_eq!(tt.hashfull(), 0);
    }
}

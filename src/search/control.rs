//! One node counter and limit checker for both searches: counts a thread's nodes, adds them to
//! the shared count every so often, and then checks `stop`, the node limit and the clock.

use std::sync::atomic::{AtomicBool, Ordering};

use super::time::TimeBudget;
use super::types::{Limits, Shared};

/// How many times its count a node limit lets a search run before it has a move.
const NO_MOVE_SLACK: u64 = 16;

/// How long the main thread goes on after a GUI's `stop` while its first iteration is not done:
/// a `stop` just after `go` (a "move now" click) answered the first root move tried. The first
/// iteration takes well under a millisecond; this bounds a pathological one.
const STOP_GRACE_MS: u64 = 20;

pub(super) struct Control<'a> {
    shared: &'a Shared,
    /// Set when the main thread has finished: stops the helpers without touching `shared.stop`
    /// (which belongs to the GUI's `stop`).
    helpers_stop: Option<&'a AtomicBool>,
    limits: &'a Limits,
    budget: Option<TimeBudget>,
    /// The main thread checks the node and time limits; helpers only look for a stop.
    main: bool,
    /// Nodes counted between two checks.
    interval: u64,
    /// Nodes counted before the next check: `interval`, or fewer on the main thread near its
    /// node limit. One comparison per node, on the hot path.
    threshold: u64,
    /// Nodes of this thread.
    pub nodes: u64,
    unflushed: u64,
    /// The search has a move (its first root move searched whole,
    /// [`Control::search_has_a_move`]): the node limit applies; before, `NO_MOVE_SLACK` times
    /// it does. The main thread checks when the shared count, as it last stood, reaches the
    /// limit (`threshold`), not only every `interval` nodes (`go nodes 100` searched 256, and
    /// `UCI_Elo` 1350's cap of about 47 nodes was 256: 1350 and 1500 played alike, and each game
    /// the same).
    node_limit_on: bool,
    /// The first iteration is done ([`Control::iteration_done`]): the hard time limit applies;
    /// before, the budget's first limit does.
    iterated: bool,
    /// When the main thread first saw a GUI's `stop` before its first iteration was done
    /// (milliseconds on the move's clock; see `STOP_GRACE_MS`).
    stop_seen_ms: Option<u64>,
    /// Set once the search must end; every node returns at once after it.
    pub stopped: bool,
}

impl<'a> Control<'a> {
    pub fn new(
        shared: &'a Shared,
        helpers_stop: Option<&'a AtomicBool>,
        limits: &'a Limits,
        budget: Option<TimeBudget>,
        main: bool,
        interval: u64,
    ) -> Self {
        Control {
            shared,
            helpers_stop,
            limits,
            budget,
            main,
            interval,
            threshold: interval,
            nodes: 0,
            unflushed: 0,
            node_limit_on: false,
            iterated: false,
            stop_seen_ms: None,
            stopped: false,
        }
    }

    /// Adds this thread's nodes to the shared count.
    pub fn flush(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// Adds this thread's nodes to the shared count and checks the limits now (before a report:
    /// a flush alone would hide the nodes from the next periodic check).
    pub fn flush_and_check(&mut self) {
        self.flush();
        self.check();
    }

    /// The search has a move (the first iteration's first root move is done, or the whole
    /// iteration): from here the node limit stops it (at once if it is already past it).
    pub fn search_has_a_move(&mut self) {
        if !self.node_limit_on {
            self.node_limit_on = true;
            self.flush_and_check();
        }
    }

    /// An iteration is done: the search has a move, and from here the hard time limit stops
    /// it (at once if it is already past it).
    pub fn iteration_done(&mut self) {
        self.iterated = true;
        self.node_limit_on = true;
        self.flush_and_check();
    }

    /// Counts a node and, every `interval` nodes, checks the limits.
    #[inline]
    pub fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= self.threshold {
            self.flush();
            self.check();
        }
    }

    fn check(&mut self) {
        if self.helpers_stop.is_some_and(|h| h.load(Ordering::Relaxed)) {
            self.stopped = true;
            return;
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            if !self.main || self.iterated {
                self.stopped = true;
                return;
            }
            let now = self.shared.elapsed_ms();
            let seen = *self.stop_seen_ms.get_or_insert(now);
            if now >= seen + STOP_GRACE_MS {
                self.stopped = true;
                return;
            }
        }
        if !self.main {
            return;
        }
        if let Some(n) = self.limits.nodes {
            // Before the search has a move, up to `NO_MOVE_SLACK` times the limit: a net that
            // says nothing can make one root move's quiescence search run for minutes, and a
            // GUI's `go nodes` must come back (with the first legal move, searched or not).
            let limit = if self.node_limit_on {
                n
            } else {
                n.saturating_mul(NO_MOVE_SLACK)
            };
            let counted = self.shared.nodes.load(Ordering::Relaxed);
            if counted >= limit {
                self.stop_all();
                return;
            }
            self.threshold = self.interval.min(limit - counted);
        }
        if let Some(b) = self.budget
            && !self.shared.pondering.load(Ordering::Relaxed)
        {
            // After a ponderhit the soft limit is enough: the ponder search is already deep.
            let limit = if self.limits.ponder {
                b.soft_ms
            } else {
                b.hard_ms
            };
            let limit = if self.iterated {
                limit
            } else {
                limit.max(b.first_ms)
            };
            if self.shared.elapsed_ms() >= limit {
                self.stop_all();
            }
        }
    }

    /// Milliseconds since the clock of this move started (`go`; [`Shared::reset_clock`]).
    pub fn elapsed_ms(&self) -> u64 {
        self.shared.elapsed_ms()
    }

    /// Counts a tablebase probe that answered.
    #[inline]
    pub fn count_tbhit(&self) {
        self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
    }

    /// Every thread's tablebase hits so far.
    pub fn tbhits(&self) -> u64 {
        self.shared.tbhits.load(Ordering::Relaxed)
    }

    /// Keeps a failed tablebase probe for the report at the end of the search.
    pub fn note_tb_error(&self, e: crate::chess::Error) {
        self.shared.note_tb_error(e);
    }

    /// Every thread's nodes so far (this one's as of its last flush).
    pub fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed)
    }

    /// Ends the search for every thread.
    pub fn stop_all(&mut self) {
        self.stopped = true;
        self.shared.stop.store(true, Ordering::SeqCst);
    }

    /// Past the soft time limit (and not pondering): no new iteration should start.
    pub fn soft_time_up(&self) -> bool {
        self.soft_time_up_scaled(100)
    }

    /// Past `scale` percent of the soft time limit, never more than the hard limit (and not
    /// pondering): the iterative deepening's time manager stretches or shrinks the soft limit
    /// by how settled the search is (see `TimeManager`).
    pub fn soft_time_up_scaled(&self, scale: u64) -> bool {
        self.budget.is_some_and(|b| {
            let soft = (u128::from(b.soft_ms) * u128::from(scale) / 100).min(u128::from(b.hard_ms));
            let soft = (soft as u64).max(1);
            !self.shared.pondering.load(Ordering::Relaxed) && self.shared.elapsed_ms() >= soft
        })
    }
}

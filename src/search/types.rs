//! What a search is asked (limits, parameters), what it shares with the thread that started it
//! (stop, ponder, node count, clock), what it tells while it runs, and what it returns.

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use shakmaty::{Chess, Color, Move};

use super::params::Tunables;
use super::skill::Skill;
use super::time::Clock;
use crate::chess::Error as ChessError;
use crate::chess::syzygy::Tablebases;
use crate::eval::Evaluator;
use crate::eval::memory::SearchMemory;

/// `n` copies of `v`, or the error of an allocation that failed (a memory limit, such as
/// `ulimit -v`) where `vec![v; n]` would abort the process: a search thread's tables are made
/// with it, so that the search goes on with the threads it could give memory to.
pub(super) fn try_filled<T: Clone>(n: usize, v: T) -> Result<Vec<T>, TryReserveError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n)?;
    out.resize(n, v);
    Ok(out)
}

/// What `go` asked for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<u64>,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<Move>,
}

impl Limits {
    pub fn depth(d: u32) -> Self {
        Limits {
            depth: Some(d),
            ..Default::default()
        }
    }

    /// The clock of the side `turn`. A `go` that gives only the other side's time (a GUI's
    /// slip) and no other limit leaves this side no time, as Stockfish reads it: the search
    /// answers at once rather than thinking until a `stop` that never comes.
    pub fn clock(&self, turn: Color) -> Clock {
        let (time, inc, other) = match turn {
            Color::White => (self.wtime, self.winc, self.btime),
            Color::Black => (self.btime, self.binc, self.wtime),
        };
        Clock {
            time: time.or(other.filter(|_| !self.limited()).map(|_| 0)),
            inc: inc.unwrap_or(0),
            movestogo: self.movestogo,
            movetime: self.movetime,
        }
    }

    /// Whether something other than the clock ends the search: a depth, nodes, a mate, a
    /// move time, or `infinite`.
    pub fn limited(&self) -> bool {
        self.depth.is_some()
            || self.nodes.is_some()
            || self.mate.is_some()
            || self.movetime.is_some()
            || self.infinite
    }
}

/// State shared between the UCI thread and the search threads.
pub struct Shared {
    pub stop: AtomicBool,
    /// True while `go ponder` has not been answered by `ponderhit`: time limits do not apply.
    pub pondering: AtomicBool,
    pub nodes: AtomicU64,
    /// Tablebase probes that answered (root and search).
    pub tbhits: AtomicU64,
    /// The first tablebase probe that failed during the search (reported when it ends).
    tb_error: Mutex<Option<ChessError>>,
    epoch: Instant,
    /// Milliseconds since `epoch` at which the clock for this move started (reset on ponderhit).
    start_ms: AtomicU64,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
            tb_error: Mutex::new(None),
            epoch: Instant::now(),
            start_ms: AtomicU64::new(0),
        }
    }
}

impl Shared {
    pub fn reset_clock(&self) {
        self.start_ms
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
    }
    pub fn elapsed_ms(&self) -> u64 {
        (self.epoch.elapsed().as_millis() as u64)
            .saturating_sub(self.start_ms.load(Ordering::SeqCst))
    }
    /// Keeps the first tablebase failure of a search (later ones are the same table again).
    pub fn note_tb_error(&self, e: ChessError) {
        let mut slot = self.tb_error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
    }
    /// The tablebase failure noted since the last call.
    pub fn take_tb_error(&self) -> Option<ChessError> {
        self.tb_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }
    /// The opponent played the expected move: the search goes on under the time limits. Time
    /// spent pondering counts as spent (the GUI's clock only started now, so this is safe), so
    /// a long ponder ends at once with its deep result.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::SeqCst);
    }
}

/// Everything a search needs besides the shared state.
#[derive(Clone)]
pub struct SearchParams {
    pub root: Chess,
    /// Keys of the game's positions before the root, oldest first (for repetitions).
    pub history: Vec<u64>,
    pub limits: Limits,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub chess960: bool,
    pub evaluator: Evaluator,
    /// Syzygy tables to probe (`None`: no probing, at no cost).
    pub tablebases: Option<Arc<Tablebases>>,
    pub syzygy: SyzygySettings,
    /// Told about every finished iteration (`None` for `bench` and internal searches).
    pub reporter: Option<Reporter>,
    /// The search's tunable parameters (`Default`: the tuned values).
    pub tunables: Arc<Tunables>,
    /// Play weaker on purpose (`None`: full strength).
    pub skill: Option<Skill>,
    /// What earlier searches of learned games found (`None`: nothing, at the cost of one test
    /// per node). A remembered position at least as deep as the remaining depth ends the node
    /// with its score, as an exact transposition-table entry would; a shallower one gives the
    /// first move to try.
    pub memory: Option<Arc<SearchMemory>>,
    /// Centipawns added to a root move's score (the experience record's verdict on it: a
    /// penalty for a move that is significantly bad for the mover, a margin for one that is
    /// significantly good); reported scores leave it out.
    pub root_bias: Vec<(Move, i32)>,
}

impl SearchParams {
    pub fn new(root: Chess, limits: Limits) -> Self {
        SearchParams {
            root,
            history: Vec::new(),
            limits,
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            chess960: false,
            evaluator: crate::eval::default_evaluator(),
            tablebases: None,
            syzygy: SyzygySettings::default(),
            reporter: None,
            tunables: Arc::new(Tunables::default()),
            skill: None,
            memory: None,
            root_bias: Vec::new(),
        }
    }
}

/// How the search uses the tablebases (the UCI options `SyzygyProbeDepth`,
/// `Syzygy50MoveRule`, `SyzygyProbeLimit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyzygySettings {
    /// Least remaining depth of a probe inside the search at the largest piece count probed
    /// (positions with fewer pieces are probed at any depth).
    pub probe_depth: u32,
    /// A win the 50-move rule turns into a draw counts as a draw.
    pub rule50: bool,
    /// Most pieces of a probed position (0: no probing).
    pub probe_limit: usize,
}

impl Default for SyzygySettings {
    fn default() -> Self {
        SyzygySettings {
            probe_depth: 1,
            rule50: true,
            probe_limit: crate::chess::syzygy::MAX_PIECES,
        }
    }
}

/// One principal variation of the result.
#[derive(Clone, Debug)]
pub struct Line {
    pub score: i32,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    /// `None` when the root has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    /// Tablebase probes that answered.
    pub tbhits: u64,
    pub lines: Vec<Line>,
}

/// What a search tells while it runs; the front end (UCI) decides how to show it.
#[derive(Clone, Debug)]
pub enum Event<'a> {
    /// An iteration finished one principal variation.
    Line {
        depth: u32,
        seldepth: usize,
        /// Which variation (MultiPV), for searches that can give several.
        multipv: Option<usize>,
        /// From the side to move's view, centipawns or mate (see [`crate::chess::score`]).
        score: i32,
        /// All threads' nodes so far.
        nodes: u64,
        nps: u64,
        /// Transposition table use in permille, for searches that have one.
        hashfull: Option<u32>,
        /// Tablebase probes that answered so far, for searches with tables.
        tbhits: Option<u64>,
        time_ms: u64,
        pv: &'a [Move],
    },
    /// The comparator search's work when it ends.
    ComparatorWork { nodes: u64, comparisons: u64 },
    /// A tablebase probe failed (a corrupt or unreadable table); the search went on without it.
    TablebaseError(ChessError),
    /// The system started fewer search threads than asked (`why`); the search went on with
    /// `started` threads (0: not even the first thread's tables could be had, and the move
    /// the evaluation prefers one ply deep was played).
    ThreadsLimited {
        asked: usize,
        started: usize,
        why: String,
    },
}

/// Receives a search's [`Event`]s (called from the search's main thread).
pub type Reporter = Arc<dyn Fn(&Event) + Send + Sync>;

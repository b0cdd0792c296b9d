//! A search thread: iterative deepening with aspiration windows and MultiPV ([`Worker::iterate`]),
//! the principal variation search in numbered steps ([`negamax`], with the steps that may end a
//! node before its moves in [`prune`]) and the quiescence search ([`qsearch`]).

mod negamax;
mod prune;
mod qsearch;

use std::collections::TryReserveError;
use std::sync::atomic::AtomicBool;

use shakmaty::{Chess, Move, Position};

use super::control::Control;
use super::correction::{Correction, Keys};
use super::endgame::mop_up;
use super::kept::Kept;
use super::ordering::{History, MAX_MOVES, OrderKeys};
use super::params::Tunables;
use super::pv::PvTable;
use super::time::{TimeBudget, TimeManager};
use super::tt::{Bound, TranspositionTable};
use super::types::{Event, Line, SearchParams, SearchResult, Shared, try_filled};
use crate::chess::rules::is_rule_draw;
use crate::chess::score::{INF, MATE, MATE_BOUND, MAX_PLY, TB_WIN_BOUND};
use crate::chess::syzygy::{Tablebases, Wdl, score_of, under_rule50};
use crate::chess::zobrist::hash_of;
use crate::eval::ScalarEvaluator;
use crate::eval::memory::SearchMemory;

#[derive(Clone, Copy, Default)]
struct Frame {
    static_eval: i32,
    /// The evaluator's own score, before the correction history.
    raw_eval: i32,
    killers: [u16; 2],
    /// Piece index and target square of the move played from this ply (for counter moves).
    moved: Option<(usize, usize)>,
    /// Whether that move was quiet (no capture, no promotion).
    moved_quiet: bool,
    null: bool,
    /// The move a singular extension's verification search leaves out at this ply (0: none).
    excluded: u16,
    /// Double extensions on the path to this ply.
    double_exts: u8,
}

/// How a search thread probes the tablebases.
#[derive(Clone, Copy, Default)]
pub(super) struct TbProbe<'a> {
    pub tables: Option<&'a Tablebases>,
    /// Most pieces of a probed position; 0: no probes (the one test a node without tables
    /// pays).
    pub cardinality: usize,
    /// Least depth of a probe at `cardinality` pieces (fewer pieces: any depth).
    pub probe_depth: i32,
    pub rule50: bool,
}

pub(super) struct Worker<'a> {
    /// 0 for the main thread, which reports and decides when to stop.
    id: usize,
    control: Control<'a>,
    tt: &'a TranspositionTable,
    eval: &'a dyn ScalarEvaluator,
    /// The tunable parameters this search runs with.
    t: Tunables,
    seldepth: usize,
    frames: Vec<Frame>,
    history: History,
    corr: Correction,
    pv: PvTable,
    /// Move-ordering keys per ply (kept here so that nodes do not copy 2 KB arrays around).
    order: Vec<OrderKeys>,
    keys: Vec<u64>,
    root_excluded: Vec<Move>,
    pub root_allowed: Vec<Move>,
    /// A net evaluator's accumulators by ply (`Evaluator=deeppink` or `learned`).
    inc: Option<Box<dyn crate::eval::Incremental + 'a>>,
    pub tb: TbProbe<'a>,
    /// The tablebase score of each root move when the root is in the tables: reported in
    /// place of the search's own score (unless that is a mate).
    pub root_tb: Vec<(Move, i32)>,
    /// The search memory (see [`SearchParams::memory`]).
    memory: Option<&'a SearchMemory>,
    /// The root moves' biases (see [`SearchParams::root_bias`]).
    root_bias: &'a [(Move, i32)],
    /// Depth of the current iteration (extensions stop at twice it).
    root_depth: i32,
    /// Nodes this thread spent under each root move, over the whole search (time management).
    root_nodes: Vec<(Move, u64)>,
}

impl<'a> Worker<'a> {
    /// Search thread `id`'s worker, or the error of an allocation that failed (a memory limit):
    /// its tables are a few megabytes, made here before its thread starts, so that a search
    /// asked for more threads than the memory allows goes on with fewer instead of aborting.
    pub fn try_new(
        id: usize,
        shared: &'a Shared,
        helpers_stop: &'a AtomicBool,
        tt: &'a TranspositionTable,
        eval: &'a dyn ScalarEvaluator,
        params: &'a SearchParams,
        budget: Option<TimeBudget>,
    ) -> Result<Self, TryReserveError> {
        let t = &*params.tunables;
        let own = t.clone();
        let frames = try_filled(MAX_PLY + 4, Frame::default())?;
        let pv = PvTable::try_new()?;
        let order = try_filled(MAX_PLY + 4, [0; MAX_MOVES])?;
        let inc = eval.incremental(MAX_PLY + 4)?;
        // Last: a failure before it leaves what the thread learned in the table.
        let kept = tt.take_kept(id)?;
        Ok(Worker {
            id,
            control: Control::new(
                shared,
                Some(helpers_stop),
                &params.limits,
                budget,
                id == 0,
                t.node_flush as u64,
            ),
            tt,
            eval,
            t: own,
            seldepth: 0,
            frames,
            history: kept.history,
            corr: kept.corr,
            pv,
            order,
            keys: params.history.clone(),
            root_excluded: Vec::new(),
            root_allowed: Vec::new(),
            inc,
            tb: TbProbe::default(),
            root_tb: Vec::new(),
            memory: params.memory.as_deref(),
            root_bias: &params.root_bias,
            root_nodes: Vec::new(),
            root_depth: 0,
        })
    }

    /// Ends the thread's search: what it learned goes back to the table for the next search.
    pub fn finish(self) {
        self.tt.put_kept(
            self.id,
            Kept {
                history: self.history,
                corr: self.corr,
            },
        );
    }

    /// The WDL probe of a node inside the search: right after a capture or pawn move (the
    /// tables' results hold for a zeroed halfmove clock), with few enough pieces, no castling
    /// rights, and at the largest piece count probed only from `probe_depth` on. The score (see
    /// [`score_of`]) and its bound: a win is a lower bound (a mate may be better), a loss an
    /// upper bound, a draw exact.
    fn probe_wdl(&mut self, pos: &Chess, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        let tables = self.tb.tables?;
        let pieces = pos.board().occupied().count();
        if pieces > self.tb.cardinality
            || (pieces == self.tb.cardinality && depth < self.tb.probe_depth)
            || pos.halfmoves() != 0
            || !pos.castles().is_empty()
        {
            return None;
        }
        let wdl = match tables.probe_wdl(pos) {
            Ok(Some(w)) => under_rule50(w, self.tb.rule50),
            Ok(None) => return None,
            Err(e) => {
                self.control.note_tb_error(e);
                return None;
            }
        };
        self.control.count_tbhit();
        let bound = match wdl {
            Wdl::Win => Bound::Lower,
            Wdl::Loss => Bound::Upper,
            _ => Bound::Exact,
        };
        Some((score_of(wdl, ply), bound))
    }

    /// The score to report for a root line: its first move's tablebase score when the root is
    /// in the tables and the search found no mate.
    fn reported(&self, score: i32, pv: &[Move]) -> i32 {
        let score = score - pv.first().map_or(0, |m| self.bias(m));
        match pv.first() {
            Some(m) if score.abs() < MATE_BOUND => self
                .root_tb
                .iter()
                .find(|(mv, _)| mv == m)
                .map_or(score, |&(_, s)| s),
            _ => score,
        }
    }

    /// Nodes this thread searched under root move `m`.
    fn nodes_under(&self, m: &Move) -> u64 {
        self.root_nodes
            .iter()
            .find(|(mv, _)| mv == m)
            .map_or(0, |&(_, n)| n)
    }

    /// Adds `nodes` to root move `m`'s count.
    fn count_root_nodes(&mut self, m: Move, nodes: u64) {
        match self.root_nodes.iter_mut().find(|(mv, _)| *mv == m) {
            Some((_, n)) => *n += nodes,
            None => self.root_nodes.push((m, nodes)),
        }
    }

    /// The bias of root move `m` (see [`SearchParams::root_bias`]).
    fn bias(&self, m: &Move) -> i32 {
        self.root_bias
            .iter()
            .find(|(mv, _)| mv == m)
            .map_or(0, |&(_, b)| b)
    }

    /// Static evaluation of `pos` (the position at `ply`) for the side to move, with the mop-up
    /// bonus of endings against a lone king ([`mop_up`]).
    fn evaluate(&self, pos: &Chess, hash: u64, ply: usize) -> i32 {
        let v = match &self.inc {
            Some(acc) => acc.evaluate_cp(ply, pos),
            None => self.eval.evaluate(pos, hash),
        };
        mop_up(pos, v).clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// The static evaluation `raw` of `pos` (keys `k`), scaled by the material on the board
    /// (`EvalMaterialScale`), damped by the fifty-move counter (`EvalFiftyDamp`) and corrected
    /// by the correction history. The hash table keeps `raw`: its key does not hold the
    /// counter, so the damping is applied after every probe (and the scaling with it).
    fn corrected(&self, pos: &Chess, k: &Keys, raw: i32) -> i32 {
        let mut v = raw;
        if self.t.eval_material_scale != 0 {
            // Half the starting material (39 pawns' worth, both sides together) leaves the
            // score as it is.
            let m = material(pos);
            v = v * (100 * 39 + self.t.eval_material_scale * (m - 39)) / (100 * 39);
        }
        let damp = self.t.eval_fifty_damp * pos.halfmoves().min(100) as i32;
        if damp > 0 {
            v = v * (10_000 - damp) / 10_000;
        }
        (v + self.corr.get(&self.t, pos.turn(), k)).clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// Draw by the fifty-move rule, repetition or insufficient material.
    fn is_draw(&self, pos: &Chess) -> bool {
        is_rule_draw(pos, &self.keys)
    }

    /// Iterative deepening on this thread. The main thread (id 0) reports and decides when to stop.
    pub fn iterate(&mut self, params: &SearchParams, root_moves: &[Move]) -> SearchResult {
        let root = &params.root;
        let root_hash = hash_of(root);
        self.keys.push(root_hash);
        if let Some(acc) = &mut self.inc {
            acc.refresh(0, root);
        }
        let multipv = if self.id == 0 {
            params.multipv.clamp(1, root_moves.len().max(1))
        } else {
            1
        };
        let max_depth = params.limits.depth.map_or(MAX_PLY as i32 - 4, |d| {
            d.clamp(1, MAX_PLY as u32 - 4) as i32
        });
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            tbhits: 0,
            lines: Vec::new(),
        };
        let mut prev_scores = vec![0i32; multipv];
        let mut reported_nodes = 0;
        let mut depth = 1;
        let mut tm = TimeManager::default();
        let mut soft_scale = 100;
        while depth <= max_depth {
            // Helper threads skip around to desynchronise (Lazy SMP).
            let mut lines: Vec<Line> = Vec::with_capacity(multipv);
            self.root_excluded.clear();
            #[allow(clippy::needless_range_loop)]
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                self.root_depth = depth;
                let mut delta = self.t.aspiration_delta;
                let (mut alpha, mut beta) = if depth >= self.t.aspiration_min_depth {
                    (
                        (prev_scores[pv_idx] - delta).max(-INF),
                        (prev_scores[pv_idx] + delta).min(INF),
                    )
                } else {
                    (-INF, INF)
                };
                let score = loop {
                    let s = self.negamax(root, root_hash, depth, 0, alpha, beta, false);
                    if self.control.stopped {
                        break s;
                    }
                    if s <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (s - delta).max(-INF);
                    } else if s >= beta {
                        beta = (s + delta).min(INF);
                    } else {
                        break s;
                    }
                    delta += delta / self.t.aspiration_growth_div;
                    if delta > self.t.aspiration_max_delta {
                        alpha = -INF;
                        beta = INF;
                    }
                };
                if self.control.stopped && depth > 1 {
                    break;
                }
                let pv = self.pv.line(0).to_vec();
                let Some(&first) = pv.first() else { break };
                prev_scores[pv_idx] = score;
                self.root_excluded.push(first);
                let score = self.reported(score, &pv);
                lines.push(Line { score, pv });
                if self.id == 0 && params.reporter.is_some() {
                    self.control.flush_and_check();
                    let line = lines.last().expect("just pushed");
                    reported_nodes = self.report_line(params, depth, pv_idx, line);
                }
            }
            self.root_excluded.clear();
            if lines.len() == multipv || (depth == 1 && !lines.is_empty()) {
                self.control.iteration_done();
                let best = &lines[0];
                result.best = best.pv.first().copied();
                result.ponder = best.pv.get(1).copied();
                result.score = best.score;
                result.depth = depth as u32;
                result.lines = lines;
                // `go movetime`: the time is the GUI's to give, used whole (the manager's
                // stretching and shrinking is for a clock; it stopped at about 60% of it).
                if let Some(best) = result.best
                    && params.limits.movetime.is_none()
                {
                    soft_scale = tm.update(
                        &self.t,
                        depth,
                        best,
                        result.score,
                        self.nodes_under(&best),
                        self.root_nodes.iter().map(|(_, n)| n).sum(),
                    );
                }
            }
            if self.control.stopped {
                break;
            }
            if self.id == 0 {
                if let Some(m) = params.limits.mate
                    && result.score >= MATE - 2 * m as i32
                {
                    break;
                }
                if self.control.soft_time_up_scaled(soft_scale) {
                    break;
                }
            }
            depth += 1;
        }
        self.control.flush();
        // A search cut inside an iteration tells its lines again with the nodes and time it
        // really spent, as the last word before `bestmove` (a GUI shows the final count).
        if self.id == 0 && params.reporter.is_some() && self.control.total_nodes() > reported_nodes
        {
            for (pv_idx, line) in result.lines.iter().enumerate() {
                self.seldepth = self.seldepth.max(line.pv.len());
                self.report_line(params, result.depth as i32, pv_idx, line);
            }
        }
        result
    }

    /// Reports one root line of iteration `depth` (main thread); returns the nodes it told.
    fn report_line(&self, params: &SearchParams, depth: i32, pv_idx: usize, line: &Line) -> u64 {
        // From the `go` (the clock the time limits read), not from this thread's start: the
        // threads' setup before it (histories zeroed, helpers spawned) was left out of `info
        // time`, and a GUI's clock counts it.
        let time_ms = self.control.elapsed_ms();
        let nodes = self.control.total_nodes();
        if let Some(report) = &params.reporter {
            report(&Event::Line {
                depth: depth as u32,
                seldepth: self.seldepth,
                multipv: Some(pv_idx + 1),
                score: line.score,
                nodes,
                nps: nodes * 1000 / time_ms.max(1),
                hashfull: Some(self.tt.hashfull()),
                tbhits: params.tablebases.is_some().then(|| self.control.tbhits()),
                time_ms,
                pv: &line.pv,
            });
        }
        nodes
    }
}

/// The material on the board, both sides, in pawns (pawn 1, knight and bishop 3, rook 5,
/// queen 9; 78 at the start): what `EvalMaterialScale` scales by.
fn material(pos: &Chess) -> i32 {
    let b = pos.board();
    let n = |bb: shakmaty::Bitboard| bb.count() as i32;
    n(b.pawns()) + 3 * n(b.knights() | b.bishops()) + 5 * n(b.rooks()) + 9 * n(b.queens())
}

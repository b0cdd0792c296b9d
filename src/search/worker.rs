//! A search thread: iterative deepening with aspiration windows and MultiPV, the principal
//! variation search (negamax) with its pruning and reductions, and the quiescence search.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use shakmaty::{Chess, Move, Position, Role};

use super::control::Control;
use super::ordering::{History, OrderKeys, Quiets, pick, piece_index, score_captures};
use super::params::Tunables;
use super::pv::PvTable;
use super::time::TimeBudget;
use super::tt::{Bound, TranspositionTable, score_from_tt, score_to_tt};
use super::types::{Event, Line, SearchParams, SearchResult, Shared};
use crate::chess::notation::encode_move;
use crate::chess::rules::{dead_material, is_rule_draw};
use crate::chess::score::{INF, MATE, MATE_BOUND, MAX_PLY, TB_WIN_BOUND, value};
use crate::chess::syzygy::{Tablebases, Wdl, score_of, under_rule50};
use crate::chess::zobrist::{hash_of, play};
use crate::chess::{movegen, see};
use crate::eval::ScalarEvaluator;
use crate::eval::memory::SearchMemory;

#[derive(Clone, Copy, Default)]
struct Frame {
    static_eval: i32,
    killers: [u16; 2],
    /// Piece index and target square of the move played from this ply (for counter moves).
    moved: Option<(usize, usize)>,
    null: bool,
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
}

impl<'a> Worker<'a> {
    pub fn new(
        id: usize,
        shared: &'a Shared,
        helpers_stop: &'a AtomicBool,
        tt: &'a TranspositionTable,
        eval: &'a dyn ScalarEvaluator,
        params: &'a SearchParams,
        budget: Option<TimeBudget>,
    ) -> Self {
        let t = &*params.tunables;
        let own = t.clone();
        Worker {
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
            frames: vec![Frame::default(); MAX_PLY + 4],
            history: History::new(),
            pv: PvTable::new(),
            order: vec![[0; 256]; MAX_PLY + 4],
            keys: params.history.clone(),
            root_excluded: Vec::new(),
            root_allowed: Vec::new(),
            inc: eval.incremental(MAX_PLY + 4),
            tb: TbProbe::default(),
            root_tb: Vec::new(),
            memory: params.memory.as_deref(),
            root_bias: &params.root_bias,
        }
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

    /// The bias of root move `m` (see [`SearchParams::root_bias`]).
    fn bias(&self, m: &Move) -> i32 {
        self.root_bias
            .iter()
            .find(|(mv, _)| mv == m)
            .map_or(0, |&(_, b)| b)
    }

    /// Static evaluation of `pos` (the position at `ply`) for the side to move.
    fn evaluate(&self, pos: &Chess, hash: u64, ply: usize) -> i32 {
        match &self.inc {
            Some(acc) => acc.evaluate_cp(ply, pos.turn()),
            None => self.eval.evaluate(pos, hash),
        }
        .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    /// Draw by the fifty-move rule, repetition or insufficient material.
    fn is_draw(&self, pos: &Chess) -> bool {
        is_rule_draw(pos, &self.keys)
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Chess,
        hash: u64,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        cut_node: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        self.pv.clear(ply);
        let in_check = pos.is_check();
        if in_check {
            depth += 1; // check extension
        }
        if depth <= 0 {
            return self.qsearch(pos, hash, ply, alpha, beta);
        }
        self.control.count_node();
        if self.control.stopped {
            return 0;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if !root {
            if self.is_draw(pos) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check {
                    0
                } else {
                    self.evaluate(pos, hash, ply)
                };
            }
            // Mate distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        let tt_entry = self.tt.probe(hash);
        let mut tt_move = tt_entry.map_or(0, |e| e.mv);
        if let Some(e) = tt_entry
            && !pv_node
            && e.depth >= depth
            && let Some(s) = e.cutoff(ply, alpha, beta)
        {
            return s;
        }
        // The search memory: knowledge at least as deep as this node's search ends it (in PV
        // nodes too: what earlier games learned must reach the root), else its move goes first.
        if let Some(memory) = self.memory
            && depth >= self.t.memory_min_depth
            && let Some(e) = memory.get(hash)
        {
            if !root && e.depth >= depth {
                if pv_node
                    && let Some(m) = pos
                        .legal_moves()
                        .into_iter()
                        .find(|m| encode_move(m) == e.mv)
                {
                    self.pv.clear(ply + 1);
                    self.pv.update(ply, m);
                }
                return score_from_tt(e.score, ply);
            }
            if tt_move == 0 {
                tt_move = e.mv;
            }
        }

        // Tablebases: a result that settles the window ends the node; at PV nodes a win raises
        // the floor and a loss caps the score.
        let mut tb_floor = -INF;
        let mut tb_cap = INF;
        if self.tb.cardinality > 0
            && !root
            && let Some((score, bound)) = self.probe_wdl(pos, depth, ply)
        {
            let settles = match bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if settles {
                let eval = if in_check {
                    0
                } else {
                    self.evaluate(pos, hash, ply)
                };
                let tb_depth = (depth + self.t.tb_depth_bonus).min(MAX_PLY as i32);
                self.tt
                    .store(hash, 0, score_to_tt(score, ply), eval, tb_depth, bound);
                return score;
            }
            if pv_node {
                if bound == Bound::Lower {
                    tb_floor = score;
                    alpha = alpha.max(score);
                } else {
                    tb_cap = score;
                }
            }
        }

        let static_eval = if in_check {
            -INF
        } else if let Some(e) = tt_entry {
            e.eval
        } else {
            self.evaluate(pos, hash, ply)
        };
        self.frames[ply].static_eval = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.frames[ply - 2].static_eval;
        self.frames[ply + 1].killers = [0, 0];

        if !pv_node && !in_check {
            // Reverse futility pruning.
            if depth <= self.t.rfp_max_depth
                && beta.abs() < TB_WIN_BOUND
                && static_eval - self.t.rfp_margin * (depth - i32::from(improving)) >= beta
            {
                return static_eval;
            }
            // Null-move pruning.
            let turn = pos.turn();
            let non_pawn =
                pos.board().by_color(turn) & !(pos.board().pawns() | pos.board().kings());
            if depth >= self.t.nmp_min_depth
                && static_eval >= beta
                && !self.frames[ply.saturating_sub(1)].null
                && !non_pawn.is_empty()
                && beta.abs() < TB_WIN_BOUND
                && let Ok(null_pos) = pos.clone().swap_turn()
            {
                let r = self.t.nmp_base
                    + depth / self.t.nmp_depth_div
                    + ((static_eval - beta) / self.t.nmp_eval_div).min(self.t.nmp_eval_max);
                let null_hash = hash_of(&null_pos);
                self.frames[ply].null = true;
                self.frames[ply].moved = None;
                if let Some(acc) = &mut self.inc {
                    acc.push_null(ply);
                }
                self.keys.push(null_hash);
                let score = -self.negamax(
                    &null_pos,
                    null_hash,
                    depth - 1 - r,
                    ply + 1,
                    -beta,
                    -beta + 1,
                    !cut_node,
                );
                self.keys.pop();
                self.frames[ply].null = false;
                if self.control.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score >= TB_WIN_BOUND { beta } else { score };
                }
            }
        }
        self.frames[ply].null = false;

        // Internal iterative reduction: without a hash move this node is probably not important.
        if tt_move == 0 && depth >= self.t.iir_min_depth && (pv_node || cut_node) {
            depth -= 1;
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let prev = if ply > 0 {
            self.frames[ply - 1].moved
        } else {
            None
        };
        let n_moves = self.history.score_moves(
            &self.t,
            pos,
            &moves,
            tt_move,
            self.frames[ply].killers,
            prev,
            &mut self.order[ply],
        );
        let turn = pos.turn();
        let orig_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move: Option<Move> = None;
        let mut searched = 0usize;
        let mut quiets = Quiets::new();
        let lmp_limit =
            ((self.t.lmp_base + depth * depth) / if improving { 1 } else { 2 }) as usize;

        let mut next = 0;
        while let Some((idx, order)) = pick(&mut self.order[ply], next, n_moves) {
            next += 1;
            let m = moves[idx];
            if root {
                if self.root_excluded.contains(&m) {
                    continue;
                }
                if !self.root_allowed.is_empty() && !self.root_allowed.contains(&m) {
                    continue;
                }
            }
            let quiet = !m.is_capture() && !m.is_promotion();

            // Only pruning (shallow depths) and reductions look at checks: skip the test
            // elsewhere.
            let may_prune = !root
                && best_score > -TB_WIN_BOUND
                && searched > 0
                && depth <= self.t.prune_max_depth;
            let may_reduce =
                depth >= self.t.lmr_min_depth && searched >= self.t.lmr_min_moves as usize && quiet;
            let gives_check = (may_prune || may_reduce) && movegen::gives_check(pos, &m);

            // Shallow-depth pruning, never before a move has been searched, when mated, or for
            // a move that gives check (quiet mating moves must be seen).
            if !root && best_score > -TB_WIN_BOUND && searched > 0 && !gives_check {
                if quiet && !in_check && !pv_node {
                    if depth <= self.t.prune_max_depth && quiets.len >= lmp_limit {
                        continue;
                    }
                    if depth <= self.t.prune_max_depth
                        && static_eval + self.t.futility_base + self.t.futility_per_depth * depth
                            <= alpha
                        && order < self.t.order_counter
                    {
                        continue;
                    }
                }
                if !quiet
                    && depth <= self.t.prune_max_depth
                    && order < self.t.order_good_capture
                    && !see::see_ge(pos.board(), turn, &m, -self.t.see_margin_per_depth * depth)
                {
                    continue;
                }
            }

            let (child, child_hash) = play(pos, hash, m);
            self.tt.prefetch(child_hash);
            if let Some(acc) = &mut self.inc {
                acc.push(ply, pos, m);
            }
            self.frames[ply].moved = Some((piece_index(turn, m.role()), usize::from(m.to())));
            self.keys.push(child_hash);
            let new_depth = depth - 1;
            // A root move's bias shifts its window, so that its biased score is searched
            // exactly as an unbiased one would be.
            let bias = if root && !self.root_bias.is_empty() {
                self.bias(&m)
            } else {
                0
            };
            let (alpha_c, beta_c) = (alpha - bias, beta - bias);
            let mut score;
            if searched == 0 {
                score = -self.negamax(
                    &child,
                    child_hash,
                    new_depth,
                    ply + 1,
                    -beta_c,
                    -alpha_c,
                    false,
                );
            } else {
                let mut r = 0;
                if depth >= self.t.lmr_min_depth
                    && searched >= self.t.lmr_min_moves as usize
                    && quiet
                {
                    r = self.t.lmr(depth, searched);
                    r -= i32::from(pv_node);
                    r += i32::from(cut_node);
                    r -= i32::from(gives_check);
                    r -= i32::from(order >= self.t.order_counter);
                    r += i32::from(!improving);
                    if order < self.t.order_counter {
                        r -= order / self.t.lmr_history_div;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                score = -self.negamax(
                    &child,
                    child_hash,
                    new_depth - r,
                    ply + 1,
                    -alpha_c - 1,
                    -alpha_c,
                    true,
                );
                if score > alpha_c && r > 0 {
                    score = -self.negamax(
                        &child,
                        child_hash,
                        new_depth,
                        ply + 1,
                        -alpha_c - 1,
                        -alpha_c,
                        !cut_node,
                    );
                }
                if score > alpha_c && pv_node {
                    score = -self.negamax(
                        &child,
                        child_hash,
                        new_depth,
                        ply + 1,
                        -beta_c,
                        -alpha_c,
                        false,
                    );
                }
            }
            score += bias;
            self.keys.pop();
            if self.control.stopped {
                return 0;
            }
            searched += 1;

            if score > best_score {
                best_score = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.pv.update(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            quiets.push(turn, &m);
                            let prev = if ply > 0 {
                                self.frames[ply - 1].moved
                            } else {
                                None
                            };
                            self.history.reward(
                                &self.t,
                                turn,
                                m,
                                &quiets,
                                depth,
                                &mut self.frames[ply].killers,
                                prev,
                            );
                        }
                        break;
                    }
                }
            }
            if quiet {
                quiets.push(turn, &m);
            }
        }

        if searched == 0 {
            // Only at the root when every move is excluded, or when everything was pruned.
            return if root { alpha } else { static_eval.max(alpha) };
        }
        if pv_node {
            best_score = best_score.max(tb_floor).min(tb_cap);
        }
        if !root || self.root_excluded.is_empty() {
            let bound = Bound::of(best_score, alpha, orig_alpha, beta);
            let code = best_move.map_or(0, |m| encode_move(&m));
            let code = if bound == Bound::Upper { 0 } else { code };
            self.tt.store(
                hash,
                code,
                score_to_tt(best_score, ply),
                if in_check { 0 } else { static_eval },
                depth,
                bound,
            );
        }
        best_score
    }

    fn qsearch(&mut self, pos: &Chess, hash: u64, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.control.count_node();
        if self.control.stopped {
            return 0;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        self.pv.clear(ply);
        let in_check = pos.is_check();
        if pos.halfmoves() >= 100 || dead_material(pos) {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check {
                0
            } else {
                self.evaluate(pos, hash, ply)
            };
        }
        let pv_node = beta - alpha > 1;
        let tt_entry = self.tt.probe(hash);
        if let Some(e) = tt_entry
            && !pv_node
            && let Some(s) = e.cutoff(ply, alpha, beta)
        {
            return s;
        }
        let mut best_score;
        let stand_pat;
        if in_check {
            best_score = -INF;
            stand_pat = -INF;
        } else {
            stand_pat = match tt_entry {
                Some(e) => e.eval,
                None => self.evaluate(pos, hash, ply),
            };
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }
        // In check: every legal evasion. Otherwise: pseudo-legal captures and queen promotions,
        // checked for legality only when searched.
        let moves: movegen::Captures = if in_check {
            let all = pos.legal_moves();
            if all.is_empty() {
                return -MATE + ply as i32;
            }
            all.into_iter().take(128).collect()
        } else {
            movegen::captures(pos)
        };
        let turn = pos.turn();
        score_captures(&self.t, &moves, &mut self.order[ply]);
        let n_moves = moves.len();
        let orig_alpha = alpha;
        let mut best_move = None;
        let mut next = 0;
        while let Some((idx, _)) = pick(&mut self.order[ply], next, n_moves) {
            next += 1;
            let m = moves[idx];
            if !in_check {
                // Delta pruning and losing captures.
                let gain = m.capture().map_or(0, value)
                    + m.promotion().map_or(0, |p| value(p) - value(Role::Pawn));
                if stand_pat + gain + self.t.qs_delta_margin <= alpha && m.promotion().is_none() {
                    continue;
                }
                if !see::see_ge(pos.board(), turn, &m, 0) {
                    continue;
                }
            }
            let (child, child_hash) = play(pos, hash, m);
            self.tt.prefetch(child_hash);
            if !in_check && !movegen::leaves_king_safe(&child, turn) {
                continue;
            }
            if let Some(acc) = &mut self.inc {
                acc.push(ply, pos, m);
            }
            self.keys.push(child_hash);
            let score = -self.qsearch(&child, child_hash, ply + 1, -beta, -alpha);
            self.keys.pop();
            if self.control.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if pv_node {
                        self.pv.update(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::of(best_score, alpha, orig_alpha, beta);
        let code = best_move.map_or(0, |m| encode_move(&m));
        self.tt.store(
            hash,
            code,
            score_to_tt(best_score, ply),
            if in_check { 0 } else { stand_pat },
            0,
            bound,
        );
        best_score
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
            (d as i32).clamp(1, MAX_PLY as i32 - 4)
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
        let start = Instant::now();
        let mut reported_nodes = 0;
        let mut depth = 1;
        while depth <= max_depth {
            // Helper threads skip around to desynchronise (Lazy SMP).
            let mut lines: Vec<Line> = Vec::with_capacity(multipv);
            self.root_excluded.clear();
            #[allow(clippy::needless_range_loop)]
            for pv_idx in 0..multipv {
                self.seldepth = 0;
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
                    reported_nodes = self.report_line(params, depth, pv_idx, line, start);
                }
            }
            self.root_excluded.clear();
            if lines.len() == multipv || (depth == 1 && !lines.is_empty()) {
                let best = &lines[0];
                result.best = best.pv.first().copied();
                result.ponder = best.pv.get(1).copied();
                result.score = best.score;
                result.depth = depth as u32;
                result.lines = lines;
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
                if self.control.soft_time_up() {
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
                self.report_line(params, result.depth as i32, pv_idx, line, start);
            }
        }
        result
    }

    /// Reports one root line of iteration `depth` (main thread); returns the nodes it told.
    fn report_line(
        &self,
        params: &SearchParams,
        depth: i32,
        pv_idx: usize,
        line: &Line,
        start: Instant,
    ) -> u64 {
        let time_ms = start.elapsed().as_millis() as u64;
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

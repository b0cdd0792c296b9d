//! Iterative-deepening principal-variation alpha-beta search with quiescence, a shared
//! lock-free transposition table and Lazy SMP threads.

pub mod comparator;
pub mod time;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Instant;

use shakmaty::{Chess, Color, Move, MoveList, Position, Role};

use crate::chess::notation::uci_move;
use crate::chess::rules::{dead_material, is_rule_draw};
use crate::chess::score::{INF, MATE, MATE_BOUND, MAX_PLY, value as value_of};
use crate::chess::zobrist::{hash_of, play};
use crate::chess::{movegen, see};
use crate::eval::{Evaluator, ScalarEvaluator};
use crate::nn::deeppink::Accumulators;
use time::{Clock, TimeBudget};
use tt::{Bound, TranspositionTable, encode_move};

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

    fn clock(&self, turn: Color) -> Clock {
        let (time, inc) = match turn {
            Color::White => (self.wtime, self.winc),
            Color::Black => (self.btime, self.binc),
        };
        Clock {
            time,
            inc: inc.unwrap_or(0),
            movestogo: self.movestogo,
            movetime: self.movetime,
        }
    }
}

/// State shared between the UCI thread and the search threads.
pub struct Shared {
    pub stop: AtomicBool,
    /// True while `go ponder` has not been answered by `ponderhit`: time limits do not apply.
    pub pondering: AtomicBool,
    pub nodes: AtomicU64,
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
    /// Print `info` lines (off for `bench` and internal searches).
    pub report: bool,
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
            report: false,
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
    pub lines: Vec<Line>,
}

/// `score cp N` or `score mate N` as UCI prints it.
pub fn format_score(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {score}")
    }
}

static LMR: LazyLock<[[u8; 64]; 64]> = LazyLock::new(|| {
    let mut t = [[0u8; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
        }
    }
    t
});

#[inline]
fn piece_index(color: Color, role: Role) -> usize {
    (role as usize - 1) + if color == Color::White { 0 } else { 6 }
}

/// Ordering keys of one node: `(score << 8) | index in the move list`.
type OrderKeys = [i64; 256];

/// Takes the next move in order from `keys[..n]`: the first few by selection (cut nodes rarely
/// need more), then the rest sorted at once. Returns (index in the move list, ordering score).
/// `keys[0]` must already be the largest key (see [`best_first`]).
#[inline]
fn pick(keys: &mut OrderKeys, i: usize, n: usize) -> Option<(usize, i32)> {
    if i >= n {
        return None;
    }
    if i == 0 {
        // Already in place.
    } else if i < 3 {
        let mut bi = i;
        for j in i + 1..n {
            if keys[j] > keys[bi] {
                bi = j;
            }
        }
        keys.swap(i, bi);
    } else if i == 3 {
        keys[3..n].sort_unstable_by(|a, b| b.cmp(a));
    }
    let k = keys[i];
    Some(((k & 0xff) as usize, (k >> 8) as i32))
}

/// Moves the largest of `keys[..n]` to the front.
#[inline]
fn best_first(keys: &mut OrderKeys, n: usize) {
    let mut bi = 0;
    for j in 1..n {
        if keys[j] > keys[bi] {
            bi = j;
        }
    }
    keys.swap(0, bi);
}

/// Quiet moves tried at a node, as `piece index << 6 | target square`.
struct Quiets {
    list: [u16; 64],
    len: usize,
}

impl Quiets {
    fn new() -> Self {
        Quiets {
            list: [0; 64],
            len: 0,
        }
    }
    fn push(&mut self, turn: Color, m: &Move) {
        if self.len < 64 {
            self.list[self.len] = quiet_code(turn, m);
            self.len += 1;
        }
    }
}

#[inline]
fn quiet_code(turn: Color, m: &Move) -> u16 {
    ((piece_index(turn, m.role()) as u16) << 6) | u16::from(m.to())
}

#[derive(Clone, Copy, Default)]
struct Frame {
    static_eval: i32,
    killers: [u16; 2],
    /// Piece index and target square of the move played from this ply (for counter moves).
    moved: Option<(usize, usize)>,
    null: bool,
}

const ORDER_TT: i32 = 4_000_000;
const ORDER_GOOD_CAPTURE: i32 = 2_000_000;
const ORDER_KILLER: i32 = 1_000_000;
const ORDER_COUNTER: i32 = 900_000;
const ORDER_BAD_CAPTURE: i32 = -2_000_000;
const HISTORY_MAX: i32 = 16384;

struct Worker<'a> {
    id: usize,
    shared: &'a Shared,
    /// Set when the main thread has finished: stops the helpers without touching `shared.stop`
    /// (which belongs to the GUI's `stop`).
    helpers_stop: &'a AtomicBool,
    tt: &'a TranspositionTable,
    eval: &'a dyn ScalarEvaluator,
    limits: &'a Limits,
    budget: Option<TimeBudget>,
    nodes: u64,
    unflushed: u64,
    seldepth: usize,
    stopped: bool,
    frames: Vec<Frame>,
    history: Vec<[i32; 64]>,
    counters: Vec<[u16; 64]>,
    pv: Vec<Vec<Move>>,
    /// Move-ordering keys per ply (kept here so that nodes do not copy 2 KB arrays around).
    order: Vec<OrderKeys>,
    keys: Vec<u64>,
    root_excluded: Vec<Move>,
    root_allowed: Vec<Move>,
    /// Deep Pink's first-layer accumulators by ply (only with `Evaluator=deeppink`).
    pink: Option<Accumulators<'a>>,
}

impl<'a> Worker<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        id: usize,
        shared: &'a Shared,
        helpers_stop: &'a AtomicBool,
        tt: &'a TranspositionTable,
        eval: &'a dyn ScalarEvaluator,
        limits: &'a Limits,
        budget: Option<TimeBudget>,
        history: &[u64],
    ) -> Self {
        Worker {
            id,
            shared,
            helpers_stop,
            tt,
            eval,
            limits,
            budget,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            stopped: false,
            frames: vec![Frame::default(); MAX_PLY + 4],
            history: vec![[0; 64]; 12],
            counters: vec![[0; 64]; 12],
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            order: vec![[0; 256]; MAX_PLY + 4],
            keys: history.to_vec(),
            root_excluded: Vec::new(),
            root_allowed: Vec::new(),
            pink: eval
                .deep_pink()
                .map(|net| Accumulators::new(net, MAX_PLY + 4)),
        }
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// Counts a node and, every so often, checks the limits.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= 256 {
            self.flush_nodes();
            self.check_limits();
        }
    }

    fn check_limits(&mut self) {
        if self.shared.stop.load(Ordering::Relaxed) || self.helpers_stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.id != 0 {
            return;
        }
        if let Some(n) = self.limits.nodes
            && self.shared.nodes.load(Ordering::Relaxed) >= n
        {
            self.stop_all();
            return;
        }
        if let Some(b) = self.budget
            && !self.shared.pondering.load(Ordering::Relaxed)
        {
            let elapsed = self.shared.elapsed_ms();
            // After a ponderhit the soft limit is enough: the ponder search is already deep.
            let limit = if self.limits.ponder {
                b.soft_ms
            } else {
                b.hard_ms
            };
            if elapsed >= limit {
                self.stop_all();
            }
        }
    }

    fn stop_all(&mut self) {
        self.stopped = true;
        self.shared.stop.store(true, Ordering::SeqCst);
    }

    /// Static evaluation of `pos` (the position at `ply`) for the side to move.
    fn evaluate(&self, pos: &Chess, hash: u64, ply: usize) -> i32 {
        match &self.pink {
            Some(acc) => acc.evaluate_cp(ply, pos.turn()),
            None => self.eval.evaluate(pos, hash),
        }
        .clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Draw by the fifty-move rule, repetition or insufficient material.
    fn is_draw(&self, pos: &Chess) -> bool {
        is_rule_draw(pos, &self.keys)
    }

    /// Scores `moves` into `self.order[ply]` and returns how many there are.
    fn score_moves(&mut self, pos: &Chess, moves: &MoveList, tt_move: u16, ply: usize) -> usize {
        let f = self.frames[ply];
        let turn = pos.turn();
        let counter = if ply > 0 {
            self.frames[ply - 1]
                .moved
                .map_or(0, |(p, to)| self.counters[p][to])
        } else {
            0
        };
        for (i, m) in moves.iter().enumerate() {
            let code = encode_move(m);
            let score = if code == tt_move {
                ORDER_TT
            } else if let Some(victim) = m.capture() {
                let mvv = value_of(victim) * 8 - value_of(m.role()) / 16;
                let promo = m.promotion().map_or(0, value_of);
                if see::see_ge(pos.board(), turn, m, 0) {
                    ORDER_GOOD_CAPTURE + mvv + promo
                } else {
                    ORDER_BAD_CAPTURE + mvv
                }
            } else if let Some(p) = m.promotion() {
                if p == Role::Queen {
                    ORDER_GOOD_CAPTURE + value_of(p)
                } else {
                    ORDER_BAD_CAPTURE + value_of(p)
                }
            } else if code == f.killers[0] {
                ORDER_KILLER + 1
            } else if code == f.killers[1] {
                ORDER_KILLER
            } else if code == counter {
                ORDER_COUNTER
            } else {
                self.history[piece_index(turn, m.role())][usize::from(m.to())]
            };
            self.order[ply][i] = (i64::from(score) << 8) | i as i64;
        }
        best_first(&mut self.order[ply], moves.len());
        moves.len()
    }

    fn update_quiet_stats(
        &mut self,
        pos: &Chess,
        best: Move,
        quiets: &Quiets,
        depth: i32,
        ply: usize,
    ) {
        let turn = pos.turn();
        let code = encode_move(&best);
        let f = &mut self.frames[ply];
        if f.killers[0] != code {
            f.killers[1] = f.killers[0];
            f.killers[0] = code;
        }
        if ply > 0
            && let Some((p, to)) = self.frames[ply - 1].moved
        {
            self.counters[p][to] = code;
        }
        let bonus = (depth * depth * 8).min(1600);
        let best_code = quiet_code(turn, &best);
        for &q in &quiets.list[..quiets.len] {
            let h = &mut self.history[usize::from(q >> 6)][usize::from(q & 63)];
            let b = if q == best_code { bonus } else { -bonus };
            *h += b - *h * b.abs() / HISTORY_MAX;
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
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
        self.pv[ply].clear();
        let in_check = pos.is_check();
        if in_check {
            depth += 1; // check extension
        }
        if depth <= 0 {
            return self.qsearch(pos, hash, ply, alpha, beta);
        }
        self.count_node();
        if self.stopped {
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
        let tt_move = tt_entry.map_or(0, |e| e.mv);
        if let Some(e) = tt_entry
            && !pv_node
            && e.depth >= depth
        {
            let s = score_from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if usable {
                return s;
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
            if depth <= 8
                && beta.abs() < MATE_BOUND
                && static_eval - 75 * (depth - i32::from(improving)) >= beta
            {
                return static_eval;
            }
            // Null-move pruning.
            let turn = pos.turn();
            let non_pawn =
                pos.board().by_color(turn) & !(pos.board().pawns() | pos.board().kings());
            if depth >= 3
                && static_eval >= beta
                && !self.frames[ply.saturating_sub(1)].null
                && !non_pawn.is_empty()
                && beta.abs() < MATE_BOUND
                && let Ok(null_pos) = pos.clone().swap_turn()
            {
                let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(3);
                let null_hash = hash_of(&null_pos);
                self.frames[ply].null = true;
                self.frames[ply].moved = None;
                if let Some(acc) = &mut self.pink {
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
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }
        self.frames[ply].null = false;

        // Internal iterative reduction: without a hash move this node is probably not important.
        if tt_move == 0 && depth >= 4 && (pv_node || cut_node) {
            depth -= 1;
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let n_moves = self.score_moves(pos, &moves, tt_move, ply);
        let turn = pos.turn();
        let orig_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move: Option<Move> = None;
        let mut searched = 0usize;
        let mut quiets = Quiets::new();
        let lmp_limit = ((3 + depth * depth) / if improving { 1 } else { 2 }) as usize;

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

            // Only pruning (depth <= 6) and reductions look at checks: skip the test elsewhere.
            let may_prune = !root && best_score > -MATE_BOUND && searched > 0 && depth <= 6;
            let may_reduce = depth >= 3 && searched >= 2 && quiet;
            let gives_check = (may_prune || may_reduce) && movegen::gives_check(pos, &m);

            // Shallow-depth pruning, never before a move has been searched, when mated, or for
            // a move that gives check (quiet mating moves must be seen).
            if !root && best_score > -MATE_BOUND && searched > 0 && !gives_check {
                if quiet && !in_check && !pv_node {
                    if depth <= 6 && quiets.len >= lmp_limit {
                        continue;
                    }
                    if depth <= 6
                        && static_eval + 100 + 90 * depth <= alpha
                        && order < ORDER_COUNTER
                    {
                        continue;
                    }
                }
                if !quiet
                    && depth <= 6
                    && order < ORDER_GOOD_CAPTURE
                    && !see::see_ge(pos.board(), turn, &m, -90 * depth)
                {
                    continue;
                }
            }

            let (child, child_hash) = play(pos, hash, m);
            self.tt.prefetch(child_hash);
            if let Some(acc) = &mut self.pink {
                acc.push(ply, pos, m);
            }
            self.frames[ply].moved = Some((piece_index(turn, m.role()), usize::from(m.to())));
            self.keys.push(child_hash);
            let new_depth = depth - 1;
            let mut score;
            if searched == 0 {
                score = -self.negamax(&child, child_hash, new_depth, ply + 1, -beta, -alpha, false);
            } else {
                let mut r = 0;
                if depth >= 3 && searched >= 2 && quiet {
                    r = i32::from(LMR[depth.min(63) as usize][searched.min(63)]);
                    r -= i32::from(pv_node);
                    r += i32::from(cut_node);
                    r -= i32::from(gives_check);
                    r -= i32::from(order >= ORDER_COUNTER);
                    r += i32::from(!improving);
                    if order < ORDER_COUNTER {
                        r -= order / 6000;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                score = -self.negamax(
                    &child,
                    child_hash,
                    new_depth - r,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    true,
                );
                if score > alpha && r > 0 {
                    score = -self.negamax(
                        &child,
                        child_hash,
                        new_depth,
                        ply + 1,
                        -alpha - 1,
                        -alpha,
                        !cut_node,
                    );
                }
                if score > alpha && pv_node {
                    score =
                        -self.negamax(&child, child_hash, new_depth, ply + 1, -beta, -alpha, false);
                }
            }
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;

            if score > best_score {
                best_score = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            quiets.push(turn, &m);
                            self.update_quiet_stats(pos, m, &quiets, depth, ply);
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
        if !root || self.root_excluded.is_empty() {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if alpha > orig_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
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
        self.count_node();
        if self.stopped {
            return 0;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        self.pv[ply].clear();
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
        {
            let s = score_from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if usable {
                return s;
            }
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
        for (i, m) in moves.iter().enumerate() {
            let victim = m.capture().map_or(0, value_of);
            let promo = m.promotion().map_or(0, value_of);
            let score = victim * 8 + promo - value_of(m.role()) / 16;
            self.order[ply][i] = (i64::from(score) << 8) | i as i64;
        }
        let n_moves = moves.len();
        best_first(&mut self.order[ply], n_moves);
        let orig_alpha = alpha;
        let mut best_move = None;
        let mut next = 0;
        while let Some((idx, _)) = pick(&mut self.order[ply], next, n_moves) {
            next += 1;
            let m = moves[idx];
            if !in_check {
                // Delta pruning and losing captures.
                let gain = m.capture().map_or(0, value_of)
                    + m.promotion().map_or(0, |p| value_of(p) - 100);
                if stand_pat + gain + 200 <= alpha && m.promotion().is_none() {
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
            if let Some(acc) = &mut self.pink {
                acc.push(ply, pos, m);
            }
            self.keys.push(child_hash);
            let score = -self.qsearch(&child, child_hash, ply + 1, -beta, -alpha);
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
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
    fn iterate(&mut self, params: &SearchParams, root_moves: &[Move]) -> SearchResult {
        let root = &params.root;
        let root_hash = hash_of(root);
        self.keys.push(root_hash);
        if let Some(acc) = &mut self.pink {
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
            lines: Vec::new(),
        };
        let mut prev_scores = vec![0i32; multipv];
        let start = Instant::now();
        let mut depth = 1;
        while depth <= max_depth {
            // Helper threads skip around to desynchronise (Lazy SMP).
            let mut lines: Vec<Line> = Vec::with_capacity(multipv);
            self.root_excluded.clear();
            #[allow(clippy::needless_range_loop)]
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                let mut delta = 20;
                let (mut alpha, mut beta) = if depth >= 5 {
                    (
                        (prev_scores[pv_idx] - delta).max(-INF),
                        (prev_scores[pv_idx] + delta).min(INF),
                    )
                } else {
                    (-INF, INF)
                };
                let score = loop {
                    let s = self.negamax(root, root_hash, depth, 0, alpha, beta, false);
                    if self.stopped {
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
                    delta += delta / 2;
                    if delta > 1000 {
                        alpha = -INF;
                        beta = INF;
                    }
                };
                if self.stopped && depth > 1 {
                    break;
                }
                let pv = self.pv[0].clone();
                let Some(&first) = pv.first() else { break };
                prev_scores[pv_idx] = score;
                self.root_excluded.push(first);
                lines.push(Line { score, pv });
                if self.id == 0 && params.report {
                    self.flush_nodes();
                    let line = lines.last().expect("just pushed");
                    report_line(
                        params,
                        self.shared,
                        self.tt,
                        depth,
                        self.seldepth,
                        pv_idx + 1,
                        line,
                        start,
                    );
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
            if self.stopped {
                break;
            }
            if self.id == 0 {
                if let Some(m) = params.limits.mate
                    && result.score >= MATE - 2 * m as i32
                {
                    break;
                }
                if let Some(b) = self.budget
                    && !self.shared.pondering.load(Ordering::Relaxed)
                    && self.shared.elapsed_ms() >= b.soft_ms
                {
                    break;
                }
            }
            depth += 1;
        }
        self.flush_nodes();
        result
    }
}

#[allow(clippy::too_many_arguments)]
fn report_line(
    params: &SearchParams,
    shared: &Shared,
    tt: &TranspositionTable,
    depth: i32,
    seldepth: usize,
    multipv: usize,
    line: &Line,
    start: Instant,
) {
    let ms = start.elapsed().as_millis() as u64;
    let nodes = shared.nodes.load(Ordering::Relaxed);
    let nps = nodes * 1000 / ms.max(1);
    let pv: Vec<String> = line
        .pv
        .iter()
        .map(|m| uci_move(*m, params.chess960))
        .collect();
    crate::uci::out::send(&format!(
        "info depth {depth} seldepth {seldepth} multipv {multipv} score {} nodes {nodes} nps {nps} hashfull {} time {ms} pv {}",
        format_score(line.score),
        tt.hashfull(),
        pv.join(" ")
    ));
}

#[inline]
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Searches `params.root` under its limits and returns the best move. Stops early when
/// `shared.stop` is set. The caller sets up `shared` (clock, pondering) before calling.
pub fn search(params: &SearchParams, shared: &Shared, tt: &TranspositionTable) -> SearchResult {
    shared.nodes.store(0, Ordering::SeqCst);
    tt.new_search();
    let root = &params.root;
    let mut root_moves: Vec<Move> = root.legal_moves().into_iter().collect();
    if !params.limits.searchmoves.is_empty() {
        let allowed: Vec<Move> = root_moves
            .iter()
            .copied()
            .filter(|m| params.limits.searchmoves.contains(m))
            .collect();
        if !allowed.is_empty() {
            root_moves = allowed;
        }
    }
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            lines: Vec::new(),
        };
    }
    let budget = time::budget(&params.limits.clock(root.turn()), params.move_overhead);
    let budget = if params.limits.infinite { None } else { budget };
    let scalar: Arc<dyn ScalarEvaluator> = match &params.evaluator {
        Evaluator::Scalar(e) => e.clone(),
        Evaluator::Comparator(c) => {
            return comparator::search(params, c.as_ref(), shared, root_moves, budget);
        }
    };
    let limits = &params.limits;
    let threads = params.threads.max(1);
    let helpers_stop = AtomicBool::new(false);
    let helpers_stop = &helpers_stop;
    let run_worker = |id: usize| {
        let mut w = Worker::new(
            id,
            shared,
            helpers_stop,
            tt,
            &*scalar,
            limits,
            budget,
            &params.history,
        );
        w.root_allowed = root_moves.clone();
        w.iterate(params, &root_moves)
    };
    let mut result = std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .map(|id| s.spawn(move || run_worker(id)))
            .collect();
        let r = run_worker(0);
        helpers_stop.store(true, Ordering::SeqCst);
        for h in handles {
            let _ = h.join();
        }
        r
    });
    result.nodes = shared.nodes.load(Ordering::SeqCst);
    if result.ponder.is_none()
        && let Some(best) = result.best
    {
        let (child, h) = play(root, hash_of(root), best);
        if let Some(e) = tt.probe(h)
            && e.mv != 0
        {
            result.ponder = child
                .legal_moves()
                .into_iter()
                .find(|m| encode_move(m) == e.mv);
        }
    }
    result
}

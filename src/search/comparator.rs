//! The search of a comparator evaluator (DeepChess): alpha-beta as in the DeepChess paper, where
//! alpha and beta are *positions* (alpha_pos, beta_pos) rather than numbers, and a new leaf is
//! compared with them through the net. White maximises, Black minimises.
//!
//! Values are leaves (a position and its Pos2Vec vector), or exact outcomes: a mate (preferred
//! by distance: the winner wants it sooner, the loser later) or a draw (stalemate, fifty moves,
//! repetition, insufficient material). A draw is compared with a position `p` by asking the net
//! whether `p` is better for White than its colour mirror (the mirror is exactly as good for
//! Black, so "better than the mirror" means "better than equal"). The same probability, turned
//! into a logistic centipawn figure, is the score of `info` lines.
//!
//! Iterative deepening with time, node and depth limits and `stop`; moves ordered by the best
//! move of the previous visit (a private move table), captures (MVV-LVA), killers; a quiescence
//! search over captures that do not lose material (by SEE) and the recaptures that follow.
//! Checks are extended; null-move pruning and late move reductions need no scores, only
//! "does this reach the bound", so they work on positions as on numbers (a fifth of the nodes
//! for the same depth with the shipped net, tests/nn.rs). Single-threaded: `Threads` and
//! `MultiPV` do not apply.

use std::cell::OnceCell;
use std::rc::Rc;

use shakmaty::{Chess, Color, Move, MoveList, Position, Square};

use super::control::Control;
use super::params::{
    COMPARATOR_CMP_CACHE as CMP_CACHE, COMPARATOR_MOVE_TABLE as MOVE_TABLE, Tunables,
};
use super::pv::PvTable;
use super::time::TimeBudget;
use super::types::{Event, Line, SearchParams, SearchResult, Shared};
use crate::chess::notation::encode_move;
use crate::chess::rules::is_rule_draw;
use crate::chess::score::{MATE, MAX_PLY, cp_from_expectation, value};
use crate::chess::see;
use crate::chess::zobrist::{hash_of, play};
use crate::eval::ComparatorEvaluator;

/// MVV-LVA ordering value of a capture.
fn mvv_lva(t: &Tunables, m: &Move) -> i32 {
    m.capture().map_or(0, value) * t.mvv_victim_mul - value(m.role()) / t.mvv_attacker_div
}

/// A position reached by the search.
struct Leaf {
    key: u64,
    pos: Chess,
    vec: Vec<f32>,
    /// Material balance for White (SEE values), plus the best exchange the side to move can
    /// start (by SEE): see [`see::resolved_material`].
    material: i32,
    /// P(this position is better for White than its colour mirror).
    vs_mirror: OnceCell<f32>,
}

#[derive(Clone)]
enum Val {
    /// Worse for White than anything (initial alpha).
    Lo,
    /// Better for White than anything (initial beta).
    Hi,
    /// Checkmate `ply` plies from the root, won by White if `white`.
    Mate {
        white: bool,
        ply: u32,
    },
    Draw,
    Pos(Rc<Leaf>),
}

impl Val {
    fn class(&self) -> (i32, i64) {
        match self {
            Val::Lo => (0, 0),
            Val::Mate { white: false, ply } => (1, i64::from(*ply)),
            Val::Draw | Val::Pos(_) => (2, 0),
            Val::Mate { white: true, ply } => (3, -i64::from(*ply)),
            Val::Hi => (4, 0),
        }
    }
}

struct Searcher<'a> {
    eval: &'a dyn ComparatorEvaluator,
    t: &'a Tunables,
    control: Control<'a>,
    seldepth: usize,
    keys: Vec<u64>,
    pv: PvTable,
    killers: Vec<[u16; 2]>,
    /// Was the move into this ply a null move?
    null: Vec<bool>,
    move_table: Vec<(u64, u16)>,
    cmp_cache: Vec<(u64, u64, f32)>,
    pub comparisons: u64,
}

impl<'a> Searcher<'a> {
    fn leaf(&self, pos: &Chess, hash: u64, moves: &MoveList) -> Val {
        let mut vec = vec![0.0; self.eval.embed_len()];
        self.eval.embed(pos, hash, &mut vec);
        Val::Pos(Rc::new(Leaf {
            key: hash,
            pos: pos.clone(),
            vec,
            material: see::resolved_material(pos, moves),
            vs_mirror: OnceCell::new(),
        }))
    }

    /// Does material decide between `a` and `b` (White's balances)? Then `Some(a better)`.
    fn by_material(&self, a: i32, b: i32) -> Option<bool> {
        let margin = self.t.comparator_material_margin;
        (margin > 0 && (a - b).abs() >= margin).then_some(a > b)
    }

    fn vs_mirror(&mut self, l: &Leaf) -> f32 {
        if let Some(&p) = l.vs_mirror.get() {
            return p;
        }
        let mut m = vec![0.0; self.eval.embed_len()];
        self.eval.embed_mirror(&l.pos, l.key, &mut m);
        self.comparisons += 1;
        let p = self.eval.compare(&l.vec, &m);
        let _ = l.vs_mirror.set(p);
        p
    }

    fn prob(&mut self, a: &Leaf, b: &Leaf) -> f32 {
        let i = ((a.key ^ b.key.rotate_left(23)) as usize) & (CMP_CACHE - 1);
        let e = self.cmp_cache[i];
        if e.0 == a.key && e.1 == b.key {
            return e.2;
        }
        self.comparisons += 1;
        let p = self.eval.compare(&a.vec, &b.vec);
        self.cmp_cache[i] = (a.key, b.key, p);
        p
    }

    /// Is `a` strictly better for White than `b`?
    fn better(&mut self, a: &Val, b: &Val) -> bool {
        let (ca, ta) = a.class();
        let (cb, tb) = b.class();
        if ca != cb {
            return ca > cb;
        }
        // Material stays outside the net: a difference of at least `ComparatorMaterialMargin`
        // decides; the net judges only between materially close positions.
        match (a, b) {
            (Val::Pos(x), Val::Pos(y)) => match self.by_material(x.material, y.material) {
                Some(d) => d,
                None => x.key != y.key && self.prob(x, y) > 0.5,
            },
            (Val::Pos(x), Val::Draw) => match self.by_material(x.material, 0) {
                Some(d) => d,
                None => self.vs_mirror(x) > 0.5,
            },
            (Val::Draw, Val::Pos(y)) => match self.by_material(0, y.material) {
                Some(d) => d,
                None => self.vs_mirror(y) < 0.5,
            },
            _ => ta > tb,
        }
    }

    /// Is `a` strictly better than `b` for the side to move (White if `white`)?
    fn beats(&mut self, white: bool, a: &Val, b: &Val) -> bool {
        if white {
            self.better(a, b)
        } else {
            self.better(b, a)
        }
    }

    /// The check extension of a move whose child `gives_check`, at `ply`.
    fn extension(&self, gives_check: bool, ply: usize) -> i32 {
        i32::from(gives_check && self.t.comparator_check_extension > 0 && ply < MAX_PLY / 2)
    }

    /// Draw by the fifty-move rule, repetition or insufficient material.
    fn is_draw(&self, pos: &Chess) -> bool {
        is_rule_draw(pos, &self.keys)
    }

    fn table_move(&self, hash: u64) -> u16 {
        let e = self.move_table[(hash as usize) & (MOVE_TABLE - 1)];
        if e.0 == hash { e.1 } else { 0 }
    }

    /// Moves in search order: table move, captures by MVV-LVA, killers, the rest.
    fn order(&self, moves: &MoveList, hash: u64, ply: usize) -> Vec<Move> {
        let tm = self.table_move(hash);
        let killers = self.killers[ply];
        let mut scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|m| {
                let code = encode_move(m);
                let s = if code == tm {
                    self.t.comparator_order_table
                } else if m.is_capture() {
                    self.t.comparator_order_capture + mvv_lva(self.t, m)
                } else if m.is_promotion() {
                    self.t.comparator_order_promotion
                } else if code == killers[0] {
                    self.t.comparator_order_killer
                } else if code == killers[1] {
                    self.t.comparator_order_killer - 1_000
                } else {
                    0
                };
                (s, *m)
            })
            .collect();
        scored.sort_by_key(|x| std::cmp::Reverse(x.0));
        scored.into_iter().map(|(_, m)| m).collect()
    }

    /// Folds child value `v` of move `m` into (best, alpha, beta); true on a cutoff.
    #[allow(clippy::too_many_arguments)]
    fn consider(
        &mut self,
        white: bool,
        v: Val,
        m: Move,
        ply: usize,
        best: &mut Option<(Val, Move)>,
        alpha: &mut Val,
        beta: &mut Val,
        pv: bool,
    ) -> bool {
        let improves = match best {
            None => true,
            Some((b, _)) => self.beats(white, &v, b),
        };
        if !improves {
            return false;
        }
        if pv {
            self.pv.update(ply, m);
        }
        let bound_moved = if white {
            let moved = self.better(&v, alpha);
            if moved {
                *alpha = v.clone();
            }
            moved
        } else {
            let moved = self.better(beta, &v);
            if moved {
                *beta = v.clone();
            }
            moved
        };
        *best = Some((v, m));
        bound_moved && !self.better(beta, alpha)
    }

    fn alphabeta(
        &mut self,
        pos: &Chess,
        hash: u64,
        depth: i32,
        ply: usize,
        mut alpha: Val,
        mut beta: Val,
    ) -> Val {
        self.control.count_node();
        self.pv.clear(ply);
        if self.control.stopped {
            return Val::Draw;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if ply > 0 && self.is_draw(pos) {
            return Val::Draw;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() {
                Val::Mate {
                    white: pos.turn() == Color::Black,
                    ply: ply as u32,
                }
            } else {
                Val::Draw
            };
        }
        if depth <= 0 || ply >= MAX_PLY - 8 {
            return self.quiesce(pos, hash, &moves, ply, alpha, beta, None);
        }
        let white = pos.turn() == Color::White;
        let in_check = pos.is_check();
        if !in_check && let Some(v) = self.null_move(pos, hash, &moves, depth, ply, (&alpha, &beta))
        {
            return v;
        }
        let mut best: Option<(Val, Move)> = None;
        let tm = self.table_move(hash);
        let killers = self.killers[ply];
        let lmr_moves = self.t.comparator_lmr_moves as usize;
        for (i, m) in self.order(&moves, hash, ply).into_iter().enumerate() {
            let (child, child_hash) = play(pos, hash, m);
            let gives_check = child.is_check();
            let extend = self.extension(gives_check, ply);
            let code = encode_move(&m);
            let quiet = !m.is_capture()
                && !m.is_promotion()
                && code != tm
                && !killers.contains(&code)
                && !gives_check
                && !in_check;
            // Late move reduction: a quiet move late in the order is searched shallower first,
            // and again at full depth only if it moves the bound.
            // At depth 1 (LmrMinDepth 1) nothing is left to reduce.
            let r =
                if lmr_moves > 0 && i >= lmr_moves && quiet && depth >= self.t.lmr_min_depth.max(2)
                {
                    self.t.lmr(depth, i).clamp(1, depth - 1)
                } else {
                    0
                };
            self.keys.push(child_hash);
            let mut v = self.alphabeta(
                &child,
                child_hash,
                depth - 1 - r + extend,
                ply + 1,
                alpha.clone(),
                beta.clone(),
            );
            if r > 0 && !self.control.stopped {
                let own_bound = if white { &alpha } else { &beta };
                if self.beats(white, &v, own_bound) {
                    v = self.alphabeta(
                        &child,
                        child_hash,
                        depth - 1 + extend,
                        ply + 1,
                        alpha.clone(),
                        beta.clone(),
                    );
                }
            }
            self.keys.pop();
            if self.control.stopped {
                break;
            }
            if self.consider(white, v, m, ply, &mut best, &mut alpha, &mut beta, true) {
                if !m.is_capture() {
                    let k = &mut self.killers[ply];
                    if k[0] != code {
                        k[1] = k[0];
                        k[0] = code;
                    }
                }
                break;
            }
        }
        match best {
            Some((v, m)) => {
                self.move_table[(hash as usize) & (MOVE_TABLE - 1)] = (hash, encode_move(&m));
                v
            }
            None => Val::Draw,
        }
    }

    /// Null-move pruning: when the side to move stands at or beyond beta (by the net) and may
    /// pass, a search `2 + depth / 4` plies shallower after passing that still reaches beta
    /// cuts the node. Not in check (the caller's test), not twice in a row, not without pieces
    /// (zugzwang).
    fn null_move(
        &mut self,
        pos: &Chess,
        hash: u64,
        moves: &MoveList,
        depth: i32,
        ply: usize,
        (alpha, beta): (&Val, &Val),
    ) -> Option<Val> {
        let min_depth = self.t.comparator_nmp_depth;
        let white = pos.turn() == Color::White;
        let bound = if white { beta } else { alpha };
        let board = pos.board();
        let pieces = board.by_color(pos.turn()) & !(board.pawns() | board.kings());
        if min_depth == 0
            || depth < min_depth
            || ply == 0
            || self.null[ply]
            || pieces.is_empty()
            || !matches!(bound, Val::Pos(_) | Val::Draw)
        {
            return None;
        }
        let stand = self.leaf(pos, hash, moves);
        // The opponent's bound: at or beyond it means not beating the stand-pat position.
        if self.beats(white, bound, &stand) {
            return None;
        }
        let null_pos = pos.clone().swap_turn().ok()?;
        let null_hash = hash_of(&null_pos);
        self.keys.push(null_hash);
        self.null[ply + 1] = true;
        let v = self.alphabeta(
            &null_pos,
            null_hash,
            depth - 1 - (2 + depth / 4),
            ply + 1,
            alpha.clone(),
            beta.clone(),
        );
        self.null[ply + 1] = false;
        self.keys.pop();
        if self.control.stopped {
            return None;
        }
        let cut = !self.beats(white, bound, &v);
        // A mate found after passing proves nothing about the real position: the bound only.
        cut.then(|| match v {
            Val::Mate { .. } => bound.clone(),
            v => v,
        })
    }

    /// Captures that do not lose material (by SEE), then only recaptures on that square, up to
    /// `ComparatorQDepth` plies: the comparator cannot bound a capture tree the way a score does, so it is
    /// kept narrow.
    #[allow(clippy::too_many_arguments)]
    fn quiesce(
        &mut self,
        pos: &Chess,
        hash: u64,
        moves: &MoveList,
        ply: usize,
        mut alpha: Val,
        mut beta: Val,
        recapture: Option<(Square, u32)>,
    ) -> Val {
        let qdepth = recapture.map_or(0, |r| r.1);
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        let stand = self.leaf(pos, hash, moves);
        let white = pos.turn() == Color::White;
        if qdepth >= self.t.comparator_qdepth.max(0) as u32 || pos.is_check() || ply >= MAX_PLY - 2
        {
            return stand;
        }
        let turn = pos.turn();
        let mut captures: Vec<(i32, Move)> = moves
            .iter()
            .filter(|m| {
                m.is_capture()
                    && recapture.is_none_or(|(sq, _)| m.to() == sq)
                    && see::see_ge(pos.board(), turn, m, 0)
            })
            .map(|m| (mvv_lva(self.t, m), *m))
            .collect();
        if captures.is_empty() {
            return stand;
        }
        // Stand pat: the side to move may decline every capture.
        if white {
            if !self.better(&beta, &stand) {
                return stand;
            }
            if self.better(&stand, &alpha) {
                alpha = stand.clone();
            }
        } else {
            if !self.better(&stand, &alpha) {
                return stand;
            }
            if self.better(&beta, &stand) {
                beta = stand.clone();
            }
        }
        captures.sort_by_key(|x| std::cmp::Reverse(x.0));
        let mut best = stand;
        for (_, m) in captures {
            let (child, child_hash) = play(pos, hash, m);
            self.control.count_node();
            if self.control.stopped {
                break;
            }
            let child_moves = child.legal_moves();
            let v = if child_moves.is_empty() {
                if child.is_check() {
                    Val::Mate {
                        white,
                        ply: ply as u32 + 1,
                    }
                } else {
                    Val::Draw
                }
            } else if child.is_insufficient_material() {
                Val::Draw
            } else {
                self.quiesce(
                    &child,
                    child_hash,
                    &child_moves,
                    ply + 1,
                    alpha.clone(),
                    beta.clone(),
                    Some((m.to(), qdepth + 1)),
                )
            };
            let improves = self.beats(white, &v, &best);
            if improves {
                best = v;
                if white {
                    if self.better(&best, &alpha) {
                        alpha = best.clone();
                    }
                } else if self.better(&beta, &best) {
                    beta = best.clone();
                }
                if !self.better(&beta, &alpha) {
                    break;
                }
            }
        }
        best
    }

    /// The score of `v` for the side to move at the root, as the search's scores are
    /// (centipawns or mate).
    fn score(&mut self, v: &Val, root_turn: Color) -> i32 {
        let sign = if root_turn == Color::White { 1 } else { -1 };
        match v {
            Val::Mate { white, ply } => {
                let s = MATE - *ply as i32;
                if *white { s * sign } else { -s * sign }
            }
            Val::Pos(l) => match self.by_material(l.material, 0) {
                Some(_) => sign * l.material,
                None => sign * cp_from_expectation(f64::from(self.vs_mirror(l))),
            },
            _ => 0,
        }
    }
}

/// Searches `params.root` with the comparator `eval`. `root_moves` are the legal (and allowed)
/// root moves, not empty.
pub fn search(
    params: &SearchParams,
    eval: &dyn ComparatorEvaluator,
    shared: &Shared,
    root_moves: Vec<Move>,
    budget: Option<TimeBudget>,
) -> SearchResult {
    let mut s = Searcher {
        eval,
        t: &params.tunables,
        control: Control::new(
            shared,
            None,
            &params.limits,
            budget,
            true,
            params.tunables.comparator_node_flush as u64,
        ),
        seldepth: 0,
        keys: params.history.clone(),
        // A failed allocation panics here (the UCI layer reports a search's panic) rather
        // than aborting; the comparator runs on one thread, with no fewer threads to fall to.
        pv: PvTable::try_new().expect("memory for the comparator search's PV table"),
        killers: vec![[0; 2]; MAX_PLY + 1],
        null: vec![false; MAX_PLY + 1],
        move_table: vec![(0, 0); MOVE_TABLE],
        cmp_cache: vec![(0, 0, 0.0); CMP_CACHE],
        comparisons: 0,
    };
    let root = &params.root;
    let root_hash = hash_of(root);
    s.keys.push(root_hash);
    let white = root.turn() == Color::White;
    let max_depth = params.limits.depth.map_or(MAX_PLY as i32 - 10, |d| {
        d.clamp(1, MAX_PLY as u32 - 10) as i32
    });
    let mut order = root_moves;
    let mut result = SearchResult {
        best: order.first().copied(),
        ponder: None,
        score: 0,
        depth: 0,
        nodes: 0,
        tbhits: 0,
        lines: Vec::new(),
    };
    for depth in 1..=max_depth {
        s.seldepth = 0;
        s.pv.clear(0);
        let mut alpha = Val::Lo;
        let mut beta = Val::Hi;
        let mut best: Option<(Val, Move)> = None;
        let mut best_pv = Vec::new();
        for &m in &order {
            let (child, child_hash) = play(root, root_hash, m);
            let extend = s.extension(child.is_check(), 0);
            s.keys.push(child_hash);
            let v = s.alphabeta(
                &child,
                child_hash,
                depth - 1 + extend,
                1,
                alpha.clone(),
                beta.clone(),
            );
            s.keys.pop();
            if s.control.stopped {
                break;
            }
            let before = best.as_ref().map(|b| b.1);
            s.consider(white, v, m, 0, &mut best, &mut alpha, &mut beta, true);
            if best.as_ref().map(|b| b.1) != before {
                best_pv = s.pv.line(0).to_vec();
            }
            if best.is_some() {
                // A root move searched whole: a node limit may stop the search from here.
                s.control.search_has_a_move();
            }
        }
        // A partial iteration counts when its best move was searched (the previous best is
        // searched first, so any change is an improvement on it).
        let Some((val, m)) = best else { break };
        if s.control.stopped && depth > 1 && best_pv.first() == order.first() {
            break;
        }
        if let Some(i) = order.iter().position(|&x| x == m) {
            let mv = order.remove(i);
            order.insert(0, mv);
        }
        let score = s.score(&val, root.turn());
        result.best = Some(m);
        result.ponder = best_pv.get(1).copied();
        result.score = score;
        result.depth = depth as u32;
        result.lines = vec![Line {
            score,
            pv: best_pv.clone(),
        }];
        s.control.iteration_done();
        if let Some(report) = &params.reporter {
            let time_ms = s.control.elapsed_ms();
            let nodes = s.control.total_nodes();
            report(&Event::Line {
                depth: depth as u32,
                seldepth: s.seldepth,
                multipv: None,
                score,
                nodes,
                nps: nodes * 1000 / time_ms.max(1),
                hashfull: None,
                tbhits: None,
                time_ms,
                pv: &best_pv,
            });
        }
        if s.control.stopped {
            break;
        }
        if let Val::Mate { white: w, ply } = val {
            // A forced mate for either side: deeper searches cannot change it.
            if w == white || params.limits.mate.is_some_and(|n| ply <= 2 * n) {
                break;
            }
        }
        if s.control.soft_time_up() {
            break;
        }
    }
    s.control.flush();
    if let Some(report) = &params.reporter {
        report(&Event::ComparatorWork {
            nodes: s.control.nodes,
            comparisons: s.comparisons,
        });
    }
    result.nodes = s.control.total_nodes();
    result
}

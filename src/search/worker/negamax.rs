//! The principal variation search, in numbered steps as Stockfish's `search.cpp` reads: each
//! step is a function of the worker over the node's shared state ([`Node`]).
//!
//! 1. Node entry: check extension, quiescence at the horizon, draws, mate distance pruning.
//! 2. Transposition table cutoff, then the search memory.
//! 3. Tablebases.
//! 4. Static evaluation.
//! 5. Reverse futility pruning, then razoring.
//! 6. Null-move pruning, then ProbCut.
//! 7. Internal iterative reduction, then the singular extension search of the hash move
//!    (with multi-cut).
//! 8. The moves, in order: shallow-depth pruning (8a), late move reductions and the
//!    principal variation search (8b), the best move so far and history rewards (8c).
//! 9. The result into the transposition table.

use shakmaty::{Chess, Move, Position};

use super::Worker;
use crate::chess::notation::{decode_move, encode_move};
use crate::chess::score::{INF, MATE, MAX_PLY, TB_WIN_BOUND};
use crate::chess::zobrist::play;
use crate::chess::{movegen, see};
use crate::search::correction::Keys;
use crate::search::ordering::{Continuations, Quiets, TriedCaptures, pick, piece_index};
use crate::search::tt::{Bound, TtEntry, score_from_tt, score_to_tt};

/// What the steps of one node share.
pub(super) struct Node<'p> {
    pub(super) pos: &'p Chess,
    pub(super) hash: u64,
    pub(super) depth: i32,
    pub(super) ply: usize,
    pub(super) alpha: i32,
    pub(super) beta: i32,
    pub(super) cut_node: bool,
    pub(super) pv_node: bool,
    pub(super) root: bool,
    pub(super) in_check: bool,
    pub(super) tt_entry: Option<TtEntry>,
    /// The hash move (or the search memory's), 0 if none.
    pub(super) tt_move: u16,
    pub(super) static_eval: i32,
    /// The evaluator's score before the correction (what the hash table keeps).
    pub(super) raw_eval: i32,
    /// The correction history's keys (not in check).
    pub(super) corr_keys: Keys,
    pub(super) improving: bool,
    /// At PV nodes, the bounds a tablebase win or loss puts on the score.
    pub(super) tb_floor: i32,
    pub(super) tb_cap: i32,
    /// The move a singular extension's verification search leaves out (0: none).
    pub(super) excluded: u16,
    /// The hash move's extension (singular: 1 or 2; -1 when another move also holds).
    pub(super) tt_ext: i32,
}

/// What the move loop (step 8) keeps between moves.
struct Moves {
    best_score: i32,
    best_move: Option<Move>,
    searched: usize,
    quiets: Quiets,
    captures: TriedCaptures,
    lmp_limit: usize,
}

/// One move of the loop: what its pruning and reduction look at.
#[derive(Clone, Copy)]
struct Candidate {
    m: Move,
    quiet: bool,
    gives_check: bool,
    /// The move's ordering key (hash move, captures, killers, counter move, history).
    order: i32,
}

impl Worker<'_> {
    /// The score of `pos` (Zobrist key `hash`, `ply` plies from the root) searched `depth`
    /// plies deep within (`alpha`, `beta`); `cut_node`: expected to fail high.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax(
        &mut self,
        pos: &Chess,
        hash: u64,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        cut_node: bool,
    ) -> i32 {
        let mut n = Node {
            pos,
            hash,
            depth,
            ply,
            alpha,
            beta,
            cut_node,
            pv_node: beta - alpha > 1,
            root: ply == 0,
            in_check: false,
            tt_entry: None,
            tt_move: 0,
            static_eval: -INF,
            raw_eval: 0,
            corr_keys: Keys::default(),
            improving: false,
            tb_floor: -INF,
            tb_cap: INF,
            excluded: self.frames[ply].excluded,
            tt_ext: 0,
        };
        // Step 1.
        if let Some(score) = self.enter(&mut n) {
            return score;
        }
        // Step 2.
        if let Some(score) = self.probe_tt_and_memory(&mut n) {
            return score;
        }
        // Step 3.
        if let Some(score) = self.probe_tablebases(&mut n) {
            return score;
        }
        // Step 4.
        self.static_evaluation(&mut n);
        if !n.pv_node && !n.in_check && n.excluded == 0 {
            // Step 5.
            if let Some(score) = self.reverse_futility(&n) {
                return score;
            }
            if let Some(score) = self.razor(&mut n) {
                return score;
            }
            // Step 6.
            if let Some(score) = self.null_move(&n) {
                return score;
            }
            if let Some(score) = self.probcut(&n) {
                return score;
            }
        }
        self.frames[ply].null = false;
        // Step 7. Internal iterative reduction: without a hash move this node is probably not
        // important.
        if n.tt_move == 0
            && n.excluded == 0
            && n.depth >= self.t.iir_min_depth
            && (n.pv_node || n.cut_node)
        {
            n.depth -= 1;
        }
        if let Some(score) = self.singular(&mut n) {
            return score;
        }
        // Steps 8 and 9.
        self.search_moves(&mut n)
    }

    /// Step 1. Node entry: the check extension; quiescence at the horizon; the stop; draws,
    /// the deepest ply and mate distance pruning away from the root.
    fn enter(&mut self, n: &mut Node) -> Option<i32> {
        self.pv.clear(n.ply);
        n.in_check = n.pos.is_check();
        if n.in_check {
            n.depth += 1; // check extension
        }
        if n.depth <= 0 {
            return Some(self.qsearch(n.pos, n.hash, n.ply, n.alpha, n.beta));
        }
        self.control.count_node();
        if self.control.stopped {
            return Some(0);
        }
        if n.ply > self.seldepth {
            self.seldepth = n.ply;
        }
        if !n.root {
            if self.is_draw(n.pos) {
                return Some(0);
            }
            if n.ply >= MAX_PLY - 1 {
                return Some(if n.in_check {
                    0
                } else {
                    self.evaluate(n.pos, n.hash, n.ply)
                });
            }
            // Mate distance pruning.
            n.alpha = n.alpha.max(-MATE + n.ply as i32);
            n.beta = n.beta.min(MATE - n.ply as i32 - 1);
            if n.alpha >= n.beta {
                return Some(n.alpha);
            }
        }
        None
    }

    /// Step 2. A deep enough hash entry ends a non-PV node. Then the search memory: knowledge
    /// at least as deep as this node's search ends it (in PV nodes too: what earlier games
    /// learned must reach the root), else its move goes first.
    fn probe_tt_and_memory(&mut self, n: &mut Node) -> Option<i32> {
        if n.excluded != 0 {
            return None;
        }
        n.tt_entry = self.tt.probe(n.hash);
        n.tt_move = n.tt_entry.map_or(0, |e| e.mv);
        if let Some(e) = n.tt_entry
            && !n.pv_node
            && e.depth >= n.depth
            && let Some(s) = e.cutoff(n.ply, n.alpha, n.beta)
        {
            return Some(s);
        }
        if let Some(memory) = self.memory
            && n.depth >= self.t.memory_min_depth
            && let Some(e) = memory.get(n.hash)
        {
            if !n.root && e.depth >= n.depth {
                if n.pv_node
                    && let Some(m) = decode_move(n.pos, e.mv)
                {
                    self.pv.clear(n.ply + 1);
                    self.pv.update(n.ply, m);
                }
                return Some(score_from_tt(e.score, n.ply));
            }
            if n.tt_move == 0 {
                n.tt_move = e.mv;
            }
        }
        None
    }

    /// Step 3. Tablebases: a result that settles the window ends the node; at PV nodes a win
    /// raises the floor and a loss caps the score.
    fn probe_tablebases(&mut self, n: &mut Node) -> Option<i32> {
        if self.tb.cardinality == 0 || n.root || n.excluded != 0 {
            return None;
        }
        let (score, bound) = self.probe_wdl(n.pos, n.depth, n.ply)?;
        let settles = match bound {
            Bound::Exact => true,
            Bound::Lower => score >= n.beta,
            Bound::Upper => score <= n.alpha,
        };
        if settles {
            let eval = if n.in_check {
                0
            } else {
                self.evaluate(n.pos, n.hash, n.ply)
            };
            let tb_depth = (n.depth + self.t.tb_depth_bonus).min(MAX_PLY as i32);
            self.tt
                .store(n.hash, 0, score_to_tt(score, n.ply), eval, tb_depth, bound);
            return Some(score);
        }
        if n.pv_node {
            if bound == Bound::Lower {
                n.tb_floor = score;
                n.alpha = n.alpha.max(score);
            } else {
                n.tb_cap = score;
            }
        }
        None
    }

    /// Step 4. The static evaluation (the hash entry's when there is one; none in check), and
    /// whether it improved on two plies before.
    fn static_evaluation(&mut self, n: &mut Node) {
        let ply = n.ply;
        if n.in_check {
            n.static_eval = -INF;
        } else if n.excluded != 0 {
            // A singular extension's search: the node's own evaluation, and no correction
            // update (its result is not stored), so no keys.
            n.static_eval = self.frames[ply].static_eval;
            n.raw_eval = self.frames[ply].raw_eval;
        } else {
            n.raw_eval = match n.tt_entry {
                Some(e) => e.eval,
                None => self.evaluate(n.pos, n.hash, ply),
            };
            n.corr_keys = Keys::of(n.pos);
            n.static_eval = self.corrected(n.pos, &n.corr_keys, n.raw_eval);
            self.judge_prior(n);
        }
        self.frames[ply].static_eval = n.static_eval;
        self.frames[ply].raw_eval = n.raw_eval;
        n.improving = !n.in_check && ply >= 2 && n.static_eval > self.frames[ply - 2].static_eval;
        self.frames[ply + 1].killers = [0, 0];
    }

    /// Step 4b. The opponent's quiet move that led here, judged by what it did to the static
    /// evaluation (its side's before it against its side's after it): its main history moves
    /// by `-eval_history_mul * depth` per centipawn of the two evaluations' sum, within
    /// `±eval_history_max` (Stockfish's history update from the evaluation's difference).
    fn judge_prior(&mut self, n: &Node) {
        let Some((prev, prior)) = self.prior_quiet(n.ply) else {
            return;
        };
        let before = self.frames[prev].static_eval;
        if before != -INF {
            let bonus = (-self.t.eval_history_mul * n.depth * (before + n.static_eval))
                .clamp(-self.t.eval_history_max, self.t.eval_history_max);
            self.history.adjust_main(&self.t, prior, bonus);
        }
    }

    /// The ply before `ply` and its move (piece index, target square), if that move was quiet.
    fn prior_quiet(&self, ply: usize) -> Option<(usize, (usize, usize))> {
        let prev = ply.checked_sub(1)?;
        let frame = &self.frames[prev];
        frame.moved.filter(|_| frame.moved_quiet).map(|m| (prev, m))
    }

    /// Steps 8 and 9: every move in order, pruned, reduced and searched; the result stored.
    fn search_moves(&mut self, n: &mut Node) -> i32 {
        let (pos, ply) = (n.pos, n.ply);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if n.in_check { -MATE + ply as i32 } else { 0 };
        }
        let conts = self.continuations(ply);
        let n_moves = self.history.score_moves(
            &self.t,
            pos,
            &moves,
            n.tt_move,
            self.frames[ply].killers,
            &conts,
            &mut self.order[ply],
        );
        let orig_alpha = n.alpha;
        let mut s = Moves {
            best_score: -INF,
            best_move: None,
            searched: 0,
            quiets: Quiets::new(),
            captures: TriedCaptures::new(),
            lmp_limit: ((self.t.lmp_base + n.depth * n.depth) / if n.improving { 1 } else { 2 })
                as usize,
        };
        let mut next = 0;
        while let Some((idx, order)) = pick(&mut self.order[ply], next, n_moves) {
            next += 1;
            let m = moves[idx];
            if n.root && !self.root_searches(&m) {
                continue;
            }
            if n.excluded != 0 && encode_move(&m) == n.excluded {
                continue;
            }
            // Step 8a.
            let Some(c) = self.unpruned(n, &s, m, order) else {
                continue;
            };
            // Step 8b.
            let before = self.control.nodes;
            let score = self.search_move(n, &s, c);
            if n.root {
                self.count_root_nodes(m, self.control.nodes - before);
            }
            if self.control.stopped {
                // The root's best so far: a search stopped in its first iteration keeps the
                // score of the moves it finished (deeper iterations discard it).
                return if n.root { s.best_score } else { 0 };
            }
            s.searched += 1;
            // Step 8c.
            if self.note_score(n, &mut s, c, score) {
                break;
            }
            if n.root && !self.pv.line(0).is_empty() {
                // A root move searched whole: the search has a move, and a node limit may stop
                // it from here (waiting for the whole first iteration let a random net, whose
                // quiescence searches run long, search 428,694 nodes in Kiwipete for `go nodes
                // 200`). The call after the whole iteration (`iterate`) is then a no-op.
                self.control.search_has_a_move();
            }
            if c.quiet {
                s.quiets.push(pos.turn(), &m);
            } else {
                s.captures.push(pos.turn(), &m);
            }
        }
        if s.searched == 0 {
            // Only at the root when every move is excluded, in a singular extension's search
            // of a node with one move, or when everything was pruned.
            return if n.root || n.excluded != 0 {
                n.alpha
            } else {
                n.static_eval.max(n.alpha)
            };
        }
        self.store_result(n, &mut s, orig_alpha)
    }

    /// The moves 1, 2 and 4 plies before the node at `ply` (see [`Continuations`]).
    fn continuations(&self, ply: usize) -> Continuations {
        let at = |k: usize| ply.checked_sub(k).and_then(|p| self.frames[p].moved);
        [at(1), at(2), at(4)]
    }

    /// Whether the root search takes root move `m` (MultiPV lines already found and `go
    /// searchmoves` leave moves out).
    fn root_searches(&self, m: &Move) -> bool {
        !self.root_excluded.contains(m)
            && (self.root_allowed.is_empty() || self.root_allowed.contains(m))
    }

    /// Step 8a. Shallow-depth pruning, never before a move has been searched, when mated, or
    /// for a move that gives check (quiet mating moves must be seen): late move pruning and
    /// futility pruning of quiet moves, SEE pruning of losing captures. `None`: pruned.
    fn unpruned(&self, n: &Node, s: &Moves, m: Move, order: i32) -> Option<Candidate> {
        let quiet = !m.is_capture() && !m.is_promotion();
        let depth = n.depth;
        // Only pruning (shallow depths) and reductions look at checks: skip the test elsewhere.
        let may_prune = !n.root
            && s.best_score > -TB_WIN_BOUND
            && s.searched > 0
            && depth <= self.t.prune_max_depth;
        let may_reduce =
            depth >= self.t.lmr_min_depth && s.searched >= self.t.lmr_min_moves as usize && quiet;
        let gives_check = (may_prune || may_reduce) && movegen::gives_check(n.pos, &m);
        if !n.root && s.best_score > -TB_WIN_BOUND && s.searched > 0 && !gives_check {
            if quiet && !n.in_check && !n.pv_node {
                if depth <= self.t.prune_max_depth && s.quiets.len >= s.lmp_limit {
                    return None;
                }
                if depth <= self.t.prune_max_depth
                    && n.static_eval + self.t.futility_base + self.t.futility_per_depth * depth
                        <= n.alpha
                    && order < self.t.order_counter
                {
                    return None;
                }
                // History pruning: a quiet move whose histories say it fails low.
                if depth <= self.t.history_prune_depth
                    && order < self.t.order_counter
                    && order < -self.t.history_prune_margin * depth
                {
                    return None;
                }
            }
            if !quiet
                && depth <= self.t.prune_max_depth
                && order < self.t.order_good_capture
                && !see::see_ge(
                    n.pos.board(),
                    n.pos.turn(),
                    &m,
                    -self.t.see_margin_per_depth * depth,
                )
            {
                return None;
            }
        }
        Some(Candidate {
            m,
            quiet,
            gives_check,
            order,
        })
    }

    /// Step 8b. Plays the move and searches it: the first move with the full window, the
    /// others with a null window, late quiet moves reduced (LMR), re-searched at full depth
    /// and then with the full window when they beat alpha. Returns the score for this node.
    fn search_move(&mut self, n: &Node, s: &Moves, c: Candidate) -> i32 {
        let (pos, ply, depth, m) = (n.pos, n.ply, n.depth, c.m);
        let (child, child_hash) = play(pos, n.hash, m);
        self.tt.prefetch(child_hash);
        if let Some(acc) = &mut self.inc {
            acc.push(ply, pos, m);
        }
        self.frames[ply].moved = Some((piece_index(pos.turn(), m.role()), usize::from(m.to())));
        self.frames[ply].moved_quiet = c.quiet;
        self.keys.push(child_hash);
        let ext = if n.tt_ext != 0 && encode_move(&m) == n.tt_move {
            n.tt_ext
        } else {
            0
        };
        self.frames[ply + 1].double_exts = self.frames[ply].double_exts + u8::from(ext >= 2);
        let new_depth = depth - 1 + ext;
        // A root move's bias shifts its window, so that its biased score is searched exactly
        // as an unbiased one would be.
        let bias = if n.root && !self.root_bias.is_empty() {
            self.bias(&m)
        } else {
            0
        };
        let (alpha_c, beta_c) = (n.alpha - bias, n.beta - bias);
        let mut score;
        if s.searched == 0 {
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
            let r = self.reduction(n, s, c);
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
                    !n.cut_node,
                );
            }
            if score > alpha_c && n.pv_node {
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
        self.keys.pop();
        score + bias
    }

    /// The late move reduction of a quiet move searched after the first few at enough depth:
    /// the table's, less at PV nodes, for checks, killers and counter moves and good history;
    /// more at cut nodes and when not improving.
    fn reduction(&self, n: &Node, s: &Moves, c: Candidate) -> i32 {
        if n.depth < self.t.lmr_min_depth || s.searched < self.t.lmr_min_moves as usize || !c.quiet
        {
            return 0;
        }
        let mut r = self.t.lmr(n.depth, s.searched);
        r -= i32::from(n.pv_node);
        r += i32::from(n.cut_node);
        r -= i32::from(c.gives_check);
        r -= i32::from(c.order >= self.t.order_counter);
        r += i32::from(!n.improving);
        if c.order < self.t.order_counter {
            r -= c.order / self.t.lmr_history_div;
        }
        // Never below depth 1 (LmrMinDepth 1 lets a depth-1 node reduce: nothing to take).
        r.clamp(0, (n.depth - 2).max(0))
    }

    /// Step 8c. A move's score: the best so far, the principal variation, and at a beta
    /// cutoff the killers and histories rewarded. Returns true at a cutoff.
    fn note_score(&mut self, n: &mut Node, s: &mut Moves, c: Candidate, score: i32) -> bool {
        if score <= s.best_score {
            return false;
        }
        s.best_score = score;
        s.best_move = Some(c.m);
        if score <= n.alpha {
            return false;
        }
        n.alpha = score;
        if n.pv_node {
            self.pv.update(n.ply, c.m);
        }
        if score < n.beta {
            return false;
        }
        let turn = n.pos.turn();
        if c.quiet {
            s.quiets.push(turn, &c.m);
            let conts = self.continuations(n.ply);
            self.history.reward(
                &self.t,
                turn,
                c.m,
                &s.quiets,
                &s.captures,
                n.depth,
                &mut self.frames[n.ply].killers,
                &conts,
            );
        } else if c.m.is_capture() {
            self.history
                .reward_capture(&self.t, turn, &c.m, &s.captures, n.depth);
        }
        true
    }

    /// Step 9. The node's score within the tablebase bounds, and into the hash table (not at a
    /// MultiPV root whose best lines are left out); a fail low stores no move.
    fn store_result(&mut self, n: &Node, s: &mut Moves, orig_alpha: i32) -> i32 {
        if n.pv_node {
            s.best_score = s.best_score.max(n.tb_floor).min(n.tb_cap);
        }
        if n.excluded == 0 && (!n.root || self.root_excluded.is_empty()) {
            let bound = Bound::of(s.best_score, n.alpha, orig_alpha, n.beta);
            let code = s.best_move.map_or(0, |m| encode_move(&m));
            let code = if bound == Bound::Upper { 0 } else { code };
            self.tt.store(
                n.hash,
                code,
                score_to_tt(s.best_score, n.ply),
                if n.in_check { 0 } else { n.raw_eval },
                n.depth,
                bound,
            );
            // Step 9b. The correction history learns from a quiet best move (or none) whose
            // score lies on the side of the static evaluation its bound allows.
            let quiet = s
                .best_move
                .is_none_or(|m| !m.is_capture() && !m.is_promotion());
            if !n.in_check
                && quiet
                && s.best_score.abs() < TB_WIN_BOUND
                && !(bound == Bound::Lower && s.best_score <= n.static_eval)
                && !(bound == Bound::Upper && s.best_score >= n.static_eval)
            {
                self.corr.update(
                    n.pos.turn(),
                    &n.corr_keys,
                    n.depth,
                    s.best_score,
                    n.static_eval,
                );
            }
            if bound == Bound::Upper {
                self.reward_prior(n);
            }
        }
        s.best_score
    }

    /// Step 9c. A node that failed low at enough depth: the opponent's quiet move that led to
    /// it was good, and its continuation histories (after the moves before it) rise.
    fn reward_prior(&mut self, n: &Node) {
        if n.depth < self.t.prior_bonus_min_depth {
            return;
        }
        if let Some((prev, prior)) = self.prior_quiet(n.ply) {
            let conts = self.continuations(prev);
            self.history.reward_prior(&self.t, prior, &conts, n.depth);
        }
    }
}

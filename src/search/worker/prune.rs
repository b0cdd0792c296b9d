//! The steps of a node that may end it before its moves are searched, or change its depth:
//! reverse futility pruning and razoring (5), null-move pruning and ProbCut (6), the singular
//! extension search of the hash move (7b). See `negamax` for the order of the steps.

use shakmaty::Position;

use super::Worker;
use super::negamax::Node;
use crate::chess::notation::encode_move;
use crate::chess::score::TB_WIN_BOUND;
use crate::chess::see;
use crate::chess::zobrist::{hash_of, play};
use crate::search::ordering::piece_index;
use crate::search::tt::{Bound, score_from_tt, score_to_tt};

impl Worker<'_> {
    /// Step 5. Reverse futility pruning: a static evaluation far enough above beta at a
    /// shallow depth is taken as the node's score.
    pub(super) fn reverse_futility(&self, n: &Node) -> Option<i32> {
        (n.depth <= self.t.rfp_max_depth
            && n.beta.abs() < TB_WIN_BOUND
            && n.static_eval - self.t.rfp_margin * (n.depth - i32::from(n.improving)) >= n.beta)
            .then_some(n.static_eval)
    }

    /// Step 5b. Razoring: a static evaluation far below alpha at a shallow depth asks the
    /// quiescence search, and its score ends the node when it confirms the fail low.
    pub(super) fn razor(&mut self, n: &mut Node) -> Option<i32> {
        if n.depth > self.t.razor_max_depth
            || n.alpha.abs() >= TB_WIN_BOUND
            || n.static_eval + self.t.razor_base + self.t.razor_mul * n.depth * n.depth > n.alpha
        {
            return None;
        }
        let score = self.qsearch(n.pos, n.hash, n.ply, n.alpha, n.alpha + 1);
        (score <= n.alpha).then_some(score)
    }

    /// Step 6. Null-move pruning: passing the move and still failing high, searched `r` plies
    /// shallower, ends the node (not twice in a row, not with pawns and king alone).
    pub(super) fn null_move(&mut self, n: &Node) -> Option<i32> {
        let (pos, ply, beta) = (n.pos, n.ply, n.beta);
        let turn = pos.turn();
        let non_pawn = pos.board().by_color(turn) & !(pos.board().pawns() | pos.board().kings());
        if n.depth < self.t.nmp_min_depth
            || n.static_eval < beta
            || self.frames[ply.saturating_sub(1)].null
            || non_pawn.is_empty()
            || beta.abs() >= TB_WIN_BOUND
        {
            return None;
        }
        let null_pos = pos.clone().swap_turn().ok()?;
        let r = self.t.nmp_base
            + n.depth / self.t.nmp_depth_div
            + ((n.static_eval - beta) / self.t.nmp_eval_div).min(self.t.nmp_eval_max);
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
            n.depth - 1 - r,
            ply + 1,
            -beta,
            -beta + 1,
            !n.cut_node,
        );
        self.keys.pop();
        self.frames[ply].null = false;
        if self.control.stopped {
            return Some(0);
        }
        (score >= beta).then_some(if score >= TB_WIN_BOUND { beta } else { score })
    }

    /// Step 6b. ProbCut: a good capture (by SEE) whose quiescence search and then a search 4
    /// plies shallower beat `beta + probcut_margin` would almost surely beat beta at full
    /// depth; the node is cut and the result kept in the hash table.
    pub(super) fn probcut(&mut self, n: &Node) -> Option<i32> {
        let (pos, ply) = (n.pos, n.ply);
        let pc_beta = n.beta + self.t.probcut_margin;
        if n.depth < self.t.probcut_min_depth || n.beta.abs() >= TB_WIN_BOUND {
            return None;
        }
        if let Some(e) = n.tt_entry
            && e.depth >= n.depth - 3
            && score_from_tt(e.score, ply) < pc_beta
        {
            return None;
        }
        let turn = pos.turn();
        let threshold = pc_beta - n.static_eval;
        for m in pos.legal_moves() {
            if !m.is_capture() || !see::see_ge(pos.board(), turn, &m, threshold) {
                continue;
            }
            let (child, child_hash) = play(pos, n.hash, m);
            self.tt.prefetch(child_hash);
            if let Some(acc) = &mut self.inc {
                acc.push(ply, pos, m);
            }
            self.frames[ply].moved = Some((piece_index(turn, m.role()), usize::from(m.to())));
            self.frames[ply].moved_quiet = false;
            self.keys.push(child_hash);
            let mut score = -self.qsearch(&child, child_hash, ply + 1, -pc_beta, -pc_beta + 1);
            if score >= pc_beta {
                score = -self.negamax(
                    &child,
                    child_hash,
                    n.depth - 4,
                    ply + 1,
                    -pc_beta,
                    -pc_beta + 1,
                    !n.cut_node,
                );
            }
            self.keys.pop();
            if self.control.stopped {
                return Some(0);
            }
            if score >= pc_beta {
                self.tt.store(
                    n.hash,
                    encode_move(&m),
                    score_to_tt(score, ply),
                    n.raw_eval,
                    n.depth - 3,
                    Bound::Lower,
                );
                return Some(score);
            }
        }
        None
    }

    /// Step 7b. Singular extensions: when the hash move's score (a lower bound from a search
    /// nearly as deep) is far above what every other move reaches in a search of half the
    /// depth, the hash move is extended, twice when far enough below (a few times a path). When
    /// the others also reach beta, the node is cut (multi-cut). When they hold the hash
    /// move's score, or the node is expected to fail high anyway, the hash move is reduced.
    pub(super) fn singular(&mut self, n: &mut Node) -> Option<i32> {
        let e = n.tt_entry?;
        if n.root
            || n.excluded != 0
            || n.depth < self.t.se_min_depth
            || e.mv == 0
            || e.mv != n.tt_move
            || e.depth < n.depth - 3
            || e.bound == Bound::Upper
            || n.ply as i32 >= 2 * self.root_depth
        {
            return None;
        }
        let tt_score = score_from_tt(e.score, n.ply);
        if tt_score.abs() >= TB_WIN_BOUND {
            return None;
        }
        let s_beta = tt_score - self.t.se_beta_mul * n.depth / 16;
        self.frames[n.ply].excluded = e.mv;
        let score = self.negamax(
            n.pos,
            n.hash,
            (n.depth - 1) / 2,
            n.ply,
            s_beta - 1,
            s_beta,
            n.cut_node,
        );
        self.frames[n.ply].excluded = 0;
        if self.control.stopped {
            return Some(0);
        }
        if score < s_beta {
            n.tt_ext = if !n.pv_node
                && score < s_beta - self.t.se_double_margin
                && i32::from(self.frames[n.ply].double_exts) < self.t.se_double_max
            {
                2
            } else {
                1
            };
        } else if s_beta >= n.beta {
            return Some(s_beta);
        } else if tt_score >= n.beta || n.cut_node {
            n.tt_ext = -1;
        }
        None
    }
}

//! The quiescence search: captures and queen promotions (every evasion in check) until the
//! position is quiet, with stand pat, delta pruning and SEE pruning.

use shakmaty::{Chess, Position, Role};

use super::Worker;
use crate::chess::notation::encode_move;
use crate::chess::rules::dead_material;
use crate::chess::score::{INF, MATE, MAX_PLY, value};
use crate::chess::zobrist::play;
use crate::chess::{movegen, see};
use crate::search::correction::Keys;
use crate::search::ordering::{pick, score_captures};
use crate::search::tt::{Bound, score_to_tt};

impl Worker<'_> {
    pub(super) fn qsearch(
        &mut self,
        pos: &Chess,
        hash: u64,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
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
        let mut raw_eval = 0;
        if in_check {
            best_score = -INF;
            stand_pat = -INF;
        } else {
            raw_eval = match tt_entry {
                Some(e) => e.eval,
                None => self.evaluate(pos, hash, ply),
            };
            stand_pat = self.corrected(pos, &Keys::of(pos), raw_eval);
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
        self.tt
            .store(hash, code, score_to_tt(best_score, ply), raw_eval, 0, bound);
        best_score
    }
}

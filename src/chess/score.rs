//! Scores: the mate and bound constants every searcher and reader of scores shares, the piece
//! values, and the logistic link between an expected score and centipawns.

use shakmaty::Role;

/// Deepest ply a search reaches (also what keeps mate scores apart from ordinary ones).
pub const MAX_PLY: usize = 128;
/// Beyond any score.
pub const INF: i32 = 32001;
/// Mate at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win at the root; a tablebase win `ply` plies from the root scores
/// `TB_WIN - ply`: below every mate score, above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores beyond this are tablebase wins or mates (decisive scores).
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// Piece values in centipawns, pawn..king, for material reckoning in the search (capture
/// ordering, delta pruning).
pub const PIECE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20000];

/// Piece values of the static exchange evaluation, pawn..king: knight and bishop count the
/// same, so that a minor piece for a minor piece is an even trade. (Kept apart from
/// [`PIECE_VALUE`]: the search was tuned with both, and one table would change every search.)
pub const SEE_VALUE: [i32; 6] = [100, 300, 300, 500, 900, 20000];

/// [`PIECE_VALUE`] of `role`.
#[inline]
pub fn value(role: Role) -> i32 {
    PIECE_VALUE[role as usize - 1]
}

/// [`SEE_VALUE`] of `role`.
#[inline]
pub fn see_value(role: Role) -> i32 {
    SEE_VALUE[role as usize - 1]
}

/// An expected score (0 lost .. 1 won) in centipawns: logistic, 400 per factor of 10 in the
/// odds, within ±1000.
pub fn cp_from_expectation(p: f64) -> i32 {
    let p = p.clamp(0.003, 0.997);
    (400.0 * (p / (1.0 - p)).log10())
        .round()
        .clamp(-1000.0, 1000.0) as i32
}

/// The win/draw/loss model of a search score: P(win) = 1 / (1 + e^((a - cp) / b)) and P(loss) =
/// the same at -cp, the rest drawn; `a` is the score at which winning is an even chance and `b`
/// its spread. Fitted by `deepred wdl-fit` on Deep Red's own games (README, `UCI_ShowWDL`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub a: f64,
    pub b: f64,
}

/// The fitted model of the pst engine (BENCHMARKS.md, "Win/draw/loss model").
pub const WDL_MODEL: WdlModel = WdlModel { a: 230.4, b: 144.4 };

impl WdlModel {
    /// (win, draw, loss) in per mille for the side to move at `score` (centipawns or mate).
    pub fn wdl(&self, score: i32) -> (u32, u32, u32) {
        if score >= MATE_BOUND {
            return (1000, 0, 0);
        }
        if score <= -MATE_BOUND {
            return (0, 0, 1000);
        }
        let (w, l) = self.probabilities(f64::from(score));
        let w = (1000.0 * w).round() as u32;
        let l = (1000.0 * l).round() as u32;
        (w, 1000u32.saturating_sub(w + l), l)
    }

    /// P(win), P(loss) at `cp`.
    pub fn probabilities(&self, cp: f64) -> (f64, f64) {
        let s = |x: f64| 1.0 / (1.0 + ((self.a - x) / self.b.max(1e-9)).exp());
        (s(cp), s(-cp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_adds_up_and_follows_the_score() {
        let m = WdlModel { a: 300.0, b: 80.0 };
        for cp in [-2000, -300, -50, 0, 50, 300, 2000] {
            let (w, d, l) = m.wdl(cp);
            assert_eq!(w + d + l, 1000, "{cp}");
            let (w2, _, l2) = m.wdl(-cp);
            assert_eq!((w, l), (l2, w2), "symmetric at {cp}");
        }
        assert_eq!(m.wdl(300).0, 500, "an even chance of winning at a");
        assert!(m.wdl(100).0 < m.wdl(200).0);
        assert_eq!(m.wdl(MATE - 3), (1000, 0, 0));
        assert_eq!(m.wdl(-MATE + 4), (0, 0, 1000));
    }

    #[test]
    fn expectation_to_centipawns() {
        assert_eq!(cp_from_expectation(0.5), 0);
        assert!(cp_from_expectation(0.75) > 150 && cp_from_expectation(0.75) < 250);
        assert_eq!(cp_from_expectation(0.25), -cp_from_expectation(0.75));
        assert_eq!(cp_from_expectation(1.0), 1000);
    }
}

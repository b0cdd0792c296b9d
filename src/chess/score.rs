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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectation_to_centipawns() {
        assert_eq!(cp_from_expectation(0.5), 0);
        assert!(cp_from_expectation(0.75) > 150 && cp_from_expectation(0.75) < 250);
        assert_eq!(cp_from_expectation(0.25), -cp_from_expectation(0.75));
        assert_eq!(cp_from_expectation(1.0), 1000);
    }
}

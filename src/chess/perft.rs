//! Move-generation check: counts the leaf nodes of the legal move tree.

use rayon::prelude::*;
use shakmaty::{Chess, Move, Position};

/// Number of leaf positions `depth` plies below `pos` (bulk-counted at the last ply).
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let sub = |m: &Move| {
        let mut child = pos.clone();
        child.play_unchecked(*m);
        perft(&child, depth - 1)
    };
    if depth >= 5 {
        moves.par_iter().map(sub).sum()
    } else {
        moves.iter().map(sub).sum()
    }
}

/// Perft per root move (`--divide`): calls `each(move, count)` in move-generation order and
/// returns the total.
pub fn divide(pos: &Chess, depth: u32, mut each: impl FnMut(Move, u64)) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let n = perft(&child, depth - 1);
        each(m, n);
        total += n;
    }
    total
}

//! Move generation the search needs beyond shakmaty's legal moves: pseudo-legal captures for
//! the quiescence search, the king-safety check after such a move, and whether a move gives check.
//!
//! shakmaty generates every legal move into a 1.3 KB list; quiescence nodes only want captures
//! and queen promotions, and most of them are cut before the second move. This generates those
//! moves pseudo-legally into a small list; the caller checks legality with [`leaves_king_safe`]
//! after making a move it actually searches.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Chess, Color, Move, Position, Rank, Role, Square, attacks};

pub type Captures = ArrayVec<Move, 128>;

/// Pseudo-legal captures (including en passant) and queen promotions of the side to move.
/// Only for positions where the side to move is not in check.
pub fn captures(pos: &Chess) -> Captures {
    let mut out = Captures::new();
    let board = pos.board();
    let us = pos.turn();
    let them = board.by_color(!us);
    let occupied = board.occupied();
    let last_rank = if us == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    };
    let push =
        |out: &mut Captures, role: Role, from: Square, to: Square, promotion: Option<Role>| {
            if !out.is_full() {
                out.push(Move::Normal {
                    role,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion,
                });
            }
        };
    let ours = board.by_color(us);
    for from in board.pawns() & ours {
        for to in attacks::pawn_attacks(us, from) & them {
            let promo = (to.rank() == last_rank).then_some(Role::Queen);
            push(&mut out, Role::Pawn, from, to, promo);
        }
        let step = if us == Color::White {
            from.offset(8)
        } else {
            from.offset(-8)
        };
        if let Some(to) = step
            && to.rank() == last_rank
            && !occupied.contains(to)
        {
            push(&mut out, Role::Pawn, from, to, Some(Role::Queen));
        }
    }
    if let Some(ep) = pos.maybe_ep_square() {
        for from in attacks::pawn_attacks(!us, ep) & board.pawns() & ours {
            if !out.is_full() {
                out.push(Move::EnPassant { from, to: ep });
            }
        }
    }
    for from in board.knights() & ours {
        for to in attacks::knight_attacks(from) & them {
            push(&mut out, Role::Knight, from, to, None);
        }
    }
    for from in board.bishops() & ours {
        for to in attacks::bishop_attacks(from, occupied) & them {
            push(&mut out, Role::Bishop, from, to, None);
        }
    }
    for from in board.rooks() & ours {
        for to in attacks::rook_attacks(from, occupied) & them {
            push(&mut out, Role::Rook, from, to, None);
        }
    }
    for from in board.queens() & ours {
        for to in attacks::queen_attacks(from, occupied) & them {
            push(&mut out, Role::Queen, from, to, None);
        }
    }
    for from in board.kings() & ours {
        for to in attacks::king_attacks(from) & them {
            push(&mut out, Role::King, from, to, None);
        }
    }
    out
}

/// After `mover` made a pseudo-legal move (giving `child`), is its king safe?
#[inline]
pub fn leaves_king_safe(child: &Chess, mover: Color) -> bool {
    let board = child.board();
    match board.king_of(mover) {
        Some(k) => board.attacks_to(k, !mover, board.occupied()).is_empty(),
        None => false,
    }
}

/// Positions with captures, promotions, en passant (also pinned), castling and checks.
#[cfg(test)]
const TEST_FENS: [&str; 10] = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/8/8/K2pP2q/8/8/8/7k w - d6 0 2",
    "4k3/8/8/2KpP2r/8/8/8/8 w - d6 0 2",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "3k4/8/8/3pP3/8/8/8/B2K4 w - d6 0 2",
    "1k6/8/8/5pP1/4K3/8/8/8 w - f6 0 1",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    /// The generator and the legality check together give exactly shakmaty's legal captures
    /// and queen promotions.
    #[test]
    fn matches_legal_captures() {
        for fen in TEST_FENS {
            let pos = parse_fen(fen, false).unwrap();
            if pos.is_check() {
                continue;
            }
            let mut mine: Vec<String> = captures(&pos)
                .into_iter()
                .filter(|m| {
                    let mut c = pos.clone();
                    c.play_unchecked(*m);
                    leaves_king_safe(&c, pos.turn())
                })
                .map(|m| format!("{m:?}"))
                .collect();
            let mut legal: Vec<String> = pos
                .legal_moves()
                .into_iter()
                .filter(|m| m.is_capture() || m.promotion() == Some(Role::Queen))
                .filter(|m| !(m.is_promotion() && m.promotion() != Some(Role::Queen)))
                .map(|m| format!("{m:?}"))
                .collect();
            mine.sort();
            legal.sort();
            assert_eq!(mine, legal, "{fen}");
        }
    }
}

/// Does the legal move `m` give check? Computed on bitboards, without making the move
/// (castling, rare, is made and looked at).
pub fn gives_check(pos: &Chess, m: &Move) -> bool {
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let (role, from, to, removed) = match *m {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => (promotion.unwrap_or(role), from, to, None),
        Move::EnPassant { from, to } => (
            Role::Pawn,
            from,
            to,
            Some(Square::from_coords(to.file(), from.rank())),
        ),
        Move::Castle { .. } | Move::Put { .. } => {
            let mut c = pos.clone();
            c.play_unchecked(*m);
            return c.is_check();
        }
    };
    let from_bb = Bitboard::from(from);
    let to_bb = Bitboard::from(to);
    let mut occupied = (board.occupied() & !from_bb) | to_bb;
    if let Some(r) = removed {
        occupied &= !Bitboard::from(r);
    }
    // Our pieces after the move (a captured piece on `to` was theirs).
    let ours = board.by_color(us) & !from_bb;
    let moved = |r: Role| if role == r { to_bb } else { Bitboard::EMPTY };
    let diagonal =
        ((board.bishops() | board.queens()) & ours) | moved(Role::Bishop) | moved(Role::Queen);
    let straight =
        ((board.rooks() | board.queens()) & ours) | moved(Role::Rook) | moved(Role::Queen);
    let knights = (board.knights() & ours) | moved(Role::Knight);
    let pawns = (board.pawns() & ours) | moved(Role::Pawn);
    (attacks::bishop_attacks(king, occupied) & diagonal).any()
        || (attacks::rook_attacks(king, occupied) & straight).any()
        || (attacks::knight_attacks(king) & knights).any()
        || (attacks::pawn_attacks(!us, king) & pawns).any()
}

#[cfg(test)]
mod check_tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    #[test]
    fn gives_check_agrees_with_making_the_move() {
        let mut checked = 0;
        for fen in TEST_FENS {
            let pos = parse_fen(fen, false).unwrap();
            for m in pos.legal_moves() {
                let mut c = pos.clone();
                c.play_unchecked(m);
                assert_eq!(gives_check(&pos, &m), c.is_check(), "{fen} {m:?}");
                checked += 1;
            }
        }
        assert!(checked > 150);
    }
}

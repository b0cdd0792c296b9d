//! The position key Deep Red uses everywhere (shakmaty's Zobrist hash, legal en passant only),
//! and incremental play: a move and the key of the position it leads to, without rehashing.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square};

/// The Zobrist key of `pos`.
pub fn hash_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Plays `m` (legal) on a copy of `pos` and returns it with its key, updated incrementally:
/// the same value as [`hash_of`] on the new position.
#[inline(always)]
pub fn play(pos: &Chess, hash: u64, m: Move) -> (Chess, u64) {
    let z = |sq, piece| Zobrist64::zobrist_for_piece(sq, piece).0;
    let us = pos.turn();
    let mut h = hash ^ Zobrist64::zobrist_for_white_turn().0;
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            h ^= z(from, role.of(us)) ^ z(to, promotion.unwrap_or(role).of(us));
            if let Some(c) = capture {
                h ^= z(to, c.of(!us));
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            h ^= z(from, Role::Pawn.of(us))
                ^ z(to, Role::Pawn.of(us))
                ^ z(taken, Role::Pawn.of(!us));
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            h ^= z(king, Role::King.of(us))
                ^ z(rook, Role::Rook.of(us))
                ^ z(side.king_to(us), Role::King.of(us))
                ^ z(side.rook_to(us), Role::Rook.of(us));
        }
        Move::Put { .. } => {}
    }
    if pos.maybe_ep_square().is_some()
        && let Some(ep) = pos.ep_square(EnPassantMode::Legal)
    {
        h ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
    }
    let mut child = pos.clone();
    child.play_unchecked(m);
    if pos.castles().castling_rights() != child.castles().castling_rights() {
        h ^= castling_key(pos) ^ castling_key(&child);
    }
    if child.maybe_ep_square().is_some()
        && let Some(ep) = child.ep_square(EnPassantMode::Legal)
    {
        h ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
    }
    (child, h)
}

fn castling_key(pos: &Chess) -> u64 {
    let mut h = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if pos.castles().has(color, side) {
                h ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{fen_of, parse_fen};

    fn walk(pos: &Chess, hash: u64, depth: u32, count: &mut u64) {
        assert_eq!(hash, hash_of(pos), "{}", fen_of(pos));
        *count += 1;
        if depth == 0 {
            return;
        }
        for m in pos.legal_moves() {
            let (child, h) = play(pos, hash, m);
            walk(&child, h, depth - 1, count);
        }
    }

    /// The incremental key equals the key computed from scratch, through captures,
    /// promotions, castling (standard and Chess960), lost castling rights and en passant.
    #[test]
    fn incremental_zobrist_matches_full_hash() {
        let mut count = 0;
        for (fen, chess960) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                false,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                false,
            ),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                false,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                false,
            ),
            ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", false),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                true,
            ),
        ] {
            let pos = parse_fen(fen, chess960).unwrap();
            walk(&pos, hash_of(&pos), 3, &mut count);
        }
        assert!(count > 100_000, "{count}");
    }
}

//! Input features (see the module documentation of [`crate::nn`] for the indices) and the
//! feature changes a move makes, for the incremental first layer.

use arrayvec::ArrayVec;
use shakmaty::{CastlingSide, Chess, Color, Move, Position, Role, Square};

pub const DEEPCHESS_INPUTS: usize = 773;
pub const DEEPPINK_INPUTS: usize = 768;
/// Feature 768 of deepchess773: White to move.
pub const WHITE_TO_MOVE: u16 = 768;

/// Up to 32 pieces, side to move and 4 castling rights.
pub type Features = ArrayVec<u16, 40>;

#[inline]
fn piece_index(role: Role) -> usize {
    role as usize - 1
}

/// deepchess773 index of a piece.
#[inline]
pub fn deepchess_piece(color: Color, role: Role, sq: Square) -> u16 {
    let c = usize::from(color == Color::Black);
    (c * 384 + piece_index(role) * 64 + sq as usize) as u16
}

/// deepchess773 index of a castling right.
#[inline]
pub fn castling_feature(color: Color, side: CastlingSide) -> u16 {
    769 + 2 * u16::from(color == Color::Black) + u16::from(side == CastlingSide::QueenSide)
}

/// deeppink768 index of a piece seen from `persp` (the side to move).
#[inline]
pub fn deeppink_piece(persp: Color, color: Color, role: Role, sq: Square) -> u16 {
    let own = usize::from(color != persp);
    let sq = if persp == Color::Black {
        sq as usize ^ 56
    } else {
        sq as usize
    };
    (own * 384 + piece_index(role) * 64 + sq) as u16
}

/// The active deepchess773 features of `pos`.
pub fn deepchess(pos: &Chess) -> Features {
    let mut f = Features::new();
    let board = pos.board();
    for color in Color::ALL {
        for role in Role::ALL {
            for sq in board.by_piece(role.of(color)) {
                f.push(deepchess_piece(color, role, sq));
            }
        }
    }
    if pos.turn() == Color::White {
        f.push(WHITE_TO_MOVE);
    }
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if pos.castles().has(color, side) {
                f.push(castling_feature(color, side));
            }
        }
    }
    f
}

/// The deepchess773 features of the colour-mirrored position (ranks flipped, colours, side to
/// move and castling rights swapped): a position exactly as good for Black as `f` is for White.
pub fn deepchess_mirror(f: &[u16]) -> Features {
    f.iter()
        .filter_map(|&x| {
            let x = usize::from(x);
            match x {
                0..768 => {
                    let (c, rest) = (x / 384, x % 384);
                    let (p, sq) = (rest / 64, rest % 64);
                    Some(((1 - c) * 384 + p * 64 + (sq ^ 56)) as u16)
                }
                768 => None,
                769 | 770 => Some(x as u16 + 2),
                _ => Some(x as u16 - 2),
            }
        })
        .chain(if f.contains(&WHITE_TO_MOVE) {
            None
        } else {
            Some(WHITE_TO_MOVE)
        })
        .collect()
}

/// The active deeppink768 features of `pos` from `persp`'s view.
pub fn deeppink(pos: &Chess, persp: Color) -> Features {
    let mut f = Features::new();
    let board = pos.board();
    for color in Color::ALL {
        for role in Role::ALL {
            for sq in board.by_piece(role.of(color)) {
                f.push(deeppink_piece(persp, color, role, sq));
            }
        }
    }
    f
}

/// The pieces a move takes away and puts down (castling with the king on its target square
/// in Chess960 removes and adds the same piece, which cancels).
#[derive(Clone, Debug, Default)]
pub struct MoveDelta {
    pub add: ArrayVec<(Color, Role, Square), 2>,
    pub sub: ArrayVec<(Color, Role, Square), 2>,
    /// A captured piece.
    pub captured: Option<(Color, Role, Square)>,
}

impl MoveDelta {
    /// The changes `m` (legal in `pos`) makes to the board.
    pub fn of(pos: &Chess, m: Move) -> Self {
        let us = pos.turn();
        let mut d = MoveDelta::default();
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                d.sub.push((us, role, from));
                d.add.push((us, promotion.unwrap_or(role), to));
                if let Some(c) = capture {
                    d.captured = Some((!us, c, to));
                }
            }
            Move::EnPassant { from, to } => {
                d.sub.push((us, Role::Pawn, from));
                d.add.push((us, Role::Pawn, to));
                d.captured = Some((!us, Role::Pawn, Square::from_coords(to.file(), from.rank())));
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                d.sub.push((us, Role::King, king));
                d.sub.push((us, Role::Rook, rook));
                d.add.push((us, Role::King, side.king_to(us)));
                d.add.push((us, Role::Rook, side.rook_to(us)));
            }
            Move::Put { role, to } => d.add.push((us, role, to)),
        }
        d
    }
}

/// deepchess773 features added and removed by `m` from `pos` to `child` (pieces, side to move,
/// castling rights).
pub fn deepchess_delta(
    pos: &Chess,
    m: Move,
    child: &Chess,
) -> (ArrayVec<u16, 4>, ArrayVec<u16, 8>) {
    let d = MoveDelta::of(pos, m);
    let mut add = ArrayVec::new();
    let mut sub = ArrayVec::new();
    for &(c, r, s) in &d.add {
        add.push(deepchess_piece(c, r, s));
    }
    for &(c, r, s) in d.sub.iter().chain(&d.captured) {
        sub.push(deepchess_piece(c, r, s));
    }
    if pos.turn() == Color::White {
        sub.push(WHITE_TO_MOVE);
    } else {
        add.push(WHITE_TO_MOVE);
    }
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if pos.castles().has(color, side) && !child.castles().has(color, side) {
                sub.push(castling_feature(color, side));
            }
        }
    }
    (add, sub)
}

/// deeppink768 features added and removed by `m` in the accumulator of perspective `persp`.
pub fn deeppink_delta(d: &MoveDelta, persp: Color) -> (ArrayVec<u16, 2>, ArrayVec<u16, 3>) {
    let add = d
        .add
        .iter()
        .map(|&(c, r, s)| deeppink_piece(persp, c, r, s))
        .collect();
    let sub = d
        .sub
        .iter()
        .chain(&d.captured)
        .map(|&(c, r, s)| deeppink_piece(persp, c, r, s))
        .collect();
    (add, sub)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    #[test]
    fn indices_follow_the_documented_layout() {
        let start = Chess::default();
        let f = deepchess(&start);
        assert_eq!(f.len(), 32 + 1 + 4);
        // White pawn on a2 (square 8), black king on e8 (60), white to move, all castling.
        assert!(f.contains(&8));
        assert!(f.contains(&(384 + 5 * 64 + 60)));
        assert!(f.contains(&768));
        for c in 769..=772 {
            assert!(f.contains(&c));
        }
        // Black to move: the mover's pieces (black) are "own", ranks mirrored: the black king
        // on e8 is seen as own king on e1 (square 4).
        let b = parse_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            false,
        )
        .unwrap();
        let p = deeppink(&b, Color::Black);
        assert!(p.contains(&(5 * 64 + 4)));
        // White pawn on e4 (28) is an opponent pawn on e5 (36).
        assert!(p.contains(&(384 + 36)));
        let w = deeppink(&start, Color::White);
        assert!(w.contains(&(5 * 64 + 4)) && w.contains(&(384 + 5 * 64 + 60)));
    }

    #[test]
    fn mirror_of_the_start_position_is_the_start_with_black_to_move() {
        let start = Chess::default();
        let mut m: Vec<u16> = deepchess_mirror(&deepchess(&start)).into_iter().collect();
        let black = parse_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            false,
        )
        .unwrap();
        let mut want: Vec<u16> = deepchess(&black).into_iter().collect();
        m.sort();
        want.sort();
        assert_eq!(m, want);
        let twice: Vec<u16> = deepchess_mirror(&deepchess_mirror(&deepchess(&start)))
            .into_iter()
            .collect();
        let mut orig: Vec<u16> = deepchess(&start).into_iter().collect();
        let mut twice = twice;
        twice.sort();
        orig.sort();
        assert_eq!(twice, orig);
    }
}

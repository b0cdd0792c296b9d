//! The classical evaluator: tapered middlegame/endgame piece-square tables (PeSTO's published
//! tuned values, by Ronald Friederich) plus a few cheap positional terms (mobility, pawn
//! structure, bishop pair, rooks on open files, tempo) and a drawish-material scale.

use std::sync::LazyLock;

use shakmaty::{Bitboard, Chess, Color, Position, attacks};

use super::ScalarEvaluator;

/// The piece-square-table evaluator (`Evaluator=pst`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Pst;

impl ScalarEvaluator for Pst {
    fn name(&self) -> &'static str {
        "pst"
    }
    fn evaluate(&self, pos: &Chess, _hash: u64) -> i32 {
        evaluate(pos)
    }
}

// PeSTO values, indexed pawn..king. Tables below are written rank 8 first (a8 = index 0) from
// White's point of view.
const MG_VALUE: [i32; 6] = [82, 337, 365, 477, 1025, 0];
const EG_VALUE: [i32; 6] = [94, 281, 297, 512, 936, 0];

#[rustfmt::skip]
const MG_TABLES: [[i32; 64]; 6] = [
    [   0,   0,   0,   0,   0,   0,  0,   0,
       98, 134,  61,  95,  68, 126, 34, -11,
       -6,   7,  26,  31,  65,  56, 25, -20,
      -14,  13,   6,  21,  23,  12, 17, -23,
      -27,  -2,  -5,  12,  17,   6, 10, -25,
      -26,  -4,  -4, -10,   3,   3, 33, -12,
      -35,  -1, -20, -23, -15,  24, 38, -22,
        0,   0,   0,   0,   0,   0,  0,   0],
    [-167, -89, -34, -49,  61, -97, -15, -107,
      -73, -41,  72,  36,  23,  62,   7,  -17,
      -47,  60,  37,  65,  84, 129,  73,   44,
       -9,  17,  19,  53,  37,  69,  18,   22,
      -13,   4,  16,  13,  28,  19,  21,   -8,
      -23,  -9,  12,  10,  19,  17,  25,  -16,
      -29, -53, -12,  -3,  -1,  18, -14,  -19,
     -105, -21, -58, -33, -17, -28, -19,  -23],
    [ -29,   4, -82, -37, -25, -42,   7,  -8,
      -26,  16, -18, -13,  30,  59,  18, -47,
      -16,  37,  43,  40,  35,  50,  37,  -2,
       -4,   5,  19,  50,  37,  37,   7,  -2,
       -6,  13,  13,  26,  34,  12,  10,   4,
        0,  15,  15,  15,  14,  27,  18,  10,
        4,  15,  16,   0,   7,  21,  33,   1,
      -33,  -3, -14, -21, -13, -12, -39, -21],
    [  32,  42,  32,  51, 63,  9,  31,  43,
       27,  32,  58,  62, 80, 67,  26,  44,
       -5,  19,  26,  36, 17, 45,  61,  16,
      -24, -11,   7,  26, 24, 35,  -8, -20,
      -36, -26, -12,  -1,  9, -7,   6, -23,
      -45, -25, -16, -17,  3,  0,  -5, -33,
      -44, -16, -20,  -9, -1, 11,  -6, -71,
      -19, -13,   1,  17, 16,  7, -37, -26],
    [ -28,   0,  29,  12,  59,  44,  43,  45,
      -24, -39,  -5,   1, -16,  57,  28,  54,
      -13, -17,   7,   8,  29,  56,  47,  57,
      -27, -27, -16, -16,  -1,  17,  -2,   1,
       -9, -26,  -9, -10,  -2,  -4,   3,  -3,
      -14,   2, -11,  -2,  -5,   2,  14,   5,
      -35,  -8,  11,   2,   8,  15,  -3,   1,
       -1, -18,  -9,  10, -15, -25, -31, -50],
    [ -65,  23,  16, -15, -56, -34,   2,  13,
       29,  -1, -20,  -7,  -8,  -4, -38, -29,
       -9,  24,   2, -16, -20,   6,  22, -22,
      -17, -20, -12, -27, -30, -25, -14, -36,
      -49,  -1, -27, -39, -46, -44, -33, -51,
      -14, -14, -22, -46, -44, -30, -15, -27,
        1,   7,  -8, -64, -43, -16,   9,   8,
      -15,  36,  12, -54,   8, -28,  24,  14],
];

#[rustfmt::skip]
const EG_TABLES: [[i32; 64]; 6] = [
    [   0,   0,   0,   0,   0,   0,   0,   0,
      178, 173, 158, 134, 147, 132, 165, 187,
       94, 100,  85,  67,  56,  53,  82,  84,
       32,  24,  13,   5,  -2,   4,  17,  17,
       13,   9,  -3,  -7,  -7,  -8,   3,  -1,
        4,   7,  -6,   1,   0,  -5,  -1,  -8,
       13,   8,   8,  10,  13,   0,   2,  -7,
        0,   0,   0,   0,   0,   0,   0,   0],
    [ -58, -38, -13, -28, -31, -27, -63, -99,
      -25,  -8, -25,  -2,  -9, -25, -24, -52,
      -24, -20,  10,   9,  -1,  -9, -19, -41,
      -17,   3,  22,  22,  22,  11,   8, -18,
      -18,  -6,  16,  25,  16,  17,   4, -18,
      -23,  -3,  -1,  15,  10,  -3, -20, -22,
      -42, -20, -10,  -5,  -2, -20, -23, -44,
      -29, -51, -23, -15, -22, -18, -50, -64],
    [ -14, -21, -11,  -8, -7,  -9, -17, -24,
       -8,  -4,   7, -12, -3, -13,  -4, -14,
        2,  -8,   0,  -1, -2,   6,   0,   4,
       -3,   9,  12,   9, 14,  10,   3,   2,
       -6,   3,  13,  19,  7,  10,  -3,  -9,
      -12,  -3,   8,  10, 13,   3,  -7, -15,
      -14, -18,  -7,  -1,  4,  -9, -15, -27,
      -23,  -9, -23,  -5, -9, -16,  -5, -17],
    [  13, 10, 18, 15, 12,  12,   8,   5,
       11, 13, 13, 11, -3,   3,   8,   3,
        7,  7,  7,  5,  4,  -3,  -5,  -3,
        4,  3, 13,  1,  2,   1,  -1,   2,
        3,  5,  8,  4, -5,  -6,  -8, -11,
       -4,  0, -5, -1, -7, -12,  -8, -16,
       -6, -6,  0,  2, -9,  -9, -11,  -3,
       -9,  2,  3, -1, -5, -13,   4, -20],
    [  -9,  22,  22,  27,  27,  19,  10,  20,
      -17,  20,  32,  41,  58,  25,  30,   0,
      -20,   6,   9,  49,  47,  35,  19,   9,
        3,  22,  24,  45,  57,  40,  57,  36,
      -18,  28,  19,  47,  31,  34,  39,  23,
      -16, -27,  15,   6,   9,  17,  10,   5,
      -22, -23, -30, -16, -16, -23, -36, -32,
      -33, -28, -22, -43,  -5, -32, -20, -41],
    [ -74, -35, -18, -18, -11,  15,   4, -17,
      -12,  17,  14,  17,  17,  38,  23,  11,
       10,  17,  23,  15,  20,  45,  44,  13,
       -8,  22,  24,  27,  26,  33,  26,   3,
      -18,  -4,  21,  24,  27,  23,   9, -11,
      -19,  -3,  11,  21,  23,  16,   7,  -9,
      -27, -11,   4,  13,  14,   4,  -5, -17,
      -53, -34, -21, -11, -28, -14, -24, -43],
];

/// Packed (mg, eg) score: mg in the high 16 bits' position, eg in the low, like Stockfish's `Score`.
#[derive(Clone, Copy)]
struct S(i32, i32);

/// [color][role][square] with square a1 = 0, values include the material.
struct Tables {
    mg: [[[i32; 64]; 6]; 2],
    eg: [[[i32; 64]; 6]; 2],
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut t = Tables {
        mg: [[[0; 64]; 6]; 2],
        eg: [[[0; 64]; 6]; 2],
    };
    for role in 0..6 {
        for sq in 0..64 {
            // White: a1 (sq 0) is the table's index 56; black mirrors vertically.
            t.mg[0][role][sq] = MG_VALUE[role] + MG_TABLES[role][sq ^ 56];
            t.eg[0][role][sq] = EG_VALUE[role] + EG_TABLES[role][sq ^ 56];
            t.mg[1][role][sq] = MG_VALUE[role] + MG_TABLES[role][sq];
            t.eg[1][role][sq] = EG_VALUE[role] + EG_TABLES[role][sq];
        }
    }
    t
});

const PASSED: [S; 8] = [
    S(0, 0),
    S(0, 5),
    S(3, 10),
    S(8, 18),
    S(18, 35),
    S(30, 60),
    S(50, 95),
    S(0, 0),
];
const DOUBLED: S = S(-8, -18);
const ISOLATED: S = S(-10, -10);
const BISHOP_PAIR: S = S(28, 50);
const ROOK_OPEN: S = S(24, 8);
const ROOK_SEMI_OPEN: S = S(11, 5);
const TEMPO: i32 = 12;
/// Per attacked square beyond a typical count: knight, bishop, rook, queen.
const MOBILITY: [S; 4] = [S(4, 4), S(4, 5), S(2, 4), S(1, 2)];
const MOBILITY_BASE: [i32; 4] = [4, 6, 6, 12];

const FILE_A: u64 = 0x0101_0101_0101_0101;

fn file_bb(file: u32) -> u64 {
    FILE_A << file
}

const FILE_H: u64 = FILE_A << 7;

fn fill_north(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b |= b << 32;
    b
}

fn fill_south(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b |= b >> 32;
    b
}

#[cfg(test)]
fn adjacent_files(file: u32) -> u64 {
    let mut bb = 0;
    if file > 0 {
        bb |= file_bb(file - 1);
    }
    if file < 7 {
        bb |= file_bb(file + 1);
    }
    bb
}

/// Squares in front of `sq` (from `color`'s view) on its file and the adjacent files.
#[cfg(test)]
fn passed_span(color: Color, sq: shakmaty::Square) -> u64 {
    let file = u32::from(sq.file());
    let rank = u32::from(sq.rank());
    let files = file_bb(file) | adjacent_files(file);
    let ahead = match color {
        Color::White => {
            if rank >= 7 {
                0
            } else {
                !0u64 << (8 * (rank + 1))
            }
        }
        Color::Black => {
            if rank == 0 {
                0
            } else {
                !0u64 >> (8 * (8 - rank))
            }
        }
    };
    files & ahead
}

fn pawn_attacks_bb(color: Color, pawns: u64) -> u64 {
    const NOT_A: u64 = !FILE_A;
    const NOT_H: u64 = !(FILE_A << 7);
    match color {
        Color::White => ((pawns & NOT_A) << 7) | ((pawns & NOT_H) << 9),
        Color::Black => ((pawns & NOT_A) >> 9) | ((pawns & NOT_H) >> 7),
    }
}

/// Passed pawns (bitboard), isolated pawns and doubled pawns (counts) of `color`, whose pawns
/// are `own`, against the opponent's pawns `other`.
fn pawn_structure(color: Color, own: u64, other: u64) -> (u64, i32, i32) {
    // Squares strictly behind each pawn from White's view (below it) or Black's (above it):
    // a pawn standing there has that pawn in front of it.
    let (ahead_of_other, ahead_of_own) = match color {
        Color::White => (fill_south(other >> 8), fill_south(own >> 8)),
        Color::Black => (fill_north(other << 8), fill_north(own << 8)),
    };
    let blocked =
        ahead_of_other | ((ahead_of_other & !FILE_H) << 1) | ((ahead_of_other & !FILE_A) >> 1);
    let passed = own & !blocked & !ahead_of_own;
    let files = fill_south(fill_north(own)) & 0xff; // one bit per file with a pawn
    let isolated_files = files & !((files << 1) | (files >> 1));
    let isolated = (own & fill_north(isolated_files)).count_ones() as i32;
    let doubled = own.count_ones() as i32 - files.count_ones() as i32;
    (passed, isolated, doubled)
}

/// Static evaluation from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let t = &*TABLES;
    let occupied = board.occupied();
    let mut mg = [0i32; 2];
    let mut eg = [0i32; 2];
    let mut phase = 0;

    let pawns = [
        (board.pawns() & board.white()).0,
        (board.pawns() & board.black()).0,
    ];
    let pawn_att = [
        pawn_attacks_bb(Color::White, pawns[0]),
        pawn_attacks_bb(Color::Black, pawns[1]),
    ];

    for color in [Color::White, Color::Black] {
        let ci = usize::from(color == Color::Black); // 0 white, 1 black
        let them_idx = 1 - ci;
        let ours = board.by_color(color);
        // Mobility area: not our pieces, not attacked by enemy pawns.
        let area = !ours.0 & !pawn_att[them_idx];
        let (tmg, teg) = (&t.mg[ci], &t.eg[ci]);
        let (mut m, mut e) = (0i32, 0i32);
        macro_rules! psqt {
            ($ri:expr, $sq:expr) => {{
                let s = usize::from($sq);
                m += tmg[$ri][s];
                e += teg[$ri][s];
            }};
        }
        macro_rules! mobility {
            ($k:expr, $att:expr) => {{
                let n = ($att.0 & area).count_ones() as i32 - MOBILITY_BASE[$k];
                m += MOBILITY[$k].0 * n;
                e += MOBILITY[$k].1 * n;
            }};
        }
        for sq in board.pawns() & ours {
            psqt!(0, sq);
        }
        for sq in board.kings() & ours {
            psqt!(5, sq);
        }
        let knights = board.knights() & ours;
        let bishops = board.bishops() & ours;
        let rooks = board.rooks() & ours;
        let queens = board.queens() & ours;
        phase += knights.count() as i32
            + bishops.count() as i32
            + 2 * rooks.count() as i32
            + 4 * queens.count() as i32;
        for sq in knights {
            psqt!(1, sq);
            mobility!(0, attacks::knight_attacks(sq));
        }
        for sq in bishops {
            psqt!(2, sq);
            mobility!(1, attacks::bishop_attacks(sq, occupied));
        }
        for sq in rooks {
            psqt!(3, sq);
            mobility!(2, attacks::rook_attacks(sq, occupied));
            let file = file_bb(u32::from(sq.file()));
            if pawns[ci] & file == 0 {
                let bonus = if pawns[them_idx] & file == 0 {
                    ROOK_OPEN
                } else {
                    ROOK_SEMI_OPEN
                };
                m += bonus.0;
                e += bonus.1;
            }
        }
        for sq in queens {
            psqt!(4, sq);
            mobility!(3, attacks::queen_attacks(sq, occupied));
        }
        if bishops.count() >= 2 {
            m += BISHOP_PAIR.0;
            e += BISHOP_PAIR.1;
        }
        // Pawn structure, on whole bitboards.
        let (passed, isolated, doubled) = pawn_structure(color, pawns[ci], pawns[them_idx]);
        for sq in Bitboard(passed) {
            let rel_rank = match color {
                Color::White => u32::from(sq.rank()),
                Color::Black => 7 - u32::from(sq.rank()),
            } as usize;
            m += PASSED[rel_rank].0;
            e += PASSED[rel_rank].1;
        }
        m += ISOLATED.0 * isolated + DOUBLED.0 * doubled;
        e += ISOLATED.1 * isolated + DOUBLED.1 * doubled;
        mg[ci] = m;
        eg[ci] = e;
    }

    let mg_phase = phase.min(24);
    let mg_score = mg[0] - mg[1];
    let eg_score = eg[0] - eg[1];
    let mut score = (mg_score * mg_phase + eg_score * (24 - mg_phase)) / 24;

    // Drawish material: the side ahead has no pawns and at most a minor piece more.
    let strong = if score > 0 { 0 } else { 1 };
    if pawns[strong] == 0 {
        let strong_color = if strong == 0 {
            Color::White
        } else {
            Color::Black
        };
        let ours = board.by_color(strong_color);
        let minors = ((board.knights() | board.bishops()) & ours).count();
        let majors = ((board.rooks() | board.queens()) & ours).count();
        if majors == 0 && minors <= 1 {
            score /= 16;
        } else if majors == 0 && minors == 2 && (board.bishops() & ours).count() < 2 {
            score /= 8; // two knights (or knight and bishop, which is a slow win) vs bare-ish king
        }
    }

    let stm = if pos.turn() == Color::White {
        score
    } else {
        -score
    };
    stm + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn eval_fen(fen: &str) -> i32 {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        evaluate(&pos)
    }

    #[test]
    fn start_position_is_balanced() {
        let e = eval_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(e, TEMPO);
    }

    #[test]
    fn colour_mirror_is_symmetric() {
        // The same position with colours swapped and the board flipped evaluates the same for the
        // side to move.
        let a = eval_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let b = eval_fen("rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4");
        assert_eq!(a, b);
    }

    #[test]
    fn extra_queen_is_winning() {
        let e = eval_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(e > 800, "{e}");
        let e = eval_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert!(e < -800, "{e}");
    }

    /// The bitboard pawn terms agree with their one-pawn-at-a-time definitions.
    #[test]
    fn pawn_structure_matches_definitions() {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let white = rng & 0x00FF_FFFF_FFFF_FF00 & (rng >> 3);
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let black = rng & 0x00FF_FFFF_FFFF_FF00 & (rng >> 5) & !white;
            for (color, own, other) in [(Color::White, white, black), (Color::Black, black, white)]
            {
                let mut passed = 0u64;
                let mut isolated = 0;
                for sq in Bitboard(own) {
                    let file = u32::from(sq.file());
                    if own & adjacent_files(file) == 0 {
                        isolated += 1;
                    }
                    if other & passed_span(color, sq) == 0
                        && own & file_bb(file) & passed_span(color, sq) == 0
                    {
                        passed |= 1 << u32::from(sq);
                    }
                }
                let doubled: i32 = (0..8)
                    .map(|f| ((own & file_bb(f)).count_ones() as i32 - 1).max(0))
                    .sum();
                assert_eq!(
                    pawn_structure(color, own, other),
                    (passed, isolated, doubled),
                    "{own:x} {other:x}"
                );
            }
        }
    }

    #[test]
    fn lone_minor_piece_is_drawish() {
        let e = eval_fen("8/8/4k3/8/8/3NK3/8/8 w - - 0 1");
        assert!(e.abs() < 40, "{e}");
    }
}

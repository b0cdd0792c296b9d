//! Mating a bare king ("mop-up"). In a won ending against a lone king (KQK, KRK, KBBK, KBNK,
//! and any of them with pawns) every evaluator scores nearly every position the same: the net,
//! trained on games that rarely reach these endings, sees a large, flat advantage, so the search
//! has nothing to climb and the game runs into the fifty-move rule (generation 8 drew KBNK
//! against pst that way at 10+0.1, BENCHMARKS.md). The classic remedy, for such positions only:
//! a bonus that grows as the lone king is pushed to the edge and as the kings close in, added to
//! the evaluation. KBNK, the hardest (the king must be driven to a corner of the bishop's colour,
//! along the edge, which takes up to 33 moves), is scored by these terms alone, as Stockfish
//! scores it: the net's own noise there is larger than a step towards the corner is worth.
//! Positions with any other material are left as they are.

use shakmaty::{Bitboard, Board, Chess, Color, Position, Square};

/// Centipawns a step of the lone king towards the edge (its Manhattan distance from the centre,
/// 0-6) is worth, and a step of the kings towards each other (Manhattan, 14 down to 2).
const EDGE: i32 = 30;
const CLOSE: i32 = 10;
/// KBNK: the score of a won KBNK, and the centipawns of a step of the lone king towards a corner
/// of the bishop's colour (Manhattan, 14 down to 0), several times a step of the kings.
const KBNK_WIN: i32 = 1_000;
const CORNER: i32 = 100;

/// The evaluation of `pos` from the side to move's view, `eval` being the evaluator's: against a
/// lone king `eval` plus the mop-up bonus (KBNK: the mop-up terms alone), else `eval` itself.
pub fn mop_up(pos: &Chess, eval: i32) -> i32 {
    let board = pos.board();
    for winner in Color::ALL {
        if board.by_color(!winner).count() == 1 && can_force_mate(board, winner) {
            let sign = if pos.turn() == winner { 1 } else { -1 };
            return match kbnk_corner(board, winner) {
                Some(corner) => sign * (KBNK_WIN + corner + close(board, winner)),
                None => eval + sign * (close(board, winner) + edge(board, winner)),
            };
        }
    }
    eval
}

/// Whether `side`'s pieces can mate a lone king without its pawns: a queen or rook, a bishop and
/// a knight, or bishops on both colours.
fn can_force_mate(board: &Board, side: Color) -> bool {
    let own = board.by_color(side);
    let bishops = board.bishops() & own;
    !(board.queens() & own).is_empty()
        || !(board.rooks() & own).is_empty()
        || (!bishops.is_empty() && !(board.knights() & own).is_empty())
        || (!(bishops & Bitboard::DARK_SQUARES).is_empty()
            && !(bishops & Bitboard::LIGHT_SQUARES).is_empty())
}

/// `CLOSE` a step of the kings towards each other.
fn close(board: &Board, winner: Color) -> i32 {
    match (board.king_of(winner), board.king_of(!winner)) {
        (Some(w), Some(l)) => CLOSE * (14 - manhattan(w, l)),
        _ => 0,
    }
}

/// `EDGE` a step of the lone king away from the centre.
fn edge(board: &Board, winner: Color) -> i32 {
    board
        .king_of(!winner)
        .map_or(0, |l| EDGE * centre_distance(l))
}

/// In KBNK (`winner` has exactly a king, a bishop and a knight), `CORNER` a step of the lone
/// king towards the nearer corner of the bishop's colour; `None` in any other ending.
fn kbnk_corner(board: &Board, winner: Color) -> Option<i32> {
    let own = board.by_color(winner);
    let bishops = board.bishops() & own;
    if own.count() != 3 || bishops.count() != 1 || (board.knights() & own).count() != 1 {
        return None;
    }
    let corners = if (bishops & Bitboard::DARK_SQUARES).any() {
        [Square::A1, Square::H8]
    } else {
        [Square::A8, Square::H1]
    };
    let l = board.king_of(!winner)?;
    let to_corner = corners.map(|c| manhattan(l, c)).into_iter().min()?;
    Some(CORNER * (14 - to_corner))
}

/// Manhattan distance between two squares (0-14).
fn manhattan(a: Square, b: Square) -> i32 {
    (a.file().distance(b.file()) + a.rank().distance(b.rank())) as i32
}

/// Manhattan distance of `sq` from the four centre squares (0-6).
fn centre_distance(sq: Square) -> i32 {
    let axis = |i: u32| if i < 4 { 3 - i } else { i - 4 };
    (axis(sq.file().to_u32()) + axis(sq.rank().to_u32())) as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn mop_up0(pos: &Chess) -> i32 {
        mop_up(pos, 0)
    }

    fn pos(fen: &str) -> Chess {
        let fen: Fen = fen.parse().unwrap();
        fen.into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn only_endings_against_a_lone_king() {
        // Other material, or too little to mate: nothing.
        assert_eq!(mop_up(&Chess::default(), 0), 0);
        assert_eq!(mop_up0(&pos("8/8/3k4/8/8/8/8/4KN2 w - - 0 1")), 0);
        assert_eq!(mop_up0(&pos("8/8/3k4/8/8/8/8/3BKB2 w - - 0 1")), 0); // both on light squares
        assert_eq!(mop_up0(&pos("8/8/3k4/8/8/8/8/4KNN1 w - - 0 1")), 0);
        assert_eq!(mop_up0(&pos("8/8/3k4/8/8/8/3p4/R3K3 w - - 0 1")), 0);
        // KRK, from either side's view.
        let w = mop_up0(&pos("8/8/3k4/8/8/8/8/R3K3 w - - 0 1"));
        let b = mop_up0(&pos("8/8/3k4/8/8/8/8/R3K3 b - - 0 1"));
        assert!(w > 0);
        assert_eq!(b, -w);
        // The bonus is added to the evaluation; KBNK is scored by the mop-up terms alone.
        let krk = pos("8/8/3k4/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(mop_up(&krk, 250), w + 250);
        let kbnk = pos("8/8/3k4/8/8/8/8/4KBN1 w - - 0 1");
        assert_eq!(mop_up(&kbnk, 250), mop_up(&kbnk, -90));
        assert!(mop_up(&kbnk, 0) >= KBNK_WIN);
    }

    #[test]
    fn the_lone_king_is_pushed_to_the_edge_and_the_kings_close() {
        let krk = |fen| mop_up0(&pos(fen));
        // The lone king on the edge scores more than in the centre, the kings close more than far.
        assert!(krk("3k4/8/8/8/8/8/8/R3K3 w - - 0 1") > krk("8/8/8/3k4/8/8/8/R3K3 w - - 0 1"));
        assert!(krk("8/8/8/3k4/8/3K4/8/R7 w - - 0 1") > krk("8/8/8/3k4/8/8/8/R3K3 w - - 0 1"));
        // Centre distances: the centre 0, a corner 6.
        assert_eq!(centre_distance(Square::D4), 0);
        assert_eq!(centre_distance(Square::E5), 0);
        assert_eq!(centre_distance(Square::A1), 6);
        assert_eq!(centre_distance(Square::H8), 6);
        assert_eq!(centre_distance(Square::A4), 3);
    }

    #[test]
    fn kbnk_drives_to_a_corner_of_the_bishops_colour() {
        // Light-squared bishop (f1): a8 and h1 are the mating corners, a1 and h8 are not.
        let light = |k: &str| mop_up0(&pos(&format!("{k}/8/8/8/8/8/8/4KBN1 w - - 0 1")));
        assert!(light("k7") > light("7k"));
        // Dark-squared bishop (c1): the other way round.
        let dark = |k: &str| mop_up0(&pos(&format!("{k}/8/8/8/8/8/8/2B1KN2 w - - 0 1")));
        assert!(dark("7k") > dark("k7"));
    }
}

//! Static exchange evaluation: does a capture sequence on one square win at least a threshold?

use shakmaty::{Bitboard, Board, Chess, Color, Move, MoveList, Position, Role};

use super::score::see_value as value;

/// True when the exchange started by `m` (played by `us`) gains at least `threshold` centipawns
/// for `us`, both sides capturing with their least valuable attacker.
pub fn see_ge(board: &Board, us: Color, m: &Move, threshold: i32) -> bool {
    // A capture of a piece worth at least the capturer never loses material.
    if threshold <= 0
        && let Some(victim) = m.capture()
        && m.promotion().is_none()
        && value(victim) >= value(m.role())
    {
        return true;
    }
    let (from, to, captured_sq) = match *m {
        Move::Normal { from, to, .. } => (from, to, to),
        Move::EnPassant { from, to } => (
            from,
            to,
            shakmaty::Square::from_coords(to.file(), from.rank()),
        ),
        Move::Castle { .. } | Move::Put { .. } => return threshold <= 0,
    };
    let mut swap = m.capture().map_or(0, value) - threshold;
    if let Some(p) = m.promotion() {
        swap += value(p) - value(Role::Pawn);
    }
    if swap < 0 {
        return false;
    }
    let mover = m.promotion().unwrap_or(m.role());
    swap = value(mover) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occupied = board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(captured_sq);
    occupied |= Bitboard::from(to);
    let mut stm = us;
    let mut res = 1;
    loop {
        stm = !stm;
        let attackers = board.attacks_to(to, stm, occupied) & occupied;
        if attackers.is_empty() {
            break;
        }
        res ^= 1;
        let mut found = None;
        for role in Role::ALL {
            let bb = attackers & board.by_role(role);
            if let Some(sq) = bb.first() {
                found = Some((role, sq));
                break;
            }
        }
        let Some((role, sq)) = found else { break };
        if role == Role::King {
            // The king may only capture if the other side has no attacker left.
            let others = board.attacks_to(to, !stm, occupied) & occupied;
            return if others.is_empty() {
                res == 1
            } else {
                res == 0
            };
        }
        swap = value(role) - swap;
        if swap < res {
            break;
        }
        occupied ^= Bitboard::from(sq);
    }
    res == 1
}

/// What the exchange started by `m` gains for `us`, to the 100 centipawns (every SEE value is a
/// multiple of 100): the largest such threshold [`see_ge`] grants, or -100 for a losing exchange.
pub fn see_gain(board: &Board, us: Color, m: &Move) -> i32 {
    if !see_ge(board, us, m, 0) {
        return -100;
    }
    let upper =
        m.capture().map_or(0, value) + m.promotion().map_or(0, |p| value(p) - value(Role::Pawn));
    // see_ge is monotone in the threshold: bisect the hundreds in 0..=upper.
    let (mut lo, mut hi) = (0, upper / 100);
    while lo < hi {
        let mid = (lo + hi + 1) / 2;
        if see_ge(board, us, m, mid * 100) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo * 100
}

/// The material balance of `pos` for White (SEE values, kings not counted), with the gain of
/// the best capture the side to move has among `moves` (by SEE, never below 0) added for that
/// side: a piece left en prise at the end of quiescence counts as lost.
pub fn resolved_material(pos: &Chess, moves: &MoveList) -> i32 {
    let board = pos.board();
    let side = |c: Color| -> i32 {
        board
            .by_color(c)
            .into_iter()
            .filter_map(|sq| board.role_at(sq))
            .filter(|&r| r != Role::King)
            .map(value)
            .sum()
    };
    let turn = pos.turn();
    let gain = moves
        .iter()
        .filter(|m| m.is_capture() || m.is_promotion())
        .map(|m| see_gain(board, turn, m))
        .max()
        .unwrap_or(0)
        .max(0);
    let balance = side(Color::White) - side(Color::Black);
    if turn == Color::White {
        balance + gain
    } else {
        balance - gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see_ge(pos.board(), pos.turn(), &m, threshold)
    }

    #[test]
    fn pawn_takes_defended_pawn_is_even() {
        let fen = "4k3/8/3p4/4p3/3P4/8/8/4K3 w - - 0 1";
        assert!(see(fen, "d4e5", 0));
        assert!(!see(fen, "d4e5", 1));
    }

    #[test]
    fn queen_takes_defended_pawn_loses() {
        let fen = "4k3/8/3p4/4p3/8/8/4Q3/4K3 w - - 0 1";
        assert!(!see(fen, "e2e5", 0));
        assert!(see(fen, "e2e5", -800));
    }

    #[test]
    fn xray_rooks_win_the_pawn() {
        // Two rooks against one defender: the second rook recaptures through the first.
        let fen = "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert!(see(fen, "d2d5", 100));
        assert!(!see(fen, "d2d5", 101));
        // A pawn defender: rook for two pawns.
        let fen = "4k3/8/4p3/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert!(!see(fen, "d2d5", 0));
        assert!(see(fen, "d2d5", -300));
        assert!(!see(fen, "d2d5", -299));
    }

    #[test]
    fn undefended_piece_wins_its_value() {
        let fen = "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1";
        assert!(see(fen, "d1d5", 300));
        assert!(!see(fen, "d1d5", 301));
    }

    #[test]
    fn gain_is_the_exchange_value() {
        let gain = |fen: &str, uci: &str| {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            see_gain(pos.board(), pos.turn(), &m)
        };
        assert_eq!(gain("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", "d1d5"), 300);
        assert_eq!(gain("4k3/8/3p4/4p3/3P4/8/8/4K3 w - - 0 1", "d4e5"), 0);
        assert_eq!(gain("4k3/8/3p4/4p3/8/8/4Q3/4K3 w - - 0 1", "e2e5"), -100);
        assert_eq!(gain("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5"), 100);
        // A free promotion gains a queen for a pawn; capturing a rook while promoting, more.
        assert_eq!(gain("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), 800);
        assert_eq!(gain("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"), 1300);
    }

    #[test]
    fn resolved_material_counts_the_best_exchange_of_the_side_to_move() {
        let resolved = |fen: &str| {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            resolved_material(&pos, &pos.legal_moves())
        };
        // A rook against a knight; White to move takes the loose knight.
        assert_eq!(resolved("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1"), 500);
        // Black to move has no capture: the balance only.
        assert_eq!(resolved("4k3/8/8/3n4/8/8/8/3RK3 b - - 0 1"), 200);
        // Black to move takes the loose rook (White's view: -500).
        assert_eq!(resolved("r3k3/8/8/8/8/8/8/R3K3 b - - 0 1"), -500);
        // A defended pawn is not a gain: Qxe5 loses the queen.
        assert_eq!(resolved("4k3/8/3p4/4p3/8/8/4Q3/4K3 w - - 0 1"), 700);
    }
}

//! Static exchange evaluation: does a capture sequence on one square win at least a threshold?

use shakmaty::{Bitboard, Board, Color, Move, Role};

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
}

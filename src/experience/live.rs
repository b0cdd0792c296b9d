//! Learning from games played over UCI: the engine follows the game through `position`
//! commands; when the game has ended by the rules (checkmate, stalemate, fifty moves, threefold
//! repetition, insufficient material) it is learned — at once, or when the GUI moves on
//! (`ucinewgame`, an unrelated `position`, `quit`).

use shakmaty::{Chess, Move, Position};

/// The game being followed.
#[derive(Clone, Debug)]
pub struct Tracked {
    pub start: Chess,
    pub moves: Vec<Move>,
    pub learned: bool,
}

impl Tracked {
    /// Does `moves` from `start` continue this game?
    pub fn continued_by(&self, start: &Chess, moves: &[Move]) -> bool {
        self.start == *start
            && self.start.halfmoves() == start.halfmoves()
            && moves.len() >= self.moves.len()
            && moves[..self.moves.len()] == self.moves[..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::parse_position;

    fn game(cmd: &str) -> (Chess, Vec<Move>) {
        let g = parse_position(cmd, false).unwrap();
        (g.start, g.moves)
    }

    #[test]
    fn continuation() {
        let (s, m) = game("startpos moves e2e4 e7e5");
        let t = Tracked {
            start: s.clone(),
            moves: m.clone(),
            learned: false,
        };
        let (s2, m2) = game("startpos moves e2e4 e7e5 g1f3");
        assert!(t.continued_by(&s2, &m2));
        let (s3, m3) = game("startpos moves d2d4");
        assert!(!t.continued_by(&s3, &m3));
    }
}

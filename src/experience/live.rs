//! Learning from games played over UCI: the engine follows the game through `position`
//! commands; when the game has ended by the rules (checkmate, stalemate, fifty moves, threefold
//! repetition, insufficient material) it is learned — at once, or when the GUI moves on
//! (`ucinewgame`, an unrelated `position`, `quit`).

use shakmaty::{Chess, Color, Move, Position};

use crate::games::pgn::GameResult;
use crate::search::hash_of;

/// The result of a game that has ended by the rules after `moves` from `start`.
pub fn rule_result(start: &Chess, moves: &[Move]) -> Option<GameResult> {
    let mut pos = start.clone();
    let mut keys = vec![hash_of(&pos)];
    for &m in moves {
        pos.play_unchecked(m);
        keys.push(hash_of(&pos));
    }
    if pos.is_checkmate() {
        return Some(match pos.turn() {
            Color::White => GameResult::BlackWins,
            Color::Black => GameResult::WhiteWins,
        });
    }
    if pos.is_stalemate() || pos.is_insufficient_material() || pos.halfmoves() >= 100 {
        return Some(GameResult::Draw);
    }
    let last = *keys.last().expect("start key");
    if keys.iter().filter(|&&k| k == last).count() >= 3 {
        return Some(GameResult::Draw);
    }
    None
}

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
    fn results_by_the_rules() {
        let (s, m) = game("startpos moves f2f3 e7e5 g2g4 d8h4");
        assert_eq!(rule_result(&s, &m), Some(GameResult::BlackWins));
        let (s, m) = game("startpos moves e2e4 e7e5");
        assert_eq!(rule_result(&s, &m), None);
        let (s, m) = game("startpos moves g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        assert_eq!(rule_result(&s, &m), Some(GameResult::Draw));
        let (s, m) = game("fen 7k/5Q2/6K1/8/8/8/8/8 w - - 0 1 moves f7f6");
        assert_eq!(
            rule_result(&s, &m),
            None,
            "not stalemate yet: black has Kh7"
        );
        let (s, m) = game("fen 7k/8/6K1/5Q2/8/8/8/8 w - - 0 1 moves f5f7");
        assert_eq!(rule_result(&s, &m), Some(GameResult::Draw), "stalemate");
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

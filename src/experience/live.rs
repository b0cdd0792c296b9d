//! Learning from games played over UCI: the engine follows the game through `position`
//! commands; when the game has ended by the rules (checkmate, stalemate, fifty moves, threefold
//! repetition, insufficient material) it is learned — at once, or when the GUI moves on
//! (`ucinewgame`, an unrelated `position`, `quit`).

use shakmaty::{Chess, Move, Position};

use super::records::GameRecord;
use crate::chess::rules::rule_result;
use crate::chess::zobrist::hash_of;

/// The game being followed.
#[derive(Clone, Debug)]
pub struct Tracked {
    pub start: Chess,
    pub moves: Vec<Move>,
    pub learned: bool,
}

impl Tracked {
    /// Does `moves` from `start` continue this game? Also when its last move is another: a
    /// ponder miss (the engine pondered on a move the opponent did not play) or a take-back of
    /// one ply; the game is the one played.
    pub fn continued_by(&self, start: &Chess, moves: &[Move]) -> bool {
        let kept = self.moves.len().saturating_sub(1);
        self.start == *start
            && self.start.halfmoves() == start.halfmoves()
            && moves.len() >= self.moves.len()
            && moves[..kept] == self.moves[..kept]
    }

    /// The game as a record to learn (source `uci`), if it has ended by the rules. `our_move` is
    /// the engine's last `bestmove` with the key of the position it was played in: it counts as
    /// played when it continues this game (a GUI sends no `position` after a game-ending move).
    pub fn ended(&self, our_move: Option<(u64, Move)>) -> Option<GameRecord> {
        let mut moves = self.moves.clone();
        if let Some((key, m)) = our_move {
            let mut pos = self.start.clone();
            for &mv in &moves {
                pos.play_unchecked(mv);
            }
            if hash_of(&pos) == key && pos.is_legal(m) {
                moves.push(m);
            }
        }
        let result = rule_result(&self.start, &moves)?;
        Some(GameRecord {
            source: super::source::UCI.to_string(),
            white: "?".to_string(),
            black: "?".to_string(),
            date: String::new(),
            result,
            start: self.start.clone(),
            moves,
            evals: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::notation::uci_line;
    use crate::chess::rules::GameResult;

    fn game(moves: &str) -> (Chess, Vec<Move>) {
        (Chess::default(), uci_line(&Chess::default(), moves))
    }

    #[test]
    fn continuation() {
        let (s, m) = game("e2e4 e7e5");
        let t = Tracked {
            start: s.clone(),
            moves: m.clone(),
            learned: false,
        };
        let (s2, m2) = game("e2e4 e7e5 g1f3");
        assert!(t.continued_by(&s2, &m2));
        let (s3, m3) = game("d2d4");
        assert!(!t.continued_by(&s3, &m3));
        // The opponent played another move than the one pondered on: the same game.
        let (s4, m4) = game("e2e4 c7c5 g1f3");
        assert!(t.continued_by(&s4, &m4));
        let (s5, m5) = game("d2d4 e7e5 g1f3");
        assert!(!t.continued_by(&s5, &m5));
        let (s6, m6) = game("e2e4");
        assert!(!t.continued_by(&s6, &m6));
    }

    #[test]
    fn a_game_ended_by_our_move_is_learned_with_it() {
        let (s, m) = game("f2f3 e7e5 g2g4");
        let t = Tracked {
            start: s,
            moves: m,
            learned: false,
        };
        assert!(t.ended(None).is_none(), "the game goes on");
        let (_, mate) = game("f2f3 e7e5 g2g4 d8h4");
        let before = {
            let mut p = Chess::default();
            for &x in &mate[..3] {
                p.play_unchecked(x);
            }
            hash_of(&p)
        };
        let r = t.ended(Some((before, mate[3]))).expect("mated");
        assert_eq!(r.result, GameResult::BlackWins);
        assert_eq!(r.moves.len(), 4);
        assert!(
            t.ended(Some((before ^ 1, mate[3]))).is_none(),
            "another position"
        );
    }
}

//! The rules of a finished game: results, the one game-end check every caller uses (UCI
//! learning, self-play, matches, terminal play), and the draw check of the search.

use shakmaty::{Chess, Color, Move, Position};

use super::zobrist::hash_of;

/// A game's result from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub fn from_tag(s: &str) -> Option<GameResult> {
        match s.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }

    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The game won by `winner`.
    pub fn won_by(winner: Color) -> GameResult {
        match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// Why a game ended by the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FiftyMoves,
    Repetition,
}

impl Reason {
    /// As a sentence ends: "White won by checkmate", "Game drawn by the fifty-move rule".
    pub fn text(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::InsufficientMaterial => "insufficient material",
            Reason::FiftyMoves => "the fifty-move rule",
            Reason::Repetition => "threefold repetition",
        }
    }
}

/// A game ended by the rules: its result and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub result: GameResult,
    pub reason: Reason,
}

/// The end of the game after `moves` from `start` by the rules (checkmate, stalemate,
/// insufficient material, fifty moves, threefold repetition, checked in that order), or `None`
/// while it goes on.
pub fn game_end(start: &Chess, moves: &[Move]) -> Option<GameEnd> {
    let mut pos = start.clone();
    let mut keys = Vec::with_capacity(moves.len() + 1);
    keys.push(hash_of(&pos));
    for &m in moves {
        pos.play_unchecked(m);
        keys.push(hash_of(&pos));
    }
    let end = |result, reason| Some(GameEnd { result, reason });
    if pos.is_checkmate() {
        return end(GameResult::won_by(!pos.turn()), Reason::Checkmate);
    }
    if pos.is_stalemate() {
        return end(GameResult::Draw, Reason::Stalemate);
    }
    if pos.is_insufficient_material() {
        return end(GameResult::Draw, Reason::InsufficientMaterial);
    }
    if pos.halfmoves() >= 100 {
        return end(GameResult::Draw, Reason::FiftyMoves);
    }
    let last = *keys.last().expect("start key");
    if keys.iter().filter(|&&k| k == last).count() >= 3 {
        return end(GameResult::Draw, Reason::Repetition);
    }
    None
}

/// The result of the game after `moves` from `start`, if it has ended by the rules.
pub fn rule_result(start: &Chess, moves: &[Move]) -> Option<GameResult> {
    game_end(start, moves).map(|e| e.result)
}

/// Whether the game is over at `pos` or may be claimed drawn there: no legal move (mate,
/// stalemate), too little material to mate, the fifty-move rule. A random walk to an opening
/// stops before such a position.
pub fn ended_or_drawn(pos: &Chess) -> bool {
    pos.legal_moves().is_empty() || pos.is_insufficient_material() || pos.halfmoves() >= 100
}

/// Too little material for mate, tested cheaply (only with at most four pieces on the board).
#[inline]
pub fn dead_material(pos: &Chess) -> bool {
    pos.board().occupied().count() <= 4 && pos.is_insufficient_material()
}

/// The search's draw: the fifty-move rule, a repetition since the last irreversible move (once
/// is enough inside a search) or insufficient material, for `pos` whose Zobrist key is the last
/// of `keys` (the keys of the game and search path, one per ply).
pub fn is_rule_draw(pos: &Chess, keys: &[u64]) -> bool {
    let half = pos.halfmoves() as usize;
    if half >= 100 {
        return !pos.is_checkmate();
    }
    let n = keys.len();
    if n >= 5 && half >= 4 {
        let key = keys[n - 1];
        let stop = n.saturating_sub(half + 1);
        let mut i = n - 3;
        while i >= stop {
            if keys[i] == key {
                return true;
            }
            if i < 2 {
                break;
            }
            i -= 2;
        }
    }
    dead_material(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;
    use crate::chess::notation::uci_line;

    fn game(fen: Option<&str>, moves: &str) -> (Chess, Vec<Move>) {
        let start = fen.map_or_else(Chess::default, |f| parse_fen(f, false).unwrap());
        let moves = uci_line(&start, moves);
        (start, moves)
    }

    #[test]
    fn results_by_the_rules() {
        let (s, m) = game(None, "f2f3 e7e5 g2g4 d8h4");
        assert_eq!(rule_result(&s, &m), Some(GameResult::BlackWins));
        assert_eq!(game_end(&s, &m).map(|e| e.reason.text()), Some("checkmate"));
        let (s, m) = game(None, "e2e4 e7e5");
        assert_eq!(rule_result(&s, &m), None);
        let (s, m) = game(None, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        assert_eq!(
            game_end(&s, &m),
            Some(GameEnd {
                result: GameResult::Draw,
                reason: Reason::Repetition
            })
        );
        let (s, m) = game(Some("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"), "f7f6");
        assert_eq!(
            rule_result(&s, &m),
            None,
            "not stalemate yet: black has Kh7"
        );
        let (s, m) = game(Some("7k/8/6K1/5Q2/8/8/8/8 w - - 0 1"), "f5f7");
        assert_eq!(game_end(&s, &m).map(|e| e.reason), Some(Reason::Stalemate));
        let (s, m) = game(Some("4k3/8/8/8/8/8/3n4/4K3 w - - 99 80"), "e1d2");
        assert_eq!(
            game_end(&s, &m).map(|e| e.reason),
            Some(Reason::InsufficientMaterial)
        );
        let (s, m) = game(Some("4k3/8/8/8/8/8/3r4/R3K3 w - - 99 80"), "a1a2");
        assert_eq!(
            game_end(&s, &m).map(|e| (e.result, e.reason)),
            Some((GameResult::Draw, Reason::FiftyMoves))
        );
        assert_eq!(game_end(&Chess::default(), &[]), None);
    }

    #[test]
    fn search_draws_count_one_repetition() {
        let (s, m) = game(None, "g1f3 g8f6 f3g1 f6g8");
        let mut pos = s.clone();
        let mut keys = vec![hash_of(&pos)];
        for &x in &m {
            pos.play_unchecked(x);
            keys.push(hash_of(&pos));
        }
        assert!(
            is_rule_draw(&pos, &keys),
            "the start position came back once"
        );
        assert!(!is_rule_draw(&pos, &keys[2..]), "not within the path given");
        assert!(is_rule_draw(
            &parse_fen("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", false).unwrap(),
            &[]
        ));
    }
}

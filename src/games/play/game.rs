//! What a terminal game is: who plays, the engine's limits, how a game ends, and the small
//! judgements around it (a dead draw, a score as people read it).

use std::path::PathBuf;

use shakmaty::{Chess, Color, Move};

use crate::chess::rules::{GameResult, game_end};
use crate::chess::score::{MATE, MATE_BOUND};
use crate::eval::Evaluator;
use crate::experience::store::Learned;
use crate::search::Limits;

/// The engine's name in prompts, messages and on the board.
pub const ENGINE: &str = "Deep Red";
/// The human players' name in the store and the PGN.
pub const HUMAN: &str = "Human";
pub use crate::player::{DRAW_ACCEPT_CP, dead_draw};
/// Milliseconds per engine move when no limit is given.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Who is at the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Humans {
    /// The human plays White, Deep Red Black.
    White,
    /// The human plays Black, Deep Red White.
    Black,
    /// Two humans, no engine.
    Both,
}

impl Humans {
    pub fn is_human(self, c: Color) -> bool {
        match self {
            Humans::White => c == Color::White,
            Humans::Black => c == Color::Black,
            Humans::Both => true,
        }
    }

    pub fn engine_game(self) -> bool {
        self != Humans::Both
    }

    pub(super) fn player_name(self, c: Color) -> String {
        if self.is_human(c) {
            HUMAN.to_string()
        } else {
            crate::player::ENGINE_NAME.to_string()
        }
    }
}

#[derive(Clone, Debug)]
pub struct PlayOptions {
    pub humans: Humans,
    /// Engine limits per move; with none of the three, [`DEFAULT_MOVETIME_MS`].
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub start: Chess,
    pub evaluator: Evaluator,
    /// The experience store to learn the game into (`None`: no learning).
    pub store: Option<PathBuf>,
    /// Append the finished game to this PGN file.
    pub pgn: Option<PathBuf>,
    /// Turn the board around (default: the human's colour at the bottom, White for two humans).
    pub flip: bool,
    /// Let the engine play the best known move of the store when its position has at least
    /// `book_min_games` games.
    pub book: bool,
    pub book_min_games: u32,
    /// Play at about this Elo (`UCI_Elo`'s scale; `None`: full strength).
    pub elo: Option<i64>,
    pub hash_mb: usize,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            humans: Humans::White,
            movetime_ms: None,
            depth: None,
            nodes: None,
            start: Chess::default(),
            evaluator: crate::eval::default_evaluator(),
            store: None,
            pgn: None,
            flip: false,
            book: false,
            book_min_games: 10,
            elo: None,
            hash_mb: 16,
        }
    }
}

impl PlayOptions {
    /// The search limits of one engine move.
    pub fn limits(&self) -> Limits {
        let movetime = if self.movetime_ms.is_none() && self.depth.is_none() && self.nodes.is_none()
        {
            Some(DEFAULT_MOVETIME_MS)
        } else {
            self.movetime_ms
        };
        Limits {
            movetime,
            depth: self.depth,
            nodes: self.nodes,
            ..Default::default()
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Checkmate, stalemate, fifty moves, threefold repetition, insufficient material; the
    /// text says which.
    Rules(GameResult, &'static str),
    /// This side resigned.
    Resigned(Color),
    /// A draw was agreed.
    Agreed,
    /// `quit` or end of input: no result, nothing learned.
    Abandoned,
}

impl Ending {
    pub fn result(&self) -> Option<GameResult> {
        match self {
            Ending::Rules(r, _) => Some(*r),
            Ending::Resigned(Color::White) => Some(GameResult::BlackWins),
            Ending::Resigned(Color::Black) => Some(GameResult::WhiteWins),
            Ending::Agreed => Some(GameResult::Draw),
            Ending::Abandoned => None,
        }
    }

    /// The PGN `Termination` text.
    pub fn termination(&self) -> String {
        match self {
            Ending::Rules(GameResult::WhiteWins, why) => format!("White won by {why}"),
            Ending::Rules(GameResult::BlackWins, why) => format!("Black won by {why}"),
            Ending::Rules(GameResult::Draw, why) => format!("Game drawn by {why}"),
            Ending::Resigned(c) => format!("{} won by resignation", color_name(!*c)),
            Ending::Agreed => "Game drawn by agreement".to_string(),
            Ending::Abandoned => "Game abandoned".to_string(),
        }
    }
}

/// What a session did (for tests and callers).
#[derive(Clone, Debug)]
pub struct PlayOutcome {
    pub ending: Ending,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// What the store said, when the game was learned.
    pub learned: Option<Learned>,
    pub pgn_written: bool,
    /// What of a finished game could not be kept (learning or the PGN failed; said on the
    /// error stream): the command then fails.
    pub not_kept: Option<String>,
}

pub(super) fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The game's end by the rules, with the reason, after `moves` from `start`.
pub fn rule_ending(start: &Chess, moves: &[Move]) -> Option<Ending> {
    game_end(start, moves).map(|e| Ending::Rules(e.result, e.reason.text()))
}

/// A score from the side to move's point of view, for humans: `+0.35`, `mate in 3`, `mated in 2`.
pub fn human_score(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate in {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mated in {}", (MATE + score) / 2)
    } else {
        format!("{:+.2}", f64::from(score) / 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    fn pos(fen: &str) -> Chess {
        parse_fen(fen, false).unwrap()
    }

    #[test]
    fn endings_and_helpers() {
        let start = Chess::default();
        let fools_mate = crate::chess::notation::uci_line(&start, "f2f3 e7e5 g2g4 d8h4");
        assert_eq!(
            rule_ending(&start, &fools_mate),
            Some(Ending::Rules(GameResult::BlackWins, "checkmate"))
        );
        assert_eq!(rule_ending(&start, &[]), None);
        assert_eq!(
            Ending::Resigned(Color::White).result(),
            Some(GameResult::BlackWins)
        );
        assert_eq!(
            Ending::Resigned(Color::White).termination(),
            "Black won by resignation"
        );
        assert_eq!(Ending::Abandoned.result(), None);
        assert!(dead_draw(&pos("4k3/8/8/2n5/8/8/8/2B1K3 w - - 0 1")));
        assert!(!dead_draw(&pos("4k3/8/8/2n5/8/8/8/1BB1K3 w - - 0 1")));
        assert!(!dead_draw(&pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")));
        assert_eq!(human_score(35), "+0.35");
        assert_eq!(human_score(-120), "-1.20");
        assert_eq!(human_score(MATE - 5), "mate in 3");
        assert_eq!(human_score(-(MATE - 4)), "mated in 2");
    }
}

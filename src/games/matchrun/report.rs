//! What a match produced: each game's outcome and ending, and the report with its summary.

use shakmaty::{Chess, Move};

use super::stats::{Tally, format_elo};
use crate::chess::rules::GameResult;

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Checkmate,
    Stalemate,
    Repetition,
    FiftyMoves,
    InsufficientMaterial,
    AdjudicatedDraw,
    AdjudicatedWin,
    MaxPlies,
    /// Forfeits by the loser (`side` lost).
    TimeForfeit,
    IllegalMove(String),
    /// `bestmove (none)` (or `0000`) in a position that has legal moves.
    NoMove,
    Crash(String),
}

impl Ending {
    /// Decided on the board (or by adjudication of the position): worth learning.
    pub fn on_the_board(&self) -> bool {
        !matches!(
            self,
            Ending::TimeForfeit | Ending::IllegalMove(_) | Ending::NoMove | Ending::Crash(_)
        )
    }

    pub(super) fn termination_tag(&self) -> &'static str {
        match self {
            Ending::TimeForfeit => "time forfeit",
            Ending::IllegalMove(_) | Ending::NoMove => "illegal move",
            Ending::Crash(_) => "abandoned",
            Ending::AdjudicatedDraw | Ending::AdjudicatedWin | Ending::MaxPlies => "adjudication",
            _ => "normal",
        }
    }

    pub(super) fn describe(&self, loser: Option<&str>) -> String {
        let l = loser.unwrap_or("?");
        match self {
            Ending::Checkmate => "checkmate".into(),
            Ending::Stalemate => "stalemate".into(),
            Ending::Repetition => "threefold repetition".into(),
            Ending::FiftyMoves => "fifty-move rule".into(),
            Ending::InsufficientMaterial => "insufficient material".into(),
            Ending::AdjudicatedDraw => "draw by adjudication".into(),
            Ending::AdjudicatedWin => format!("{l} resigns (adjudication)"),
            Ending::MaxPlies => "draw by adjudication (ply limit)".into(),
            Ending::TimeForfeit => format!("{l} loses on time"),
            Ending::IllegalMove(m) => format!("{l} makes an illegal move: {m}"),
            Ending::NoMove => format!("{l} gives no move in a position with legal moves"),
            Ending::Crash(why) => format!("{l} disconnects: {why}"),
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameOutcome {
    pub round: usize,
    /// Whether the engine (not the opponent) had White.
    pub engine_white: bool,
    pub result: GameResult,
    pub ending: Ending,
    pub start: Chess,
    pub moves: Vec<Move>,
}

impl GameOutcome {
    /// 1, 0.5 or 0 from the engine's view.
    pub fn engine_points(&self) -> f64 {
        match self.result {
            GameResult::Draw => 0.5,
            GameResult::WhiteWins if self.engine_white => 1.0,
            GameResult::BlackWins if !self.engine_white => 1.0,
            _ => 0.0,
        }
    }
}

/// What `run` returns.
#[derive(Debug, Default)]
pub struct MatchReport {
    pub engine_name: String,
    pub opponent_name: String,
    pub tally: Tally,
    pub as_white: Tally,
    pub as_black: Tally,
    pub games: Vec<GameOutcome>,
    /// Games learned into the store (new ones).
    pub learned: usize,
    /// Problems that did not stop the match (store errors, restarts).
    pub warnings: Vec<String>,
}

impl MatchReport {
    pub(super) fn record(&mut self, g: GameOutcome) {
        let p = g.engine_points();
        self.tally.add(p);
        if g.engine_white {
            self.as_white.add(p);
        } else {
            self.as_black.add(p);
        }
        self.games.push(g);
    }

    /// The summary printed at the end of a match.
    pub fn summary(&self) -> String {
        let t = &self.tally;
        let (elo, err) = t.elo();
        let mut out = format!(
            "{} vs {}: {} games, {} wins, {} losses, {} draws\n",
            self.engine_name,
            self.opponent_name,
            t.games(),
            t.wins,
            t.losses,
            t.draws
        );
        out.push_str(&format!(
            "score {:.1}%, Elo {} (95%), LOS {:.1}%\n",
            100.0 * t.score(),
            format_elo(elo, err),
            100.0 * t.los()
        ));
        for (label, x) in [("as White", &self.as_white), ("as Black", &self.as_black)] {
            out.push_str(&format!(
                "{label}: {} wins, {} losses, {} draws\n",
                x.wins, x.losses, x.draws
            ));
        }
        let mut endings: Vec<(String, usize)> = Vec::new();
        for g in &self.games {
            let key = match &g.ending {
                Ending::IllegalMove(_) => "illegal move".to_string(),
                Ending::NoMove => "no move".to_string(),
                Ending::TimeForfeit => "time forfeit".to_string(),
                Ending::Crash(_) => "disconnect".to_string(),
                Ending::AdjudicatedWin => "resignation (adjudication)".to_string(),
                e => e.describe(None),
            };
            let who = if g.ending.on_the_board() {
                String::new()
            } else if g.engine_points() < 0.5 {
                format!(" by {}", self.engine_name)
            } else {
                format!(" by {}", self.opponent_name)
            };
            let key = format!("{key}{who}");
            match endings.iter_mut().find(|(k, _)| *k == key) {
                Some(e) => e.1 += 1,
                None => endings.push((key, 1)),
            }
        }
        endings.sort_by_key(|e| std::cmp::Reverse(e.1));
        let list: Vec<String> = endings.iter().map(|(k, n)| format!("{k} {n}")).collect();
        out.push_str(&format!("endings: {}\n", list.join(", ")));
        if self.learned > 0 {
            out.push_str(&format!("learned {} new games\n", self.learned));
        }
        out
    }
}

/// The line printed after each game.
pub fn game_line(r: &MatchReport, g: &GameOutcome) -> String {
    let (w, b) = if g.engine_white {
        (&r.engine_name, &r.opponent_name)
    } else {
        (&r.opponent_name, &r.engine_name)
    };
    let loser = match g.result {
        GameResult::WhiteWins => Some(b.as_str()),
        GameResult::BlackWins => Some(w.as_str()),
        GameResult::Draw => None,
    };
    let t = &r.tally;
    format!(
        "game {} ({w} vs {b}): {} {{{}}}  score {}-{}-{} [{:.3}] {}",
        g.round,
        g.result.as_pgn(),
        g.ending.describe(loser),
        t.wins,
        t.losses,
        t.draws,
        t.score(),
        t.games()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_follow_colour() {
        let g = |result, engine_white| GameOutcome {
            round: 1,
            engine_white,
            result,
            ending: Ending::Checkmate,
            start: Chess::default(),
            moves: vec![],
        };
        assert_eq!(g(GameResult::WhiteWins, true).engine_points(), 1.0);
        assert_eq!(g(GameResult::WhiteWins, false).engine_points(), 0.0);
        assert_eq!(g(GameResult::BlackWins, false).engine_points(), 1.0);
        assert_eq!(g(GameResult::BlackWins, true).engine_points(), 0.0);
        assert_eq!(g(GameResult::Draw, true).engine_points(), 0.5);
    }
}

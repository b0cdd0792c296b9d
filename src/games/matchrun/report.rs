//! What a match produced: each game's outcome and ending, and the report with its summary.

use std::collections::BTreeMap;

use shakmaty::{Chess, Move};

use super::sprt::{Sprt, Verdict};
use super::stats::{Pentanomial, Tally, format_elo};
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
    /// A flag fell, but the other side has no material to mate with: a draw (FIDE 6.9).
    FlagWithoutMate,
    IllegalMove(String),
    /// `bestmove (none)` (or `0000`) in a position that has legal moves.
    NoMove,
    Crash(String),
    /// No move in the time a node, depth or move-time limit allows (cutechess's "stalls").
    Stalled(String),
}

/// The end of the description of [`Ending::FlagWithoutMate`], after the flagged side's name.
const FLAG_WITHOUT_MATE: &str = "'s flag falls, but the other side cannot mate: draw";

impl Ending {
    /// Decided on the board (or by adjudication of the position): worth learning.
    pub fn on_the_board(&self) -> bool {
        !matches!(
            self,
            Ending::TimeForfeit
                | Ending::FlagWithoutMate
                | Ending::IllegalMove(_)
                | Ending::NoMove
                | Ending::Crash(_)
                | Ending::Stalled(_)
        )
    }

    pub(super) fn termination_tag(&self) -> &'static str {
        match self {
            Ending::TimeForfeit | Ending::FlagWithoutMate => "time forfeit",
            Ending::IllegalMove(_) | Ending::NoMove => "illegal move",
            Ending::Crash(_) => "abandoned",
            Ending::Stalled(_) => "stalled connection",
            Ending::AdjudicatedDraw | Ending::AdjudicatedWin | Ending::MaxPlies => "adjudication",
            _ => "normal",
        }
    }

    /// The ending [`Self::describe`] wrote (the PGN's `Comment` tag), back: a resumed match
    /// counts its earlier games' endings.
    pub(super) fn from_description(text: &str) -> Option<Ending> {
        let after = |marker: &str| text.split_once(marker).map(|(_, rest)| rest.to_string());
        Some(match text {
            "checkmate" => Ending::Checkmate,
            "stalemate" => Ending::Stalemate,
            "threefold repetition" => Ending::Repetition,
            "fifty-move rule" => Ending::FiftyMoves,
            "insufficient material" => Ending::InsufficientMaterial,
            "draw by adjudication" => Ending::AdjudicatedDraw,
            "draw by adjudication (ply limit)" => Ending::MaxPlies,
            // The texts a loser's name or an engine's own words come in first.
            t if t.contains(" disconnects: ") => Ending::Crash(after(" disconnects: ")?),
            t if t.contains(" stalls: ") => Ending::Stalled(after(" stalls: ")?),
            t if t.contains(" makes an illegal move: ") => {
                Ending::IllegalMove(after(" makes an illegal move: ")?)
            }
            t if t.ends_with(" resigns (adjudication)") => Ending::AdjudicatedWin,
            t if t.ends_with(" loses on time") => Ending::TimeForfeit,
            t if t.ends_with(FLAG_WITHOUT_MATE) => Ending::FlagWithoutMate,
            t if t.ends_with(" gives no move in a position with legal moves") => Ending::NoMove,
            _ => return None,
        })
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
            Ending::FlagWithoutMate => format!("{l}{FLAG_WITHOUT_MATE}"),
            Ending::IllegalMove(m) => format!("{l} makes an illegal move: {m}"),
            Ending::NoMove => format!("{l} gives no move in a position with legal moves"),
            Ending::Crash(why) => format!("{l} disconnects: {why}"),
            Ending::Stalled(why) => format!("{l} stalls: {why}"),
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
    /// Per move, the mover's score (its own view) and depth from its last `info` line.
    pub evals: Vec<Option<(i32, u8)>>,
    /// Per move, the milliseconds the mover took (empty for a game read back from a PGN).
    pub millis: Vec<u64>,
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

    /// The side that lost, by the name of White's and Black's player: also the side whose
    /// flag fell in a time forfeit drawn for want of mating material (the side to move at the
    /// end); `None` for any other draw.
    pub fn loser<'a>(&self, white: &'a str, black: &'a str) -> Option<&'a str> {
        use shakmaty::Position;
        let white_to_move =
            (self.start.turn() == shakmaty::Color::White) == self.moves.len().is_multiple_of(2);
        match self.result {
            GameResult::WhiteWins => Some(black),
            GameResult::BlackWins => Some(white),
            GameResult::Draw if self.ending == Ending::FlagWithoutMate => {
                Some(if white_to_move { white } else { black })
            }
            GameResult::Draw => None,
        }
    }
}

/// The state of an SPRT: the LLR after the last completed pair, and the verdict (which stays
/// once the LLR has crossed a bound: the match stops there, with the LLR of that moment).
#[derive(Clone, Copy, Debug)]
pub struct SprtState {
    pub sprt: Sprt,
    pub llr: f64,
    pub verdict: Verdict,
}

/// What `run` returns.
#[derive(Debug, Default)]
pub struct MatchReport {
    pub engine_name: String,
    pub opponent_name: String,
    pub tally: Tally,
    pub as_white: Tally,
    pub as_black: Tally,
    /// Completed game pairs (both games of one opening), by the engine's points in the pair.
    pub pentanomial: Pentanomial,
    /// Pairs with one game finished: pair index (round - 1) / 2 to that game's points.
    pub(super) open_pairs: BTreeMap<usize, f64>,
    pub sprt: Option<SprtState>,
    pub games: Vec<GameOutcome>,
    /// Games learned into the store (new ones).
    pub learned: usize,
    /// Games counted from the PGN file of an earlier run (`--resume`).
    pub resumed: usize,
    /// Problems that did not stop the match (store errors, restarts).
    pub warnings: Vec<String>,
    /// Why the match stopped before its games were all played (an engine that could not be
    /// set up for a game, a PGN that could not be written), if it did: the report holds the
    /// games played until then.
    pub stopped: Option<String>,
    /// Stopped by Ctrl-C ([`super::runner::STOP`]); `stopped` says so.
    pub interrupted: bool,
}

impl MatchReport {
    /// Counts a finished game; games `2k+1` and `2k+2` (one opening, colours swapped) form a
    /// pair whatever order they finish in, and a completed pair updates the SPRT.
    pub(super) fn record(&mut self, g: GameOutcome) {
        let p = g.engine_points();
        self.tally.add(p);
        if g.engine_white {
            self.as_white.add(p);
        } else {
            self.as_black.add(p);
        }
        let pair = g.round.saturating_sub(1) / 2;
        if let Some(other) = self.open_pairs.remove(&pair) {
            self.pentanomial.add(p + other);
            if let Some(st) = self.sprt.as_mut()
                && st.verdict == Verdict::Continue
            {
                st.llr = st.sprt.llr(&self.pentanomial);
                st.verdict = st.sprt.verdict(st.llr);
            }
        } else {
            self.open_pairs.insert(pair, p);
        }
        self.games.push(g);
    }

    /// The SPRT has accepted a hypothesis: start no more games.
    pub fn sprt_decided(&self) -> bool {
        self.sprt.is_some_and(|s| s.verdict != Verdict::Continue)
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
        if self.resumed > 0 {
            out.push_str(&format!(
                "({} of these games were played before and resumed from the PGN)\n",
                self.resumed
            ));
        }
        out.push_str(&format!(
            "score {:.1}%, Elo {} (95%), LOS {:.1}%\n",
            100.0 * t.score(),
            format_elo(elo, err),
            100.0 * t.los()
        ));
        let pt = &self.pentanomial;
        let c = pt.counts;
        let mut line = format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}]",
            c[0], c[1], c[2], c[3], c[4]
        );
        if pt.pairs() > 0 {
            let (elo, err) = pt.elo();
            line.push_str(&format!(
                ", Elo {} (95%, pentanomial)",
                format_elo(elo, err)
            ));
            if let Some((nelo, nerr)) = pt.normalized_elo() {
                line.push_str(&format!(", nElo {}", format_elo(nelo, nerr)));
            }
        }
        out.push_str(&line);
        out.push('\n');
        if let Some(st) = &self.sprt {
            let (lo, hi) = st.sprt.bounds();
            out.push_str(&format!(
                "SPRT: llr {} (bounds [{lo:.2}, {hi:.2}]) - {}\n",
                two_decimals(st.llr),
                st.verdict.describe()
            ));
        }
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
                Ending::FlagWithoutMate => "time forfeit, a draw: no mating material".to_string(),
                Ending::Crash(_) => "disconnect".to_string(),
                Ending::Stalled(_) => "stalled".to_string(),
                Ending::AdjudicatedWin => "resignation (adjudication)".to_string(),
                e => e.describe(None),
            };
            let who = if g.ending.on_the_board() || g.ending == Ending::FlagWithoutMate {
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

/// `x` to two decimals, without a sign on a value that rounds to zero.
fn two_decimals(x: f64) -> String {
    if (x * 100.0).round() == 0.0 {
        "0.00".into()
    } else {
        format!("{x:.2}")
    }
}

/// The line printed after each game.
pub fn game_line(r: &MatchReport, g: &GameOutcome) -> String {
    let (w, b) = if g.engine_white {
        (&r.engine_name, &r.opponent_name)
    } else {
        (&r.opponent_name, &r.engine_name)
    };
    let loser = g.loser(w, b);
    let t = &r.tally;
    let llr = r
        .sprt
        .map(|s| format!(" llr {}", two_decimals(s.llr)))
        .unwrap_or_default();
    format!(
        "game {} ({w} vs {b}): {} {{{}}}  score {}-{}-{} [{:.3}] {}{llr}",
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
    fn every_ending_reads_back_from_its_description() {
        for e in [
            Ending::Checkmate,
            Ending::Stalemate,
            Ending::Repetition,
            Ending::FiftyMoves,
            Ending::InsufficientMaterial,
            Ending::AdjudicatedDraw,
            Ending::AdjudicatedWin,
            Ending::MaxPlies,
            Ending::TimeForfeit,
            Ending::FlagWithoutMate,
            Ending::IllegalMove("e2e5".into()),
            Ending::NoMove,
            Ending::Crash("broken pipe: x".into()),
            Ending::Crash("engine says it loses on time".into()),
            Ending::Stalled("no move after 2000 ms".into()),
            Ending::IllegalMove("a1a1 resigns (adjudication)".into()),
        ] {
            let text = e.describe(Some("Engine (1)"));
            assert_eq!(Ending::from_description(&text), Some(e), "{text}");
        }
        assert_eq!(Ending::from_description("won by charm"), None);
    }

    #[test]
    fn points_follow_colour() {
        let g = |result, engine_white| GameOutcome {
            round: 1,
            engine_white,
            result,
            ending: Ending::Checkmate,
            start: Chess::default(),
            moves: vec![],
            evals: vec![],
            millis: vec![],
        };
        assert_eq!(g(GameResult::WhiteWins, true).engine_points(), 1.0);
        assert_eq!(g(GameResult::WhiteWins, false).engine_points(), 0.0);
        assert_eq!(g(GameResult::BlackWins, false).engine_points(), 1.0);
        assert_eq!(g(GameResult::BlackWins, true).engine_points(), 0.0);
        assert_eq!(g(GameResult::Draw, true).engine_points(), 0.5);
    }

    /// Game `round` (the engine has White in odd rounds) worth `points` to the engine.
    fn game(round: usize, points: f64) -> GameOutcome {
        let engine_white = round % 2 == 1;
        let result = match (points, engine_white) {
            (0.5, _) => GameResult::Draw,
            (1.0, true) | (0.0, false) => GameResult::WhiteWins,
            _ => GameResult::BlackWins,
        };
        GameOutcome {
            round,
            engine_white,
            result,
            ending: Ending::Checkmate,
            start: Chess::default(),
            moves: vec![],
            evals: vec![],
            millis: vec![],
        }
    }

    #[test]
    fn pairs_are_formed_by_opening_not_by_finishing_order() {
        let mut r = MatchReport::default();
        // Finishing order with concurrency: rounds 2, 3, 1, 5, 4, 6, 7 (7 has no partner).
        // Pairs (1,2) = 1 + 0.5 = 1.5, (3,4) = 0 + 0 = 0, (5,6) = 0.5 + 0.5 = 1.
        for (round, points) in [
            (2, 0.5),
            (3, 0.0),
            (1, 1.0),
            (5, 0.5),
            (4, 0.0),
            (6, 0.5),
            (7, 1.0),
        ] {
            r.record(game(round, points));
        }
        assert_eq!(r.pentanomial.counts, [1, 0, 1, 1, 0]);
        assert_eq!(
            (r.tally.wins, r.tally.losses, r.tally.draws),
            (2, 2, 3),
            "the odd game counts in the trinomial totals"
        );
        assert_eq!(r.open_pairs.len(), 1);
        let s = r.summary();
        assert!(s.contains("Ptnml(0-2): [1, 0, 1, 1, 0], Elo "), "{s}");
        assert!(!s.contains("SPRT"), "{s}");
        // Finishing order 1, 3, 4 (pair 2 complete), then pair 1 never completes.
        let mut r = MatchReport::default();
        for (round, points) in [(1, 1.0), (3, 1.0), (4, 1.0)] {
            r.record(game(round, points));
        }
        assert_eq!(r.pentanomial.counts, [0, 0, 0, 0, 1]);
        assert!(
            MatchReport::default()
                .summary()
                .contains("Ptnml(0-2): [0, 0, 0, 0, 0]\n")
        );
    }

    #[test]
    fn the_sprt_is_updated_by_completed_pairs_and_keeps_its_verdict() {
        let sprt = Sprt::parse("-1000,1000,0.5,0.5").unwrap();
        let mut r = MatchReport {
            sprt: Some(SprtState {
                sprt,
                llr: 0.0,
                verdict: Verdict::Continue,
            }),
            ..Default::default()
        };
        r.record(game(2, 1.0));
        assert!(!r.sprt_decided(), "half a pair decides nothing");
        r.record(game(1, 1.0));
        assert!(r.sprt_decided());
        let st = r.sprt.unwrap();
        // One WW pair: llr = sprt.llr of that pair, above the bound 0.
        assert_eq!(st.llr, sprt.llr(&r.pentanomial));
        assert!(st.llr > 0.0 && st.verdict == Verdict::H1, "{st:?}");
        // Games finishing after the decision are counted, the verdict and its LLR stay.
        r.record(game(3, 0.0));
        r.record(game(4, 0.0));
        assert_eq!(r.pentanomial.counts, [1, 0, 0, 0, 1]);
        assert_eq!(r.sprt.unwrap().llr, st.llr);
        let s = r.summary();
        let want = format!(
            "SPRT: llr {:.2} (bounds [0.00, 0.00]) - H1 accepted\n",
            st.llr
        );
        assert_eq!(two_decimals(-1e-60), "0.00");
        assert_eq!(two_decimals(-0.006), "-0.01");
        assert!(s.contains(&want), "{s}");
        assert!(game_line(&r, &r.games[3]).ends_with(&format!(" llr {:.2}", st.llr)));
    }
}

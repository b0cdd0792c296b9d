//! `deepred match`: Deep Red (or any UCI engine) against another UCI engine.
//!
//! Both players run as UCI child processes (Deep Red is this executable started with `uci`), so
//! every engine is driven through the same protocol path a GUI uses. Games go in pairs: each
//! opening is played twice with colours swapped. The runner keeps the clocks, adjudicates
//! (rules, score-based draw and resignation, a ply cap), turns crashes, illegal moves and time
//! losses into lost games, restarts a crashed engine for the next game, appends every finished
//! game to the PGN file at once, learns the games decided on the board into the experience store
//! (`--learn`), and sums the result up with an Elo estimate and its 95% error bar.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

use crate::chess::notation::uci_move;
use crate::chess::rules::GameResult;
use crate::chess::rules::rule_result;
use crate::experience::records::GameRecord;
use crate::experience::store::Store;
use crate::games::client::{EngineProcess, GoFailure};

/// A clock: base time plus increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl TimeControl {
    /// Parses `SECONDS[+INCREMENT]` (`10+0.1`, `60`, `0.5+0.01`) or `MIN:SEC+INC` (`1:30+1`).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("time control '{text}' is not SECONDS[+INCREMENT], e.g. 10+0.1");
        let (base, inc) = match text.trim().split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (text.trim(), None),
        };
        let secs = |s: &str| -> Result<f64, String> {
            let v: f64 = s.trim().parse().map_err(|_| bad())?;
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(bad())
            }
        };
        let base_s = match base.split_once(':') {
            Some((m, s)) => secs(m)? * 60.0 + secs(s)?,
            None => secs(base)?,
        };
        let inc_s = inc.map(secs).transpose()?.unwrap_or(0.0);
        if base_s <= 0.0 || base_s > 86_400.0 || inc_s > 3_600.0 {
            return Err(bad());
        }
        Ok(TimeControl {
            base_ms: (base_s * 1000.0).round() as u64,
            inc_ms: (inc_s * 1000.0).round() as u64,
        })
    }

    /// The PGN `TimeControl` tag: seconds, `+` increment.
    pub fn pgn(&self) -> String {
        let s = |ms: u64| {
            if ms.is_multiple_of(1000) {
                (ms / 1000).to_string()
            } else {
                format!("{}", ms as f64 / 1000.0)
            }
        };
        if self.inc_ms == 0 {
            s(self.base_ms)
        } else {
            format!("{}+{}", s(self.base_ms), s(self.inc_ms))
        }
    }
}

/// How long each move may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    Clock(TimeControl),
    Nodes(u64),
    Depth(u32),
    MoveTime(u64),
}

impl MoveLimit {
    fn pgn(&self) -> String {
        match self {
            MoveLimit::Clock(tc) => tc.pgn(),
            MoveLimit::Nodes(n) => format!("nodes={n}"),
            MoveLimit::Depth(d) => format!("depth={d}"),
            MoveLimit::MoveTime(ms) => format!("movetime={ms}ms"),
        }
    }
}

/// One player: a UCI command line (`None`: this Deep Red) and the options to set.
#[derive(Clone, Debug, Default)]
pub struct EngineSpec {
    pub cmd: Option<String>,
    pub options: Vec<(String, String)>,
}

impl EngineSpec {
    fn start(&self) -> Result<EngineProcess, String> {
        let mut e = match &self.cmd {
            Some(cmd) => EngineProcess::start_shell(cmd)?,
            None => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find the deepred executable: {e}"))?;
                EngineProcess::start(&exe.to_string_lossy(), &["uci"])?
            }
        };
        for (k, v) in &self.options {
            e.set_option(k, v)?;
        }
        e.is_ready(Duration::from_secs(30))?;
        Ok(e)
    }
}

/// Score-based adjudication, like cutechess-cli and fastchess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// Draw: from this move number on, when the last `draw_plies` scores are all within
    /// `draw_cp` of zero. 0 disables.
    pub draw_move: u32,
    pub draw_plies: usize,
    pub draw_cp: i32,
    /// Resignation: when the last `resign_plies` scores (both engines') all say the same side
    /// is at least `resign_cp` ahead. 0 disables.
    pub resign_plies: usize,
    pub resign_cp: i32,
    /// A game this long is drawn.
    pub max_plies: usize,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            draw_move: 40,
            draw_plies: 8,
            draw_cp: 10,
            resign_plies: 6,
            resign_cp: 1000,
            max_plies: 400,
        }
    }
}

#[derive(Clone, Debug)]
pub struct MatchOptions {
    pub engine: EngineSpec,
    pub opponent: EngineSpec,
    pub limit: MoveLimit,
    /// The opponent's own limit (default: `limit`), e.g. a fixed node count against a clock.
    pub opponent_limit: Option<MoveLimit>,
    /// Openings (each played twice, colours swapped); empty: the start position.
    pub openings: Vec<Chess>,
    pub games: usize,
    pub concurrency: usize,
    pub seed: u64,
    pub pgn: Option<PathBuf>,
    /// Learn the games decided on the board into this store.
    pub learn: Option<PathBuf>,
    pub adjudication: Adjudication,
    /// Extra time an engine may use beyond its clock before it loses on time.
    pub time_margin_ms: u64,
    /// Longest wait for a move under a node, depth or movetime limit.
    pub move_timeout_ms: u64,
    pub chess960: bool,
    pub event: String,
}

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
    Crash(String),
}

impl Ending {
    /// Decided on the board (or by adjudication of the position): worth learning.
    pub fn on_the_board(&self) -> bool {
        !matches!(
            self,
            Ending::TimeForfeit | Ending::IllegalMove(_) | Ending::Crash(_)
        )
    }

    fn termination_tag(&self) -> &'static str {
        match self {
            Ending::TimeForfeit => "time forfeit",
            Ending::IllegalMove(_) => "illegal move",
            Ending::Crash(_) => "abandoned",
            Ending::AdjudicatedDraw | Ending::AdjudicatedWin | Ending::MaxPlies => "adjudication",
            _ => "normal",
        }
    }

    fn describe(&self, loser: Option<&str>) -> String {
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

/// Wins, losses and draws from the engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Tally {
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games())
    }

    /// Elo difference and the half-width of its 95% confidence interval (trinomial model, as
    /// cutechess-cli and fastchess compute it). Infinite when the score is 0% or 100%.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games());
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let s = self.score();
        let var = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n;
        let se = (var / n).sqrt();
        let lo = elo_of(s - 1.959_964 * se);
        let hi = elo_of(s + 1.959_964 * se);
        (elo_of(s), (hi - lo) / 2.0)
    }

    /// Likelihood of superiority: the chance that the engine is stronger, from wins and losses.
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
}

fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// Formats an Elo value with its error: `+210 ± 56`, `+inf` at 100%.
pub fn format_elo(elo: f64, err: f64) -> String {
    if !elo.is_finite() {
        return if elo > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        };
    }
    if err.is_finite() {
        format!("{elo:+.0} ± {err:.0}")
    } else {
        format!("{elo:+.0} ± inf")
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
    fn record(&mut self, g: GameOutcome) {
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

/// The civil date of today (UTC) as `YYYY.MM.DD`, for PGN.
fn pgn_date() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Reads `score cp N` / `score mate N` of an `info` line, in centipawns for the side that sent it.
pub fn info_score(line: &str) -> Option<i32> {
    let mut w = line.split_whitespace();
    while let Some(t) = w.next() {
        if t == "score" {
            let kind = w.next()?;
            let v: i32 = w.next()?.parse().ok()?;
            return match kind {
                "cp" => Some(v.clamp(-30_000, 30_000)),
                "mate" if v > 0 => Some(32_000 - v),
                "mate" => Some(-32_000 - v),
                _ => None,
            };
        }
    }
    None
}

/// Score-based adjudication over White-view scores, one per ply (None where an engine gave no
/// score). Returns the result if the game should end.
pub fn adjudicate(adj: &Adjudication, scores: &[Option<i32>], fullmove: u32) -> Option<GameResult> {
    let last = |n: usize| -> Option<Vec<i32>> {
        if n == 0 || scores.len() < n {
            return None;
        }
        scores[scores.len() - n..].iter().copied().collect()
    };
    if adj.resign_plies > 0
        && let Some(s) = last(adj.resign_plies)
    {
        if s.iter().all(|&v| v >= adj.resign_cp) {
            return Some(GameResult::WhiteWins);
        }
        if s.iter().all(|&v| v <= -adj.resign_cp) {
            return Some(GameResult::BlackWins);
        }
    }
    if adj.draw_move > 0
        && fullmove >= adj.draw_move
        && let Some(s) = last(adj.draw_plies)
        && s.iter().all(|&v| v.abs() <= adj.draw_cp)
    {
        return Some(GameResult::Draw);
    }
    None
}

/// What a side was told to do, and what it did.
enum Turn {
    Moved(Move, Option<i32>),
    Lost(Ending),
}

struct Seat {
    spec: EngineSpec,
    limit: MoveLimit,
    process: Option<EngineProcess>,
}

impl Seat {
    fn ensure(&mut self) -> Result<&mut EngineProcess, String> {
        if self.process.as_mut().is_some_and(|p| p.has_exited()) {
            self.process = None;
        }
        if self.process.is_none() {
            self.process = Some(self.spec.start()?);
        }
        Ok(self.process.as_mut().expect("started above"))
    }
}

/// Plays one game between `white` and `black` from `start`.
fn play_game(
    opts: &MatchOptions,
    start: &Chess,
    white: &mut Seat,
    black: &mut Seat,
) -> Result<(GameResult, Ending, Vec<Move>), String> {
    for seat in [&mut *white, &mut *black] {
        let ready = seat.ensure().and_then(|e| {
            e.send("ucinewgame")?;
            e.is_ready(Duration::from_secs(30))
        });
        if ready.is_err() {
            // One restart before giving up on the match.
            seat.process = None;
            let e = seat.ensure()?;
            e.send("ucinewgame")?;
            e.is_ready(Duration::from_secs(30))?;
        }
    }
    let fen = crate::chess::fen::fen_of(start);
    let position_head = if *start == Chess::default() {
        "position startpos".to_string()
    } else {
        format!("position fen {fen}")
    };
    let mut pos = start.clone();
    let mut moves: Vec<Move> = Vec::new();
    let mut move_texts: Vec<String> = Vec::new();
    let mut scores: Vec<Option<i32>> = Vec::new();
    // Clocks in milliseconds, indexed by `Color as usize ^ 1` (White 0, Black 1).
    let base = |l: MoveLimit| match l {
        MoveLimit::Clock(tc) => tc.base_ms as i64,
        _ => 0,
    };
    let mut clock = [base(white.limit), base(black.limit)];
    let inc = |l: MoveLimit| match l {
        MoveLimit::Clock(tc) => tc.inc_ms,
        _ => 0,
    };
    let incs = [inc(white.limit), inc(black.limit)];
    let side_won = |c: Color| match c {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    };
    loop {
        if let Some(r) = rule_result(start, &moves) {
            let ending = if pos.is_checkmate() {
                Ending::Checkmate
            } else if pos.is_stalemate() {
                Ending::Stalemate
            } else if pos.is_insufficient_material() {
                Ending::InsufficientMaterial
            } else if pos.halfmoves() >= 100 {
                Ending::FiftyMoves
            } else {
                Ending::Repetition
            };
            return Ok((r, ending, moves));
        }
        if moves.len() >= opts.adjudication.max_plies {
            return Ok((GameResult::Draw, Ending::MaxPlies, moves));
        }
        if let Some(r) = adjudicate(&opts.adjudication, &scores, pos.fullmoves().get()) {
            let e = if r == GameResult::Draw {
                Ending::AdjudicatedDraw
            } else {
                Ending::AdjudicatedWin
            };
            return Ok((r, e, moves));
        }
        let turn = pos.turn();
        let seat = if turn == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let position_cmd = if move_texts.is_empty() {
            position_head.clone()
        } else {
            format!("{position_head} moves {}", move_texts.join(" "))
        };
        let limit = seat.limit;
        let (go_cmd, timeout) = match limit {
            MoveLimit::Clock(_) => (
                format!(
                    "go wtime {} btime {} winc {} binc {}",
                    clock[0].max(1),
                    clock[1].max(1),
                    incs[0],
                    incs[1]
                ),
                clock[turn as usize ^ 1].max(0) as u64 + opts.time_margin_ms,
            ),
            MoveLimit::Nodes(n) => (format!("go nodes {n}"), opts.move_timeout_ms),
            MoveLimit::Depth(d) => (format!("go depth {d}"), opts.move_timeout_ms),
            MoveLimit::MoveTime(ms) => (
                format!("go movetime {ms}"),
                ms + opts.time_margin_ms.max(1000),
            ),
        };
        let engine = seat.ensure()?;
        let t0 = Instant::now();
        let answer = engine.go_wait(&position_cmd, &go_cmd, Duration::from_millis(timeout));
        let used = t0.elapsed().as_millis() as i64;
        let outcome = match answer {
            Err(GoFailure::Timeout) => {
                if !engine.stop_and_drain(Duration::from_secs(2)) {
                    seat.process = None; // hung: killed by drop, restarted next game
                }
                match limit {
                    MoveLimit::Clock(_) => Turn::Lost(Ending::TimeForfeit),
                    _ => Turn::Lost(Ending::Crash(format!(
                        "no move after {} ms",
                        opts.move_timeout_ms
                    ))),
                }
            }
            Err(GoFailure::Exited(why)) => {
                seat.process = None;
                Turn::Lost(Ending::Crash(why))
            }
            Ok(a) => {
                let parsed = a
                    .bestmove
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok());
                match parsed {
                    None => Turn::Lost(Ending::IllegalMove(a.bestmove.clone())),
                    Some(m) => {
                        let score = a.last_info.as_deref().and_then(info_score);
                        if let MoveLimit::Clock(tc) = limit {
                            let c = &mut clock[turn as usize ^ 1];
                            if used > *c + opts.time_margin_ms as i64 {
                                Turn::Lost(Ending::TimeForfeit)
                            } else {
                                *c = (*c - used).max(0) + tc.inc_ms as i64;
                                Turn::Moved(m, score)
                            }
                        } else {
                            Turn::Moved(m, score)
                        }
                    }
                }
            }
        };
        match outcome {
            Turn::Lost(ending) => return Ok((side_won(!turn), ending, moves)),
            Turn::Moved(m, score) => {
                // Scores are from the mover's view; adjudication wants White's.
                scores.push(score.map(|s| if turn == Color::White { s } else { -s }));
                move_texts.push(uci_move(m, opts.chess960));
                pos.play_unchecked(m);
                moves.push(m);
            }
        }
    }
}

/// Plays the match. `progress` is called after each game with the report so far.
pub fn run(
    opts: &MatchOptions,
    progress: impl Fn(&MatchReport, &GameOutcome) + Sync,
) -> Result<MatchReport, String> {
    let mut opts = opts.clone();
    if opts.chess960 {
        for spec in [&mut opts.engine, &mut opts.opponent] {
            spec.options.push(("UCI_Chess960".into(), "true".into()));
        }
    }
    let opts = &opts;
    // Start one pair first: bad commands fail here, before any game, and names are known.
    let first_engine = opts.engine.start()?;
    let first_opponent = opts.opponent.start()?;
    let mut engine_name = first_engine.name.clone();
    let mut opponent_name = first_opponent.name.clone();
    if engine_name == opponent_name {
        engine_name.push_str(" (1)");
        opponent_name.push_str(" (2)");
    }
    let mut store = match &opts.learn {
        Some(p) => Some(Store::open(p)?),
        None => None,
    };
    let pgn_file = match &opts.pgn {
        Some(p) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("cannot open '{}': {e}", p.display()))?,
        )),
        None => None,
    };
    let mut order: Vec<usize> = (0..opts.openings.len().max(1)).collect();
    order.shuffle(&mut StdRng::seed_from_u64(opts.seed));
    let report = Mutex::new(MatchReport {
        engine_name: engine_name.clone(),
        opponent_name: opponent_name.clone(),
        ..Default::default()
    });
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(None::<String>);
    let abort = AtomicBool::new(false);
    let store = Mutex::new(store.take());
    let firsts = Mutex::new(Some((first_engine, first_opponent)));
    let date = pgn_date();
    std::thread::scope(|s| {
        for _ in 0..opts.concurrency.clamp(1, 64) {
            s.spawn(|| {
                let mut engine = Seat {
                    spec: opts.engine.clone(),
                    limit: opts.limit,
                    process: None,
                };
                let mut opponent = Seat {
                    spec: opts.opponent.clone(),
                    limit: opts.opponent_limit.unwrap_or(opts.limit),
                    process: None,
                };
                if let Some((e, o)) = firsts.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    engine.process = Some(e);
                    opponent.process = Some(o);
                }
                loop {
                    if abort.load(Ordering::SeqCst) {
                        break;
                    }
                    let g = next.fetch_add(1, Ordering::SeqCst);
                    if g >= opts.games {
                        break;
                    }
                    let engine_white = g.is_multiple_of(2);
                    let start = opts
                        .openings
                        .get(order[(g / 2) % order.len()])
                        .cloned()
                        .unwrap_or_default();
                    let (w, b) = if engine_white {
                        (&mut engine, &mut opponent)
                    } else {
                        (&mut opponent, &mut engine)
                    };
                    let (result, ending, moves) = match play_game(opts, &start, w, b) {
                        Ok(x) => x,
                        Err(e) => {
                            *failed.lock().unwrap_or_else(|p| p.into_inner()) =
                                Some(format!("game {}: {e}", g + 1));
                            abort.store(true, Ordering::SeqCst);
                            break;
                        }
                    };
                    let (white_name, black_name) = if engine_white {
                        (&engine_name, &opponent_name)
                    } else {
                        (&opponent_name, &engine_name)
                    };
                    let loser = match result {
                        GameResult::WhiteWins => Some(black_name.as_str()),
                        GameResult::BlackWins => Some(white_name.as_str()),
                        GameResult::Draw => None,
                    };
                    let outcome = GameOutcome {
                        round: g + 1,
                        engine_white,
                        result,
                        ending: ending.clone(),
                        start: start.clone(),
                        moves: moves.clone(),
                    };
                    let mut warnings = Vec::new();
                    if let Some(f) = &pgn_file {
                        let text = crate::chess::pgn::write_pgn(
                            &start,
                            &moves,
                            Some(result),
                            &[
                                ("Event", opts.event.clone()),
                                ("Site", "deepred match".into()),
                                ("Date", date.clone()),
                                ("Round", (g + 1).to_string()),
                                ("White", white_name.clone()),
                                ("Black", black_name.clone()),
                                ("TimeControl", time_control_tag(opts, engine_white)),
                                ("Termination", ending.termination_tag().into()),
                                ("PlyCount", moves.len().to_string()),
                                ("Comment", ending.describe(loser)),
                            ],
                        );
                        let mut f = f.lock().unwrap_or_else(|p| p.into_inner());
                        if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.flush()) {
                            warnings.push(format!("cannot write the PGN of game {}: {e}", g + 1));
                        }
                    }
                    let mut learned = 0;
                    if ending.on_the_board() {
                        let mut st = store.lock().unwrap_or_else(|p| p.into_inner());
                        if let Some(s) = st.as_mut() {
                            let rec = GameRecord {
                                source: "match".into(),
                                white: white_name.clone(),
                                black: black_name.clone(),
                                date: date.clone(),
                                result,
                                start: start.clone(),
                                moves: moves.clone(),
                            };
                            match s.learn_game(rec) {
                                Ok(crate::experience::store::Learned::AlreadyKnown) => {}
                                Ok(_) => learned = 1,
                                Err(e) => {
                                    warnings.push(format!(
                                        "learning stopped: game {} not learned: {e}",
                                        g + 1
                                    ));
                                    *st = None;
                                }
                            }
                        }
                    }
                    let mut r = report.lock().unwrap_or_else(|p| p.into_inner());
                    r.learned += learned;
                    r.warnings.extend(warnings);
                    r.record(outcome.clone());
                    progress(&r, &outcome);
                }
            });
        }
    });
    let mut report = report.into_inner().unwrap_or_else(|p| p.into_inner());
    report.games.sort_by_key(|g| g.round);
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        if report.games.is_empty() {
            return Err(e);
        }
        report.warnings.push(format!("match stopped early: {e}"));
    }
    Ok(report)
}

/// The PGN `TimeControl`: the common limit, or `White/Black` limits when they differ.
fn time_control_tag(opts: &MatchOptions, engine_white: bool) -> String {
    match opts.opponent_limit {
        Some(o) if o != opts.limit => {
            let (w, b) = if engine_white {
                (opts.limit, o)
            } else {
                (o, opts.limit)
            };
            format!("{}/{}", w.pgn(), b.pgn())
        }
        _ => opts.limit.pgn(),
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
    fn time_controls_parse() {
        let tc = |s| TimeControl::parse(s);
        assert_eq!(
            tc("10+0.1"),
            Ok(TimeControl {
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(tc("60").map(|t| (t.base_ms, t.inc_ms)), Ok((60_000, 0)));
        assert_eq!(
            tc("1:30+1").map(|t| (t.base_ms, t.inc_ms)),
            Ok((90_000, 1000))
        );
        assert_eq!(tc("0.5+0.01").unwrap().pgn(), "0.5+0.01");
        assert_eq!(tc("10+0.1").unwrap().pgn(), "10+0.1");
        for bad in ["", "abc", "-5+1", "10+x", "0", "nan", "1e9"] {
            assert!(tc(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn elo_matches_the_usual_trinomial_formula() {
        // 147/39/14: score 0.77, Elo 209.9, 95% half-width 55.2 by the trinomial formula
        // (computed by hand; fastchess printed ± 56 from game pairs, a pentanomial model).
        let t = Tally {
            wins: 147,
            losses: 39,
            draws: 14,
        };
        let (elo, err) = t.elo();
        assert_eq!(format_elo(elo, err), "+210 ± 55");
        assert!((elo - 209.905).abs() < 0.01 && (err - 55.168).abs() < 0.01);
        let even = Tally {
            wins: 10,
            losses: 10,
            draws: 5,
        };
        assert!(even.elo().0.abs() < 1e-9);
        assert!((even.los() - 0.5).abs() < 1e-9);
        let all = Tally {
            wins: 4,
            losses: 0,
            draws: 0,
        };
        assert_eq!(format_elo(all.elo().0, all.elo().1), "+inf");
        assert!((all.los() - 0.977_25).abs() < 1e-4, "{}", all.los());
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    }

    #[test]
    fn scores_and_adjudication() {
        assert_eq!(info_score("info depth 5 score cp -34 nodes 10"), Some(-34));
        assert_eq!(
            info_score("info depth 9 score mate 3 pv e2e4"),
            Some(31_997)
        );
        assert_eq!(info_score("info depth 9 score mate -2"), Some(-31_998));
        assert_eq!(info_score("info string score cp"), None);
        let adj = Adjudication::default();
        let win = vec![Some(1200); 6];
        assert_eq!(adjudicate(&adj, &win, 20), Some(GameResult::WhiteWins));
        let mut mixed = vec![Some(-1500); 6];
        assert_eq!(adjudicate(&adj, &mixed, 20), Some(GameResult::BlackWins));
        mixed[2] = Some(-10);
        assert_eq!(adjudicate(&adj, &mixed, 20), None);
        mixed[3] = None;
        assert_eq!(adjudicate(&adj, &mixed, 20), None);
        let quiet = vec![
            Some(5),
            Some(-3),
            Some(0),
            Some(10),
            Some(-10),
            Some(2),
            Some(1),
            Some(0),
        ];
        assert_eq!(adjudicate(&adj, &quiet, 39), None, "too early");
        assert_eq!(adjudicate(&adj, &quiet, 40), Some(GameResult::Draw));
        assert_eq!(adjudicate(&adj, &quiet[1..], 40), None, "too few plies");
    }

    #[test]
    fn pgn_date_looks_like_a_date() {
        let d = pgn_date();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
        assert_eq!(&d[4..5], ".");
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
        };
        assert_eq!(g(GameResult::WhiteWins, true).engine_points(), 1.0);
        assert_eq!(g(GameResult::WhiteWins, false).engine_points(), 0.0);
        assert_eq!(g(GameResult::BlackWins, false).engine_points(), 1.0);
        assert_eq!(g(GameResult::BlackWins, true).engine_points(), 0.0);
        assert_eq!(g(GameResult::Draw, true).engine_points(), 0.5);
    }
}

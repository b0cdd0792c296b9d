//! The match runner: starts the engines, plays the games (concurrently, openings in pairs with
//! colours swapped), keeps the clocks, turns faults into lost games, writes the PGN and learns.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

use super::adjudication::adjudicate;
use super::clock::{GameClock, MoveLimit};
use super::options::{EngineSpec, MatchOptions, time_control_tag};
use super::report::{Ending, GameOutcome, MatchReport, SprtState};
use super::sprt::Verdict;
use crate::chess::notation::uci_move;
use crate::chess::pgn::pgn_date;
use crate::chess::rules::{GameResult, rule_result};
use crate::experience::records::{EvalSource, GameRecord, MoveEval};
use crate::experience::store::Store;
use crate::games::Error;
use crate::games::client::{EngineProcess, GoFailure, info_depth, info_score};

/// What a side was told to do, and what it did.
enum Turn {
    /// The move, and the mover's score and depth from its last `info` line.
    Moved(Move, Option<i32>, Option<u8>),
    Lost(Ending),
}

/// The moves of a game, each with the mover's score (its own view) and depth when it gave
/// them, and the milliseconds it took (as the runner's clock measured them).
#[derive(Default)]
struct Record {
    moves: Vec<Move>,
    evals: Vec<Option<(i32, u8)>>,
    millis: Vec<u64>,
}

/// A game played to its end: the result, how it ended, and its moves.
type Played = (GameResult, Ending, Record);

struct Seat {
    spec: EngineSpec,
    limit: MoveLimit,
    process: Option<EngineProcess>,
}

impl Seat {
    fn ensure(&mut self) -> Result<&mut EngineProcess, Error> {
        if self.process.as_mut().is_some_and(|p| p.has_exited()) {
            self.process = None;
        }
        if self.process.is_none() {
            self.process = Some(self.spec.start()?);
        }
        Ok(self.process.as_mut().expect("started above"))
    }
}

/// The result of a game over by the rules, the ply limit or adjudication (`scores`: White's
/// view of each move's score), if it is.
fn game_over(
    opts: &MatchOptions,
    start: &Chess,
    pos: &Chess,
    moves: &[Move],
    scores: &[Option<i32>],
) -> Option<(GameResult, Ending)> {
    if let Some(r) = rule_result(start, moves) {
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
        return Some((r, ending));
    }
    if moves.len() >= opts.adjudication.max_plies {
        return Some((GameResult::Draw, Ending::MaxPlies));
    }
    let r = adjudicate(&opts.adjudication, scores, pos.fullmoves().get())?;
    let e = if r == GameResult::Draw {
        Ending::AdjudicatedDraw
    } else {
        Ending::AdjudicatedWin
    };
    Some((r, e))
}

/// Plays one game between `white` and `black` from `start`.
fn play_game(
    opts: &MatchOptions,
    start: &Chess,
    white: &mut Seat,
    black: &mut Seat,
) -> Result<Played, Error> {
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
    let mut rec = Record::default();
    let mut move_texts: Vec<String> = Vec::new();
    let mut scores: Vec<Option<i32>> = Vec::new();
    let mut clock = GameClock::new(white.limit, black.limit);
    let side_won = |c: Color| match c {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    };
    loop {
        if let Some((r, ending)) = game_over(opts, start, &pos, &rec.moves, &scores) {
            return Ok((r, ending, rec));
        }
        // Stopped (Ctrl-C): the game ends with the move under way, and is dropped.
        if STOP.load(Ordering::SeqCst) {
            return Err(Error::Stopped);
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
                clock.go_command(turn),
                clock.left_ms(turn).max(0) as u64 + opts.time_margin_ms,
            ),
            MoveLimit::Nodes(n) => (format!("go nodes {n}"), opts.move_timeout_ms),
            MoveLimit::Depth(d) => (format!("go depth {d}"), opts.move_timeout_ms),
            MoveLimit::MoveTime(ms) => (
                format!("go movetime {ms}"),
                ms.saturating_add(opts.time_margin_ms.max(1000)),
            ),
        };
        // An engine that died since its last move loses the game (it is started again for the
        // next one): a restart in the middle would hide the crash and play on without its
        // `ucinewgame`.
        if seat.process.as_mut().is_none_or(|p| p.has_exited()) {
            seat.process = None;
            let why = "the engine exited between its moves".to_string();
            return Ok((side_won(!turn), Ending::Crash(why), rec));
        }
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
                    _ => Turn::Lost(Ending::Stalled(format!("no move after {timeout} ms"))),
                }
            }
            Err(GoFailure::Exited(why)) => {
                seat.process = None;
                Turn::Lost(Ending::Crash(why.to_string()))
            }
            Ok(a) => {
                // The position is not over (the rules were checked above): "no move" loses.
                let parsed = a.bestmove.as_deref().map(|text| {
                    text.parse::<UciMove>()
                        .ok()
                        .and_then(|u| u.to_move(&pos).ok())
                        .ok_or_else(|| text.to_string())
                });
                match parsed {
                    None => Turn::Lost(Ending::NoMove),
                    Some(Err(text)) => Turn::Lost(Ending::IllegalMove(text)),
                    Some(Ok(m)) => {
                        let score = a.last_info.as_deref().and_then(info_score);
                        let depth = a.last_info.as_deref().and_then(info_depth);
                        if clock.charge(turn, used, opts.time_margin_ms) {
                            Turn::Moved(m, score, depth)
                        } else {
                            Turn::Lost(Ending::TimeForfeit)
                        }
                    }
                }
            }
        };
        match outcome {
            // A flag that falls is a draw when the other side cannot mate (FIDE 6.9).
            Turn::Lost(Ending::TimeForfeit) if pos.has_insufficient_material(!turn) => {
                return Ok((GameResult::Draw, Ending::FlagWithoutMate, rec));
            }
            Turn::Lost(ending) => return Ok((side_won(!turn), ending, rec)),
            Turn::Moved(m, score, depth) => {
                rec.evals.push(score.map(|s| (s, depth.unwrap_or(0))));
                rec.millis.push(used.max(0) as u64);
                // Scores are from the mover's view; adjudication wants White's.
                scores.push(score.map(|s| if turn == Color::White { s } else { -s }));
                move_texts.push(uci_move(m, opts.chess960));
                pos.play_unchecked(m);
                rec.moves.push(m);
            }
        }
    }
}

/// Opens the PGN the games are appended to (see [`crate::chess::pgn::open_for_append`]).
fn open_pgn(path: &std::path::Path) -> Result<std::fs::File, Error> {
    crate::chess::pgn::open_for_append(path).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })
}

/// Stops the match (set by `deepred match`'s Ctrl-C handler): no game starts, and the games
/// under way are dropped, not counted (a Ctrl-C in a terminal reaches the engines too, which
/// die mid-game); [`run`] returns the report of the games finished, `interrupted` set.
/// `--resume` plays the dropped games again. Without a handler (the loop's gate) it is never
/// set: a Ctrl-C ends the process.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Set once a handler that may set [`STOP`] is installed: only then does a fault wait
/// [`FAULT_GRACE`] for the stop (a match without a handler, like the loop's gate, loses no
/// time on an engine that dies).
pub static STOP_WATCHED: AtomicBool = AtomicBool::new(false);

/// How long a game that ended by a fault (an engine that died, a move not given) waits for a
/// Ctrl-C to be seen before it counts: the signal reaches the engines and the handler at once,
/// and an engine's death may be read first.
const FAULT_GRACE: Duration = Duration::from_millis(300);

/// Whether the match was stopped ([`STOP`]) before or while a game ending as `ending` was
/// played: the game is then dropped.
fn stopped_during(ending: Option<&Ending>) -> bool {
    if STOP.load(Ordering::SeqCst) {
        return true;
    }
    if ending.is_some_and(Ending::on_the_board) || !STOP_WATCHED.load(Ordering::SeqCst) {
        return false;
    }
    let until = Instant::now() + FAULT_GRACE;
    while Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
        if STOP.load(Ordering::SeqCst) {
            return true;
        }
    }
    false
}

/// Plays the match. `progress` is called after each game with the report so far.
pub fn run(
    opts: &MatchOptions,
    progress: impl Fn(&MatchReport, &GameOutcome) + Sync,
) -> Result<MatchReport, Error> {
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
    let store = match &opts.learn {
        Some(p) => Some(Store::open(p)?),
        None => None,
    };
    let mut order: Vec<usize> = (0..opts.openings.len().max(1)).collect();
    order.shuffle(&mut StdRng::seed_from_u64(opts.seed));
    let (resumed, resume_warnings) = match (&opts.pgn, opts.resume) {
        (Some(p), true) => super::resume::finished_games(
            p,
            opts,
            &order,
            (engine_name.as_str(), opponent_name.as_str()),
        )?,
        _ => (Vec::new(), Vec::new()),
    };
    // Opened once the resume check has accepted the file (a refused one is left as it was).
    let pgn_file = match &opts.pgn {
        Some(p) => Some(Mutex::new(open_pgn(p)?)),
        None => None,
    };
    let done: HashSet<usize> = resumed.iter().map(|g| g.round).collect();
    let state = Match {
        opts,
        report: Mutex::new(MatchReport {
            engine_name: engine_name.clone(),
            opponent_name: opponent_name.clone(),
            sprt: opts.sprt.map(|sprt| SprtState {
                sprt,
                llr: 0.0,
                verdict: Verdict::Continue,
            }),
            ..Default::default()
        }),
        engine_name,
        opponent_name,
        order,
        id: super::options::match_id(opts),
        done,
        next: AtomicUsize::new(0),
        failed: Mutex::new(None),
        abort: AtomicBool::new(false),
        dropped: AtomicUsize::new(0),
        store: Mutex::new(store),
        pgn_file,
        firsts: Mutex::new(Some((first_engine, first_opponent))),
        date: pgn_date(),
    };
    {
        let mut r = state.report.lock().unwrap_or_else(|p| p.into_inner());
        r.warnings.extend(resume_warnings);
        r.resumed = resumed.len();
        let mut resumed = resumed;
        resumed.sort_by_key(|g| g.round);
        for g in resumed {
            r.record(g);
        }
    }
    std::thread::scope(|s| {
        for _ in 0..opts.concurrency.clamp(1, 64) {
            s.spawn(|| state.play_games(&progress));
        }
    });
    let dropped = state.dropped.into_inner();
    let mut report = state.report.into_inner().unwrap_or_else(|p| p.into_inner());
    report.games.sort_by_key(|g| g.round);
    if STOP.load(Ordering::SeqCst) {
        report.interrupted = true;
        report.stopped = Some(format!(
            "stopped by Ctrl-C; {dropped} game{} under way dropped ({})",
            if dropped == 1 { "" } else { "s" },
            if opts.pgn.is_some() {
                "--resume plays the rest"
            } else {
                "without --pgn the games are not kept"
            }
        ));
        return Ok(report);
    }
    if let Some(e) = state.failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        if report.games.is_empty() {
            return Err(e);
        }
        report.stopped = Some(e.to_string());
    }
    Ok(report)
}

/// A match under way, shared by the threads that play its games.
struct Match<'a> {
    opts: &'a MatchOptions,
    report: Mutex<MatchReport>,
    engine_name: String,
    opponent_name: String,
    /// The openings in the order they are played (each twice).
    order: Vec<usize>,
    /// The PGN's `Match` tag (see [`super::options::match_id`]).
    id: String,
    /// The rounds already played (`--resume`).
    done: HashSet<usize>,
    /// The next game to start.
    next: AtomicUsize,
    /// The error that stopped the match, if one did.
    failed: Mutex<Option<Error>>,
    abort: AtomicBool,
    /// Games under way when the match was stopped ([`STOP`]), not counted.
    dropped: AtomicUsize,
    /// The store games are learned into (`None` without `--learn`, or after a failed write).
    store: Mutex<Option<Store>>,
    pgn_file: Option<Mutex<std::fs::File>>,
    /// The engine pair started to check the commands, for the first thread to use.
    firsts: Mutex<Option<(EngineProcess, EngineProcess)>>,
    date: String,
}

impl Match<'_> {
    /// One thread's games, with its own pair of engines, until the match is over.
    fn play_games(&self, progress: &(impl Fn(&MatchReport, &GameOutcome) + Sync)) {
        let opts = self.opts;
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
        if let Some((e, o)) = self.firsts.lock().unwrap_or_else(|p| p.into_inner()).take() {
            engine.process = Some(e);
            opponent.process = Some(o);
        }
        loop {
            // Under the report's lock: once the SPRT has decided, no game starts.
            let g = {
                let r = self.report.lock().unwrap_or_else(|p| p.into_inner());
                if self.abort.load(Ordering::SeqCst)
                    || STOP.load(Ordering::SeqCst)
                    || r.sprt_decided()
                {
                    break;
                }
                self.next.fetch_add(1, Ordering::SeqCst)
            };
            if g >= opts.games {
                break;
            }
            if self.done.contains(&(g + 1)) {
                continue;
            }
            let engine_white = g.is_multiple_of(2);
            let start = super::options::opening(opts, &self.order, g + 1);
            let (w, b) = if engine_white {
                (&mut engine, &mut opponent)
            } else {
                (&mut opponent, &mut engine)
            };
            let played = play_game(opts, &start, w, b);
            if stopped_during(played.as_ref().ok().map(|p| &p.1)) {
                self.dropped.fetch_add(1, Ordering::SeqCst);
                break;
            }
            let (result, ending, rec) = match played {
                Ok(x) => x,
                Err(e) => {
                    *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(Error::Game {
                        round: g + 1,
                        source: Box::new(e),
                    });
                    self.abort.store(true, Ordering::SeqCst);
                    break;
                }
            };
            let outcome = GameOutcome {
                round: g + 1,
                engine_white,
                result,
                ending,
                start,
                moves: rec.moves,
                evals: rec.evals,
                millis: rec.millis,
            };
            let mut warnings = Vec::new();
            if let Some(why) = self.write_pgn(&outcome) {
                // Without its games on file the match could not be resumed: stop now.
                let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
                failed.get_or_insert(Error::PgnWrite(why));
                self.abort.store(true, Ordering::SeqCst);
            }
            let learned = match self.learn(&outcome) {
                Ok(learned) => learned,
                Err(w) => {
                    warnings.push(w);
                    0
                }
            };
            let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
            r.learned += learned;
            r.warnings.extend(warnings);
            r.record(outcome.clone());
            progress(&r, &outcome);
        }
    }

    /// The names of (White, Black) in game `g`.
    fn players(&self, g: &GameOutcome) -> (&String, &String) {
        if g.engine_white {
            (&self.engine_name, &self.opponent_name)
        } else {
            (&self.opponent_name, &self.engine_name)
        }
    }

    /// Appends the game to the PGN file; a warning if it could not be written.
    fn write_pgn(&self, g: &GameOutcome) -> Option<String> {
        let f = self.pgn_file.as_ref()?;
        let (white_name, black_name) = self.players(g);
        let loser = g.loser(white_name, black_name);
        // After each move, as cutechess and fastchess write it: `{+0.35/12 0.512s}`, the
        // mover's score and depth when it gave them, and the time it took.
        let comments: Vec<Option<String>> = (0..g.moves.len())
            .map(|i| {
                let eval = g.evals.get(i).copied().flatten();
                let eval = eval.map(|(s, d)| crate::chess::pgn::eval_comment(s, d));
                let time = g
                    .millis
                    .get(i)
                    .map(|ms| format!("{:.3}s", *ms as f64 / 1000.0));
                let parts: Vec<String> = [eval, time].into_iter().flatten().collect();
                (!parts.is_empty()).then(|| parts.join(" "))
            })
            .collect();
        let text = crate::chess::pgn::write_pgn_annotated(
            &g.start,
            &g.moves,
            Some(g.result),
            &[
                ("Event", self.opts.event.clone()),
                ("Site", "deepred match".into()),
                ("Match", self.id.clone()),
                ("Date", self.date.clone()),
                ("Round", g.round.to_string()),
                ("White", white_name.clone()),
                ("Black", black_name.clone()),
                ("TimeControl", time_control_tag(self.opts, g.engine_white)),
                ("Termination", g.ending.termination_tag().into()),
                ("PlyCount", g.moves.len().to_string()),
                ("Comment", g.ending.describe(loser)),
            ],
            &comments,
        );
        let mut f = f.lock().unwrap_or_else(|p| p.into_inner());
        // No part of a game stays in the file: a fragment would merge with the next game
        // a resumed match appends.
        let e = crate::chess::pgn::append_whole(&mut f, &text).err()?;
        Some(format!("cannot write the PGN of game {}: {e}", g.round))
    }

    /// Learns a game decided on the board (or by adjudication) into the store: 1 if it was
    /// new. A failed write stops the learning, with a warning.
    fn learn(&self, g: &GameOutcome) -> Result<usize, String> {
        if !g.ending.on_the_board() {
            return Ok(0);
        }
        let mut st = self.store.lock().unwrap_or_else(|p| p.into_inner());
        let Some(s) = st.as_mut() else {
            return Ok(0);
        };
        let (white, black) = self.players(g);
        // Deep Red's evaluations are its own searches'; another engine's are kept as such.
        let by = |name: &str| {
            if name.starts_with("Deep Red") {
                EvalSource::DeepRed
            } else {
                EvalSource::Other
            }
        };
        let white_first = g.start.turn() == Color::White;
        let evals = g
            .evals
            .iter()
            .enumerate()
            .map(|(ply, e)| {
                let white_moved = (ply % 2 == 0) == white_first;
                e.map(|(score, depth)| MoveEval {
                    score: score.clamp(-32_000, 32_000) as i16,
                    depth,
                    source: by(if white_moved { white } else { black }),
                })
            })
            .collect();
        let rec = GameRecord {
            source: crate::experience::source::MATCH.into(),
            white: white.clone(),
            black: black.clone(),
            date: self.date.clone(),
            result: g.result,
            start: g.start.clone(),
            moves: g.moves.clone(),
            evals,
        };
        match s.learn_game(rec) {
            Ok(crate::experience::store::Learned::AlreadyKnown) => Ok(0),
            Ok(_) => Ok(1),
            Err(e) => {
                *st = None;
                Err(format!(
                    "learning stopped: game {} not learned: {e}",
                    g.round
                ))
            }
        }
    }
}

//! The UCI front end: reads commands on the calling thread, searches on another, and answers
//! `isready`, `stop` and `ponderhit` at once while a search runs.

pub mod out;

use std::io::BufRead;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};
use shakmaty_uci::UciMessage;

use crate::chess::display::diagram;
use crate::chess::fen::{fen_of, parse_fen};
use crate::chess::notation::uci_move;
use crate::chess::zobrist::hash_of;
use crate::eval::{self, Evaluator};
use crate::experience::book::book_move;
use crate::experience::live::Tracked;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Limits, SearchParams, Shared};
use out::{info_string, send};

pub const ENGINE_NAME: &str = concat!("Deep Red ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Deep Red developers";

/// Option limits (also used by the command line).
pub const HASH_MAX_MB: i64 = 32768;
pub const THREADS_MAX: i64 = 256;
pub const MULTIPV_MAX: i64 = 256;

/// Values of the UCI options.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead: u64,
    pub chess960: bool,
    pub evaluator: Evaluator,
    /// Name of the evaluator chosen (kept to reload it when its data changes).
    pub evaluator_name: String,
    /// The experience evaluator when it is the one chosen (learned games are added to it).
    pub experience_eval: Option<Arc<eval::experience::ExperienceEval>>,
    pub experience_file: std::path::PathBuf,
    pub learning: bool,
    pub experience_book: bool,
    pub experience_min_games: u32,
    /// `EvalFile`: the net of the neural evaluator; `None` for `nets/<evaluator>.safetensors`.
    pub eval_file: Option<std::path::PathBuf>,
    /// A neural evaluator asked for whose net could not be loaded: setting `EvalFile` retries it.
    pub pending_net: Option<String>,
}

/// The `EvalFile` value that means `nets/<evaluator>.safetensors`.
pub const EVAL_FILE_AUTO: &str = "auto";

impl Options {
    fn eval_context(&self) -> eval::EvalContext {
        eval::EvalContext {
            experience_file: self.experience_file.clone(),
            experience_min_games: self.experience_min_games,
            eval_file: self.eval_file.clone(),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead: 20,
            chess960: false,
            evaluator: eval::default_evaluator(),
            evaluator_name: "pst".to_string(),
            experience_eval: None,
            experience_file: crate::experience::store::DEFAULT_FILE.into(),
            learning: false,
            experience_book: false,
            experience_min_games: 10,
            eval_file: None,
            pending_net: None,
        }
    }
}

/// A position as the GUI set it: the root and the keys of the positions that led to it.
#[derive(Clone, Default)]
pub struct Game {
    pub pos: Chess,
    pub history: Vec<u64>,
    /// The position the moves started from, and the moves.
    pub start: Chess,
    pub moves: Vec<Move>,
}

/// Parses `position startpos|fen F [moves ...]` (the tokens after `position`).
pub fn parse_position(args: &str, chess960: bool) -> Result<Game, String> {
    let tokens: Vec<&str> = args.split_whitespace().collect();
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (&tokens[..], &[][..]),
    };
    let mut pos = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => Chess::default(),
        Some(&"fen") if setup.len() >= 2 => parse_fen(&setup[1..].join(" "), chess960)?,
        _ => return Err("expected 'position startpos' or 'position fen <FEN>'".into()),
    };
    let start = pos.clone();
    let mut played = Vec::with_capacity(moves.len());
    let mut history = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let uci: UciMove = text
            .parse()
            .map_err(|_| format!("move {} '{text}' is not a UCI move", i + 1))?;
        let m = uci
            .to_move(&pos)
            .map_err(|_| format!("move {} '{text}' is illegal in {}", i + 1, fen_of(&pos)))?;
        history.push(hash_of(&pos));
        pos.play_unchecked(m);
        played.push(m);
    }
    Ok(Game {
        pos,
        history,
        start,
        moves: played,
    })
}

/// Parses the arguments of `go`. Unknown words are skipped with a warning; a keyword without a
/// valid number is an error. Negative times (some GUIs send them when a clock ran out) count as 0.
pub fn parse_go(args: &str, pos: &Chess) -> Result<(Limits, Vec<String>), String> {
    let mut limits = Limits::default();
    let mut warnings = Vec::new();
    let tokens: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    let number = |i: usize, word: &str| -> Result<i64, String> {
        let v = tokens
            .get(i + 1)
            .ok_or_else(|| format!("'go {word}' needs a number"))?;
        v.parse::<i64>()
            .map_err(|_| format!("'go {word} {v}': not a whole number"))
    };
    while i < tokens.len() {
        let word = tokens[i];
        match word {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "wtime" | "btime" | "winc" | "binc" | "movetime" => {
                let v = Some(number(i, word)?.max(0) as u64);
                match word {
                    "wtime" => limits.wtime = v,
                    "btime" => limits.btime = v,
                    "winc" => limits.winc = v,
                    "binc" => limits.binc = v,
                    _ => limits.movetime = v,
                }
                i += 1;
            }
            "movestogo" | "depth" | "mate" => {
                let n = number(i, word)?;
                if n < 1 {
                    return Err(format!("'go {word} {n}': must be at least 1"));
                }
                let n = n.min(i64::from(u32::MAX)) as u32;
                match word {
                    "movestogo" => limits.movestogo = Some(n),
                    "depth" => limits.depth = Some(n),
                    _ => limits.mate = Some(n),
                }
                i += 1;
            }
            "nodes" => {
                let n = number(i, word)?;
                if n < 1 {
                    return Err(format!("'go nodes {n}': must be at least 1"));
                }
                limits.nodes = Some(n as u64);
                i += 1;
            }
            "searchmoves" => {
                while let Some(t) = tokens.get(i + 1) {
                    let Ok(uci) = t.parse::<UciMove>() else { break };
                    match uci.to_move(pos) {
                        Ok(m) => limits.searchmoves.push(m),
                        Err(_) => {
                            warnings.push(format!("searchmoves: '{t}' is illegal here, ignored"))
                        }
                    }
                    i += 1;
                }
            }
            other => warnings.push(format!("unknown go parameter '{other}' ignored")),
        }
        i += 1;
    }
    Ok((limits, warnings))
}

/// The UCI engine: options, current position, transposition table and the running search.
pub struct Engine {
    pub options: Options,
    pub game: Game,
    tt: Arc<TranspositionTable>,
    shared: Arc<Shared>,
    search: Option<JoinHandle<()>>,
    /// True from `go` until the search thread is about to print `bestmove`: a GUI that has read
    /// `bestmove` may send the next `go` at once, before the thread has fully ended.
    busy: Arc<AtomicBool>,
    debug: bool,
    /// The game followed for learning.
    tracked: Option<Tracked>,
    /// (key of the searched position, best move) of the last search.
    last_best: Arc<std::sync::Mutex<Option<(u64, Move)>>>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Self {
        let options = Options::default();
        Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            game: Game::default(),
            shared: Arc::new(Shared::default()),
            search: None,
            busy: Arc::new(AtomicBool::new(false)),
            debug: false,
            tracked: None,
            last_best: Arc::new(std::sync::Mutex::new(None)),
        }
    }

    /// Reads commands until `quit` or end of input, then stops any search and returns.
    pub fn run(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    info_string(&format!("error: could not read input ({e}); line ignored"));
                    continue;
                }
            };
            if !self.handle(&line) {
                return;
            }
        }
        // End of input: behave like quit.
        self.stop_and_join();
        self.finish_tracked_game();
    }

    fn searching(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    pub fn stop_and_join(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.pondering.store(false, Ordering::SeqCst);
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
    }

    /// Handles one line. Returns false on `quit`.
    pub fn handle(&mut self, raw: &str) -> bool {
        let line = raw.trim();
        if line.is_empty() {
            return true;
        }
        let mut parts = line.splitn(2, char::is_whitespace);
        let cmd = parts.next().unwrap_or("");
        let rest = parts.next().unwrap_or("").trim();
        match cmd {
            "quit" => {
                self.stop_and_join();
                self.finish_tracked_game();
                return false;
            }
            "stop" => {
                self.shared.stop.store(true, Ordering::SeqCst);
                self.shared.pondering.store(false, Ordering::SeqCst);
                return true;
            }
            "ponderhit" => {
                self.shared.ponderhit();
                return true;
            }
            "isready" => {
                send("readyok");
                return true;
            }
            // `position` and `go` are parsed here rather than by shakmaty-uci: its FEN grammar
            // refuses Shredder-FEN castling (Chess960 GUIs send it), and it reads
            // `go ponder wtime ...` as a bare ponder, losing the clocks.
            "position" => {
                match parse_position(rest, self.options.chess960) {
                    Ok(g) => {
                        self.game = g;
                        self.track_game();
                    }
                    Err(e) => info_string(&format!("error: {e}; position unchanged")),
                }
                return true;
            }
            "d" => {
                send_multiline(&format!(
                    "{}Fen: {}\nKey: {:016X}\nEvaluator: {}",
                    diagram(&self.game.pos),
                    fen_of(&self.game.pos),
                    hash_of(&self.game.pos),
                    self.options.evaluator.name()
                ));
                return true;
            }
            "eval" => {
                send_multiline(&crate::eval::report::eval_report(
                    &self.game.pos,
                    &self.options.eval_context(),
                ));
                return true;
            }
            "perft" => {
                self.perft_command(rest);
                return true;
            }
            "bench" => {
                if self.searching() {
                    info_string("error: bench is not possible while searching; send stop first");
                } else {
                    let depth = match rest.parse::<u32>() {
                        Ok(d) if (1..=64).contains(&d) => d,
                        _ if rest.is_empty() => search::bench::DEFAULT_DEPTH,
                        _ => {
                            info_string(&format!("error: bench depth '{rest}' is not 1..64"));
                            return true;
                        }
                    };
                    let r = search::bench::run(depth, 1, &self.options.evaluator, info_string);
                    send(&format!("info string {} nodes {} nps", r.nodes, r.nps()));
                }
                return true;
            }
            "go" if rest.split_whitespace().next() == Some("perft") => {
                let n = rest.split_whitespace().nth(1).unwrap_or("");
                self.perft_command(n);
                return true;
            }
            "go" => {
                match parse_go(rest, &self.game.pos) {
                    Ok((limits, warnings)) => {
                        for w in warnings {
                            info_string(&format!("warning: {w}"));
                        }
                        self.go(limits);
                    }
                    Err(e) => info_string(&format!("error: {e}; no search started")),
                }
                return true;
            }
            _ => {}
        }
        match line.parse::<UciMessage>() {
            Ok(msg) => self.handle_message(msg, line),
            Err(_) => {
                // UCI: ignore unknown leading tokens and try the rest of the line.
                let tokens: Vec<&str> = line.split_whitespace().collect();
                for i in 1..tokens.len() {
                    if KNOWN.contains(&tokens[i]) {
                        info_string(&format!(
                            "warning: ignored unknown token(s) '{}'",
                            tokens[..i].join(" ")
                        ));
                        return self.handle(&tokens[i..].join(" "));
                    }
                }
                if KNOWN.contains(&cmd) {
                    info_string(&format!("error: malformed command '{line}'"));
                } else {
                    info_string(&format!("error: unknown command '{line}'"));
                }
                true
            }
        }
    }

    fn perft_command(&mut self, arg: &str) {
        match arg.trim().parse::<u32>() {
            Ok(d) if (1..=10).contains(&d) => {
                if self.searching() {
                    info_string("error: perft is not possible while searching; send stop first");
                    return;
                }
                let total = crate::chess::perft::divide(&self.game.pos, d, |m, n| {
                    info_string(&format!("{}: {n}", uci_move(m, self.options.chess960)))
                });
                info_string(&format!("Nodes searched: {total}"));
            }
            _ => info_string(&format!("error: perft depth '{arg}' is not 1..10")),
        }
    }

    fn handle_message(&mut self, msg: UciMessage, line: &str) -> bool {
        match msg {
            UciMessage::Uci => {
                send(&format!("id name {ENGINE_NAME}"));
                send(&format!("id author {ENGINE_AUTHOR}"));
                for o in option_lines() {
                    send(&o);
                }
                send("uciok");
            }
            UciMessage::Debug(on) => self.debug = on,
            UciMessage::Register { .. } => {}
            UciMessage::UciNewGame => {
                self.stop_and_join();
                self.finish_tracked_game();
                self.tt.clear();
                self.game = Game::default();
            }
            UciMessage::SetOption { name, value } => {
                if self.searching() {
                    info_string(&format!(
                        "error: option '{name}' not changed: a search is running (send stop first)"
                    ));
                } else if let Err(e) = self.set_option(&name, value.as_deref()) {
                    info_string(&format!("error: {e}"));
                } else if self.debug {
                    info_string(&format!("option '{name}' set"));
                }
            }
            UciMessage::Stop | UciMessage::PonderHit | UciMessage::IsReady | UciMessage::Quit => {
                unreachable!("handled before parsing")
            }
            UciMessage::Position { .. } | UciMessage::Go { .. } => {
                unreachable!("handled before parsing")
            }
            _ => info_string(&format!("error: '{line}' is not an engine command")),
        }
        true
    }

    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let spin = |min: i64, max: i64| -> Result<i64, String> {
            let v = value.ok_or_else(|| format!("option '{name}' needs a value"))?;
            let n: i64 = v
                .trim()
                .parse()
                .map_err(|_| format!("option '{name}': '{v}' is not a number"))?;
            if n < min || n > max {
                return Err(format!(
                    "option '{name}': {n} is outside {min}..{max}; unchanged"
                ));
            }
            Ok(n)
        };
        let check = || -> Result<bool, String> {
            match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                Some("true") => Ok(true),
                Some("false") => Ok(false),
                _ => Err(format!("option '{name}' takes true or false")),
            }
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "hash" => {
                let mb = spin(1, HASH_MAX_MB)? as usize;
                if let Some(avail) = available_memory_mb()
                    && mb as u64 > avail * 8 / 10
                {
                    return Err(format!(
                        "option 'Hash': {mb} MB is more than this machine can spare ({avail} MB available); unchanged"
                    ));
                }
                if mb != self.options.hash_mb {
                    self.tt = Arc::new(TranspositionTable::new(mb));
                    self.options.hash_mb = mb;
                }
            }
            "threads" => self.options.threads = spin(1, THREADS_MAX)? as usize,
            "multipv" => self.options.multipv = spin(1, MULTIPV_MAX)? as usize,
            "clear hash" => self.tt.clear(),
            "ponder" => self.options.ponder = check()?,
            "move overhead" => self.options.move_overhead = spin(0, 5000)? as u64,
            "uci_chess960" => self.options.chess960 = check()?,
            "evaluator" => {
                let v = value.ok_or("option 'Evaluator' needs a value")?;
                let name = v.trim().to_ascii_lowercase();
                // Scores of different evaluators do not mix in the hash table.
                self.tt.clear();
                if name == "experience" {
                    self.options.pending_net = None;
                    self.options.evaluator_name = name;
                    self.reload_data_evaluator()?;
                } else if eval::uses_net(&name) {
                    match eval::by_name_with(&name, &self.options.eval_context()) {
                        Ok(e) => self.use_net_evaluator(e, &name, self.options.eval_file.clone()),
                        Err(e) => {
                            self.options.pending_net = Some(name);
                            return Err(format!(
                                "{e}; Evaluator stays {}",
                                self.options.evaluator_name
                            ));
                        }
                    }
                } else {
                    self.options.evaluator =
                        eval::by_name_with(v.trim(), &self.options.eval_context())?;
                    self.options.evaluator_name = name;
                    self.options.experience_eval = None;
                    self.options.pending_net = None;
                }
            }
            "evalfile" => {
                let v = value.map(str::trim).unwrap_or("");
                let file =
                    if v.is_empty() || v.eq_ignore_ascii_case(EVAL_FILE_AUTO) || v == "<empty>" {
                        None
                    } else {
                        Some(std::path::PathBuf::from(v))
                    };
                // The neural evaluator asked for last: one whose net was missing, else the
                // current one.
                let target = self.options.pending_net.clone().or_else(|| {
                    eval::uses_net(&self.options.evaluator_name)
                        .then(|| self.options.evaluator_name.clone())
                });
                match target {
                    // Used when a neural evaluator is chosen.
                    None => self.options.eval_file = file,
                    Some(name) => {
                        let mut ctx = self.options.eval_context();
                        ctx.eval_file = file.clone();
                        match eval::by_name_with(&name, &ctx) {
                            Ok(e) => {
                                self.tt.clear();
                                self.use_net_evaluator(e, &name, file);
                            }
                            Err(e) => {
                                return Err(format!(
                                    "{e}; EvalFile unchanged, Evaluator stays {}",
                                    self.options.evaluator_name
                                ));
                            }
                        }
                    }
                }
            }
            "experiencefile" => {
                let v = value
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .ok_or("option 'ExperienceFile' needs a file name")?;
                self.finish_tracked_game();
                self.options.experience_file = v.into();
                self.reload_data_evaluator()?;
            }
            "learning" => self.options.learning = check()?,
            "experiencebook" => self.options.experience_book = check()?,
            "experiencemingames" => {
                self.options.experience_min_games = spin(1, 1_000_000)? as u32;
                self.reload_data_evaluator()?;
            }
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }

    fn use_net_evaluator(&mut self, e: Evaluator, name: &str, file: Option<std::path::PathBuf>) {
        if let Some(d) = e.description() {
            info_string(&format!("Evaluator {name}: {d}"));
        }
        self.options.evaluator = e;
        self.options.evaluator_name = name.to_string();
        self.options.eval_file = file;
        self.options.experience_eval = None;
        self.options.pending_net = None;
    }

    /// Reloads an evaluator that reads the experience store after its options changed.
    fn reload_data_evaluator(&mut self) -> Result<(), String> {
        if self.options.evaluator_name == "experience" {
            let e = match eval::experience_evaluator(&self.options.eval_context()) {
                Ok(e) => e,
                Err(err) => {
                    // Keep a working evaluator: back to pst.
                    self.options.evaluator = eval::default_evaluator();
                    self.options.evaluator_name = "pst".to_string();
                    self.options.experience_eval = None;
                    return Err(format!("{err}; Evaluator is pst"));
                }
            };
            info_string(&format!(
                "experience evaluator: {} known positions from '{}'",
                e.positions(),
                self.options.experience_file.display()
            ));
            self.options.evaluator = Evaluator::Scalar(e.clone());
            self.options.experience_eval = Some(e);
        }
        Ok(())
    }

    /// With `Learning` on: follows the game through `position` commands and learns it once it
    /// has ended by the rules.
    fn track_game(&mut self) {
        if !self.options.learning {
            return;
        }
        let continued = self
            .tracked
            .as_ref()
            .is_some_and(|t| t.continued_by(&self.game.start, &self.game.moves));
        if continued {
            if let Some(t) = self.tracked.as_mut() {
                t.moves = self.game.moves.clone();
            }
        } else {
            self.finish_tracked_game();
            self.tracked = Some(Tracked {
                start: self.game.start.clone(),
                moves: self.game.moves.clone(),
                learned: false,
            });
        }
        self.learn_if_over(false);
    }

    /// Learns the tracked game if it is over. With `with_our_move`, the engine's last
    /// `bestmove` in the tracked position counts as played (the GUI sends no position after a
    /// game-ending move).
    fn learn_if_over(&mut self, with_our_move: bool) {
        let Some(t) = self.tracked.as_mut() else {
            return;
        };
        if t.learned {
            return;
        }
        let our_move = if with_our_move {
            *self.last_best.lock().unwrap_or_else(|e| e.into_inner())
        } else {
            None
        };
        let Some(record) = t.ended(our_move) else {
            return;
        };
        t.learned = true;
        let (plies, result) = (record.moves.len(), record.result);
        match crate::experience::store::Store::open(&self.options.experience_file)
            .and_then(|mut s| s.learn_game(record.clone()))
        {
            Ok(learned) => {
                if learned != crate::experience::store::Learned::AlreadyKnown
                    && let Some(e) = &self.options.experience_eval
                {
                    e.add_game(&record);
                }
                info_string(&format!(
                    "learned the game ({plies} plies, {}) into '{}'",
                    result.as_pgn(),
                    self.options.experience_file.display()
                ))
            }
            Err(e) => info_string(&format!("error: could not learn the game: {e}")),
        }
    }

    /// The tracked game ends here (new game, unrelated position, quit): learn it if it is over.
    fn finish_tracked_game(&mut self) {
        if self.options.learning && self.tracked.is_some() {
            self.learn_if_over(true);
        }
        self.tracked = None;
    }

    /// `ExperienceBook`: the best known move by the confidence-aware score, when the position
    /// has at least `ExperienceMinGames` games.
    fn book_move(&self) -> Option<(Move, String)> {
        let store =
            crate::experience::store::Store::open_read_only(&self.options.experience_file).ok()?;
        let pos = &self.game.pos;
        let b = book_move(&store, pos, self.options.experience_min_games)?;
        let turn = pos.turn();
        let note = format!(
            "experience book: {} ({} games, score {:.1}%, confidence {:.1}%; {} games in this position)",
            uci_move(b.mv, self.options.chess960),
            b.stats.games(),
            100.0 * b.stats.score_for(turn),
            100.0 * b.stats.confidence_score(turn),
            b.position_games
        );
        Some((b.mv, note))
    }

    fn go(&mut self, limits: Limits) {
        if self.searching() {
            info_string("error: a search is already running; send stop first");
            return;
        }
        if self.options.experience_book
            && !limits.infinite
            && !limits.ponder
            && limits.searchmoves.is_empty()
            && let Some((m, note)) = self.book_move()
        {
            info_string(&note);
            *self.last_best.lock().unwrap_or_else(|e| e.into_inner()) =
                Some((hash_of(&self.game.pos), m));
            send(&format!(
                "info depth 0 score cp 0 pv {}",
                uci_move(m, self.options.chess960)
            ));
            send(&format!("bestmove {}", uci_move(m, self.options.chess960)));
            return;
        }
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
        let params = SearchParams {
            root: self.game.pos.clone(),
            history: self.game.history.clone(),
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead: self.options.move_overhead,
            chess960: self.options.chess960,
            evaluator: self.options.evaluator.clone(),
            reporter: Some(out::reporter(self.options.chess960)),
            limits,
        };
        let shared = self.shared.clone();
        shared.stop.store(false, Ordering::SeqCst);
        shared
            .pondering
            .store(params.limits.ponder, Ordering::SeqCst);
        shared.reset_clock();
        let tt = self.tt.clone();
        let busy = self.busy.clone();
        busy.store(true, Ordering::SeqCst);
        let last_best = self.last_best.clone();
        self.search = Some(std::thread::spawn(move || {
            run_search(&params, &shared, &tt, &busy, &last_best)
        }));
    }
}

/// `MemAvailable` from /proc/meminfo in MB (None where there is no such file).
fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Command words that start a UCI line (used to skip unknown leading tokens).
const KNOWN: &[&str] = &[
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "d",
    "eval",
    "perft",
    "bench",
];

fn send_multiline(text: &str) {
    for l in text.lines() {
        info_string(l);
    }
}

/// The search thread: searches, waits for `stop` or `ponderhit` in infinite/ponder mode, then
/// answers `bestmove`.
fn run_search(
    params: &SearchParams,
    shared: &Shared,
    tt: &TranspositionTable,
    busy: &AtomicBool,
    last_best: &std::sync::Mutex<Option<(u64, Move)>>,
) {
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| search::search(params, shared, tt)));
    let result = match outcome {
        Ok(r) => Some(r),
        Err(_) => {
            info_string("error: internal search failure; playing the first legal move");
            None
        }
    };
    // In infinite and ponder mode, bestmove waits for stop (or ponderhit).
    while !shared.stop.load(Ordering::SeqCst)
        && (params.limits.infinite || shared.pondering.load(Ordering::SeqCst))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (best, ponder) = match result {
        Some(r) => (r.best, r.ponder),
        None => (params.root.legal_moves().first().copied(), None),
    };
    *last_best.lock().unwrap_or_else(|e| e.into_inner()) = best.map(|m| (hash_of(&params.root), m));
    busy.store(false, Ordering::SeqCst);
    match best {
        None => send("bestmove 0000"),
        Some(b) => match ponder {
            Some(p) => send(&format!(
                "bestmove {} ponder {}",
                uci_move(b, params.chess960),
                uci_move(p, params.chess960)
            )),
            None => send(&format!("bestmove {}", uci_move(b, params.chess960))),
        },
    }
}

/// The `option` lines of the `uci` answer.
pub fn option_lines() -> Vec<String> {
    let d = Options::default();
    vec![
        format!(
            "option name Hash type spin default {} min 1 max {HASH_MAX_MB}",
            d.hash_mb
        ),
        format!("option name Threads type spin default 1 min 1 max {THREADS_MAX}"),
        "option name Clear Hash type button".to_string(),
        format!("option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}"),
        "option name Ponder type check default false".to_string(),
        format!(
            "option name Move Overhead type spin default {} min 0 max 5000",
            d.move_overhead
        ),
        "option name UCI_Chess960 type check default false".to_string(),
        format!(
            "option name ExperienceFile type string default {}",
            d.experience_file.display()
        ),
        "option name Learning type check default false".to_string(),
        "option name ExperienceBook type check default false".to_string(),
        format!(
            "option name ExperienceMinGames type spin default {} min 1 max 1000000",
            d.experience_min_games
        ),
        format!("option name EvalFile type string default {EVAL_FILE_AUTO}"),
        format!(
            "option name Evaluator type combo default {} {}",
            d.evaluator.name(),
            eval::EVALUATOR_NAMES
                .iter()
                .map(|n| format!("var {n}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ]
}

//! The UCI engine: reads commands on the calling thread, searches on another, and answers
//! `isready`, `stop` and `ponderhit` at once while a search runs. Only `id`, `option`,
//! `uciok`, `readyok`, `info` and `bestmove` lines reach stdout ([`super::output`]).

use std::io::BufRead;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::Position;
use shakmaty_uci::UciMessage;

use super::Error;
use super::command::{Game, parse_go, parse_position};
use super::options::{HashChange, Options, option_lines};
use super::output::{Style, Wdl, info_string, reporter, send};
use crate::chess::display::diagram;
use crate::chess::fen::fen_of;
use crate::chess::notation::uci_move;
use crate::chess::perft;
use crate::chess::zobrist::hash_of;
use crate::eval::report::eval_report;
use crate::player::learner::{Inbox, LastMove};
use crate::player::{Player, hand_over};
use crate::search::tt::TranspositionTable;
use crate::search::{self, Limits, SearchParams, Shared};

pub use crate::player::ENGINE_NAME;
pub const ENGINE_AUTHOR: &str = "the Deep Red developers";

/// The UCI engine: options, current position, transposition table and the running search.
pub struct Engine {
    pub options: Options,
    pub game: Game,
    /// The game played: the evaluator, the hash table, learning from the game.
    player: Player,
    shared: Arc<Shared>,
    search: Option<JoinHandle<()>>,
    /// True from `go` until the search thread is about to print `bestmove`: a GUI that has read
    /// `bestmove` may send the next `go` at once, before the thread has fully ended.
    busy: Arc<AtomicBool>,
    /// Set by `stop` and `quit`: a `go infinite` (or a ponder search, also released by
    /// `ponderhit`) sends its `bestmove` only then, even when a node limit or a strength limit
    /// ended the search itself before.
    released: Arc<AtomicBool>,
    debug: bool,
    /// (key of the searched position, best move) of the last search.
    last_best: Arc<Mutex<LastMove>>,
    /// Whether the evaluator in use and its net were named since the engine started or the
    /// evaluator last changed (an `info string` at the first `go`, as Stockfish names its net).
    announced: bool,
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
            player: Player::new(options.hash_mb),
            options,
            game: Game::default(),
            shared: Arc::new(Shared::default()),
            search: None,
            busy: Arc::new(AtomicBool::new(false)),
            released: Arc::new(AtomicBool::new(false)),
            debug: false,
            last_best: Arc::new(Mutex::new(None)),
            announced: false,
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
        self.finish_game();
    }

    /// The game followed ends here (`quit`, end of input, another store).
    fn finish_game(&mut self) {
        let s = self.options.learn_settings(&self.player.eval);
        self.player.finish(&s, self.last_move());
        self.tell();
    }

    /// Says what the player has to say (`info string` lines).
    fn tell(&mut self) {
        for note in self.player.take_notes() {
            info_string(&note);
        }
    }

    /// Whether moves are written king-takes-rook: `UCI_Chess960`, or a position whose
    /// castling standard notation cannot say (a Chess960 start read in standard mode, where
    /// `b1c1` would be both a king move and a castle).
    fn notation960(&self) -> bool {
        self.options.chess960 || self.game.pos.castles().mode().is_chess960()
    }

    fn searching(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    pub fn stop_and_join(&mut self) {
        self.released.store(true, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        let missed = self.shared.pondering.swap(false, Ordering::SeqCst);
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
        // A ponder search stopped without `ponderhit`: its move was never played (the
        // opponent played another), so it is no last move of the game to learn.
        if missed {
            *self.last_best.lock().unwrap_or_else(|e| e.into_inner()) = None;
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
        // Commands in any case (`STOP`, `Go depth 2`): the parser used below for the others
        // reads them so too.
        match cmd.to_ascii_lowercase().as_str() {
            "quit" => {
                self.stop_and_join();
                self.finish_game();
                return false;
            }
            // Waits for the search to end (it sends its bestmove), so that a `setoption` or
            // `go` right after `stop`, as analysis GUIs send them, finds the engine idle.
            "stop" => {
                self.stop_and_join();
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
                        // Said once per start position (a GUI sends it again with each move).
                        if fen_of(&g.start) != fen_of(&self.game.start)
                            || self.game.moves.is_empty() && g.moves.is_empty()
                        {
                            for d in &g.dropped {
                                info_string(&format!("warning: {d}"));
                            }
                        }
                        self.game = g;
                        let s = self.options.learn_settings(&self.player.eval);
                        let last = self.last_move();
                        self.player
                            .follow(&s, &self.game.start, &self.game.moves, last);
                        self.tell();
                    }
                    Err(e) => info_string(&format!("error: {e}; position unchanged")),
                }
                return true;
            }
            "d" => {
                let mut net = self
                    .player
                    .eval
                    .evaluator()
                    .description()
                    .map_or(String::new(), |d| format!("Net: {d}\n"));
                if let Some(m) = self.player.memory_state() {
                    net.push_str(&m);
                    net.push('\n');
                }
                send_multiline(&format!(
                    "{}Fen: {}\nKey: {:016X}\n{net}Evaluator: {}",
                    diagram(&self.game.pos),
                    fen_of(&self.game.pos),
                    hash_of(&self.game.pos),
                    self.player.eval.kind()
                ));
                return true;
            }
            "eval" => {
                info_string(&format!("in use: {}", self.player.eval.line()));
                send_multiline(&eval_report(
                    &self.game.pos,
                    &self.player.eval.context(self.options.store()),
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
                    let r = search::bench::run(depth, 1, self.player.eval.evaluator(), info_string);
                    send(&format!("info string {} nodes {} nps", r.nodes, r.nps()));
                }
                return true;
            }
            "go" if rest
                .split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case("perft")) =>
            {
                let n = rest.split_whitespace().nth(1).unwrap_or("");
                self.perft_command(n);
                return true;
            }
            "go" => {
                let (limits, warnings) = parse_go(rest, &self.game.pos);
                for w in warnings {
                    info_string(&format!("warning: {w}"));
                }
                self.go(limits);
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
                let total = perft::divide(&self.game.pos, d, |m, n| {
                    info_string(&format!("{}: {n}", uci_move(m, self.notation960())))
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
                let s = self.options.learn_settings(&self.player.eval);
                self.player.new_game(&s, self.last_move());
                self.tell();
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
            // The commands `handle` answers before parsing never come here; any other is no
            // command of an engine.
            _ => info_string(&format!("error: '{line}' is not an engine command")),
        }
        true
    }

    /// `setoption`: sets one option and applies what it changes.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), Error> {
        let lname = name.trim().to_ascii_lowercase();
        if lname == "evaluator" {
            // Scores of different evaluators do not mix in the hash table (cleared even when the
            // new evaluator cannot be had: the experience evaluator then falls back).
            self.player.clear_hash();
        }
        if lname == "experiencefile" && value.is_some_and(|v| !v.trim().is_empty()) {
            // The game followed is learned into the store it started with.
            self.finish_game();
        }
        if lname == "evaluator" || lname == "evalfile" {
            self.announced = false;
        }
        let applied = self.options.set(&mut self.player.eval, name, value)?;
        for e in &applied.errors {
            info_string(&format!("error: {e}"));
        }
        for note in &applied.notes {
            info_string(note);
        }
        match applied.hash {
            HashChange::Keep => {}
            HashChange::Clear => self.player.clear_hash(),
            HashChange::Resize(mb) => {
                if let Err(e) = self.player.resize_hash(mb) {
                    self.options.hash_mb = self.player.tt().mb().max(1);
                    info_string(&format!("error: option 'Hash': {e}"));
                }
            }
        }
        if lname == "learning" || lname == "experiencefile" {
            // The search memory starts reading the store now, not at the first `go`.
            let s = self.options.learn_settings(&self.player.eval);
            self.player.prefetch_memory(&s);
            self.tell();
        }
        Ok(())
    }

    /// The last `bestmove` (position key and move).
    fn last_move(&self) -> LastMove {
        *self.last_best.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn go(&mut self, limits: Limits) {
        // A `go` without the `stop` the protocol asks for first (a GUI after a ponder miss):
        // the search before it ends and answers its own `go` first, so every `go` gets one
        // `bestmove`, in order.
        if self.searching() {
            info_string("warning: go during a search: that search is stopped and answers first");
            self.stop_and_join();
        }
        let s = self.options.learn_settings(&self.player.eval);
        if self.options.experience_book
            && !limits.infinite
            && !limits.ponder
            && limits.searchmoves.is_empty()
            && let Some((m, why)) = self.player.book_move(&s, &self.game.pos)
        {
            info_string(&format!(
                "experience book: {} ({why})",
                uci_move(m, self.notation960())
            ));
            *self.last_best.lock().unwrap_or_else(|e| e.into_inner()) =
                Some((hash_of(&self.game.pos), m));
            send(&format!(
                "info depth 0 score cp 0 pv {}",
                uci_move(m, self.notation960())
            ));
            send(&format!("bestmove {}", uci_move(m, self.notation960())));
            return;
        }
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
        if !self.announced {
            if let Some(problem) = crate::eval::default_net_problem() {
                info_string(&format!("error: {problem}"));
            }
            info_string(&self.player.eval.line());
            self.announced = true;
        }
        let skill = self
            .options
            .skill(self.player.eval.kind(), move_seed(&self.game.pos));
        let wdl = if !self.options.show_wdl {
            Wdl::Off
        } else {
            let known = self.player.known_wdl(&s, &self.game.pos);
            if known.is_empty() {
                Wdl::Model
            } else {
                Wdl::Known(known.into())
            }
        };
        let (mut params, inbox) = self.player.prepare(
            &s,
            self.game.pos.clone(),
            self.game.history.clone(),
            limits,
            skill.is_none(),
        );
        self.tell();
        params.threads = self.options.threads;
        params.multipv = self.options.multipv;
        params.move_overhead = self.options.move_overhead;
        params.chess960 = self.notation960();
        params.tablebases = self.options.tablebases.clone();
        params.syzygy = self.options.syzygy;
        params.reporter = Some(reporter(Style {
            chess960: self.notation960(),
            wdl,
        }));
        params.tunables = self.options.tunables.clone();
        params.skill = skill;
        let shared = self.shared.clone();
        shared.stop.store(false, Ordering::SeqCst);
        shared
            .pondering
            .store(params.limits.ponder, Ordering::SeqCst);
        shared.reset_clock();
        let tt = self.player.tt();
        let busy = self.busy.clone();
        busy.store(true, Ordering::SeqCst);
        let released = self.released.clone();
        released.store(false, Ordering::SeqCst);
        let last_best = self.last_best.clone();
        // A search thread the system cannot start (a thread or memory limit) leaves the GUI
        // an answer all the same: a depth-1 search here, on the command thread, keeping its
        // searchmoves. (A failed spawn drops its closure, so the parameters come back whole.)
        let params = Arc::new(params);
        let spawned = std::thread::Builder::new().spawn({
            let (params, shared, tt, busy, released, last_best) = (
                params.clone(),
                shared.clone(),
                tt.clone(),
                busy.clone(),
                released.clone(),
                last_best.clone(),
            );
            move || run_search(&params, &shared, &tt, &busy, &released, &last_best, inbox)
        });
        match spawned {
            Ok(h) => self.search = Some(h),
            Err(e) => {
                info_string(&format!(
                    "error: the search thread cannot start ({e}); searching to depth 1 here"
                ));
                let mut here = Arc::try_unwrap(params).unwrap_or_else(|p| (*p).clone());
                let searchmoves = std::mem::take(&mut here.limits.searchmoves);
                here.limits = Limits {
                    searchmoves,
                    ..Limits::depth(1)
                };
                here.threads = 1;
                shared.pondering.store(false, Ordering::SeqCst);
                run_search(&here, &shared, &tt, &busy, &released, &last_best, None);
            }
        }
    }
}

/// A fresh seed for a limited-strength move choice: the clock and the position.
fn move_seed(pos: &shakmaty::Chess) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ hash_of(pos)
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
/// answers `bestmove`. A root without a legal move is answered as Stockfish does: `info depth 0
/// score mate 0` (checkmated) or `info depth 0 score cp 0` (stalemate) at once, then `bestmove
/// (none)` (after `stop` or `ponderhit` in infinite/ponder mode, like any answer).
fn run_search(
    params: &SearchParams,
    shared: &Shared,
    tt: &TranspositionTable,
    busy: &AtomicBool,
    released: &AtomicBool,
    last_best: &Mutex<LastMove>,
    inbox: Option<Inbox>,
) {
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| search::search(params, shared, tt)));
    if let (Some(inbox), Ok(r)) = (inbox, &outcome) {
        hand_over(&inbox, params, r);
    }
    let result = match outcome {
        Ok(r) => Some(r),
        Err(_) => {
            info_string("error: internal search failure; playing the first legal move");
            None
        }
    };
    if params.root.legal_moves().is_empty() {
        send(if params.root.is_check() {
            "info depth 0 score mate 0"
        } else {
            "info depth 0 score cp 0"
        });
    }
    // In infinite and ponder mode, bestmove waits for stop (or ponderhit), not for the end of
    // the search: a node or strength limit ends it early.
    while !released.load(Ordering::SeqCst)
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
        None => send("bestmove (none)"),
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

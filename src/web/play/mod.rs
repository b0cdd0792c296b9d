//! Games in the browser: a human against Deep Red (a colour, a clock, a strength, an evaluator)
//! or two humans on one board. The server holds each game: it checks every move, keeps the
//! clocks, runs Deep Red's searches on a thread of their own (what they find is shown as they
//! search), and learns a finished game into the store as `deepred play` does (source `web`). A
//! game with a take-back is not learned: its moves are not the game that was played.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use shakmaty::{Chess, Color, Move, Position};

use self::state::{Clock, State, color_name};
use self::types::thinking_of;
pub use self::types::{GameView, NewGame, Side, Thinking};
use super::Error;
use super::explore::{MoveName, Walk, dests};
use crate::chess::notation::{san_of, uci_move};
use crate::chess::pgn::{pgn_date, write_pgn};
use crate::chess::rules::GameResult;
use crate::chess::zobrist::hash_of;
use crate::eval::EvalKind;
use crate::experience::records::GameRecord;
use crate::experience::store::Learned;
use crate::player::evaluator::{EvalChoice, StoreOf};
use crate::player::{DRAW_ACCEPT_CP, LearnSettings, Player, dead_draw, hand_over};
use crate::search::skill::{self, Calibration, Skill};
use crate::search::{Event, Limits, Shared, search};

/// Games kept at once; finished games make room first, then games nobody has asked about for
/// [`IDLE_EVICT`] (a closed browser tab).
const MAX_GAMES: usize = 64;
const IDLE_EVICT: std::time::Duration = std::time::Duration::from_secs(1800);
/// A finished game the store refused (busy, a full disk) is tried again this often, this many
/// times (half an hour).
const LEARN_RETRY: std::time::Duration = std::time::Duration::from_secs(10);
const LEARN_RETRIES: u32 = 180;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking request never leaves a game unusable: its state is whole between statements.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One game in progress.
pub struct Game {
    state: Mutex<State>,
    player: Mutex<Player>,
    shared: Shared,
    thinking: Arc<Mutex<Option<Thinking>>>,
    settings: LearnSettings,
    skill_elo: Option<i64>,
    /// When a request last named this game.
    touched: Mutex<Instant>,
    /// The wait between two tries to learn the game after a failure.
    learn_retry: std::time::Duration,
}

/// What every game gets (the server's settings).
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// Megabytes of hash table per game (each game has its own, so that two games never
    /// mix their searches; [`MAX_GAMES`] of them at most).
    pub hash_mb: usize,
    /// The net file of games whose evaluator is this kind (the server's `--eval-file` with its
    /// `--evaluator`); other kinds use their default net.
    pub eval_file: Option<(EvalKind, PathBuf)>,
}

impl Default for GameSetup {
    fn default() -> GameSetup {
        GameSetup {
            hash_mb: 16,
            eval_file: None,
        }
    }
}

/// The games in progress.
pub struct Games {
    next: AtomicU64,
    map: Mutex<HashMap<u64, Arc<Game>>>,
    store: PathBuf,
    setup: GameSetup,
    /// [`MAX_GAMES`] and [`IDLE_EVICT`] (other values in the tests).
    max_games: usize,
    idle_evict: std::time::Duration,
    /// [`LEARN_RETRY`] (shorter in the tests).
    learn_retry: std::time::Duration,
}

/// The game's state for a request that changes it, its flag checked first: a game that is
/// over (a flag that fell since the last request included) is learned, and the request refused.
fn open_state(game: &Arc<Game>) -> Result<MutexGuard<'_, State>, Error> {
    let mut st = lock(&game.state);
    st.check_flag();
    let Some((r, why)) = &st.ending else {
        return Ok(st);
    };
    let e = Error::BadRequest(format!("the game is over ({}, {why})", r.as_pgn()));
    let unlearned = st.learned.is_none();
    drop(st);
    if unlearned {
        game.shared.stop.store(true, Ordering::SeqCst);
        finish(game);
    }
    Err(e)
}

impl Games {
    pub fn new(store: PathBuf, setup: GameSetup) -> Games {
        Games {
            next: AtomicU64::new(1),
            map: Mutex::new(HashMap::new()),
            store,
            setup,
            max_games: MAX_GAMES,
            idle_evict: IDLE_EVICT,
            learn_retry: LEARN_RETRY,
        }
    }

    fn get(&self, id: u64) -> Result<Arc<Game>, Error> {
        let game = lock(&self.map)
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::NotFound(format!("no game {id}")))?;
        *lock(&game.touched) = Instant::now();
        Ok(game)
    }

    /// Room for one more game: the ended and idle games are dropped (their searches stopped)
    /// when the table is full, and a table still full refuses.
    fn make_room(&self, map: &mut HashMap<u64, Arc<Game>>) -> Result<(), Error> {
        if map.len() >= self.max_games {
            let mut unlearned = Vec::new();
            map.retain(|_, g| {
                let mut st = lock(&g.state);
                st.check_flag();
                let keep = st.ending.is_none() && lock(&g.touched).elapsed() < self.idle_evict;
                if !keep {
                    // Its search stops and none starts again (Deep Red against itself played
                    // on, unseen, holding its hash table); a game that ended (a flag that
                    // fell since the last request included) and was not yet learned is
                    // learned on a thread of its own, not under the table's lock.
                    st.closed = true;
                    g.shared.stop.store(true, Ordering::SeqCst);
                    if st.ending.is_some() && st.learned.is_none() {
                        let g2 = g.clone();
                        if std::thread::Builder::new()
                            .spawn(move || finish(&g2))
                            .is_err()
                        {
                            unlearned.push(g.clone());
                        }
                    }
                }
                keep
            });
            // Games no thread could be started for (a thread or memory limit): learned here,
            // their locks released.
            for g in unlearned {
                finish(&g);
            }
        }
        if map.len() >= self.max_games {
            return Err(Error::TooMany(format!(
                "{} games are in progress; finish one first",
                self.max_games
            )));
        }
        Ok(())
    }

    /// Starts a game; Deep Red moves at once when it has White.
    pub fn create(&self, g: NewGame) -> Result<GameView, Error> {
        let walk = Walk::parse(g.fen.as_deref(), None)?;
        let bad = |what: String| Err(Error::BadRequest(what));
        if walk.position.legal_moves().is_empty() {
            return bad("the position has no legal move: the game is over before it starts".into());
        }
        if let Some(m) = g.minutes
            && !(m.is_finite() && m > 0.0 && m <= 600.0)
        {
            return bad(format!("minutes: {m}, not above 0 and at most 600"));
        }
        if !(g.increment.is_finite() && (0.0..=60.0).contains(&g.increment)) {
            return bad(format!("increment: {}, not between 0 and 60", g.increment));
        }
        if let Some(elo) = g.elo
            && !(skill::ELO_MIN..=skill::ELO_MAX).contains(&elo)
        {
            return bad(format!(
                "elo: {elo}, not between {} and {}",
                skill::ELO_MIN,
                skill::ELO_MAX
            ));
        }
        let movetime_ms = g.movetime_ms.unwrap_or(1000);
        if !(10..=600_000).contains(&movetime_ms) {
            return bad(format!(
                "movetime_ms: {movetime_ms}, not between 10 and 600000"
            ));
        }
        let kind = match g.evaluator.as_deref() {
            None | Some("") => EvalKind::DEFAULT,
            Some(name) => EvalKind::parse(name).map_err(|e| Error::BadRequest(e.to_string()))?,
        };
        let settings = LearnSettings::new(self.store.clone(), true);
        let store = StoreOf {
            path: &self.store,
            min_games: settings.bias.min_games,
        };
        // Asked before the game's hash table is allocated (a refused game costs nothing), and
        // again when it is added (another request may have taken the room meanwhile).
        self.make_room(&mut lock(&self.map))?;
        let mut player = Player::try_new(self.setup.hash_mb).map_err(|e| {
            Error::Rejected(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                format!("no memory for another game: {e}"),
            )
        })?;
        let file = match &self.setup.eval_file {
            Some((k, f)) if *k == kind => Some(f.clone()),
            _ => None,
        };
        player.eval = EvalChoice::of(kind, file, store)
            .map_err(|e| Error::BadRequest(format!("evaluator {kind}: {e}")))?;
        let state = State {
            start: walk.position,
            moves: Vec::new(),
            sides: [g.white, g.black],
            clock: g.minutes.map(|m| Clock {
                left: [(m * 60_000.0) as i64; 2],
                inc: (g.increment * 1000.0) as i64,
                since: Instant::now(),
            }),
            movetime_ms,
            ending: None,
            takebacks: 0,
            learned: None,
            message: None,
            searching: false,
            engine_score: None,
            closed: false,
        };
        let game = Arc::new(Game {
            state: Mutex::new(state),
            player: Mutex::new(player),
            shared: Shared::default(),
            thinking: Arc::new(Mutex::new(None)),
            settings,
            skill_elo: g.elo,
            touched: Mutex::new(Instant::now()),
            learn_retry: self.learn_retry,
        });
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        {
            let mut map = lock(&self.map);
            self.make_room(&mut map)?;
            map.insert(id, game.clone());
        }
        start_engine(&game);
        Ok(view(id, &game))
    }

    pub fn view(&self, id: u64) -> Result<GameView, Error> {
        let game = self.get(id)?;
        let ended = {
            let mut st = lock(&game.state);
            st.check_flag();
            st.ending.is_some() && st.learned.is_none()
        };
        if ended {
            game.shared.stop.store(true, Ordering::SeqCst);
            finish(&game);
        }
        Ok(view(id, &game))
    }

    /// A human's move (UCI or SAN).
    pub fn play(&self, id: u64, text: &str) -> Result<GameView, Error> {
        let game = self.get(id)?;
        {
            let mut st = open_state(&game)?;
            let pos = st.position();
            if st.side(pos.turn()) != Side::Human {
                return Err(Error::BadRequest("it is Deep Red's move".into()));
            }
            let m = crate::chess::notation::parse_move(&pos, text)
                .map_err(|e| Error::BadRequest(format!("move '{text}': {e}")))?;
            st.message = None;
            st.play(m);
        }
        after_move(&game);
        Ok(view(id, &game))
    }

    /// Takes back the last human move (and Deep Red's reply); the game will not be learned.
    pub fn takeback(&self, id: u64) -> Result<GameView, Error> {
        let game = self.get(id)?;
        {
            let mut st = open_state(&game)?;
            // The last move a human made, and every move after it (Deep Red's reply): the
            // human is to move again. A game whose moves are all Deep Red's has none.
            let first = st.start.turn();
            let human_made = |i: usize| {
                let mover = if i.is_multiple_of(2) { first } else { !first };
                st.side(mover) == Side::Human
            };
            let Some(last) = (0..st.moves.len()).rev().find(|&i| human_made(i)) else {
                return Err(Error::BadRequest("no move of yours to take back".into()));
            };
            // Deep Red's search (if it is searching its reply) stops only now: a refused
            // take-back leaves it its time.
            game.shared.stop.store(true, Ordering::SeqCst);
            st.moves.truncate(last);
            st.takebacks += 1;
            st.message = Some("A game with a take-back is not learned.".into());
            if let Some(c) = &mut st.clock {
                c.since = Instant::now();
            }
        }
        *lock(&game.thinking) = None;
        Ok(view(id, &game))
    }

    /// `color` resigns (default: the side to move, or the human against Deep Red).
    pub fn resign(&self, id: u64, color: Option<&str>) -> Result<GameView, Error> {
        let game = self.get(id)?;
        {
            let mut st = open_state(&game)?;
            let turn = st.position().turn();
            let who = match color {
                Some("white") => Color::White,
                Some("black") => Color::Black,
                Some(other) => {
                    return Err(Error::BadRequest(format!(
                        "color: '{other}', not white or black"
                    )));
                }
                None if st.side(turn) == Side::Human => turn,
                None => !turn,
            };
            if st.side(who) != Side::Human {
                return Err(Error::BadRequest("only a human resigns".into()));
            }
            st.ending = Some((
                GameResult::won_by(!who),
                format!("{} resigned", color_name(who)),
            ));
        }
        game.shared.stop.store(true, Ordering::SeqCst);
        finish(&game);
        Ok(view(id, &game))
    }

    /// A draw offer by a human: agreed between two humans; Deep Red accepts when its score is
    /// bad enough or no one can win.
    pub fn draw(&self, id: u64) -> Result<GameView, Error> {
        let game = self.get(id)?;
        let accepted = {
            let mut st = open_state(&game)?;
            if !st.sides.contains(&Side::Human) {
                return Err(Error::BadRequest("only a human offers a draw".into()));
            }
            let engine = st.sides.contains(&Side::Deepred);
            let pos = st.position();
            let accepts =
                !engine || dead_draw(&pos) || st.engine_score.is_some_and(|s| s <= DRAW_ACCEPT_CP);
            if accepts {
                st.ending = Some((GameResult::Draw, "draw agreed".into()));
            } else {
                st.message = Some(format!(
                    "Deep Red declines the draw (its score: {}).",
                    st.engine_score.map_or("unknown".to_string(), |s| format!(
                        "{:+.2}",
                        f64::from(s) / 100.0
                    ))
                ));
            }
            accepts
        };
        if accepted {
            game.shared.stop.store(true, Ordering::SeqCst);
            finish(&game);
        }
        Ok(view(id, &game))
    }

    /// The game as PGN.
    pub fn pgn(&self, id: u64) -> Result<String, Error> {
        let game = self.get(id)?;
        let st = lock(&game.state);
        let [white, black] = st.names();
        let mut tags = vec![
            ("Event", "Deep Red in the browser".to_string()),
            ("Site", "deepred web".to_string()),
            ("Date", pgn_date()),
            ("White", white),
            ("Black", black),
        ];
        if let Some((_, why)) = &st.ending {
            tags.push(("Termination", why.clone()));
        }
        Ok(write_pgn(
            &st.start,
            &st.moves,
            st.ending.as_ref().map(|e| e.0),
            &tags,
        ))
    }
}

/// After a human's move: the end of the game, or Deep Red's turn.
fn after_move(game: &Arc<Game>) {
    if lock(&game.state).ending.is_some() {
        finish(game);
    } else {
        start_engine(game);
    }
}

/// Deep Red's search on a thread of its own when it is to move; its move is played unless the
/// game changed meanwhile (a take-back, a resignation).
fn start_engine(game: &Arc<Game>) {
    let (root, history, limits, epoch) = {
        let mut st = lock(&game.state);
        if st.closed || !st.engine_to_move() || st.searching {
            return;
        }
        st.searching = true;
        // Cleared here, under the game's lock, not in the search's thread: a take-back's stop
        // that comes after this is never undone.
        game.shared.stop.store(false, Ordering::SeqCst);
        let pos = st.position();
        let mut history = Vec::with_capacity(st.moves.len());
        let mut p = st.start.clone();
        for &m in &st.moves {
            history.push(hash_of(&p));
            p.play_unchecked(m);
        }
        let limits = match &st.clock {
            Some(c) => {
                let left = c.left_now(pos.turn());
                Limits {
                    wtime: Some(left[0].max(1) as u64),
                    btime: Some(left[1].max(1) as u64),
                    winc: Some(c.inc as u64),
                    binc: Some(c.inc as u64),
                    ..Limits::default()
                }
            }
            None => Limits {
                movetime: Some(st.movetime_ms),
                ..Limits::default()
            },
        };
        (pos, history, limits, (st.takebacks, st.moves.len()))
    };
    *lock(&game.thinking) = None;
    let spawned = std::thread::Builder::new().spawn({
        let game = game.clone();
        move || think_and_play(game, root, history, limits, epoch)
    });
    // No thread for the search (a thread or memory limit): the game stays usable, the human
    // told, as after a search that failed (a take-back, a resignation or a draw offer).
    if let Err(e) = spawned {
        let mut st = lock(&game.state);
        st.searching = false;
        st.message = Some(format!("Deep Red's search cannot start: {e}."));
    }
}

/// The search thread of [`start_engine`]: Deep Red's move played, unless the game changed
/// meanwhile, then the next search when Deep Red plays itself, or the game learned when over.
fn think_and_play(
    game: Arc<Game>,
    root: Chess,
    history: Vec<u64>,
    limits: Limits,
    epoch: (u32, usize),
) {
    // A search that panics (a position the engine cannot search) leaves the game
    // usable: not searching for ever, the human told, who may resign or offer a draw.
    let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        think(&game, root.clone(), history, limits)
    }));
    let over = {
        let mut st = lock(&game.state);
        st.searching = false;
        let Ok(best) = found else {
            st.message = Some("Deep Red's search failed in this position.".into());
            return;
        };
        if st.ending.is_some() || st.closed {
            return;
        }
        // Its position is the game's still, or the move is not played (a take-back came,
        // and a human move after it): Deep Red starts again on the position there is.
        if (st.takebacks, st.moves.len()) == epoch
            && let Some((m, score)) = best.filter(|(m, _)| root.is_legal(*m))
        {
            st.engine_score = score.or(st.engine_score);
            st.play(m);
        }
        st.ending.is_some()
    };
    if over {
        finish(&game);
    } else {
        // Deep Red against itself on one board: the next move.
        start_engine(&game);
    }
}

/// The book's move, else a search with the thinking reported as it goes.
fn think(
    game: &Game,
    root: Chess,
    history: Vec<u64>,
    limits: Limits,
) -> Option<(Move, Option<i32>)> {
    let mut player = lock(&game.player);
    if let Some((m, _)) = player.book_move(&game.settings, &root) {
        return Some((m, None));
    }
    let skill = game.skill_elo.and_then(|elo| {
        let seed = hash_of(&root) ^ std::process::id() as u64;
        Skill::from_elo(elo, seed, Calibration::of(player.eval.kind().name()))
    });
    let (mut params, inbox) = player.prepare(
        &game.settings,
        root.clone(),
        history,
        limits,
        skill.is_none(),
    );
    params.skill = skill;
    let thinking = game.thinking.clone();
    let at = root.clone();
    params.reporter = Some(Arc::new(move |e: &Event| {
        if let Event::Line {
            depth,
            score,
            nodes,
            pv,
            ..
        } = e
        {
            *lock(&thinking) = Some(thinking_of(&at, *depth, *score, *nodes, pv));
        }
    }));
    game.shared.reset_clock();
    let r = search(&params, &game.shared, &player.tt());
    if let Some(inbox) = inbox {
        hand_over(&inbox, &params, &r);
    }
    r.best.map(|m| (m, Some(r.score)))
}

/// The game ended: learned into the store unless a move was taken back.
fn finish(game: &Arc<Game>) {
    let (record, takebacks) = {
        let mut st = lock(&game.state);
        let Some(result) = st.ending.as_ref().map(|e| e.0) else {
            return;
        };
        if st.learned.is_some() {
            return;
        }
        // Claimed here, under the lock: one request learns the game.
        st.learned = Some("being learned".into());
        let [white, black] = st.names();
        let record = GameRecord {
            source: crate::experience::source::WEB.to_string(),
            white,
            black,
            date: pgn_date(),
            result,
            start: st.start.clone(),
            moves: st.moves.clone(),
            evals: Vec::new(),
        };
        (record, st.takebacks)
    };
    let note = if takebacks > 0 {
        "not learned: a move was taken back".to_string()
    } else if record.moves.is_empty() {
        "not learned: no move was played".to_string()
    } else {
        let mut record = record;
        match learn(game, &mut record) {
            Ok(note) => note,
            Err(e) => {
                // A store another writer holds for longer than its busy timeout, a full disk:
                // the game is kept and tried again, not lost. Its note first (a retry that
                // succeeds at once has the last word), and the game's hash table given back
                // (the game is over; its searches' findings are kept by the learner).
                lock(&game.state).learned = Some(format!(
                    "not learned yet ({e}); tried again every {} s",
                    game.learn_retry.as_secs_f64()
                ));
                let _ = lock(&game.player).resize_hash(1);
                let g = game.clone();
                let retry = std::thread::Builder::new().spawn(move || learn_later(&g, record));
                if let Err(t) = retry {
                    lock(&game.state).learned =
                        Some(format!("not learned: {e}; no thread to try again ({t})"));
                }
                return;
            }
        }
    };
    lock(&game.state).learned = Some(note);
}

/// Tries to learn again after a failure: [`LEARN_RETRIES`] times, [`Game::learn_retry`] apart.
fn learn_later(game: &Game, mut record: GameRecord) {
    for attempt in 1..=LEARN_RETRIES {
        std::thread::sleep(game.learn_retry);
        match learn(game, &mut record) {
            Ok(note) => {
                lock(&game.state).learned = Some(note);
                return;
            }
            Err(e) if attempt == LEARN_RETRIES => {
                lock(&game.state).learned =
                    Some(format!("not learned: {e} (tried {LEARN_RETRIES} times)"));
            }
            Err(_) => {}
        }
    }
}

/// The game into the store (one transaction): what became of it, or why it failed.
fn learn(game: &Game, record: &mut GameRecord) -> Result<String, String> {
    let mut player = lock(&game.player);
    match player.learn_game(&game.settings, record, None) {
        Ok(Learned::New { .. }) => Ok(format!(
            "learned into {}",
            crate::experience::store::shown(&game.settings.store)
        )),
        Ok(Learned::AlreadyKnown) => Ok("already in the store: nothing new to learn".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn view(id: u64, game: &Game) -> GameView {
    let st = lock(&game.state);
    let pos = st.position();
    let mut moves = Vec::with_capacity(st.moves.len());
    let mut p = st.start.clone();
    for &m in &st.moves {
        moves.push(MoveName {
            uci: uci_move(m, false),
            san: san_of(&p, m),
        });
        p.play_unchecked(m);
    }
    let human_to_move = st.ending.is_none() && st.side(pos.turn()) == Side::Human;
    GameView {
        id,
        fen: crate::chess::fen::fen_of(&pos),
        start_fen: crate::chess::fen::fen_of(&st.start),
        moves,
        turn: if pos.turn() == Color::White {
            "white"
        } else {
            "black"
        },
        white: st.sides[0],
        black: st.sides[1],
        dests: if human_to_move {
            dests(&pos)
        } else {
            Default::default()
        },
        clock: st.clock.map(|c| {
            if st.ending.is_some() {
                c.left
            } else {
                c.left_now(pos.turn()).map(|l| l.max(0))
            }
        }),
        result: st.ending.as_ref().map(|e| e.0.as_pgn()),
        termination: st.ending.as_ref().map(|e| e.1.clone()),
        searching: st.searching,
        thinking: lock(&game.thinking).clone(),
        takebacks: st.takebacks,
        learned: st.learned.clone(),
        message: st.message.clone(),
    }
}

mod state;
#[cfg(test)]
mod tests;
mod types;

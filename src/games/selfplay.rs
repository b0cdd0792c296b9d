//! `deepred selfplay`: Deep Red against itself from book openings; every finished game is
//! learned into the experience store and can be written as PGN.
//!
//! Two ways to choose moves:
//! - search (default): the engine's search under a node, depth or time limit per move;
//! - `--explore`: the seed's pure mode: the best known move by the confidence-aware score
//!   when the position is in the store, else a random legal move.
//!
//! Searching with a store, self-play learns as `Learning` does over UCI: the searches start
//! from the search memory and the root bias, and each game is learned with what its searches
//! found and the Q-learning step, through the player ([`crate::player`]).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::{Chess, Move, Position};

use super::Error;
use crate::chess::rules::GameResult;
use crate::chess::rules::rule_result;
use crate::chess::zobrist::hash_of;
use crate::eval::Evaluator;
use crate::experience::book::ranked;
use crate::experience::records::{GameRecord, MoveEval};
use crate::experience::store::{Learned, Store};
use crate::player::learner::search_eval;
use crate::player::{LearnSettings, Player};
use crate::search::{Limits, Shared};

#[derive(Clone, Debug)]
pub struct SelfplayOptions {
    pub games: usize,
    /// Search limits per move (used unless `explore`).
    pub nodes: Option<u64>,
    /// Vary the node limit of each move at random by up to this many percent, so that games
    /// from one opening differ (a fixed node count replays the same game).
    pub nodes_jitter: u32,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    /// EPD/FEN lines to start from (random order); empty: the start position.
    pub openings: Vec<Chess>,
    pub explore: bool,
    /// With `explore`: the chance of a uniformly random move at each ply instead (0: the seed's
    /// pure mode, whose exploration dies out once every game it would play is known).
    pub explore_epsilon: f64,
    pub evaluator: Evaluator,
    pub seed: u64,
    /// Games longer than this are adjudicated drawn.
    pub max_plies: usize,
    pub concurrency: usize,
    pub store: Option<PathBuf>,
    /// Random legal moves played after the opening, before the game starts (variety).
    pub random_plies: usize,
    /// With a store and a search: learn as `Learning` does (the search memory, the root bias,
    /// the Q-learning step); off, only the game and its counts are learned.
    pub learn_searches: bool,
    /// The games' source in the store and their players' name.
    pub source: String,
    pub player: String,
    /// The win/draw/loss counts of a game's first this many plies only (`None`: all).
    pub tree_plies: Option<usize>,
    /// Each finished game is appended to this PGN file at once (a run stopped part-way keeps
    /// the games it finished).
    pub pgn: Option<PathBuf>,
}

impl SelfplayOptions {
    /// Self-play as `deepred selfplay` plays it by default: 20,000 nodes a move from the start
    /// position, learning like `Learning` into `store`.
    pub fn new(evaluator: Evaluator, store: Option<PathBuf>) -> SelfplayOptions {
        SelfplayOptions {
            games: 10,
            nodes: Some(20_000),
            nodes_jitter: 0,
            depth: None,
            movetime_ms: None,
            openings: Vec::new(),
            explore: false,
            explore_epsilon: 0.0,
            evaluator,
            seed: 1,
            max_plies: 400,
            concurrency: 1,
            store,
            random_plies: 0,
            learn_searches: true,
            source: crate::experience::source::SELFPLAY.to_string(),
            player: crate::player::ENGINE_NAME.to_string(),
            tree_plies: None,
            pgn: None,
        }
    }
}

/// A game's start: one of `openings` at random (the start position if there are none), then
/// `random_plies` random legal moves (fewer where the game would end).
pub fn opening(openings: &[Chess], random_plies: usize, rng: &mut StdRng) -> Chess {
    let mut pos = if openings.is_empty() {
        Chess::default()
    } else {
        openings[rng.random_range(0..openings.len())].clone()
    };
    for _ in 0..random_plies {
        let legal = pos.legal_moves();
        if legal.len() < 2 {
            break;
        }
        let m = legal[rng.random_range(0..legal.len())];
        let mut next = pos.clone();
        next.play_unchecked(m);
        // Never into a game the rules have ended or let a side end as a draw (a long random
        // walk gets there).
        if crate::chess::rules::ended_or_drawn(&next) {
            break;
        }
        pos = next;
    }
    pos
}

/// Loads openings from an EPD file: the first four fields of each line, and the move counters
/// where the line has them (a full FEN's last two fields, or EPD's `hmvc` and `fmvn`), else
/// `0 1`.
pub fn load_openings(path: &std::path::Path) -> Result<Vec<Chess>, Error> {
    load_openings_mode(path, false)
}

/// Loads openings from an EPD file, Chess960 castling rights when `chess960`.
pub fn load_openings_mode(path: &std::path::Path, chess960: bool) -> Result<Vec<Chess>, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Blank lines and `#` comments are passed over; any other line is a position or an
        // error (a line of fewer than four fields was passed over without a word).
        if f.is_empty() || f[0].starts_with('#') {
            continue;
        }
        let fen = if f.len() < 4 {
            f.join(" ")
        } else {
            let (halfmoves, fullmoves) = move_counters(&f[4..]);
            format!("{} {halfmoves} {fullmoves}", f[..4].join(" "))
        };
        match crate::chess::fen::parse_fen(&fen, chess960) {
            // A game from it would be over before a move: not an opening.
            Ok(p) if p.is_game_over() => {
                return Err(Error::FinishedOpening {
                    path: path.to_path_buf(),
                    line: i + 1,
                });
            }
            Ok(p) => out.push(p),
            Err(source) => {
                return Err(Error::Opening {
                    path: path.to_path_buf(),
                    line: i + 1,
                    source,
                });
            }
        }
    }
    if out.is_empty() {
        return Err(Error::NoOpenings {
            path: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// The move counters after an EPD line's four position fields: `N M` (a full FEN), or the
/// operations `hmvc N;` and `fmvn M;`; `0 1` for what is missing or not a count (and a
/// half-move count of 100 or more is 0).
fn move_counters(rest: &[&str]) -> (u32, u32) {
    let count = |s: &str| s.trim_end_matches(';').parse::<u32>().ok();
    let op = |name: &str| {
        let at = rest.iter().position(|w| *w == name)?;
        rest.get(at + 1).and_then(|v| count(v))
    };
    let (h, n) = match rest {
        [h, n, ..] if count(h).is_some() && count(n).is_some() => (count(h), count(n)),
        _ => (op("hmvc"), op("fmvn")),
    };
    // A count the fifty-move rule has already ended the game at is no opening's: taken as 0.
    (
        h.filter(|&h| h < 100).unwrap_or(0),
        n.filter(|&n| n >= 1).unwrap_or(1),
    )
}

/// The pure mode's move: the best known move (confidence-aware score) if its record is winning
/// for the mover (above 50%), else a random move not tried yet, else the best known move.
fn choose_explore(pos: &Chess, store: Option<&Store>, rng: &mut StdRng) -> Move {
    let legal = pos.legal_moves();
    let known = store.and_then(|s| ranked(s, pos).ok()).unwrap_or_default();
    if let Some(best) = known.first()
        && best.stats.score_for(pos.turn()) > 0.5
    {
        return best.mv;
    }
    let untried: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| !known.iter().any(|k| k.mv == *m))
        .collect();
    if !untried.is_empty() {
        return untried[rng.random_range(0..untried.len())];
    }
    known
        .first()
        .map_or_else(|| legal[rng.random_range(0..legal.len())], |b| b.mv)
}

/// A node limit `n` varied at random by up to `jitter` percent (at least 1 node).
fn jittered(n: u64, jitter: u32, rng: &mut StdRng) -> u64 {
    let jitter = u128::from(jitter.min(100));
    if jitter == 0 {
        return n;
    }
    // In u128, saturating: `n * 190` wraps in u64 for limits near u64::MAX, and an upper bound
    // below the lower one panics.
    let part = |pct: u128| (u128::from(n) * pct / 100).min(u128::from(u64::MAX)) as u64;
    rng.random_range(part(100 - jitter)..=part(100 + jitter))
        .max(1)
}

/// Plays one game from `start` with `player` (its evaluator; with `Learning` in `settings`,
/// its search memory and root bias, what each search finds kept for [`Player::learn_game`]).
/// Returns the record (result by the rules, or a draw at `max_plies`), each searched move with
/// its search's evaluation.
pub fn play_game(
    start: &Chess,
    opts: &SelfplayOptions,
    player: &mut Player,
    settings: &LearnSettings,
    explore_store: Option<&Store>,
    rng: &mut StdRng,
) -> GameRecord {
    player.clear_hash();
    let shared = Shared::default();
    let mut pos = start.clone();
    let mut moves: Vec<Move> = Vec::new();
    let mut evals: Vec<Option<MoveEval>> = Vec::new();
    let mut history: Vec<u64> = Vec::new();
    let result = loop {
        if let Some(r) = rule_result(start, &moves) {
            break r;
        }
        if moves.len() >= opts.max_plies {
            break GameResult::Draw;
        }
        let (m, eval) = if opts.explore
            && opts.explore_epsilon > 0.0
            && rng.random_bool(opts.explore_epsilon.min(1.0))
        {
            let legal = pos.legal_moves();
            (legal[rng.random_range(0..legal.len())], None)
        } else if opts.explore {
            (choose_explore(&pos, explore_store, rng), None)
        } else {
            let nodes = opts.nodes.map(|n| jittered(n, opts.nodes_jitter, rng));
            let limits = Limits {
                nodes,
                depth: opts.depth,
                movetime: opts.movetime_ms,
                ..Default::default()
            };
            let result = player.think(
                settings,
                &shared,
                pos.clone(),
                history.clone(),
                limits,
                None,
            );
            match result.best {
                Some(m) => (m, Some(search_eval(&result))),
                None => break GameResult::Draw, // unreachable: rule_result saw no end
            }
        };
        history.push(hash_of(&pos));
        pos.play_unchecked(m);
        moves.push(m);
        evals.push(eval);
    };
    GameRecord {
        source: opts.source.clone(),
        white: opts.player.clone(),
        black: opts.player.clone(),
        date: String::new(),
        result,
        start: start.clone(),
        moves,
        evals,
    }
}

/// Games a self-play worker plays between two readings of the search memory (it keeps its own
/// findings meanwhile; the others' arrive at the next reading).
const MEMORY_RELOAD_GAMES: usize = 16;

#[derive(Debug, Default)]
pub struct SelfplayReport {
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
    /// Games new to the store (a game identical to a known one counts once).
    pub learned: usize,
    pub plies: usize,
}

/// Plays `opts.games` games (`opts.concurrency` at a time) and learns each finished game at once.
pub fn run(
    opts: &SelfplayOptions,
    mut progress: impl FnMut(usize) + Send,
) -> Result<SelfplayReport, Error> {
    if let Some(p) = &opts.store {
        // Create the store (and check it) before playing.
        Store::open(p)?;
    }
    let pgn = match &opts.pgn {
        Some(path) => match crate::chess::pgn::open_for_append(path) {
            Ok(f) => Some((f, path.clone())),
            Err(source) => {
                return Err(Error::Open {
                    path: path.clone(),
                    source,
                });
            }
        },
        None => None,
    };
    let shared = Workers {
        next: AtomicUsize::new(0),
        pgn: Mutex::new(pgn),
        report: Mutex::new(SelfplayReport::default()),
        error: Mutex::new(None),
        progress: Mutex::new(&mut progress),
    };
    std::thread::scope(|s| {
        for worker in 0..opts.concurrency.max(1) {
            let shared = &shared;
            s.spawn(move || shared.work(opts, worker));
        }
    });
    if let Some(e) = shared.error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(shared
        .report
        .into_inner()
        .unwrap_or_else(|p| p.into_inner()))
}

/// What the self-play workers share: the next game's number, the report, the first error, and
/// the progress callback.
struct Workers<'a, F: FnMut(usize) + Send> {
    next: AtomicUsize,
    /// The PGN file each finished game is appended to, whole, one game at a time.
    pgn: Mutex<Option<(std::fs::File, PathBuf)>>,
    report: Mutex<SelfplayReport>,
    error: Mutex<Option<Error>>,
    progress: Mutex<&'a mut F>,
}

impl<F: FnMut(usize) + Send> Workers<'_, F> {
    /// One worker: a player of its own plays games until there are enough (or one failed to be
    /// learned), and learns each.
    fn work(&self, opts: &SelfplayOptions, worker: usize) {
        let mut settings = LearnSettings::new(
            opts.store.clone().unwrap_or_default(),
            opts.store.is_some() && opts.learn_searches && !opts.explore,
        );
        let mut player = Player::with_evaluator(opts.evaluator.clone(), 16);
        let explore_store = opts
            .store
            .as_ref()
            .filter(|_| opts.explore)
            .and_then(|p| Store::open_read_only(p).ok());
        for played in 0.. {
            if played % MEMORY_RELOAD_GAMES == 0 && player.sync_memory(&settings).is_err() {
                // Without the memory, the games and their counts are still learned.
                settings.learning = false;
            }
            let i = self.next.fetch_add(1, Ordering::SeqCst);
            if i >= opts.games || self.error.lock().map(|e| e.is_some()).unwrap_or(true) {
                break;
            }
            let mut rng =
                StdRng::seed_from_u64(opts.seed.wrapping_add(i as u64 * 7919 + worker as u64));
            let start = opening(&opts.openings, opts.random_plies, &mut rng);
            let mut game = play_game(
                &start,
                opts,
                &mut player,
                &settings,
                explore_store.as_ref(),
                &mut rng,
            );
            let pgn = crate::chess::pgn::write_pgn(
                &game.start,
                &game.moves,
                Some(game.result),
                &[
                    ("Event", "Deep Red self-play".to_string()),
                    ("Round", (i + 1).to_string()),
                    ("White", game.white.clone()),
                    ("Black", game.black.clone()),
                ],
            );
            let learned = match opts.store.is_some() {
                false => false,
                true => match player.learn_game(&settings, &mut game, opts.tree_plies) {
                    Ok(l) => l != Learned::AlreadyKnown,
                    Err(e) => {
                        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.into());
                        false
                    }
                },
            };
            self.tally(&game, learned, &pgn);
        }
    }

    /// Counts a finished game in the report and tells the progress callback.
    fn tally(&self, game: &GameRecord, learned: bool, pgn: &str) {
        let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
        match game.result {
            GameResult::WhiteWins => r.white_wins += 1,
            GameResult::BlackWins => r.black_wins += 1,
            GameResult::Draw => r.draws += 1,
        }
        r.learned += usize::from(learned);
        r.plies += game.moves.len();
        drop(r);
        let mut file = self.pgn.lock().unwrap_or_else(|p| p.into_inner());
        // A game written in part (a full disk) is cut back out: the file holds whole games.
        if let Some((f, path)) = file.as_mut()
            && let Err(e) = crate::chess::pgn::append_whole(f, pgn)
        {
            let e = Error::PgnWrite(format!("cannot write '{}': {e}", path.display()));
            self.error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
        drop(file);
        let r = self.report.lock().unwrap_or_else(|p| p.into_inner());
        let done = r.white_wins + r.black_wins + r.draws;
        drop(r);
        (self.progress.lock().unwrap_or_else(|p| p.into_inner()))(done);
    }
}

/// The pure mode against a uniformly random mover: `games` games (colours alternating, from
/// `openings` or the start position), the explorer reading `store` (learning nothing), each
/// game drawn at `max_plies`. The tally is the explorer's.
pub fn versus_random(
    store: Option<&Store>,
    openings: &[Chess],
    games: usize,
    max_plies: usize,
    seed: u64,
) -> crate::games::matchrun::Tally {
    let mut tally = crate::games::matchrun::Tally::default();
    let mut rng = StdRng::seed_from_u64(seed);
    for g in 0..games {
        let start = if openings.is_empty() {
            Chess::default()
        } else {
            openings[rng.random_range(0..openings.len())].clone()
        };
        let explorer = if g % 2 == 0 {
            start.turn()
        } else {
            !start.turn()
        };
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let result = loop {
            if let Some(r) = rule_result(&start, &moves) {
                break r;
            }
            if moves.len() >= max_plies {
                break GameResult::Draw;
            }
            let m = if pos.turn() == explorer {
                choose_explore(&pos, store, &mut rng)
            } else {
                let legal = pos.legal_moves();
                legal[rng.random_range(0..legal.len())]
            };
            pos.play_unchecked(m);
            moves.push(m);
        };
        tally.add(match (result, explorer) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::WhiteWins, shakmaty::Color::White)
            | (GameResult::BlackWins, shakmaty::Color::Black) => 1.0,
            _ => 0.0,
        });
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A book line keeps its move counters, in either form; a line without them starts at
    /// `0 1`, and opcodes that are not counters change nothing.
    #[test]
    fn openings_keep_their_move_counters() {
        let path = std::env::temp_dir().join(format!("deepred-book-{}.epd", std::process::id()));
        let lines = [
            (
                "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 3 4",
                "3 4",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
                "0 1",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - hmvc 1; fmvn 2;",
                "1 2",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - bm Nf3; id \"x 7\";",
                "0 1",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 0",
                "0 1",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 150; fmvn 80;",
                "0 80",
            ),
        ];
        let text: Vec<&str> = lines.iter().map(|(l, _)| *l).collect();
        std::fs::write(&path, text.join("\n")).unwrap();
        let openings = load_openings(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        for (pos, (line, counters)) in openings.iter().zip(lines) {
            let fen = crate::chess::fen::fen_of(pos);
            assert!(fen.ends_with(&format!(" {counters}")), "{line}: {fen}");
        }
    }

    /// Blank lines and `#` comments are passed over; a line too short for a position is an
    /// error naming it (it was passed over without a word, and the book quietly smaller).
    #[test]
    fn a_short_line_is_an_error_and_comments_are_not() {
        let path = std::env::temp_dir().join(format!("deepred-short-{}.epd", std::process::id()));
        let good = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";
        std::fs::write(&path, format!("# openings\n\n   \n{good}\n")).unwrap();
        assert_eq!(load_openings(&path).unwrap().len(), 1);
        std::fs::write(&path, format!("{good}\ngarbage line here\n")).unwrap();
        let e = load_openings(&path).unwrap_err().to_string();
        let _ = std::fs::remove_file(&path);
        assert!(e.contains(":2:") && e.contains("garbage line here"), "{e}");
    }

    #[test]
    fn jittered_limits_stay_within_their_share_even_near_the_top() {
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..1000 {
            let n = jittered(1000, 10, &mut rng);
            assert!((900..=1100).contains(&n), "{n}");
        }
        assert_eq!(jittered(1000, 0, &mut rng), 1000);
        assert!(jittered(1, 90, &mut rng) >= 1);
        // 2e17 * 190 wrapped in u64 and the range panicked.
        for n in [200_000_000_000_000_000, u64::MAX] {
            let j = jittered(n, 90, &mut rng);
            assert!(j >= n / 100 * 10, "{n}: {j}");
        }
    }
}

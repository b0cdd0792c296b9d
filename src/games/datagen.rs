//! `deepred datagen`: training positions from Deep Red's own games, for the learned value net.
//!
//! Games: from a book opening (or the start position) plus a few random plies (so that games
//! differ), Deep Red plays both sides at a fixed node count with the chosen evaluator (pst for
//! generation 1, the previous net for the next). Every position where the side to move is not
//! in check, the search's best move is quiet (no capture, no promotion), the ply is past the
//! opening plies and the score is not a mate or tablebase score is written with the search's
//! score and, once the game is over, its result.
//!
//! Format: bulletformat's `ChessBoard`, 32 bytes a position (see `chess::bullet`), read by the
//! bullet trainer and by `deepred train learned`.
//!
//! Deterministic by seed: game `i` depends on the seed and `i` only, whatever the number of
//! threads, and games are written in order. Resumable: `<out>.progress` records the games and
//! bytes written (after each game, with the file flushed); a run with the same settings goes on
//! from there, cutting off anything written after the last recorded game.
//!
//! `--pgn`: every game is also written whole, as PGN, in the same order and resumed the same
//! way. The positions file keeps only quiet best moves (what a value net trains on); Deep Pink's
//! triplets (the move played against a random one) need every move, captures included.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::{Chess, Color, Position};

use super::Error;
use crate::chess::bullet::{ChessBoard, RECORD, board_of, to_bytes};
use crate::chess::notation::encode_move;
use crate::chess::pgn::write_pgn;
use crate::chess::rules::{GameResult, rule_result};
use crate::chess::score::TB_WIN_BOUND;
use crate::chess::zobrist::hash_of;
use crate::eval::Evaluator;
use crate::player::{LearnSettings, Player};
use crate::search::{Limits, Shared};

#[derive(Clone, Debug)]
pub struct DatagenOptions {
    pub games: usize,
    pub nodes: u64,
    /// Openings to start from (one at random per game); empty: the start position.
    pub openings: Vec<Chess>,
    /// Random legal moves played after the opening, before Deep Red plays.
    pub random_plies: usize,
    /// Positions of the first plies of a game (counted from its start) are not written.
    pub skip_plies: usize,
    pub evaluator: Evaluator,
    /// The evaluator's name and net, for the progress file (a resumed run must use the same).
    pub evaluator_text: String,
    pub seed: u64,
    pub threads: usize,
    /// Games longer than this are adjudicated drawn.
    pub max_plies: usize,
    pub out: PathBuf,
    /// Every game, whole, as PGN (from the position after the random plies).
    pub pgn: Option<PathBuf>,
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DatagenReport {
    /// Games in the file, this run's and a resumed run's earlier ones.
    pub games: usize,
    pub positions: u64,
    /// Of them, written by this run.
    pub new_games: usize,
    pub new_positions: u64,
    pub seconds: f64,
}

/// One game's records, and the game as PGN when `opts.pgn` asks for it.
fn play(opts: &DatagenOptions, index: usize) -> (Vec<ChessBoard>, String) {
    // A seed per game: the same game whatever the thread that plays it.
    let mut rng = StdRng::seed_from_u64(
        opts.seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(index as u64),
    );
    let mut pos = if opts.openings.is_empty() {
        Chess::default()
    } else {
        opts.openings[rng.random_range(0..opts.openings.len())].clone()
    };
    for _ in 0..opts.random_plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mut next = pos.clone();
        next.play_unchecked(legal[rng.random_range(0..legal.len())]);
        // Never into a game the rules have ended or let a side end as a draw: such a game
        // gave no position.
        if crate::chess::rules::ended_or_drawn(&next) {
            break;
        }
        pos = next;
    }
    let start = pos.clone();
    if start.legal_moves().is_empty() {
        return (Vec::new(), String::new());
    }
    // A player of its own per game (a fresh hash table: the same game whatever the thread),
    // learning nothing: the records are the data.
    let mut player = Player::with_evaluator(opts.evaluator.clone(), 16);
    let settings = LearnSettings::new(std::path::PathBuf::new(), false);
    let shared = Shared::default();
    let mut moves = Vec::new();
    let mut history = Vec::new();
    // (position, white-relative score, best move code) of the positions to write.
    let mut kept: Vec<(Chess, i16, u16)> = Vec::new();
    let result = loop {
        if let Some(r) = rule_result(&start, &moves) {
            break r;
        }
        if moves.len() >= opts.max_plies {
            break GameResult::Draw;
        }
        let limits = Limits {
            nodes: Some(opts.nodes),
            ..Default::default()
        };
        let r = player.think(
            &settings,
            &shared,
            pos.clone(),
            history.clone(),
            limits,
            None,
        );
        let Some(best) = r.best else {
            break GameResult::Draw;
        };
        let quiet = !best.is_capture() && best.promotion().is_none();
        let decided = r.score.abs() >= TB_WIN_BOUND;
        if moves.len() >= opts.skip_plies && !pos.is_check() && quiet && !decided {
            let score = r.score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX));
            let white = if pos.turn() == Color::White {
                score
            } else {
                -score
            };
            kept.push((pos.clone(), white as i16, encode_move(&best)));
        }
        history.push(hash_of(&pos));
        pos.play_unchecked(best);
        moves.push(best);
    };
    let white_result = match result {
        GameResult::WhiteWins => 1.0,
        GameResult::BlackWins => 0.0,
        GameResult::Draw => 0.5,
    };
    let pgn = if opts.pgn.is_some() {
        let player = format!("deepred {} {} nodes", opts.evaluator.name(), opts.nodes);
        write_pgn(
            &start,
            &moves,
            Some(result),
            &[
                ("Event", "deepred datagen".to_string()),
                ("Round", (index + 1).to_string()),
                ("White", player.clone()),
                ("Black", player),
            ],
        )
    } else {
        String::new()
    };
    let boards = kept
        .into_iter()
        .map(|(p, score, mv)| board_of(&p, score, white_result, mv))
        .collect();
    (boards, pgn)
}

/// The settings a resumed run must share with the run it continues: the openings by their
/// positions (another book of as many lines is another run), the PGN file by its name (a
/// resume cuts that file back to the run's length: another file must not be cut).
fn settings(opts: &DatagenOptions) -> String {
    let book = opts
        .openings
        .iter()
        .fold(opts.openings.len() as u64, |h, p| {
            h.rotate_left(7) ^ hash_of(p)
        });
    let pgn = opts
        .pgn
        .as_ref()
        .map(|p| {
            format!(
                " pgn {}",
                std::path::absolute(p).unwrap_or(p.clone()).display()
            )
        })
        .unwrap_or_default();
    format!(
        "seed {} nodes {} random_plies {} skip_plies {} max_plies {} openings {} {book:016x} evaluator {}{pgn}",
        opts.seed,
        opts.nodes,
        opts.random_plies,
        opts.skip_plies,
        opts.max_plies,
        opts.openings.len(),
        opts.evaluator_text
    )
}

/// A file's contents as 64 bits (FNV-1a), for the settings of a run that reads it (a net
/// replaced under the same name is another run).
pub fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Records the progress (`settings`: the run's, computed once): a new file renamed over the
/// old one, so that a run killed while writing it leaves the old record, never an empty one.
fn write_progress(
    out: &Path,
    settings: &str,
    games: usize,
    bytes: u64,
    pgn_bytes: u64,
) -> Result<(), Error> {
    let path = progress_path(out);
    let text = format!("{settings}\n{games}\n{bytes}\n{pgn_bytes}\n");
    crate::chess::files::write_replacing(&path, text.as_bytes()).map_err(io_error(&path))
}

/// `--pgn` naming `--out` or its progress file would write games over the records.
fn check_paths(opts: &DatagenOptions) -> Result<(), Error> {
    let Some(pgn) = &opts.pgn else { return Ok(()) };
    let same = crate::chess::files::one_file;
    if same(pgn, &opts.out) || same(pgn, &progress_path(&opts.out)) {
        return Err(Error::Datagen(format!(
            "--pgn '{}' is the positions file or its progress file; choose another --pgn",
            pgn.display()
        )));
    }
    Ok(())
}

/// `<out>.progress`: settings, games done, bytes and positions written.
fn progress_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".progress");
    PathBuf::from(p)
}

/// Games done, bytes of `out` and bytes of the PGN file (0 without one) that they fill.
fn read_progress(
    out: &Path,
    opts: &DatagenOptions,
    settings: &str,
) -> Result<(usize, u64, u64), Error> {
    let p = progress_path(out);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        // A run killed before it recorded anything left an empty file at most.
        Err(_) if std::fs::metadata(out).map_or(true, |m| m.is_file() && m.len() == 0) => {
            // A fresh run: never write over a PGN file that holds something.
            if let Some(pgn) = &opts.pgn
                && std::fs::metadata(pgn).is_ok_and(|m| m.len() > 0)
            {
                return Err(Error::Datagen(format!(
                    "'{}' already exists and '{}' is a new run; choose another --pgn",
                    pgn.display(),
                    out.display()
                )));
            }
            return Ok((0, 0, 0));
        }
        Err(_) => {
            return Err(Error::Datagen(format!(
                "'{}' exists but has no '{}': not a datagen output to resume; choose another --out",
                out.display(),
                p.display()
            )));
        }
    };
    let mut lines = text.lines();
    let found = lines.next().unwrap_or_default();
    if found.is_empty() {
        return Err(Error::Datagen(format!(
            "'{}' is empty or corrupt: the run cannot be resumed; start again with another --out (or remove both files)",
            p.display()
        )));
    }
    if found != settings {
        // Records of Deep Red before 2026-11-27 name neither the book's positions nor the PGN.
        let older = if found.split(' ').nth(12) == Some("evaluator") {
            " (written by an older Deep Red, which did not record the book's positions: finish it with that version)"
        } else {
            ""
        };
        return Err(Error::Datagen(format!(
            "'{}' was generated with other settings ({found}){older}; resume with those or choose another --out",
            out.display()
        )));
    }
    let games = lines.next().and_then(|l| l.parse().ok());
    let bytes = lines.next().and_then(|l| l.parse().ok());
    let pgn_bytes = match opts.pgn {
        Some(_) => lines.next().and_then(|l| l.parse().ok()),
        None => Some(0),
    };
    let Some((g, b, pb)) = games
        .zip(bytes)
        .zip(pgn_bytes)
        .map(|((g, b), pb)| (g, b, pb))
    else {
        return Err(Error::Datagen(format!("'{}' is corrupt", p.display())));
    };
    // The files hold at least what the progress record counts (a run killed while writing
    // leaves more, cut back on resume): a shorter or missing one is not this run's, and is
    // neither padded nor cut.
    let short = |path: &Path, want: u64| {
        let len = std::fs::metadata(path).map_or(None, |m| Some(m.len()));
        match len {
            Some(len) if len >= want => Ok(()),
            None if want == 0 => Ok(()), // killed before the file was made
            _ => Err(Error::Datagen(format!(
                "'{}' holds {} bytes where '{}' counts {want}: not this run's output; \
                 put back the run's files to resume it, or start a new run with another --out",
                path.display(),
                len.map_or("no".to_string(), |l| l.to_string()),
                p.display()
            ))),
        }
    };
    short(out, b)?;
    if let Some(pgn) = &opts.pgn {
        short(pgn, pb)?;
    }
    Ok((g, b, pb))
}

/// An I/O error on `path` as a datagen error that names the file.
fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + Copy + '_ {
    move |e| Error::Datagen(format!("'{}': {e}", path.display()))
}

/// Plays the games not yet in `opts.out` and appends their positions. `progress(games done,
/// positions written)` after each game. `stop` ends the run after the games being played.
pub fn run(
    opts: &DatagenOptions,
    stop: &AtomicBool,
    mut progress: impl FnMut(usize, u64) + Send,
) -> Result<DatagenReport, Error> {
    let t0 = std::time::Instant::now();
    check_paths(opts)?;
    let settings = settings(opts);
    let (done, bytes, pgn_bytes) = read_progress(&opts.out, opts, &settings)?;
    let io = io_error(&opts.out);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&opts.out)
        .map_err(io)?;
    // Anything after the last recorded game (a run killed while writing) goes.
    file.set_len(bytes).map_err(io)?;
    let mut file = std::io::BufWriter::new(file);
    use std::io::Seek;
    file.seek(std::io::SeekFrom::End(0)).map_err(io)?;
    let mut pgn_file = match &opts.pgn {
        Some(path) => {
            let io = io_error(path);
            let f = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(false)
                .open(path)
                .map_err(io)?;
            f.set_len(pgn_bytes).map_err(io)?;
            let mut f = std::io::BufWriter::new(f);
            f.seek(std::io::SeekFrom::End(0)).map_err(io)?;
            Some((f, io))
        }
        None => None,
    };
    // Recorded once both files are made and cut (a run stopped before this left an empty
    // --out at most, which is a new run): from here a kill at any moment resumes.
    write_progress(&opts.out, &settings, done, bytes, pgn_bytes)?;
    let record = RECORD as u64;
    let mut report = DatagenReport {
        games: done,
        positions: bytes / record,
        ..Default::default()
    };
    let next = AtomicUsize::new(done);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, (Vec<ChessBoard>, String))>();
    let written: Result<(), Error> = std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || {
                loop {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= opts.games {
                        break;
                    }
                    if tx.send((i, play(opts, i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Games in order: a finished game waits for the ones before it.
        let mut waiting: BTreeMap<usize, (Vec<ChessBoard>, String)> = BTreeMap::new();
        let mut expect = done;
        let mut bytes = bytes;
        let mut pgn_bytes = pgn_bytes;
        for (i, game) in rx {
            waiting.insert(i, game);
            while let Some((boards, pgn)) = waiting.remove(&expect) {
                for b in &boards {
                    file.write_all(&to_bytes(b)).map_err(io)?;
                }
                file.flush().map_err(io)?;
                if let Some((f, pgn_io)) = pgn_file.as_mut() {
                    f.write_all(pgn.as_bytes()).map_err(*pgn_io)?;
                    f.flush().map_err(*pgn_io)?;
                    pgn_bytes += pgn.len() as u64;
                }
                bytes += boards.len() as u64 * record;
                expect += 1;
                report.games = expect;
                report.new_games += 1;
                report.positions += boards.len() as u64;
                report.new_positions += boards.len() as u64;
                write_progress(&opts.out, &settings, expect, bytes, pgn_bytes)?;
                progress(report.games, report.positions);
            }
        }
        Ok(())
    });
    written?;
    report.seconds = t0.elapsed().as_secs_f64();
    Ok(report)
}

//! OpenBench's datagen protocol: `deepred "genfens N seed S book <None|FILE> [plies P]" quit`
//! prints N opening positions, each as `info string genfens <FEN>`, for OpenBench to hand out as
//! the openings of a datagen workload (its client reads the lines that start with `info string
//! genfens ` and keeps the text after `genfens `).
//!
//! An opening: a random line of the book (or the start position), then random legal moves
//! (`P`, default 8 from the start position and 2 from a book line), kept when a short search
//! finds it balanced (within [`MAX_CP`]) and not over. Deterministic by seed.

use std::path::PathBuf;

use rand::SeedableRng;
use rand::rngs::StdRng;
use shakmaty::{Chess, Position};

use super::selfplay::{load_openings, opening};
use crate::eval::Evaluator;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchParams, Shared, search};

/// A kept opening is scored within this many centipawns by a short search.
pub const MAX_CP: i32 = 300;
/// Nodes of that search.
pub const NODES: u64 = 2_000;
/// The most openings one command prints (OpenBench asks for thousands at a time; each is
/// printed as it is found, none held).
pub const MAX_COUNT: usize = 10_000_000;

/// A `genfens` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: usize,
    pub seed: u64,
    pub book: Option<PathBuf>,
    /// Random plies after the book line or the start position.
    pub plies: Option<usize>,
    /// Words after the book that mean nothing here (OpenBench passes a test's own words on),
    /// for the caller to name in a warning.
    pub ignored: Vec<String>,
}

/// Reads `genfens N seed S book <None|FILE> [plies P]` (OpenBench may add its own words after
/// the book; unknown ones are kept in [`Request::ignored`]).
pub fn parse(command: &str) -> Result<Request, String> {
    let w: Vec<&str> = command.split_whitespace().collect();
    let bad = || {
        format!(
            "'{command}': expected 'genfens N seed S book <None|FILE>' (then optionally 'plies P')"
        )
    };
    if w.len() < 6 || w[0] != "genfens" || w[2] != "seed" || w[4] != "book" {
        return Err(bad());
    }
    let count: usize = w[1].parse().map_err(|_| bad())?;
    if count > MAX_COUNT {
        return Err(format!("'{command}': N is at most {MAX_COUNT}"));
    }
    let seed = w[3].parse().map_err(|_| bad())?;
    let book = (!w[5].eq_ignore_ascii_case("none")).then(|| PathBuf::from(w[5]));
    let (mut plies, mut ignored) = (None, Vec::new());
    let mut rest = w[6..].iter();
    while let Some(&word) = rest.next() {
        if word == "plies" {
            plies = Some(rest.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?);
        } else {
            ignored.push(word.to_string());
        }
    }
    Ok(Request {
        count,
        seed,
        book,
        plies,
        ignored,
    })
}

/// The openings of `req`, searched with `evaluator` to keep balanced ones, handed to `emit` one
/// by one as they are found (it was a list of all of them: 10 million openings held in memory,
/// and nothing printed for hours). `emit` returning `false` stops it (a closed output).
pub fn generate(
    req: &Request,
    evaluator: &Evaluator,
    mut emit: impl FnMut(&Chess) -> bool,
) -> Result<(), super::Error> {
    let book = match &req.book {
        Some(p) => load_openings(p)?,
        None => Vec::new(),
    };
    let plies = req.plies.unwrap_or(if book.is_empty() { 8 } else { 2 });
    let mut rng = StdRng::seed_from_u64(req.seed);
    let tt = TranspositionTable::new(1);
    let shared = Shared::default();
    let mut found = 0;
    // Give up on balance after many tries (a book of lost positions): keep what comes.
    let mut tries = 0;
    while found < req.count {
        tries += 1;
        let pos = opening(&book, plies, &mut rng);
        if pos.is_game_over() {
            continue;
        }
        if tries < 100 * req.count.max(1) {
            tt.clear();
            let mut params = SearchParams::new(
                pos.clone(),
                Limits {
                    nodes: Some(NODES),
                    ..Default::default()
                },
            );
            params.evaluator = evaluator.clone();
            shared
                .stop
                .store(false, std::sync::atomic::Ordering::SeqCst);
            if search(&params, &shared, &tt).score.abs() > MAX_CP {
                continue;
            }
        }
        found += 1;
        if !emit(&pos) {
            break;
        }
    }
    Ok(())
}

//! A mutation fuzzer over the PGN importer: real games (tests/data) get random edits (a byte
//! dropped, changed or not UTF-8, a line deleted, moves swapped, the text cut, stray comment,
//! variation and tag brackets, bad SAN), some certainly illegal (a king move through its own pawn
//! before the first move); the file is imported into a fresh store by the real importer, in
//! small batches. Then:
//! - nothing panicked, and every game read was learned, already known or reported;
//! - every certainly illegal game was reported, naming its move;
//! - nothing was half-learned: the store holds exactly what learning each game the reader and
//!   `to_record` accept, whole, in one transaction, gives (a store built game by game compared
//!   row by row), so a reported game left no row behind and a learned one lost none.
//!
//! `DEEPRED_PGN_FUZZ_ROUNDS` (default 6, 500 games each) and `DEEPRED_PGN_FUZZ_SEED` change the
//! run.

mod common;

use std::path::Path;

use common::data;
use deepred::chess::pgn::read_games;
use deepred::experience::import::{import, to_record};
use deepred::experience::store::Store;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use shakmaty::Color;

const GARBAGE: &[&str] = &[
    " {",
    " }",
    " (",
    " )",
    " [",
    " ]",
    " $",
    " Qxz9 ",
    " O-O-O ",
    " e9 ",
    "\u{0}",
    " 1-0 ",
    " * ",
    "\n[Event \"x\"]\n",
    " ;",
    "\n%",
    " ♞ ",
    " 1... ",
    " Nxx ",
    " e8=K ",
    "\r",
    " --- ",
];

/// The illegal first move the fuzzer plants: White's king cannot go through its own pawn.
const ILLEGAL: &str = "Ke2";

fn mutate(rng: &mut StdRng, game: &str) -> (Vec<u8>, bool) {
    let mut b = game.as_bytes().to_vec();
    let movetext = game.find("\n\n").map_or(0, |i| i + 2);
    match rng.random_range(0..9) {
        0 => {
            let i = rng.random_range(0..b.len());
            b.remove(i);
        }
        1 => {
            let i = rng.random_range(0..b.len());
            b[i] = rng.random();
        }
        2 | 3 => {
            let i = rng.random_range(0..=b.len());
            let g = GARBAGE.choose(rng).unwrap().as_bytes();
            b.splice(i..i, g.iter().copied());
        }
        4 => {
            let i = rng.random_range(movetext..b.len());
            b.truncate(i);
        }
        5 => {
            let mut lines: Vec<&str> = game.lines().collect();
            let i = rng.random_range(0..lines.len());
            lines.remove(i);
            b = lines.join("\n").into_bytes();
        }
        6 => {
            let mut words: Vec<&str> = game[movetext..].split(' ').collect();
            let (i, j) = (
                rng.random_range(0..words.len()),
                rng.random_range(0..words.len()),
            );
            words.swap(i, j);
            b = format!("{}{}", &game[..movetext], words.join(" ")).into_bytes();
        }
        _ => return (plant(game), true),
    }
    (b, false)
}

/// `game` with the illegal move before its first move.
fn plant(game: &str) -> Vec<u8> {
    let movetext = game.find("\n\n").map_or(0, |i| i + 2);
    format!("{}1.{ILLEGAL} {}", &game[..movetext], &game[movetext..]).into_bytes()
}

fn sorted_rows(store: &Store) -> Vec<(Color, deepred::experience::store::StoredRow)> {
    let mut rows = Vec::new();
    for c in [Color::White, Color::Black] {
        rows.extend(store.all_rows(c).unwrap().into_iter().map(|r| (c, r)));
    }
    rows.sort_by_key(|(c, r)| (c.is_white(), r.clone()));
    rows
}

fn fresh(path: &Path) -> Store {
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
    Store::open(path).unwrap()
}

#[test]
fn mutated_pgn_is_reported_and_never_half_learned() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let rounds = env("DEEPRED_PGN_FUZZ_ROUNDS", 6);
    let seed = env("DEEPRED_PGN_FUZZ_SEED", 20261123);
    let text = std::fs::read_to_string(data("pgn/games/Korchnoi_first500.pgn")).unwrap();
    let games: Vec<String> = text
        .split("\n[Event ")
        .enumerate()
        .map(|(i, g)| {
            if i == 0 {
                g.to_string()
            } else {
                format!("[Event {g}")
            }
        })
        .collect();
    assert!(games.len() >= 400, "{} games", games.len());

    let dir = std::env::temp_dir().join(format!("deepred-pgn-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut total_read, mut total_reported, mut total_learned) = (0, 0, 0);
    for round in 0..rounds {
        // One file of random edits, and one of whole games with the illegal move planted in
        // every other one (in the first file an edit may swallow the game after it, by an open
        // comment say, so only the second counts planted games exactly).
        let mut mixed = Vec::new();
        let mut planted = Vec::new();
        let mut n_planted = 0;
        for (i, g) in games.iter().enumerate() {
            let bytes = if rng.random_bool(0.6) {
                mutate(&mut rng, g).0
            } else {
                g.clone().into_bytes()
            };
            mixed.extend_from_slice(&bytes);
            mixed.extend_from_slice(b"\n\n");
            if i % 5 == 0 {
                let bytes = if i % 10 == 0 {
                    n_planted += 1;
                    plant(g)
                } else {
                    g.clone().into_bytes()
                };
                planted.extend_from_slice(&bytes);
                planted.extend_from_slice(b"\n\n");
            }
        }
        let files = [
            dir.join(format!("round{round}.pgn")),
            dir.join(format!("planted{round}.pgn")),
        ];
        std::fs::write(&files[0], &mixed).unwrap();
        std::fs::write(&files[1], &planted).unwrap();
        let context = format!("seed {seed}, round {round} ({})", files[0].display());

        let mut store = fresh(&dir.join("imported.sqlite"));
        let report = import(&mut store, &files, 16, false)
            .unwrap_or_else(|e| panic!("{context}: import failed: {e}"));
        assert_eq!(
            report.games_read,
            report.learned + report.already_known + report.skipped.len(),
            "{context}: a game was neither learned nor reported"
        );
        let illegal = report
            .skipped
            .iter()
            .filter(|s| {
                s.contains("planted")
                    && s.contains(&format!(
                        "ply 1: illegal or ambiguous move: illegal san ('{ILLEGAL}')"
                    ))
            })
            .count();
        assert_eq!(
            illegal, n_planted,
            "{context}: planted illegal games against reported: {:#?}",
            report.skipped
        );
        assert!(
            report
                .skipped
                .iter()
                .all(|s| s.contains("round") || s.contains("planted"))
        );

        // The reference: each game the reader and to_record accept, learned whole, in order.
        let accepted: Vec<_> = [&mixed, &planted]
            .into_iter()
            .flat_map(|f| read_games(&f[..]))
            .filter_map(|g| to_record("round.pgn", g.ok()?).ok())
            .map(|r| {
                let rows = r.rows();
                (r, rows)
            })
            .collect();
        let mut reference = fresh(&dir.join("reference.sqlite"));
        reference.learn(&accepted).unwrap();
        assert_eq!(
            store.game_count().unwrap(),
            reference.game_count().unwrap(),
            "{context}"
        );
        assert_eq!(
            report.learned as u64,
            store.game_count().unwrap(),
            "{context}"
        );
        assert!(
            sorted_rows(&store) == sorted_rows(&reference),
            "{context}: the imported store differs from learning the accepted games one by one"
        );
        total_read += report.games_read;
        total_reported += report.skipped.len();
        total_learned += report.learned;
    }
    // The mutations must break many games and leave many learnable, or this tests little.
    assert!(
        total_reported * 5 > total_read,
        "{total_reported} of {total_read} reported"
    );
    assert!(
        total_learned * 3 > total_read,
        "{total_learned} of {total_read} learned"
    );
    eprintln!(
        "pgn fuzz: {total_read} games read, {total_learned} learned, {total_reported} reported, seed {seed}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

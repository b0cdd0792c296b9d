//! The board codecs round-trip on every position of the test game collections (master, engine,
//! world championship, Sunfish and Stockfish self-play games, FEN starts, Chess960), and the
//! compact key is at least 60% smaller than the 64-character board string.

use std::ops::ControlFlow;
use std::path::PathBuf;

use deepred::chess::pgn::read_games;
use deepred::experience::codec::{board_string, compact_key, decode_key, parse_board_string};
use pgn_reader::{Reader, SanPlus, Visitor};
use rayon::prelude::*;

mod common;

/// Every PGN file of tests/data/pgn/games, and the Chess960 files of the robustness set.
fn files() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(common::data("pgn/games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    out.sort();
    assert!(out.len() >= 7, "{out:?}");
    for name in [
        "pychess_chess960rwch.pgn",
        "pythonchess_cutechess-fischerrandom.pgn",
    ] {
        out.push(common::data(&format!("pgn/robustness/{name}")));
    }
    out
}

/// Counts the main-line moves pgn-reader sees (variations are skipped by default).
struct SanCounter(u64);

impl Visitor for SanCounter {
    type Tags = ();
    type Movetext = ();
    type Output = ();
    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn san(&mut self, _: &mut (), _: SanPlus) -> ControlFlow<()> {
        self.0 += 1;
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, _: ()) {}
}

/// An independent count of a file's games and positions, without Deep Red's reader: a game
/// starts at each `[Event ` line, and has one position more than pgn-reader finds moves in it.
fn independent_count(text: &str) -> (usize, u64) {
    let mut games = 0;
    let mut positions = 0;
    for chunk in text.split("\n[Event ").skip(1) {
        games += 1;
        let mut counter = SanCounter(0);
        let mut reader = Reader::new(chunk.as_bytes());
        while reader.read_game(&mut counter).unwrap().is_some() {}
        positions += counter.0 + 1;
    }
    (games, positions)
}

#[test]
fn codecs_round_trip_on_every_position_of_the_test_games() {
    let mut positions = 0u64;
    let mut key_bytes = 0u64;
    let mut chess960 = 0;
    for path in files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect(&name);
        // A leading newline so that the first game splits like the others.
        let (expected_games, expected_positions) = independent_count(&format!("\n{text}"));
        let games = read_games(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let ok: Vec<_> = games.iter().filter_map(|g| g.as_ref().ok()).collect();
        let bad: Vec<_> = games.iter().filter_map(|g| g.as_ref().err()).collect();
        // Every game of these files is a real, legal game.
        assert_eq!(ok.len() + bad.len(), expected_games, "{name}");
        assert!(bad.is_empty(), "{name}: {:?}", &bad[..bad.len().min(3)]);
        chess960 += ok.iter().filter(|g| g.chess960).count();
        let (n, bytes) = ok
            .par_iter()
            .map(|g| {
                let mut n = 0u64;
                let mut bytes = 0u64;
                for pos in g.positions() {
                    let s = board_string(shakmaty::Position::board(&pos));
                    assert_eq!(
                        &parse_board_string(&s).unwrap(),
                        shakmaty::Position::board(&pos)
                    );
                    let key = compact_key(&pos);
                    let back = decode_key(&key)
                        .unwrap_or_else(|e| panic!("{name} game {}: {e}", g.number));
                    assert_eq!(back, pos, "{name} game {}", g.number);
                    n += 1;
                    bytes += key.len() as u64;
                }
                (n, bytes)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_eq!(n, expected_positions, "{name}: positions");
        positions += n;
        key_bytes += bytes;
    }
    let avg = key_bytes as f64 / positions as f64;
    eprintln!(
        "{positions} positions, average compact key {avg:.2} bytes = {:.1}% smaller than 64 characters",
        100.0 * (1.0 - avg / 64.0)
    );
    assert_eq!(chess960, 24, "the Chess960 games were read as Chess960");
    assert!(positions > 150_000, "{positions}");
    assert!(
        avg <= 64.0 * 0.4,
        "average key {avg:.2} bytes is not 60% smaller than 64"
    );
}

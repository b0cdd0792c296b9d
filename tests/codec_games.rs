//! The board codecs round-trip on every position of the shared game collections, and the
//! compact key is at least 60% smaller than the 64-character board string.

use std::path::PathBuf;

use deepred::chess::pgn::read_games;
use deepred::experience::codec::{board_string, compact_key, decode_key, parse_board_string};
use rayon::prelude::*;

fn games_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pgn/games")
}

#[test]
fn codecs_round_trip_on_all_shared_games() {
    let expected = [
        ("Korchnoi.pgn", 4569),
        ("Nakamura.pgn", 4811),
        ("TCEC_Season_13_-_Superfinal.pgn", 100),
        ("alphazero_vs_stockfish_all.pgn", 110),
        ("pychess_world_matches.pgn", 580),
        ("sunfish_3fold_fastchess_draws.pgn", 713),
        ("sf15-selfplay-6k-nodes.pgn", 5465),
    ];
    let mut positions = 0u64;
    let mut key_bytes = 0u64;
    for (name, count) in expected {
        let file = std::fs::File::open(games_dir().join(name)).expect(name);
        let games = read_games(std::io::BufReader::new(file));
        let ok: Vec<_> = games.iter().filter_map(|g| g.as_ref().ok()).collect();
        let bad: Vec<_> = games.iter().filter_map(|g| g.as_ref().err()).collect();
        // Every game of these files is a real, legal game.
        assert_eq!(ok.len() + bad.len(), count, "{name}");
        assert!(bad.is_empty(), "{name}: {:?}", &bad[..bad.len().min(3)]);
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
        positions += n;
        key_bytes += bytes;
    }
    let avg = key_bytes as f64 / positions as f64;
    eprintln!(
        "{positions} positions, average compact key {avg:.2} bytes = {:.1}% smaller than 64 characters",
        100.0 * (1.0 - avg / 64.0)
    );
    assert!(positions > 1_000_000, "{positions}");
    assert!(
        avg <= 64.0 * 0.4,
        "average key {avg:.2} bytes is not 60% smaller than 64"
    );
}

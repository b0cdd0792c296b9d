//! Thousands of random and mutated lines: the engine answers on, legal and clean.

use std::time::Duration;

use crate::common::{SECS, Uci};
use crate::{assert_legal, assert_protocol_clean, best_of, pos_from};

/// Deterministic xorshift, so a failure can be replayed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn survives_thousands_of_random_and_mutated_lines() {
    let corpus = [
        "uci",
        "isready",
        "debug on",
        "debug off",
        "ucinewgame",
        "position startpos",
        "position startpos moves e2e4 e7e5 g1f3",
        "position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 moves c7c5",
        "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "go depth 2",
        "go nodes 300",
        "go movetime 5",
        "go wtime 50 btime 50 winc 1 binc 1",
        "go depth 1 searchmoves e2e4",
        "go mate 1",
        "stop",
        "ponderhit",
        "setoption name MultiPV value 2",
        "setoption name Move Overhead value 5",
        "setoption name UCI_Chess960 value true",
        "setoption name UCI_Chess960 value false",
        "setoption name Evaluator value pst",
        "setoption name Clear Hash",
        "d",
        "eval",
        "register later",
    ];
    let junk = [
        "\u{0}",
        "é",
        "\t",
        "  ",
        "-1",
        "99999999999999999999",
        "moves",
        "fen",
        "value",
        "name",
        "💥",
        "\\",
        "\"",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut e = Uci::start();
    let mut sent = 0;
    while sent < 3000 {
        let base = corpus[rng.below(corpus.len())];
        let mut line: String = match rng.below(4) {
            0 => base.to_string(),
            1 => {
                // Character mutations.
                let mut chars: Vec<char> = base.chars().collect();
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(chars.len() + 1);
                    match rng.below(3) {
                        0 if i < chars.len() => {
                            chars.remove(i);
                        }
                        1 => chars.insert(i, (32 + rng.below(95)) as u8 as char),
                        _ if i < chars.len() => chars[i] = (32 + rng.below(95)) as u8 as char,
                        _ => {}
                    }
                }
                chars.into_iter().collect()
            }
            2 => {
                // Token mutations.
                let mut toks: Vec<String> = base.split(' ').map(str::to_string).collect();
                let i = rng.below(toks.len());
                match rng.below(3) {
                    0 => toks[i] = junk[rng.below(junk.len())].to_string(),
                    1 => toks.insert(i, junk[rng.below(junk.len())].to_string()),
                    _ => {
                        let j = rng.below(toks.len());
                        toks.swap(i, j);
                    }
                }
                toks.join(" ")
            }
            _ => (0..rng.below(40))
                .map(|_| (rng.below(256) as u8) as char)
                .collect(),
        };
        // Keep the run short and the engine alive: no quit, no long perft/bench, no huge
        // hash tables or thread counts, no endless searches.
        let lower = line.to_ascii_lowercase();
        if [
            "quit", "perft", "bench", "hash", "threads", "infinite", "ponder",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            continue;
        }
        if lower.contains("go")
            && !lower.contains("depth")
            && !lower.contains("nodes")
            && !lower.contains("movetime")
            && !lower.contains("time")
        {
            line = "go depth 1".to_string();
        }
        line.retain(|c| c != '\n' && c != '\r');
        e.send(&line);
        sent += 1;
        if sent % 500 == 0 {
            e.send("stop");
            e.isready();
        }
    }
    // Let a search that is still running end, and drop its output.
    e.send("stop");
    std::thread::sleep(Duration::from_millis(500));
    while e.line(Duration::from_millis(200)).is_some() {}
    e.isready();
    e.send("setoption name UCI_Chess960 value false");
    e.send("setoption name MultiPV value 1");
    e.send("position startpos moves e2e4");
    e.send("go depth 4");
    let (best, _) = e.bestmove(SECS(60));
    let pos = pos_from("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_legal(&pos, &best_of(&best));
    assert_protocol_clean(&e.log);
    let status = e.quit();
    assert!(status.success());
}

//! A fuzzer over the UCI loop: generated command lines, valid and malformed (FENs with a char
//! dropped or a field changed, illegal and garbled moves, option values out of range or not
//! numbers, unknown options, `go` with bad or overflowing numbers, token soup, bytes that are
//! not UTF-8) are fed to the real `deepred` binary through its stdin, in rounds; after every
//! round the engine must still answer `isready` with `readyok`, must never have printed a line
//! that UCI mode does not allow on stdout, must never have panicked (the panic hook's message on
//! stderr) and must exit cleanly on `quit` at the end.
//!
//! The default run sends 100,000 lines (about 35 s on 2 cores); `DEEPRED_FUZZ_INPUTS` changes
//! it, and `DEEPRED_FUZZ_SEED` picks the generator's seed (a failure prints it and the round's
//! lines to reproduce it).

mod common;

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{data, lines_of, wait_exit};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "7k/8/6QK/8/8/8/8/8 b - - 0 1",
    "8/8/8/8/8/4k3/4P3/4K3 w - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/8/8/8/8/K1k5 w - - 0 1",
];

/// The options `uci` lists, with the values the generator treats as in range.
const SPINS: &[(&str, i64, i64)] = &[
    ("Hash", 1, 64),
    ("Threads", 1, 3),
    ("MultiPV", 1, 8),
    ("Move Overhead", 0, 200),
    ("UCI_Elo", 1350, 2300),
    ("Skill Level", 0, 20),
    ("ExperienceMinGames", 1, 100),
    ("SyzygyProbeDepth", 1, 100),
    ("SyzygyProbeLimit", 0, 7),
    ("RfpMargin", 20, 200),
    ("LmrBase", 0, 200),
    ("NmpBase", 1, 6),
    ("FutilityBase", 0, 400),
    ("OrderKiller", 900_001, 1_999_999),
    ("TimeCapPercent", 10, 95),
];
const CHECKS: &[&str] = &[
    "Ponder",
    "UCI_Chess960",
    "UCI_ShowWDL",
    "UCI_LimitStrength",
    "Learning",
    "ExperienceBook",
    "Syzygy50MoveRule",
];
const EVALUATORS: &[&str] = &["pst", "experience", "deeppink", "deepchess", "nothing", ""];
const WORDS: &[&str] = &[
    "uci",
    "isready",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "stop",
    "setoption",
    "name",
    "value",
    "ponderhit",
    "ucinewgame",
    "debug",
    "on",
    "off",
    "register",
    "later",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
    "d",
    "eval",
    "e2e4",
    "0000",
    "-1",
    "99999999999999999999",
    "NaN",
    "\t",
    "ü",
    "♞",
    "\u{0}",
];
const LINES_PER_ROUND: usize = 60;

struct Gen {
    rng: StdRng,
    dir: std::path::PathBuf,
}

impl Gen {
    fn num(&mut self) -> String {
        match self.rng.random_range(0..8) {
            0 => "-1".into(),
            1 => "18446744073709551616".into(),
            2 => "abc".into(),
            3 => "".into(),
            4 => "1e3".into(),
            5 => format!("{}", self.rng.random_range(-5_000i64..5_000)),
            _ => format!("{}", self.rng.random_range(0..50)),
        }
    }

    /// A string with a random edit: a char dropped, doubled, swapped or replaced, or cut.
    fn mutate(&mut self, s: &str) -> String {
        let mut c: Vec<char> = s.chars().collect();
        for _ in 0..self.rng.random_range(1..4) {
            if c.is_empty() {
                break;
            }
            let i = self.rng.random_range(0..c.len());
            match self.rng.random_range(0..6) {
                0 => {
                    c.remove(i);
                }
                1 => c.insert(i, c[i]),
                2 => {
                    let j = self.rng.random_range(0..c.len());
                    c.swap(i, j);
                }
                3 => {
                    c[i] = *b"pnbrqkPNBRQK12345678/ -wKQkq9a"
                        .choose(&mut self.rng)
                        .unwrap() as char
                }
                4 => c.truncate(i),
                _ => c.insert(i, ' '),
            }
        }
        c.into_iter().collect()
    }

    fn fen(&mut self) -> String {
        let f = FENS.choose(&mut self.rng).unwrap().to_string();
        if self.rng.random_bool(0.5) {
            self.mutate(&f)
        } else {
            f
        }
    }

    /// Moves from `fen`: mostly a legal random walk, sometimes with a bad move in it.
    fn moves(&mut self, fen: &str) -> String {
        let mut pos: Option<Chess> = fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Chess960).ok());
        let mut out = Vec::new();
        for _ in 0..self.rng.random_range(0..30) {
            let bad = self.rng.random_bool(0.05);
            let legal = pos.as_ref().map(|p| p.legal_moves()).unwrap_or_default();
            if bad || legal.is_empty() {
                let junk = [
                    "e2e5", "a1a1", "0000", "e7e8k", "z9z9", "e2", "O-O", "Nf3", "e1g1",
                ];
                out.push(junk.choose(&mut self.rng).unwrap().to_string());
                if self.rng.random_bool(0.5) {
                    break;
                }
                continue;
            }
            let m = *legal.choose(&mut self.rng).unwrap();
            out.push(UciMove::from_move(m, CastlingMode::Standard).to_string());
            if let Some(p) = pos.as_mut() {
                p.play_unchecked(m);
            }
        }
        out.join(" ")
    }

    fn position(&mut self) -> String {
        let (head, fen) = if self.rng.random_bool(0.3) {
            ("position startpos".to_string(), FENS[0].to_string())
        } else {
            let f = self.fen();
            (format!("position fen {f}"), f)
        };
        match self.rng.random_range(0..4) {
            0 => head,
            1 => format!("{head} moves"),
            _ => format!("{head} moves {}", self.moves(&fen)),
        }
    }

    fn go(&mut self) -> String {
        let mut parts = vec!["go".to_string()];
        for _ in 0..self.rng.random_range(0..4) {
            let p = match self.rng.random_range(0..12) {
                0 => format!("depth {}", self.rng.random_range(1..5)),
                1 => format!("nodes {}", self.rng.random_range(1..3000)),
                2 => format!("movetime {}", self.rng.random_range(0..30)),
                3 => format!(
                    "wtime {} btime {} winc {} binc {}",
                    self.rng.random_range(-100..2000),
                    self.rng.random_range(-100..2000),
                    self.rng.random_range(-10..50),
                    self.rng.random_range(-10..50)
                ),
                4 => format!("movestogo {}", self.num()),
                5 => format!("mate {}", self.rng.random_range(0..4)),
                6 => "infinite".into(),
                7 => "ponder".into(),
                8 => format!("searchmoves e2e4 {} a1a8", self.moves(FENS[0])),
                9 => format!("depth {}", self.num()),
                10 => format!("nodes {}", self.num()),
                _ => WORDS.choose(&mut self.rng).unwrap().to_string(),
            };
            parts.push(p);
        }
        if parts.len() == 1 {
            parts.push("nodes 500".into());
        }
        parts.join(" ")
    }

    fn setoption(&mut self) -> String {
        let (name, value) = match self.rng.random_range(0..10) {
            0..=3 => {
                let &(n, lo, hi) = SPINS.choose(&mut self.rng).unwrap();
                let v = if self.rng.random_bool(0.6) {
                    self.rng.random_range(lo..=hi).to_string()
                } else {
                    self.num()
                };
                (n.to_string(), v)
            }
            4 | 5 => {
                let n = CHECKS.choose(&mut self.rng).unwrap();
                let v = ["true", "false", "TRUE", "yes", "", "1"]
                    .choose(&mut self.rng)
                    .unwrap();
                (n.to_string(), v.to_string())
            }
            6 => (
                "Evaluator".into(),
                EVALUATORS.choose(&mut self.rng).unwrap().to_string(),
            ),
            7 => {
                let files = [
                    self.dir.join("exp.db").display().to_string(),
                    self.dir.join("garbage.db").display().to_string(),
                    "/nonexistent/dir/x.db".to_string(),
                    String::new(),
                ];
                let v = files.choose(&mut self.rng).unwrap().clone();
                let n = ["ExperienceFile", "EvalFile"]
                    .choose(&mut self.rng)
                    .unwrap();
                (n.to_string(), v)
            }
            8 => {
                let dirs = [
                    data("syzygy").display().to_string(),
                    self.dir.join("badtb").display().to_string(),
                    "/nonexistent".to_string(),
                    "<empty>".to_string(),
                ];
                (
                    "SyzygyPath".into(),
                    dirs.choose(&mut self.rng).unwrap().clone(),
                )
            }
            _ => (self.mutate("UCI_Chess960"), self.num()),
        };
        match self.rng.random_range(0..10) {
            0 => format!("setoption name {name}"),
            1 => format!("setoption {name} value {value}"),
            2 => "setoption name".into(),
            _ => format!("setoption name {name} value {value}"),
        }
    }

    fn soup(&mut self) -> String {
        (0..self.rng.random_range(1..8))
            .map(|_| WORDS.choose(&mut self.rng).unwrap().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// One input line, as bytes (a few are not UTF-8).
    fn line(&mut self) -> Vec<u8> {
        let s = match self.rng.random_range(0..42) {
            0..=9 => self.position(),
            10..=16 => self.go(),
            17..=22 => "stop".into(),
            23..=28 => self.setoption(),
            29 => "isready".into(),
            30 => "ucinewgame".into(),
            31 => "uci".into(),
            32 => [
                "debug on",
                "debug off",
                "debug",
                "register later",
                "ponderhit",
            ]
            .choose(&mut self.rng)
            .unwrap()
            .to_string(),
            33 => [
                "d",
                "eval",
                "perft 2",
                "go perft 1",
                "perft 11",
                "bench 0",
                "perft x",
            ]
            .choose(&mut self.rng)
            .unwrap()
            .to_string(),
            34 => {
                let p = self.position();
                self.mutate(&p)
            }
            35 => {
                let g = self.go();
                self.mutate(&g)
            }
            36 => {
                return (0..self.rng.random_range(0..40))
                    .map(|_| self.rng.random())
                    .filter(|&b| b != b'\n')
                    .collect();
            }
            37 => String::new(),
            _ => self.soup(),
        };
        s.into_bytes()
    }
}

const ALLOWED: &[&str] = &["bestmove", "info", "id", "option", "uciok", "readyok"];

#[test]
fn the_uci_loop_survives_generated_input() {
    let inputs: usize = std::env::var("DEEPRED_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("DEEPRED_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20261123);
    let dir = std::env::temp_dir().join(format!("deepred-uci-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("badtb")).unwrap();
    std::fs::write(dir.join("garbage.db"), b"not a database, not a net").unwrap();
    std::fs::write(dir.join("badtb/KQvK.rtbw"), b"corrupt table").unwrap();
    let mut g = Gen {
        rng: StdRng::seed_from_u64(seed),
        dir: dir.clone(),
    };

    let mut child = common::command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start deepred");
    let mut stdin = child.stdin.take().unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let err_text = Arc::new(Mutex::new(String::new()));
    let err_sink = Arc::clone(&err_text);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            err_sink
                .lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });

    let start = Instant::now();
    let (mut sent, mut rounds, mut searches) = (0usize, 0usize, 0usize);
    while sent < inputs {
        let round: Vec<Vec<u8>> = (0..LINES_PER_ROUND).map(|_| g.line()).collect();
        let shown = || {
            round
                .iter()
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect::<Vec<_>>()
                .join("\n")
        };
        for l in &round {
            stdin.write_all(l).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin.write_all(b"stop\nisready\n").unwrap();
        stdin.flush().unwrap();
        sent += round.len() + 2;
        rounds += 1;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) => {
                    let first = l.split_whitespace().next().unwrap_or("");
                    assert!(
                        ALLOWED.contains(&first),
                        "seed {seed}, round {rounds}: stdout line {l:?} is not UCI; the round:\n{}",
                        shown()
                    );
                    searches += usize::from(first == "bestmove");

                    if l == "readyok" {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!(
                    "seed {seed}, round {rounds}: no readyok within 60 s; the round:\n{}",
                    shown()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "seed {seed}, round {rounds}: the engine died ({:?}); stderr: {}; the round:\n{}",
                    child.try_wait(),
                    err_text.lock().unwrap(),
                    shown()
                ),
            }
        }
        let err = err_text.lock().unwrap();
        assert!(
            !err.contains("panicked"),
            "seed {seed}, round {rounds}: the engine panicked: {err}; the round:\n{}",
            shown()
        );
    }
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    let status = wait_exit(&mut child, Duration::from_secs(30)).expect("exits after quit");
    assert!(status.success(), "exit status {status}");
    assert!(!err_text.lock().unwrap().contains("panicked"));
    // The generator must reach the search, or this would only test the parser.
    assert!(
        2 * searches > rounds,
        "{searches} searches in {rounds} rounds"
    );
    eprintln!(
        "uci fuzz: {sent} lines in {rounds} rounds, {searches} bestmoves, seed {seed}, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(dir);
}

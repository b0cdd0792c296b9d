//! UCI conversations with the real binary.

#[path = "../common/mod.rs"]
mod common;
mod limits;
mod options;
mod random_lines;

use std::time::{Duration, Instant};

use common::{SECS, Uci, wait_exit};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

const ALLOWED: &[&str] = &["id ", "option ", "uciok", "readyok", "bestmove ", "info "];

fn assert_protocol_clean(lines: &[String]) {
    for l in lines {
        assert!(
            ALLOWED.iter().any(|p| l.starts_with(p) || l == p.trim()),
            "non-UCI line on stdout: {l:?}"
        );
    }
}

fn pos_from(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn assert_legal(pos: &Chess, uci: &str) {
    let m: UciMove = uci
        .parse()
        .unwrap_or_else(|_| panic!("not a UCI move: {uci}"));
    m.to_move(pos)
        .unwrap_or_else(|_| panic!("illegal move {uci}"));
}

fn best_of(line: &str) -> String {
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// The value after `key` in an info line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let w: Vec<&str> = line.split_whitespace().collect();
    w.iter()
        .position(|x| *x == key)
        .and_then(|i| w.get(i + 1).copied())
}

#[test]
fn handshake_lists_options_and_is_clean() {
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.until(SECS(10), |l| l == "uciok");
    assert!(lines[0].starts_with("id name Deep Red"));
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for opt in [
        "option name Hash type spin",
        "option name Threads type spin",
        "option name Clear Hash type button",
        "option name MultiPV type spin",
        "option name Ponder type check",
        "option name Move Overhead type spin",
        "option name UCI_Chess960 type check",
        "option name Evaluator type combo default learned",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(opt)), "missing {opt}");
    }
    e.send("debug on");
    e.send("debug off");
    e.isready();
    assert_protocol_clean(&e.log);
    assert!(e.quit().success());
}

#[test]
fn go_depth_reports_full_info_and_a_legal_move() {
    let mut e = Uci::start();
    e.send("ucinewgame");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go depth 6");
    let (best, lines) = e.bestmove(SECS(60));
    let pos = pos_from("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert_legal(&pos, &best_of(&best));
    let last = lines
        .iter()
        .rev()
        .find(|l| l.contains(" pv "))
        .expect("an info line with a pv");
    for key in [
        "depth", "seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv",
    ] {
        assert!(field(last, key).is_some(), "{key} missing in {last}");
    }
    assert_eq!(field(last, "depth"), Some("6"));
    // The pv is a legal line from the position and starts with the best move.
    let mut p = pos.clone();
    let pv: Vec<&str> = last
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(pv[0], best_of(&best));
    for m in pv {
        let mv = m
            .parse::<UciMove>()
            .unwrap()
            .to_move(&p)
            .expect("legal pv move");
        p.play_unchecked(mv);
    }
    // The ponder move, if any, is legal after the best move.
    if let Some(ponder) = field(&best, "ponder") {
        let mut after = pos.clone();
        after.play_unchecked(
            best_of(&best)
                .parse::<UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap(),
        );
        assert_legal(&after, ponder);
    }
    assert_protocol_clean(&e.log);
    e.quit();
}

/// `go movetime`: the time given is used (less the move overhead, 20 ms), not the share of it
/// a clock's time manager would take (it answered `movetime 500` after about 300 ms). A lower
/// bound only: a slow machine answers later, never sooner.
#[test]
fn go_movetime_uses_its_time() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go movetime 500");
    let (_, lines) = e.bestmove(SECS(30));
    let time: u64 = lines
        .iter()
        .rev()
        .find_map(|l| field(l, "time"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(time >= 450, "answered after {time} ms: {lines:?}");
    e.quit();
}

#[test]
fn go_with_only_the_other_sides_clock_answers_at_once() {
    // Black to move, and the GUI gives White's time alone: Black has none (it searched until
    // a stop that never came). A minute's clock for White must not lend Black its time.
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    e.send("go wtime 60000 winc 1000");
    let (best, lines) = e.bestmove(SECS(10));
    assert!(
        best.starts_with("bestmove ") && !best.contains("0000"),
        "{best}: {lines:?}"
    );
    let time: u64 = lines
        .iter()
        .rev()
        .find_map(|l| field(l, "time"))
        .unwrap_or("0")
        .parse()
        .unwrap();
    assert!(time < 1000, "thought {time} ms on no clock: {lines:?}");
    e.quit();
}

#[test]
fn a_malformed_go_still_gets_its_bestmove() {
    // A GUI waits for the bestmove of every go: a bad number is read as Stockfish reads it
    // (no search started, and the GUI waited for ever), and the words in any case.
    let mut e = Uci::start();
    e.send("position startpos");
    for go in ["go depth 1.5", "go nodes", "go wtime abc", "GO DEPTH 2"] {
        e.send(go);
        let (best, lines) = e.bestmove(SECS(10));
        assert!(
            best.starts_with("bestmove ") && best.len() > 12,
            "{go}: {lines:?}"
        );
    }
    e.quit();
}

#[test]
fn stop_and_isready_during_infinite_search() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let lines = e.until(SECS(5), |l| l == "readyok" || l.starts_with("bestmove"));
    assert_eq!(
        lines.last().unwrap(),
        "readyok",
        "isready answered during the search, before bestmove"
    );
    // No bestmove without stop, even after a while.
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(500) {
        if let Some(l) = e.line(Duration::from_millis(50)) {
            assert!(
                !l.starts_with("bestmove"),
                "bestmove before stop in infinite mode"
            );
        }
    }
    let sent = Instant::now();
    e.send("stop");
    let (best, _) = e.bestmove(SECS(5));
    assert!(sent.elapsed() < SECS(2), "stop took {:?}", sent.elapsed());
    assert_legal(&Chess::default(), &best_of(&best));
    e.quit();
}

/// An analysis GUI sends `stop`, then at once a new `setoption` and `go`: both are obeyed
/// (`stop` ends the search before the next command is read), so each `go` gets its `bestmove`.
#[test]
fn commands_right_after_stop_are_obeyed() {
    let mut e = Uci::start();
    e.send("position startpos");
    for _ in 0..3 {
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        e.send("stop");
        e.send("setoption name MultiPV value 2");
        e.send("go depth 3");
        let (_, mut lines) = e.bestmove(SECS(10));
        let (_, second) = e.bestmove(SECS(10));
        assert!(
            second.iter().any(|l| field(l, "multipv") == Some("2")),
            "MultiPV 2 not in force: {second:?}"
        );
        lines.extend(second);
        assert!(
            !lines.iter().any(|l| l.contains("error")),
            "a command after stop was refused: {lines:?}"
        );
        e.send("setoption name MultiPV value 1");
    }
    e.quit();
}

/// `go infinite` and `go ponder` answer only after `stop` (or `ponderhit`), also when a node
/// limit or a strength limit ended the search itself long before.
#[test]
fn a_limited_infinite_or_ponder_search_still_waits_for_stop() {
    let mut e = Uci::start();
    e.send("position startpos");
    for (setup, go) in [
        ("", "go infinite nodes 1000"),
        ("", "go ponder nodes 1000 wtime 10000 btime 10000"),
        ("setoption name UCI_LimitStrength value true", "go infinite"),
        ("", "go ponder wtime 10000 btime 10000"),
    ] {
        if !setup.is_empty() {
            e.send(setup);
        }
        e.send(go);
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(700) {
            if let Some(l) = e.line(Duration::from_millis(50)) {
                assert!(!l.starts_with("bestmove"), "{go}: bestmove before stop");
            }
        }
        e.send("stop");
        let (best, _) = e.bestmove(SECS(5));
        assert_legal(&Chess::default(), &best_of(&best));
    }
    e.quit();
}

/// Commands in another case are read as the same commands, never a crash.
#[test]
fn commands_in_any_case() {
    let mut e = Uci::start();
    for line in [
        "STOP",
        "PonderHit",
        "Position startpos moves e2e4",
        "IsReady",
    ] {
        e.send(line);
    }
    e.until(SECS(5), |l| l == "readyok");
    e.send("GO depth 2");
    let (best, _) = e.bestmove(SECS(10));
    let mut after = Chess::default();
    after.play_unchecked("e2e4".parse::<UciMove>().unwrap().to_move(&after).unwrap());
    assert_legal(&after, &best_of(&best));
    assert_protocol_clean(&e.log);
    e.send("QUIT");
    assert!(
        wait_exit(&mut e.child, SECS(5)).is_some(),
        "QUIT did not end it"
    );
}

/// A `go` without the `stop` the protocol asks for (a GUI after a ponder miss): the ponder
/// search answers first, then the new `go` gets its own `bestmove`, legal in the new position.
#[test]
fn a_go_during_a_ponder_search_gets_its_own_bestmove() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 2000 btime 2000");
    std::thread::sleep(Duration::from_millis(300));
    e.send("position startpos moves e2e4 c7c5");
    e.send("go wtime 2000 btime 2000");
    e.bestmove(SECS(10));
    let (best, _) = e.bestmove(SECS(10));
    let mut pos = Chess::default();
    for m in ["e2e4", "c7c5"] {
        let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
    }
    assert_legal(&pos, &best_of(&best));
    e.quit();
}

#[test]
fn infinite_search_of_a_short_line_still_waits_for_stop() {
    // Mate in one: the search reaches its end at once, but bestmove must wait for stop.
    let mut e = Uci::start();
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    e.send("go infinite depth 3");
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(400) {
        if let Some(l) = e.line(Duration::from_millis(50)) {
            assert!(!l.starts_with("bestmove"));
        }
    }
    e.send("stop");
    let (best, _) = e.bestmove(SECS(5));
    assert_eq!(best_of(&best), "d1d8");
    e.quit();
}

#[test]
fn ponder_then_ponderhit_and_ponder_then_stop() {
    let mut e = Uci::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves d2d4 d7d5 c2c4");
    e.send("go ponder wtime 3000 btime 3000 winc 0 binc 0");
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(500) {
        if let Some(l) = e.line(Duration::from_millis(50)) {
            assert!(!l.starts_with("bestmove"), "bestmove while pondering");
        }
    }
    e.send("ponderhit");
    let (best, _) = e.bestmove(SECS(5));
    let pos = pos_from("rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2");
    assert_legal(&pos, &best_of(&best));

    e.send("go ponder wtime 3000 btime 3000");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let (best, _) = e.bestmove(SECS(5));
    assert_legal(&pos, &best_of(&best));
    e.quit();
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut e = Uci::start();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go depth 5");
    let (_, lines) = e.bestmove(SECS(60));
    let at5: Vec<&String> = lines
        .iter()
        .filter(|l| field(l, "depth") == Some("5") && l.contains(" pv "))
        .collect();
    assert_eq!(at5.len(), 3, "{at5:?}");
    let mut firsts: Vec<&str> = at5.iter().map(|l| field(l, "pv").unwrap()).collect();
    for (i, l) in at5.iter().enumerate() {
        assert_eq!(field(l, "multipv"), Some((i + 1).to_string().as_str()));
    }
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3);
    e.quit();
}

#[test]
fn finds_mates() {
    let mut e = Uci::start();
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    e.send("go depth 4");
    let (best, lines) = e.bestmove(SECS(30));
    assert_eq!(best_of(&best), "d1d8");
    assert!(lines.iter().any(|l| l.contains("score mate 1 ")));

    // Mate in two: 1.Kb6 Kb8 2.Rh8# (no mate in one).
    e.send("position fen k7/8/2K5/8/8/8/8/7R w - - 0 1");
    e.send("go mate 2");
    let (best, lines) = e.bestmove(SECS(30));
    let last = lines.iter().rev().find(|l| l.contains(" score ")).unwrap();
    assert_eq!(field(last, "mate"), Some("2"), "{last}");
    assert_legal(&pos_from("k7/8/2K5/8/8/8/8/7R w - - 0 1"), &best_of(&best));

    // Being mated is reported with a negative mate score: 1...Kb8 2.Rh8#.
    e.send("position fen k7/8/1K6/8/8/8/8/7R b - - 0 1");
    e.send("go depth 4");
    let (best, lines) = e.bestmove(SECS(30));
    assert_eq!(best_of(&best), "a8b8");
    let last = lines.iter().rev().find(|l| l.contains(" score ")).unwrap();
    assert!(last.contains("score mate -1 "), "{last}");
    e.quit();
}

/// The search's `info depth` and `bestmove` lines among `lines`.
fn answer_lines(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(String::as_str)
        .filter(|l| l.starts_with("info depth") || l.starts_with("bestmove"))
        .collect()
}

#[test]
fn terminal_roots_answer_a_score_and_bestmove_none() {
    let mut e = Uci::start();
    // Stalemate (checked with shakmaty: no legal move, not in check): a draw score.
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let p = pos_from(stalemate);
    assert!(p.legal_moves().is_empty() && !p.is_check());
    e.send(&format!("position fen {stalemate}"));
    e.send("go depth 3");
    let (_, lines) = e.bestmove(SECS(10));
    assert_eq!(
        answer_lines(&lines),
        ["info depth 0 score cp 0", "bestmove (none)"]
    );
    // Checkmate (fool's mate): mated now, "mate 0" as Stockfish says it.
    let mut mated = Chess::default();
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        let mv = m.parse::<UciMove>().unwrap().to_move(&mated).unwrap();
        mated = mated.play(mv).unwrap();
    }
    assert!(mated.is_checkmate());
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.send("go wtime 1000 btime 1000");
    let (_, lines) = e.bestmove(SECS(10));
    assert_eq!(
        answer_lines(&lines),
        ["info depth 0 score mate 0", "bestmove (none)"]
    );
    // `go infinite` and `go ponder`: the score at once, bestmove only after stop / ponderhit.
    e.send("setoption name Ponder value true");
    for (go, release) in [
        ("go infinite", "stop"),
        ("go ponder wtime 1000 btime 1000", "ponderhit"),
    ] {
        e.send(go);
        let first = e.line(SECS(10));
        assert_eq!(first.as_deref(), Some("info depth 0 score mate 0"), "{go}");
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(300) {
            if let Some(l) = e.line(Duration::from_millis(50)) {
                panic!("{go}: {l:?} before {release}");
            }
        }
        e.send(release);
        let (best, lines) = e.bestmove(SECS(10));
        assert_eq!(best, "bestmove (none)", "{go}: {lines:?}");
    }
    assert_protocol_clean(&e.log);
    e.quit();
}

/// The FEN the engine reports for its current position (`d`).
fn current_fen(e: &mut Uci) -> String {
    e.send("d");
    let lines = e.until(SECS(10), |l| l.starts_with("info string Evaluator: "));
    let fen = lines
        .iter()
        .find(|l| l.starts_with("info string Fen: "))
        .expect("a Fen line");
    fen.trim_start_matches("info string Fen: ").to_string()
}

#[test]
fn bad_position_keeps_the_previous_one() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    let good = current_fen(&mut e);
    assert_eq!(
        good,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    for bad in [
        "position fen not a fen",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K2R b K - 0 1 moves e1g1",
        "position startpos moves e2e5",
        "position startpos moves e2e4 e2e4",
        "position startpos moves zz99",
        "position",
        "position fen",
        "position sideways",
    ] {
        e.send(bad);
        let l = e.until(SECS(5), |l| l.starts_with("info string"));
        assert!(l.last().unwrap().contains("error"), "{bad}: {l:?}");
        assert_eq!(current_fen(&mut e), good, "after {bad}");
    }
    e.isready();
    assert_protocol_clean(&e.log);
    e.quit();
}

/// With `Learning` on, a store whose folder does not exist is an error when it is set, not at
/// the end of the first game.
#[test]
fn learning_into_a_store_that_cannot_be_made_is_an_error_at_once() {
    let mut e = Uci::start();
    e.send("setoption name Learning value true");
    e.send("setoption name ExperienceFile value /nonexistent-folder/x.sqlite");
    let l = e.until(SECS(5), |l| l.contains("error"));
    assert!(
        l.last()
            .unwrap()
            .contains("'/nonexistent-folder/x.sqlite': its folder does not exist"),
        "{l:?}"
    );
    // A device is no store either: games learned into /dev/null would be lost.
    #[cfg(unix)]
    {
        e.send("setoption name ExperienceFile value /dev/null");
        let l = e.until(SECS(5), |l| l.contains("it is a device"));
        assert!(l.last().unwrap().starts_with("info string"), "{l:?}");
    }
    e.isready();
    assert_protocol_clean(&e.log);
    e.quit();
}

#[test]
fn option_errors_are_reported_and_values_checked() {
    let mut e = Uci::start();
    for bad in [
        "setoption name Hash value 0",
        "setoption name Hash value 40000",
        "setoption name Hash value lots",
        "setoption name Threads value 100000",
        "setoption name MultiPV value -1",
        "setoption name Ponder value maybe",
        "setoption name Evaluator value oracle",
        "setoption name NoSuchOption value 1",
        "setoption name Move Overhead value",
    ] {
        e.send(bad);
        let l = e.until(SECS(5), |l| l.starts_with("info string"));
        assert!(l.last().unwrap().contains("error"), "{bad}: {l:?}");
    }
    let errors_before = e.log.iter().filter(|l| l.contains("error")).count();
    for good in [
        "setoption name Hash value 8",
        "setoption name Threads value 2",
        "setoption name Clear Hash",
        "setoption name Move Overhead value 50",
        "setoption name Evaluator value pst",
        "setoption name UCI_Chess960 value false",
    ] {
        e.send(good);
    }
    e.send("position startpos");
    e.send("go depth 5");
    let (best, _) = e.bestmove(SECS(30));
    assert_legal(&Chess::default(), &best_of(&best));
    assert_eq!(
        e.log.iter().filter(|l| l.contains("error")).count(),
        errors_before,
        "{:?}",
        e.log
    );
    e.quit();
}

#[test]
fn searchmoves_and_nodes_limit() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go depth 6 searchmoves a2a3 h2h3");
    let (best, _) = e.bestmove(SECS(30));
    assert!(
        ["a2a3", "h2h3"].contains(&best_of(&best).as_str()),
        "{best}"
    );

    e.send("go nodes 20000");
    let (best, lines) = e.bestmove(SECS(30));
    assert_legal(&Chess::default(), &best_of(&best));
    let nodes: u64 = lines
        .iter()
        .filter_map(|l| field(l, "nodes"))
        .map(|n| n.parse().unwrap())
        .max()
        .unwrap_or(0);
    // Checked every 1024 nodes.
    assert!(nodes <= 20000 + 2048, "{nodes}");

    // A limit of 0 (some GUIs send `go depth 0`) is searched as 1, said, and answered.
    e.send("go depth 0");
    let (best, lines) = e.bestmove(SECS(30));
    assert_legal(&Chess::default(), &best_of(&best));
    assert!(
        lines.contains(&"info string warning: 'go depth 0': searched as depth 1".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.iter().all(|l| field(l, "depth") != Some("2")),
        "{lines:?}"
    );
    // A depth past i32 (2^32 - 1, as a GUI asking for "no limit" may send) is the deepest
    // search, not depth 1: it goes on until stopped.
    e.send("go depth 4294967295");
    e.until(SECS(30), |l| field(l, "depth") == Some("5"));
    e.send("stop");
    let (best, _) = e.bestmove(SECS(30));
    assert_legal(&Chess::default(), &best_of(&best));
    e.quit();
}

#[test]
fn clock_is_respected() {
    let mut e = Uci::start();
    e.send("setoption name Move Overhead value 50");
    e.send("position startpos moves e2e4 c7c5");
    for (wtime, extra) in [
        (1000u64, ""),
        (300, " winc 100"),
        (5000, " movestogo 1"),
        (100, ""),
    ] {
        let t = Instant::now();
        e.send(&format!("go wtime {wtime} btime {wtime}{extra}"));
        let (best, _) = e.bestmove(SECS(30));
        assert!(
            t.elapsed() < Duration::from_millis(wtime),
            "used {:?} of {wtime} ms",
            t.elapsed()
        );
        assert!(best.starts_with("bestmove g1f3") || best.len() > 9);
    }
    let t = Instant::now();
    e.send("go movetime 300");
    e.bestmove(SECS(30));
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    e.quit();
}

#[test]
fn threads_search_and_quit_during_search() {
    let mut e = Uci::start();
    e.send("setoption name Threads value 2");
    e.send("position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
    e.send("go depth 6");
    let (best, _) = e.bestmove(SECS(60));
    assert_eq!(best_of(&best), "h5f7", "Qxf7#");
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let status = e.quit();
    assert!(status.success());
    assert!(t.elapsed() < SECS(5));
}

#[test]
fn end_of_input_exits_cleanly() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.close_stdin();
    let status = wait_exit(&mut e.child, SECS(10)).expect("exits at end of input");
    assert!(status.success());
}

#[test]
fn chess960_castling_notation() {
    let mut e = Uci::start();
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1");
    assert_eq!(current_fen(&mut e), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    e.send("setoption name UCI_Chess960 value true");
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1");
    assert_eq!(current_fen(&mut e), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    // A Chess960 start with Shredder-FEN castling; moves are printed king-takes-rook.
    e.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    e.send("perft 1");
    let lines = e.until(SECS(10), |l| l.contains("Nodes searched"));
    assert!(lines.last().unwrap().ends_with("21"), "{lines:?}");
    e.send("go depth 4");
    let (best, _) = e.bestmove(SECS(30));
    assert!(best.starts_with("bestmove "));
    // In standard mode a Chess960 start is read all the same, and its castles are written
    // king-takes-rook: `b1c1` would also be the king's step, and the move sent back would
    // not castle. Here the long castle mates at once.
    e.send("setoption name UCI_Chess960 value false");
    let fen = "2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go depth 3");
    let (best, _) = e.bestmove(SECS(30));
    assert_eq!(best, "bestmove b1a1");
    e.send(&format!("position fen {fen} moves b1a1"));
    assert_eq!(current_fen(&mut e), "2rkr3/2p1p3/8/8/8/8/8/2KR4 b - - 1 1");
    e.send(&format!("position fen {fen}"));
    e.send("perft 1");
    let lines = e.until(SECS(10), |l| l.contains("Nodes searched"));
    let castles: Vec<_> = lines
        .iter()
        .filter(|l| l.contains("b1c1") || l.contains("b1a1"))
        .collect();
    assert_eq!(castles.len(), 2, "{lines:?}");
    e.quit();
}

#[test]
fn human_commands() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("d");
    let lines = e.until(SECS(5), |l| l.starts_with("info string Key:"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("| r | n | b | q | k | b | n | r | 8"))
    );
    e.send("eval");
    // The nets' views come last (unavailable without nets/*.safetensors).
    let lines = e.until(SECS(5), |l| l.starts_with("info string deepchess:"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string experience:"))
    );
    assert!(lines.iter().any(|l| l.starts_with("info string deeppink:")));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string pst: +") && l.contains("(White's view)"))
    );
    e.send("perft 3");
    let lines = e.until(SECS(10), |l| l.contains("Nodes searched"));
    assert_eq!(lines.last().unwrap(), "info string Nodes searched: 8902");
    assert_eq!(lines.len(), 21);
    e.send("go perft 2");
    let lines = e.until(SECS(10), |l| l.contains("Nodes searched"));
    assert_eq!(lines.last().unwrap(), "info string Nodes searched: 400");
    e.send("bench 2");
    let lines = e.until(SECS(60), |l| l.ends_with(" nps"));
    assert!(lines.last().unwrap().starts_with("info string "));
    assert_protocol_clean(&e.log);
    e.quit();
}

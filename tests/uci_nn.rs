//! The neural evaluators through the real binary's UCI loop: selecting them, `EvalFile`, a
//! missing net, and searches that answer legal moves.

mod common;

use common::{SECS, Uci};
use shakmaty::Position;

fn net(kind: deepred::nn::net::Kind, tag: &str) -> String {
    let dir = std::env::temp_dir().join(format!("deepred-uci-nn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{tag}.safetensors"));
    deepred::nn::random::write(&p, kind, 7).unwrap();
    p.display().to_string()
}

fn assert_legal(fen: Option<&str>, moves: &str, best: &str) {
    let mut pos = match fen {
        Some(f) => deepred::chess::fen::parse_fen(f, false).unwrap(),
        None => shakmaty::Chess::default(),
    };
    for m in moves.split_whitespace() {
        let m = m
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
    }
    let word = best.split_whitespace().nth(1).unwrap();
    let m = word
        .parse::<shakmaty::uci::UciMove>()
        .unwrap_or_else(|_| panic!("{best}"))
        .to_move(&pos)
        .unwrap_or_else(|_| panic!("illegal: {best}"));
    assert!(pos.is_legal(m));
}

/// Every stdout line is a UCI answer.
fn clean(lines: &[String]) {
    for l in lines {
        let first = l.split_whitespace().next().unwrap_or("");
        assert!(
            ["bestmove", "info", "id", "option", "uciok", "readyok"].contains(&first),
            "{l}"
        );
    }
}

#[test]
fn deeppink_and_deepchess_search_through_uci() {
    let pink = net(deepred::nn::net::Kind::DeepPink, "pink");
    let chess = net(deepred::nn::net::Kind::DeepChess, "chess");
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.until(SECS(10), |l| l == "uciok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name EvalFile type string"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("var deepchess") && l.contains("var deeppink"))
    );
    // Evaluator first, then its file (the net is loaded when the file arrives).
    e.send("setoption name Evaluator value deeppink");
    e.send(&format!("setoption name EvalFile value {pink}"));
    e.send("position startpos moves e2e4 c7c5");
    e.send("go depth 3");
    let (best, lines) = e.bestmove(SECS(60));
    assert!(
        lines.iter().any(|l| l.contains("Evaluator deeppink")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("info depth 3")));
    assert_legal(None, "e2e4 c7c5", &best);
    e.send("d");
    let lines = e.until(SECS(10), |l| l.contains("Evaluator:"));
    assert!(lines.last().unwrap().ends_with("deeppink"));
    e.send("eval");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("deeppink: ") && l.contains("pink.safetensors"))
    );

    // Now DeepChess: the current EvalFile is a Deep Pink net, so selecting it fails and the
    // next EvalFile loads it.
    e.send("setoption name Evaluator value deepchess");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("not a deepchess net") && l.contains("stays deeppink")),
        "{lines:?}"
    );
    e.send(&format!("setoption name EvalFile value {chess}"));
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    e.send("go depth 3");
    let (best, lines) = e.bestmove(SECS(60));
    assert_eq!(best, "bestmove d1d8");
    assert!(
        lines.iter().any(|l| l.contains("score mate 1 ")),
        "{lines:?}"
    );
    e.send("position startpos moves g1f3");
    e.send("go depth 3");
    let (best, lines) = e.bestmove(SECS(120));
    assert!(lines.iter().any(|l| l.starts_with("info depth 3")));
    assert_legal(None, "g1f3", &best);
    // Node and time limits and stop.
    e.send("position startpos");
    e.send("go nodes 500");
    let (best, _) = e.bestmove(SECS(60));
    assert_legal(None, "", &best);
    e.send("go movetime 300");
    let (best, _) = e.bestmove(SECS(60));
    assert_legal(None, "", &best);
    e.send("go infinite");
    std::thread::sleep(std::time::Duration::from_millis(300));
    e.send("isready");
    e.until(SECS(10), |l| l == "readyok");
    e.send("stop");
    let (best, _) = e.bestmove(SECS(10));
    assert_legal(None, "", &best);
    clean(&e.log);
    assert!(e.quit().success());
}

#[test]
fn a_missing_net_keeps_the_previous_evaluator() {
    let mut e = Uci::start();
    // From pst, whose net file is only recorded until a neural evaluator is chosen.
    e.send("setoption name Evaluator value pst");
    e.send("setoption name EvalFile value /nonexistent/deepchess.safetensors");
    e.send("setoption name Evaluator value deepchess");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines.iter().any(|l| l.starts_with("info string")
            && l.contains("/nonexistent/deepchess.safetensors")
            && l.contains("Evaluator stays pst")),
        "{lines:?}"
    );
    e.send("d");
    let lines = e.until(SECS(10), |l| l.contains("Evaluator:"));
    assert!(lines.last().unwrap().ends_with("pst"));
    // A truncated file too.
    let dir = std::env::temp_dir().join(format!("deepred-uci-nn-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.safetensors");
    std::fs::write(&bad, b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":").unwrap();
    e.send(&format!("setoption name EvalFile value {}", bad.display()));
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("bad.safetensors") && l.contains("safetensors file")),
        "{lines:?}"
    );
    e.send("go depth 2");
    let (best, _) = e.bestmove(SECS(30));
    assert_legal(None, "", &best);
    clean(&e.log);
    assert!(e.quit().success());
}

#[test]
fn a_net_file_sent_before_its_evaluator_is_kept_for_it() {
    // GUIs send options in their own order (Cute Chess alphabetically: EvalFile before
    // Evaluator). A Deep Pink net given while the learned net plays is kept for deeppink.
    let pink = net(deepred::nn::net::Kind::DeepPink, "pink-first");
    let mut e = Uci::start();
    e.send(&format!("setoption name EvalFile value {pink}"));
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines.iter().any(|l| l.starts_with("info string")
            && l.contains("is a deeppink net")
            && l.contains("Evaluator stays learned")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    e.send("setoption name Evaluator value deeppink");
    e.send("eval");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Evaluator deeppink") && l.contains("pink-first.safetensors")),
        "{lines:?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("deeppink 768") && l.contains("embedded")),
        "{lines:?}"
    );
    e.send("go depth 2");
    let (best, _) = e.bestmove(SECS(30));
    assert_legal(None, "", &best);
    // A file that is no net of any kind is still refused, the learned net kept.
    e.send("setoption name Evaluator value learned");
    e.send("setoption name EvalFile value /nonexistent/x.safetensors");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("error") && l.contains("/nonexistent/x.safetensors")),
        "{lines:?}"
    );
    clean(&e.log);
    assert!(e.quit().success());
}

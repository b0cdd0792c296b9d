//! Syzygy tablebases through UCI with the real binary: the four options, roots in the tables
//! answered with a move that keeps their result (python-chess's moves, tests/data/syzygy/
//! root.txt) and its score, `tbhits` on the info lines, won endings played out to mate, and
//! bad paths and corrupt tables reported by name while the engine goes on searching.

mod common;

use std::path::{Path, PathBuf};

use common::{SECS, Uci};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")
}

/// (FEN, result, moves that keep it) of root.txt.
fn roots() -> Vec<(String, String, Vec<String>)> {
    std::fs::read_to_string(data().join("root.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].split(' ').map(str::to_string).collect(),
            )
        })
        .collect()
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let w: Vec<&str> = line.split_whitespace().collect();
    w.iter()
        .position(|x| *x == key)
        .and_then(|i| w.get(i + 1).copied())
}

/// The engine with the test tables loaded; returns the lines of the answer to `setoption`.
fn with_tables(path: &str) -> (Uci, Vec<String>) {
    let mut e = Uci::start();
    e.send(&format!("setoption name SyzygyPath value {path}"));
    e.send("isready");
    let lines = e.until(SECS(20), |l| l == "readyok");
    (e, lines)
}

/// `go depth D` from `fen`: (best move, last info line with a pv).
fn go(e: &mut Uci, fen: &str, depth: u32) -> (String, String) {
    e.send(&format!("position fen {fen}"));
    e.send(&format!("go depth {depth}"));
    let (best, lines) = e.bestmove(SECS(60));
    let info = lines
        .iter()
        .rev()
        .find(|l| l.contains(" pv "))
        .cloned()
        .unwrap_or_default();
    (best.split_whitespace().nth(1).unwrap().to_string(), info)
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deepred-uci-syzygy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in std::fs::read_dir(data()).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|x| x == "rtbw" || x == "rtbz") {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    dir
}

#[test]
fn the_options_are_listed_and_checked() {
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.until(SECS(10), |l| l == "uciok");
    for opt in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l == opt), "missing {opt}");
    }
    e.send("setoption name SyzygyProbeLimit value 8");
    e.send("setoption name SyzygyProbeDepth value 0");
    e.send("setoption name Syzygy50MoveRule value maybe");
    e.send("setoption name SyzygyPath value <empty>");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("info string error:"))
        .count();
    assert_eq!(errors, 3, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("no tables")), "{lines:?}");
    e.quit();
}

#[test]
fn roots_in_the_tables_keep_their_result() {
    let (mut e, lines) = with_tables(data().to_str().unwrap());
    assert!(
        lines
            .iter()
            .any(|l| l == "info string Syzygy: 21 tables found (14 WDL, 7 DTZ), up to 4 pieces"),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    for (fen, result, keep) in roots() {
        let (best, info) = go(&mut e, &fen, 4);
        assert!(keep.contains(&best), "{fen}: {best} is not one of {keep:?}");
        let hits: u64 = field(&info, "tbhits").unwrap().parse().unwrap();
        assert!(hits > 0, "{info}");
        let cp = match result.as_str() {
            "win" => "31871",
            "cursed-win" => "1",
            "draw" => "0",
            "blessed-loss" => "-1",
            _ => "-31871",
        };
        // A mate the search sees is reported as a mate, for the right side.
        let score_ok = field(&info, "cp") == Some(cp)
            || field(&info, "mate").is_some_and(|m| m.starts_with('-') == cp.starts_with('-'));
        assert!(score_ok, "{fen} ({result}): {info}");
    }
    // Without the 50-move rule a cursed win is a win.
    let (fen, _, _) = roots().into_iter().find(|r| r.1 == "cursed-win").unwrap();
    e.send("setoption name Syzygy50MoveRule value false");
    let (_, info) = go(&mut e, &fen, 4);
    assert!(
        field(&info, "cp") == Some("31871") || field(&info, "mate").is_some(),
        "{info}"
    );
    e.quit();
}

/// Plays the engine against itself from `fen`, `depth` plies a move, for at most `plies`
/// plies: the final position and the number of plies played.
fn play_out(e: &mut Uci, fen: &str, depth: u32, plies: usize) -> (Chess, usize) {
    let mut pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut moves: Vec<String> = Vec::new();
    while moves.len() < plies && !pos.is_game_over() {
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        e.send(&format!("go depth {depth}"));
        let (best, _) = e.bestmove(SECS(60));
        let best = best.split_whitespace().nth(1).unwrap().to_string();
        let m = best
            .parse::<UciMove>()
            .unwrap()
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
        moves.push(best);
    }
    (pos, moves.len())
}

#[test]
fn won_endings_are_played_out_to_mate() {
    let (mut e, _) = with_tables(data().to_str().unwrap());
    // KRvK and KPvK wins (the pawn ending needs the KQvK table after promotion), each side
    // played by the engine.
    for fen in [
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "4k3/8/4K3/4P3/8/8/8/8 b - - 0 1",
        "8/5k2/8/8/8/8/1P6/1K6 w - - 0 1",
    ] {
        let (end, plies) = play_out(&mut e, fen, 5, 120);
        assert!(
            end.is_checkmate(),
            "{fen}: no mate after {plies} plies: {end:?}"
        );
    }
    e.quit();
}

#[test]
fn a_drawn_ending_stays_drawn() {
    let (mut e, _) = with_tables(data().to_str().unwrap());
    // KRvKP with the pawn on the seventh, supported: a draw (python-chess: WDL 0). The side
    // with the rook must not lose; the pawn side must not let it win.
    let fen = "8/8/8/8/8/5K2/1kp5/3R4 w - - 0 1";
    let (end, plies) = play_out(&mut e, fen, 5, 60);
    assert!(
        !end.is_checkmate(),
        "mate after {plies} plies from a draw: {end:?}"
    );
    let loaded = deepred::chess::syzygy::Tablebases::load(data().to_str().unwrap());
    let tb = loaded.tables.unwrap();
    if end.board().occupied().count() >= 3 && !end.is_game_over() {
        assert_eq!(
            tb.probe_wdl(&end).unwrap(),
            Some(deepred::chess::syzygy::Wdl::Draw),
            "{end:?}"
        );
    }
    e.quit();
}

#[test]
fn a_bad_path_is_an_error_and_the_engine_goes_on() {
    let (mut e, lines) = with_tables("/no/such/syzygy/dir");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: Syzygy directory '/no/such/syzygy/dir'")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "info string Syzygy: 0 tables found"),
        "{lines:?}"
    );
    e.isready();
    let (best, info) = go(&mut e, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 5);
    assert_eq!(best.len(), 4);
    assert!(
        field(&info, "tbhits").is_none(),
        "no tables, no tbhits: {info}"
    );
    e.quit();
}

#[test]
fn a_corrupt_table_is_named_and_the_others_are_used() {
    let dir = temp_dir("garbage");
    let size = std::fs::metadata(dir.join("KQvK.rtbw")).unwrap().len() as usize;
    std::fs::write(dir.join("KQvK.rtbw"), vec![0xa5; size]).unwrap();
    let (mut e, lines) = with_tables(dir.to_str().unwrap());
    let named = format!(
        "info string error: Syzygy table '{}'",
        dir.join("KQvK.rtbw").display()
    );
    assert!(lines.iter().any(|l| l.starts_with(&named)), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l == "info string Syzygy: 20 tables found (13 WDL, 7 DTZ), up to 4 pieces"),
        "{lines:?}"
    );
    e.isready();
    // KRvK is still in the tables: a winning move.
    let (fen, _, keep) = roots()
        .into_iter()
        .find(|r| r.0.contains('R') && !r.0.contains('p') && r.1 == "win")
        .unwrap();
    let (best, info) = go(&mut e, &fen, 4);
    assert!(keep.contains(&best), "{fen}: {best} not in {keep:?}");
    assert!(field(&info, "tbhits").is_some_and(|h| h != "0"), "{info}");
    // KQvK has lost its WDL table: searched as usual.
    let (best, _) = go(&mut e, "8/8/8/4k3/8/8/8/4K2Q w - - 0 1", 5);
    assert_eq!(best.len(), 4);
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_table_corrupt_behind_its_header_is_reported_when_probed() {
    let dir = temp_dir("inside");
    let path = dir.join("KRvKP.rtbw");
    let mut bytes = std::fs::read(&path).unwrap();
    for (i, b) in bytes.iter_mut().enumerate().skip(4) {
        *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[2];
    }
    std::fs::write(&path, &bytes).unwrap();
    let (mut e, lines) = with_tables(dir.to_str().unwrap());
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    e.send("position fen 8/8/8/4k3/8/2p5/8/4K2R w - - 0 1");
    e.send("go depth 6");
    let (best, lines) = e.bestmove(SECS(60));
    let named = format!("Syzygy probe of {}", path.display());
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error:") && l.contains(&named)),
        "{lines:?}"
    );
    assert_eq!(best.split_whitespace().nth(1).unwrap().len(), 4);
    e.isready();
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

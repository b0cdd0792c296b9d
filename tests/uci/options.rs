//! Search tunables, strength limits and WDL as UCI options.

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use crate::common::{self, SECS, Uci};
use crate::{assert_legal, best_of};

/// Every search tunable is a `spin` option with its bounds, as `deepred spsa` lists it; values
/// in range change the search (node count at a fixed depth), values out of range are refused.
#[test]
fn search_tunables_are_options() {
    let (ok, spsa, _) = common::deepred(&["spsa"]);
    assert!(ok);
    let specs: Vec<Vec<String>> = spsa
        .lines()
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect();
    assert!(specs.len() >= 30, "{spsa}");
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.until(SECS(10), |l| l == "uciok");
    for s in &specs {
        assert_eq!(s.len(), 7, "{s:?}");
        assert_eq!(s[1], "int");
        let want = format!(
            "option name {} type spin default {} min {} max {}",
            s[0], s[2], s[3], s[4]
        );
        assert!(lines.contains(&want), "missing {want}");
    }
    let nodes = |e: &mut Uci| {
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 e7e5 g1f3");
        e.send("go depth 9");
        let (_, lines) = e.bestmove(SECS(60));
        let last = lines
            .iter()
            .rev()
            .find(|l| l.contains(" nodes "))
            .unwrap()
            .clone();
        let w: Vec<&str> = last.split_whitespace().collect();
        let i = w.iter().position(|x| *x == "nodes").unwrap();
        w[i + 1].parse::<u64>().unwrap()
    };
    let before = nodes(&mut e);
    assert_eq!(nodes(&mut e), before, "the same search again");
    e.send("setoption name LmrDivisor value 150");
    e.send("setoption name RfpMargin value 10000");
    let l = e.until(SECS(5), |l| l.starts_with("info string"));
    assert!(
        l.last().unwrap().contains("outside 20..200"),
        "out of range: {l:?}"
    );
    assert_ne!(nodes(&mut e), before, "LmrDivisor took effect");
    e.send(&format!("setoption name LmrDivisor value {}", 225));
    assert_eq!(nodes(&mut e), before, "back to the default");
    e.quit();
}

/// `UCI_LimitStrength` with `UCI_Elo`, and `Skill Level`: listed, checked, and a limited engine
/// searches no more than its strength's node cap and still plays a legal move.
#[test]
fn strength_limits() {
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.until(SECS(10), |l| l == "uciok");
    assert!(lines.contains(&"option name UCI_LimitStrength type check default false".to_string()));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name UCI_Elo type spin"))
    );
    assert!(
        lines.contains(&"option name Skill Level type spin default 20 min 0 max 20".to_string())
    );
    for bad in [
        "setoption name UCI_Elo value 100",
        "setoption name Skill Level value 21",
    ] {
        e.send(bad);
        let l = e.until(SECS(5), |l| l.starts_with("info string"));
        assert!(l.last().unwrap().contains("outside"), "{bad}: {l:?}");
    }
    let last_nodes = |lines: &[String]| -> u64 {
        let l = lines.iter().rev().find(|l| l.contains(" nodes ")).unwrap();
        let w: Vec<&str> = l.split_whitespace().collect();
        w[w.iter().position(|x| *x == "nodes").unwrap() + 1]
            .parse()
            .unwrap()
    };
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1350");
    e.send("position startpos moves e2e4");
    e.send("go depth 20");
    let (best, lines) = e.bestmove(SECS(30));
    let mut pos = Chess::default();
    pos.play_unchecked("e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap());
    assert_legal(&pos, &best_of(&best));
    // UCI_Elo 1350: about 44 nodes with the learned net, the search stopping at its next
    // check of the clock and the cap (BENCHMARKS.md, "Strength limiting").
    assert!(
        last_nodes(&lines) <= 300,
        "a weak engine searches little: {lines:?}"
    );
    // Skill Level applies when UCI_LimitStrength is off; level 10 is UCI_Elo 1825, about
    // 2,300 nodes with the learned net; 20 is full strength.
    e.send("setoption name UCI_LimitStrength value false");
    e.send("setoption name Skill Level value 10");
    e.send("go depth 20");
    let (best, lines) = e.bestmove(SECS(30));
    assert_legal(&pos, &best_of(&best));
    let level10 = last_nodes(&lines);
    assert!((1_800..=3_200).contains(&level10), "{lines:?}");
    // With more threads the level searches as deep: on one thread (the helpers' share of the
    // cap left the main thread at depth 1 with 4 threads).
    e.send("setoption name Threads value 4");
    e.send("ucinewgame");
    e.send("position startpos moves e2e4");
    e.send("go depth 20");
    let (best, lines) = e.bestmove(SECS(30));
    assert_legal(&pos, &best_of(&best));
    let depth: u32 = lines
        .iter()
        .rev()
        .find_map(|l| l.split(" depth ").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        depth >= 4 && last_nodes(&lines) <= 3_200,
        "4 threads: {lines:?}"
    );
    e.send("setoption name Threads value 1");
    e.send("setoption name Skill Level value 20");
    e.send("ucinewgame");
    e.send("position startpos moves e2e4");
    e.send("go depth 11");
    let (_, lines) = e.bestmove(SECS(60));
    assert!(last_nodes(&lines) > 12_000, "full strength: {lines:?}");
    e.quit();
}

/// `UCI_ShowWDL`: `wdl W D L` per mille on every scored info line, from the model (rising with
/// the score), or the experience store's record of the line's first move where it is known.
#[test]
fn show_wdl() {
    let dir = std::env::temp_dir().join(format!("deepred-wdl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
         [Result \"1-0\"]\n\n1. e4 d5 2. c4 1-0\n\n\
         [Result \"1/2-1/2\"]\n\n1. e4 Nf6 1/2-1/2\n\n",
    )
    .unwrap();
    let db = dir.join("store.sqlite");
    let (ok, _, err) = common::deepred(&[
        "import",
        pgn.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let wdl_of = |l: &str| -> Option<(u32, u32, u32)> {
        let w: Vec<&str> = l.split_whitespace().collect();
        let i = w.iter().position(|x| *x == "wdl")?;
        Some((
            w[i + 1].parse().unwrap(),
            w[i + 2].parse().unwrap(),
            w[i + 3].parse().unwrap(),
        ))
    };
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    e.send("go depth 4");
    let (_, lines) = e.bestmove(SECS(30));
    assert!(lines.iter().all(|l| wdl_of(l).is_none()), "off by default");
    e.send("setoption name UCI_ShowWDL value true");
    // A won position for the side to move, and a lost one: the model's win share follows.
    e.send("position fen 4k3/8/8/8/8/8/QQ6/4K3 w - - 0 1");
    e.send("go depth 4");
    let (_, lines) = e.bestmove(SECS(30));
    let won = lines
        .iter()
        .rev()
        .find_map(|l| wdl_of(l))
        .expect("wdl shown");
    e.send("position fen 4k3/qq6/8/8/8/8/8/4K3 w - - 0 1");
    e.send("go depth 4");
    let (_, lines) = e.bestmove(SECS(30));
    let lost = lines
        .iter()
        .rev()
        .find_map(|l| wdl_of(l))
        .expect("wdl shown");
    for (w, d, l) in [won, lost] {
        assert_eq!(w + d + l, 1000);
    }
    assert!(won.0 > 900 && lost.2 > 900, "{won:?} {lost:?}");
    // 1. e4 is in the store: 2 White wins and a draw in 3 games. Its line carries that record,
    // the line of 1. d4 (no game) the model's, each by its own first move (the root's record
    // was stamped on every line).
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("setoption name ExperienceMinGames value 3");
    e.send("setoption name MultiPV value 2");
    e.send("position startpos");
    e.send("go depth 3 searchmoves e2e4 d2d4");
    let (_, lines) = e.bestmove(SECS(30));
    let scored: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(scored.len() >= 2, "{lines:?}");
    for l in scored {
        let wdl = wdl_of(l).unwrap();
        if l.contains(" pv e2e4") {
            assert_eq!(wdl, (667, 333, 0), "{l}");
        } else {
            assert!(l.contains(" pv d2d4") && wdl != (667, 333, 0), "{l}");
            assert_eq!(wdl.0 + wdl.1 + wdl.2, 1000, "{l}");
        }
    }
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FEN read leniently (castling rights the board contradicts, an en passant square no pawn
/// can have passed: dropped, as Stockfish reads them) is said in an `info string warning`, once
/// per start position: the position was taken without a word.
#[test]
fn a_fen_read_leniently_says_what_it_dropped() {
    let mut e = Uci::start();
    let slip = "position fen r3k2r/8/8/8/8/8/8/4K3 w KQkq e3 0 1";
    e.send(slip);
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    let warnings: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string warning: "))
        .collect();
    assert_eq!(warnings.len(), 2, "{lines:?}");
    assert!(
        warnings[0].contains("castling rights with the rooks of a1, h1 dropped"),
        "{lines:?}"
    );
    assert!(
        warnings[1].contains("en passant square e3 dropped"),
        "{lines:?}"
    );
    // The same start with moves (a GUI's next position): not said again.
    e.send(&format!("{slip} moves e1e2"));
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(!lines.iter().any(|l| l.contains("warning")), "{lines:?}");
    // A FEN whose fields all hold: nothing said.
    e.send("position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    e.send("isready");
    let lines = e.until(SECS(10), |l| l == "readyok");
    assert!(!lines.iter().any(|l| l.contains("warning")), "{lines:?}");
    e.quit();
}

/// A whole number too large for any spin is said to be out of range (it was "not a number");
/// text is still not a number.
#[test]
fn a_huge_spin_value_is_out_of_range() {
    let mut e = Uci::start();
    for (value, want) in [
        ("99999999999999999999999", "is outside 1.."),
        ("-99999999999999999999999", "is outside 1.."),
        ("+99999999999999999999999", "is outside 1.."),
        ("12abc", "is not a number"),
        ("+-5", "is not a number"),
        ("-", "is not a number"),
    ] {
        e.send(&format!("setoption name Hash value {value}"));
        e.send("isready");
        let lines = e.until(SECS(10), |l| l == "readyok");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error: option 'Hash'") && l.contains(want)),
            "{value}: {lines:?}"
        );
    }
    e.quit();
}

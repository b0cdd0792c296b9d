//! Syzygy tablebases through the library: every probe of tests/data/syzygy/reference.txt and
//! every root ranking of root.txt equals python-chess's (scripts/syzygy_reference.py), bad
//! directories and table files are reported by name and left out, and the search probes inside
//! its tree (a capture into a won ending scores as a tablebase win) only when it has tables.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use deepred::chess::fen::parse_fen;
use deepred::chess::notation::uci_move;
use deepred::chess::score::{MATE_BOUND, TB_WIN, TB_WIN_BOUND};
use deepred::chess::syzygy::{PATH_SEPARATOR, Tablebases, Wdl};
use deepred::search::tt::TranspositionTable;
use deepred::search::{Limits, SearchParams, Shared, search};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")
}

fn tables() -> Tablebases {
    let loaded = Tablebases::load(data().to_str().unwrap());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    loaded.tables.expect("tables in tests/data/syzygy")
}

/// The data lines of a reference file, split at `;`.
fn records(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(data().join(name))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

#[test]
fn loads_the_test_tables() {
    let tb = tables();
    // 7 materials with WDL and DTZ tables, 7 more with WDL tables only.
    assert_eq!((tb.wdl_tables(), tb.dtz_tables()), (14, 7));
    assert_eq!(tb.max_pieces(), 4);
}

#[test]
fn probes_equal_python_chess() {
    let tb = tables();
    let lines = records("reference.txt");
    assert!(lines.len() >= 300, "{}", lines.len());
    let mut en_passant = 0;
    for l in &lines {
        let (fen, wdl, dtz) = (
            &l[0],
            l[1].parse::<i32>().unwrap(),
            l[2].parse::<i32>().unwrap(),
        );
        let pos = parse_fen(fen, false).unwrap();
        en_passant += usize::from(fen.split(' ').nth(3) != Some("-"));
        let ours = tb.probe_wdl(&pos).unwrap().expect("covered");
        assert_eq!(ours as i32, wdl, "WDL of {fen}");
        assert_eq!(tb.probe_dtz(&pos).unwrap(), Some(dtz), "DTZ of {fen}");
    }
    assert!(en_passant >= 20, "{en_passant} positions with en passant");
}

fn result_name(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::CursedWin => "cursed-win",
        Wdl::Draw => "draw",
        Wdl::BlessedLoss => "blessed-loss",
        Wdl::Loss => "loss",
    }
}

#[test]
fn root_ranking_equals_python_chess() {
    let tb = tables();
    let lines = records("root.txt");
    assert!(lines.len() >= 100);
    let mut seen = BTreeSet::new();
    for l in &lines {
        let (fen, result) = (&l[0], &l[1]);
        let want: BTreeSet<&str> = l[2].split(' ').collect();
        let pos = parse_fen(fen, false).unwrap();
        let probe = tb.rank_root(&pos, &[], true).unwrap().expect("covered");
        assert!(probe.by_dtz, "{fen}");
        assert_eq!(result_name(probe.wdl), result, "{fen}");
        let keep: Vec<String> = probe.keep.iter().map(|m| uci_move(*m, false)).collect();
        let keep: BTreeSet<&str> = keep.iter().map(String::as_str).collect();
        assert_eq!(keep, want, "{fen}");
        seen.insert(result.as_str());
    }
    assert!(
        ["win", "cursed-win", "draw", "loss"]
            .iter()
            .all(|r| seen.contains(r)),
        "{seen:?}"
    );
}

#[test]
fn without_the_fifty_move_rule_a_cursed_win_is_a_win() {
    let tb = tables();
    let line = records("root.txt")
        .into_iter()
        .find(|l| l[1] == "cursed-win")
        .unwrap();
    let pos = parse_fen(&line[0], false).unwrap();
    let probe = tb.rank_root(&pos, &[], false).unwrap().unwrap();
    assert_eq!(probe.wdl, Wdl::Win, "{}", line[0]);
}

#[test]
fn bad_directories_and_files_are_named_and_left_out() {
    let dir = std::env::temp_dir().join(format!("deepred-syzygy-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for t in ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbz"] {
        std::fs::copy(data().join(t), dir.join(t)).unwrap();
    }
    // Garbage of a table's size, a truncated table, a directory with a table's name, a file
    // that is no table at all (ignored).
    let size = std::fs::metadata(data().join("KRvK.rtbw")).unwrap().len() as usize;
    std::fs::write(dir.join("KRvK.rtbw"), vec![0x5a; size]).unwrap();
    let kpk = std::fs::read(data().join("KPvK.rtbw")).unwrap();
    std::fs::write(dir.join("KPvK.rtbw"), &kpk[..kpk.len() - 10]).unwrap();
    std::fs::create_dir_all(dir.join("KBvK.rtbw")).unwrap();
    std::fs::write(dir.join("README.txt"), "not a table").unwrap();
    let missing = dir.join("no-such-dir");
    let list = format!("{}{PATH_SEPARATOR}{}", missing.display(), dir.display());
    let loaded = Tablebases::load(&list);
    let errors: Vec<String> = loaded.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 4, "{errors:?}");
    let named = |name: &str| errors.iter().any(|e| e.contains(name));
    assert!(
        named("no-such-dir") && errors[0].starts_with("Syzygy directory"),
        "{errors:?}"
    );
    assert!(
        named("KRvK.rtbw") && named("not a Syzygy WDL table"),
        "{errors:?}"
    );
    assert!(named("KPvK.rtbw") && named("not the size"), "{errors:?}");
    assert!(
        named("KBvK.rtbw") && named("not a regular file"),
        "{errors:?}"
    );
    // The good tables stay usable.
    let tb = loaded.tables.expect("the good tables");
    assert_eq!((tb.wdl_tables(), tb.dtz_tables()), (1, 2));
    let kqk = parse_fen("8/8/8/4k3/8/8/8/4K2Q w - - 0 1", false).unwrap();
    assert_eq!(tb.probe_wdl(&kqk).unwrap(), Some(Wdl::Win));
    // KRvK has no usable WDL table: not covered (no error, no answer).
    let krk = parse_fen("8/8/8/4k3/8/8/8/4K2R w - - 0 1", false).unwrap();
    assert_eq!(tb.probe_wdl(&krk).unwrap(), None);
    // Nothing usable at all.
    let none = Tablebases::load(missing.to_str().unwrap());
    assert!(none.tables.is_none() && none.errors.len() == 1);
    assert!(Tablebases::load("").tables.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_table_corrupt_behind_its_header_fails_the_probe_with_its_name() {
    let dir = std::env::temp_dir().join(format!("deepred-syzygy-corrupt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A WDL table with its magic bytes and size intact and everything after them garbage.
    let mut bytes = std::fs::read(data().join("KRvKP.rtbw")).unwrap();
    let mut x = 0x9e37_79b9u32;
    for b in &mut bytes[4..] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    std::fs::write(dir.join("KRvKP.rtbw"), &bytes).unwrap();
    let loaded = Tablebases::load(dir.to_str().unwrap());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let tb = loaded.tables.unwrap();
    let pos = parse_fen("8/8/8/4k3/8/2p5/8/4K2R w - - 0 1", false).unwrap();
    let e = tb.probe_wdl(&pos).unwrap_err().to_string();
    assert!(e.contains("KRvKP.rtbw"), "{e}");
    // The good tables first, the corrupt copy after: the first folder's table is used, as
    // Stockfish does (the later copy used to replace it).
    let both = format!("{}{PATH_SEPARATOR}{}", data().display(), dir.display());
    let tb = Tablebases::load(&both).tables.unwrap();
    assert!(tb.probe_wdl(&pos).is_ok());
    assert_eq!((tb.wdl_tables(), tb.dtz_tables()), (14, 7));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Searches `fen` to `depth` with or without the test tables: (best move, score, tbhits).
fn searched(
    fen: &str,
    depth: u32,
    tables: Option<Arc<Tablebases>>,
    limit: usize,
) -> (String, i32, u64) {
    let mut params = SearchParams::new(parse_fen(fen, false).unwrap(), Limits::depth(depth));
    params.tablebases = tables;
    params.syzygy.probe_limit = limit;
    let r = search(&params, &Shared::default(), &TranspositionTable::new(8));
    (uci_move(r.best.unwrap(), false), r.score, r.tbhits)
}

#[test]
fn the_search_probes_after_a_capture_into_the_tables() {
    // Five pieces (not in the tables): Qxd8+ takes the rook into KQvKP, a tablebase win one
    // ply from the root.
    let fen = "3r3k/p7/8/8/8/8/8/3Q2K1 w - - 0 1";
    let tb = Arc::new(tables());
    let (m, score, hits) = searched(fen, 6, Some(tb.clone()), 7);
    assert_eq!(m, "d1d8");
    assert!(hits > 0);
    assert!((TB_WIN_BOUND..MATE_BOUND).contains(&score), "{score}");
    assert!(score >= TB_WIN - 8, "{score}");
    // Without tables, or with probing off (SyzygyProbeLimit 0): an evaluation.
    for (tables, limit) in [(None, 7), (Some(tb), 0)] {
        let (m, score, hits) = searched(fen, 6, tables, limit);
        assert_eq!(m, "d1d8");
        assert_eq!(hits, 0);
        assert!(score > 300 && score < TB_WIN_BOUND, "{score}");
    }
}

#[test]
fn a_root_in_the_tables_keeps_its_result() {
    let tb = Arc::new(tables());
    for l in records("root.txt").iter().step_by(5) {
        let (m, score, hits) = searched(&l[0], 4, Some(tb.clone()), 7);
        assert!(
            l[2].split(' ').any(|w| w == m),
            "{}: {m} not in {}",
            l[0],
            l[2]
        );
        assert!(hits > 0);
        let want = match l[1].as_str() {
            "win" => TB_WIN,
            "cursed-win" => 1,
            "draw" => 0,
            "blessed-loss" => -1,
            _ => -TB_WIN,
        };
        // A mate the search finds is reported as a mate (of the right side).
        let ok = score == want || (score.abs() >= MATE_BOUND && score.signum() == want.signum());
        assert!(ok, "{}: score {score}, {} wanted", l[0], l[1]);
    }
}

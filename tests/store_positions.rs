//! One experience: every learned game keeps its moves and what was known of them (Deep Red's
//! searches, another engine's scores, a PGN's annotations), and the value net's training
//! positions come from the store (SQLite or PostgreSQL): `experience export --bullet`,
//! `train-learned --db`. The search memory can be read by what changed since a reader last
//! looked.

mod common;

use std::path::{Path, PathBuf};

use deepred::chess::bullet::{position, read_file};
use deepred::chess::rules::GameResult;
use deepred::experience::memory::{QParams, Remembered};
use deepred::experience::records::{EvalSource, MoveEval};
use deepred::experience::store::{GameSearches, Store, record_of};
use shakmaty::Position;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-storepos-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn ok(args: &[&str]) -> String {
    let (ok, out, err) = common::deepred(args);
    assert!(ok, "{args:?}: {err}");
    out + &err
}

/// Two annotated games: an engine's comments (the mover's view) and lichess's (White's).
const ANNOTATED: &str = r#"[Event "t"]
[White "Engine A"]
[Black "Engine B"]
[Result "1-0"]

1. e4 {+0.30/10 0.1s} e5 {-0.25/11 0.1s} 2. Nf3 {+0.40/12 0.2s} Nc6 {book} 3. Bb5 {+0.50/12}
a6 {-0.45/12} 4. Bxc6 {+0.60/13} dxc6 {-0.50/13} 5. O-O {+0.55/14} 1-0

[Event "t"]
[White "Human"]
[Black "Human"]
[Result "0-1"]

1. f3 { [%eval -0.5] } e5 { [%eval -0.6] } 2. g4 { [%eval #-1] } Qh4# 0-1
"#;

/// Positions kept from the annotated games with every evaluation, no skipped plies: the
/// first game's quiet moves with an evaluation (e4, e5, Nf3, Bb5, a6, O-O: not Nc6, a book
/// move, nor the captures Bxc6 and dxc6), the second's f3 and e5 (g4 has a mate score; Qh4#
/// gives check, but the position before it is not in check and it has no evaluation).
const KEPT: usize = 8;

fn store_of_annotated(db: &Path) {
    let pgn = temp("annotated.pgn");
    std::fs::write(&pgn, ANNOTATED).unwrap();
    ok(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
}

fn annotated_games_keep_their_evaluations(db: &Path) {
    store_of_annotated(db);
    let store = Store::open_read_only(db).unwrap();
    let games = store.games_after(0, 10).unwrap();
    assert_eq!(games.len(), 2);
    let first = record_of(store.path(), &games[0].1).unwrap().unwrap();
    let other = |score, depth| {
        Some(MoveEval {
            score,
            depth,
            source: EvalSource::Other,
        })
    };
    assert_eq!(
        first.evals[..4],
        [other(30, 10), other(-25, 11), other(40, 12), None]
    );
    let second = record_of(store.path(), &games[1].1).unwrap().unwrap();
    // lichess's scores are White's: Black's e5 at -0.6 is +60 for Black.
    assert_eq!(second.evals[..2], [other(-50, 0), other(60, 0)]);
    drop(store);
    // Only Deep Red's own evaluations by default: none here.
    let out = temp("none.bin");
    let (db_s, out_s) = (db.to_str().unwrap(), out.to_str().unwrap());
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--bullet",
        out_s,
        "--skip-plies",
        "0",
    ]);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 0);
    // Every evaluation: the positions the filters keep, legal, with their moves.
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--bullet",
        out_s,
        "--skip-plies",
        "0",
        "--other-evals",
    ]);
    let boards = read_file(&out).unwrap();
    assert_eq!(boards.len(), KEPT);
    for b in &boards {
        let (pos, m) = position(b).expect("a legal position and move");
        assert!(!pos.is_check() && !m.is_capture(), "{b:?}");
    }
    // The first: 1. e4 from the start, +30 for White to move, White won.
    assert_eq!((boards[0].score, boards[0].result), (30, 2));
    // A window of the latest game only.
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--bullet",
        out_s,
        "--skip-plies",
        "0",
        "--other-evals",
        "--window",
        "1",
    ]);
    assert_eq!(read_file(&out).unwrap().len(), 2);
    // A window past i64 is every game (it was a negative offset, and no game at all).
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--bullet",
        out_s,
        "--skip-plies",
        "0",
        "--other-evals",
        "--window",
        "18446744073709551615",
    ]);
    assert_eq!(read_file(&out).unwrap().len(), KEPT);
    // A source weighed 0 is left out.
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--bullet",
        out_s,
        "--skip-plies",
        "0",
        "--other-evals",
        "--source-weight",
        "import=0",
    ]);
    assert_eq!(read_file(&out).unwrap().len(), 0);
}

#[test]
fn annotated_games_keep_their_evaluations_in_a_file() {
    annotated_games_keep_their_evaluations(&temp("annotated.sqlite"));
}

#[test]
fn postgres_annotated_games_keep_their_evaluations() {
    if let Some(s) = common::pg::server() {
        annotated_games_keep_their_evaluations(Path::new(&s.new_db("annotated")));
    }
}

#[test]
fn selfplay_games_train_the_net_from_the_store() {
    let db = temp("selfplay.sqlite");
    let db_s = db.to_str().unwrap();
    ok(&[
        "selfplay",
        "--games",
        "4",
        "--nodes",
        "1500",
        "--nodes-jitter",
        "40",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--db",
        db_s,
    ]);
    let store = Store::open_read_only(&db).unwrap();
    let games = store.games_after(0, 100).unwrap();
    assert_eq!(games.len(), 4);
    for (_, g) in &games {
        let r = record_of(store.path(), g).unwrap().unwrap();
        assert_eq!(r.evals.len(), r.moves.len());
        // Every move was Deep Red's search.
        assert!(
            r.evals
                .iter()
                .all(|e| e.is_some_and(|e| e.source == EvalSource::DeepRed && e.depth > 0)),
            "{:?}",
            r.evals
        );
    }
    drop(store);
    let out = temp("selfplay.bin");
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--bullet",
        out.to_str().unwrap(),
    ]);
    let boards = read_file(&out).unwrap();
    assert!(boards.len() > 40, "{}", boards.len());
    // The trainer reads the same positions from the store, and writes a net the engine plays.
    let net = temp("store.safetensors");
    let log = ok(&[
        "train-learned",
        "--db",
        db_s,
        "--out",
        net.to_str().unwrap(),
        "--hidden",
        "16",
        "--epochs",
        "2",
        "--batch",
        "64",
        "--val-fraction",
        "0.1",
        "--threads",
        "1",
    ]);
    assert!(
        log.contains(&format!("{} positions", boards.len())),
        "{log}"
    );
    let meta = deepred::nn::net::NetFile::load(&net, None).unwrap().meta;
    let v: f64 = meta["validation_loss"].parse().unwrap();
    assert!(v.is_finite() && v > 0.0, "{meta:?}");
    // With no positions kept out there is no validation loss to write (it wrote "NaN").
    let no_val = temp("no-val.safetensors");
    ok(&[
        "train-learned",
        "--db",
        db_s,
        "--out",
        no_val.to_str().unwrap(),
        "--hidden",
        "16",
        "--epochs",
        "1",
        "--val-fraction",
        "0",
        "--threads",
        "1",
    ]);
    let meta = deepred::nn::net::NetFile::load(&no_val, None).unwrap().meta;
    assert!(!meta.contains_key("validation_loss"), "{meta:?}");
    assert_eq!(meta["epochs"], "1");
    let mut e = common::Uci::start();
    e.send(&format!("setoption name EvalFile value {}", net.display()));
    e.send("position startpos");
    e.send("go depth 3");
    let (best, lines) = e.bestmove(common::SECS(30));
    assert!(best.starts_with("bestmove "), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("store.safetensors")),
        "{lines:?}"
    );
    e.quit();
    // Merged into another store, the games keep their evaluations.
    let copy = temp("merged.sqlite");
    ok(&[
        "experience",
        "merge",
        db_s,
        "--into",
        copy.to_str().unwrap(),
    ]);
    let out2 = temp("merged.bin");
    ok(&[
        "experience",
        "export",
        "--db",
        copy.to_str().unwrap(),
        "--bullet",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
}

fn row(key: u64, depth: i32) -> Remembered {
    Remembered {
        key,
        mv: 1,
        score: 10,
        depth,
        learned: 0,
    }
}

/// What a reader that passes back the number it got reads: each change once.
fn memory_is_read_by_what_changed(db: &Path) {
    let mut store = Store::open(db).unwrap();
    let learn = |store: &mut Store, found: &[Remembered], path: &[(u64, bool)]| {
        store
            .learn_searches(&GameSearches {
                record: None,
                found,
                path,
                result: Some(GameResult::WhiteWins),
                q: QParams::default(),
                tree_plies: None,
                retry: false,
            })
            .unwrap();
    };
    let since = |store: &Store, after: i64| {
        let mut keys = Vec::new();
        let top = store
            .memory_rows_since(after, |r| keys.push(r.key))
            .unwrap();
        keys.sort();
        (keys, top)
    };
    learn(&mut store, &[row(1, 5), row(2, 5)], &[]);
    let (all, first) = since(&store, -1);
    assert_eq!(all, vec![1, 2]);
    assert_eq!(since(&store, first), (vec![], first));
    // A deeper search of 2, a new 3, and a shallower one of 1 (not taken: 1 is unchanged).
    learn(&mut store, &[row(2, 7), row(3, 4), row(1, 2)], &[]);
    let (changed, second) = since(&store, first);
    assert_eq!(changed, vec![2, 3]);
    assert!(second > first);
    // The Q-learning step changes what 3 learned: read again.
    learn(&mut store, &[], &[(3, true)]);
    let (changed, third) = since(&store, second);
    assert_eq!(changed, vec![3]);
    assert!(third > second);
    assert_eq!(since(&store, -1).0, vec![1, 2, 3]);
}

#[test]
fn memory_is_read_by_what_changed_in_a_file() {
    memory_is_read_by_what_changed(&temp("memory.sqlite"));
}

#[test]
fn postgres_memory_is_read_by_what_changed() {
    if let Some(s) = common::pg::server() {
        memory_is_read_by_what_changed(Path::new(&s.new_db("memory_since")));
    }
}

/// `dataset --db`: the DeepChess and Deep Pink data sets of the store's games are those of the
/// same games in PGN (the store exported with `export --pgn`, the same order), byte for byte;
/// `--window N` takes the latest N games.
#[test]
fn data_sets_from_the_store_equal_those_from_its_games_in_pgn() {
    let dir = temp("dataset");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("store.sqlite");
    let db_s = db.to_str().unwrap();
    let games = common::data("pgn/games/Nakamura_first500.pgn");
    ok(&["import", "--db", db_s, games.to_str().unwrap()]);
    let pgn = dir.join("store.pgn");
    ok(&[
        "experience",
        "export",
        "--db",
        db_s,
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let learned = Store::open_read_only(&db).unwrap().game_count().unwrap();
    assert!(learned > 400, "{learned} games");
    for kind in ["deepchess", "deeppink"] {
        let from_pgn = dir.join(format!("{kind}-pgn.bin"));
        let from_db = dir.join(format!("{kind}-db.bin"));
        ok(&[
            "dataset",
            kind,
            "--pgn",
            pgn.to_str().unwrap(),
            "--out",
            from_pgn.to_str().unwrap(),
            "--seed",
            "3",
        ]);
        ok(&[
            "dataset",
            kind,
            "--db",
            db_s,
            "--out",
            from_db.to_str().unwrap(),
            "--seed",
            "3",
        ]);
        let (a, b) = (
            std::fs::read(&from_pgn).unwrap(),
            std::fs::read(&from_db).unwrap(),
        );
        assert!(a.len() > 16 + 1000, "{kind}: {} bytes", a.len());
        assert!(
            a == b,
            "{kind}: the store's data set differs from its PGN's"
        );
    }
    // The latest 100 games: the PGN's last 100.
    let text = std::fs::read_to_string(&pgn).unwrap();
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    let tail = dir.join("tail.pgn");
    std::fs::write(&tail, &text[starts[starts.len() - 100]..]).unwrap();
    let (a, b) = (dir.join("tail-pgn.bin"), dir.join("tail-db.bin"));
    ok(&[
        "dataset",
        "deeppink",
        "--pgn",
        tail.to_str().unwrap(),
        "--out",
        a.to_str().unwrap(),
    ]);
    let out = ok(&[
        "dataset",
        "deeppink",
        "--db",
        db_s,
        "--window",
        "100",
        "--out",
        b.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

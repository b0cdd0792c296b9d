//! The experience store under import: exact counts, re-import, a SIGKILL in the middle of an
//! import, and two processes importing at once, each against both backends: an SQLite file and
//! a database on a real PostgreSQL server (tests/common/pg.rs); stores that cannot be used are in
//! `faults.rs`, migrations, merges and exports in `stores.rs`.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use deepred::experience::Error;
use deepred::experience::codec::decode_key;
use deepred::experience::store::Store;
use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Epd;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

#[path = "../common/mod.rs"]
mod common;
mod faults;
mod stores;

/// A game file of tests/data/pgn/games.
fn games(name: &str) -> PathBuf {
    common::data(&format!("pgn/games/{name}"))
}

const TCEC: &str = "TCEC_Season_13_-_Superfinal_nocomments.pgn";
const ALPHAZERO: &str = "alphazero_vs_stockfish_all.pgn";

/// A database on the test PostgreSQL server (`None` where it is not installed).
fn server_db(name: &str) -> Option<PathBuf> {
    common::pg::server().map(|s| PathBuf::from(s.new_db(name)))
}

fn is_url(db: &Path) -> bool {
    db.to_str().is_some_and(|s| s.starts_with("postgresql://"))
}

/// Empties a test store (deletes the file, or recreates the server database).
fn reset(db: &Path) {
    if is_url(db) {
        common::pg::server().unwrap().reset(db.to_str().unwrap());
    } else {
        let _ = std::fs::remove_file(db);
    }
}

/// Whether a store exists there yet: a killed first import may leave an SQLite file whose
/// schema never committed, which is an empty store, not a lost one.
fn exists(db: &Path) -> bool {
    if is_url(db) {
        Store::open_read_only(db).is_ok()
    } else {
        !matches!(
            Store::open_read_only(db),
            Err(Error::Missing { .. } | Error::Empty { .. })
        )
    }
}

/// Deletes a test store's directory (SQLite; a server database goes with the server).
fn remove(db: &Path) {
    if !is_url(db) {
        let _ = std::fs::remove_dir_all(db.parent().unwrap());
    }
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deepred-exp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("store.sqlite")
}

/// `deepred import --db DB PGN`.
fn import(db: &Path, pgn: &Path) -> std::process::Output {
    deepred(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ])
}

fn deepred(args: &[&str]) -> std::process::Output {
    common::command().args(args).output().unwrap()
}

/// An independent count, written against pgn-reader and shakmaty directly (no Deep Red code):
/// (EPD of the position, UCI move) -> (white wins, black wins, draws), each pair once per game.
struct Counter {
    counts: HashMap<(String, String), (u64, u64, u64)>,
    result: Option<(u64, u64, u64)>,
    pairs: Vec<(String, String)>,
    pos: Chess,
    ok: bool,
}

impl Visitor for Counter {
    type Tags = ();
    type Movetext = ();
    type Output = ();
    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        self.result = None;
        self.pairs.clear();
        self.pos = Chess::default();
        self.ok = true;
        ControlFlow::Continue(())
    }
    fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"Result" {
            self.result = match value.as_bytes() {
                b"1-0" => Some((1, 0, 0)),
                b"0-1" => Some((0, 1, 0)),
                b"1/2-1/2" => Some((0, 0, 1)),
                _ => None,
            };
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn san(&mut self, _: &mut (), san: SanPlus) -> ControlFlow<()> {
        match san.san.to_move(&self.pos) {
            Ok(m) => {
                let epd = Epd::from_position(&self.pos, EnPassantMode::Legal).to_string();
                self.pairs
                    .push((epd, m.to_uci(CastlingMode::Standard).to_string()));
                self.pos.play_unchecked(m);
            }
            Err(_) => self.ok = false,
        }
        ControlFlow::Continue(())
    }
    fn outcome(&mut self, _: &mut (), o: Outcome) -> ControlFlow<()> {
        if self.result.is_none() {
            self.result = match o {
                Outcome::Known(KnownOutcome::Decisive {
                    winner: Color::White,
                }) => Some((1, 0, 0)),
                Outcome::Known(KnownOutcome::Decisive {
                    winner: Color::Black,
                }) => Some((0, 1, 0)),
                Outcome::Known(KnownOutcome::Draw) => Some((0, 0, 1)),
                Outcome::Unknown => None,
            };
        }
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, _: ()) {
        let Some((w, b, d)) = self.result else { return };
        if !self.ok || self.pairs.is_empty() {
            return;
        }
        let mut seen = std::collections::HashSet::new();
        for p in self.pairs.drain(..) {
            if seen.insert(p.clone()) {
                let e = self.counts.entry(p).or_default();
                e.0 += w;
                e.1 += b;
                e.2 += d;
            }
        }
    }
}

fn store_counts(db: &Path) -> HashMap<(String, String), (u64, u64, u64)> {
    let store = Store::open_read_only(db).unwrap();
    let mut out = HashMap::new();
    for mover in [Color::White, Color::Black] {
        for (parent, mv, _child, w, b, d) in store.all_rows(mover).unwrap() {
            let pos = decode_key(&parent).unwrap();
            assert_eq!(pos.turn(), mover);
            let epd = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            assert!(out.insert((epd, mv), (w, b, d)).is_none(), "duplicate row");
        }
    }
    out
}

#[test]
fn import_counts_equal_an_independent_count_and_reimport_changes_nothing() {
    import_counts(&temp_db("count"));
}

#[test]
fn postgres_import_counts_equal_an_independent_count_and_reimport_changes_nothing() {
    if let Some(db) = server_db("count") {
        import_counts(&db);
    }
}

fn import_counts(db: &Path) {
    let files = [TCEC, ALPHAZERO];
    let mut args = vec!["import", "--db", db.to_str().unwrap()];
    let paths: Vec<String> = files
        .iter()
        .map(|f| games(f).display().to_string())
        .collect();
    args.extend(paths.iter().map(String::as_str));
    let out = deepred(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut counter = Counter {
        counts: HashMap::new(),
        result: None,
        pairs: Vec::new(),
        pos: Chess::default(),
        ok: true,
    };
    // Games repeated across or inside the files are learned once: count distinct games the same
    // way (by their move list and result).
    let mut seen_games = std::collections::HashSet::new();
    for f in &paths {
        let text = std::fs::read_to_string(f).unwrap();
        for game in text.split("\n[Event ").filter(|g| !g.trim().is_empty()) {
            let g = if game.starts_with("[Event ") {
                game.to_string()
            } else {
                format!("[Event {game}")
            };
            let moves_and_result = g
                .lines()
                .filter(|l| !l.starts_with('['))
                .collect::<Vec<_>>()
                .join(" ");
            let result = g
                .lines()
                .find(|l| l.starts_with("[Result "))
                .unwrap_or("")
                .to_string();
            if seen_games.insert((moves_and_result, result)) {
                let mut r = Reader::new(g.as_bytes());
                r.read_game(&mut counter).unwrap();
            }
        }
    }
    let stored = store_counts(db);
    assert_eq!(stored.len(), counter.counts.len());
    for (k, v) in &counter.counts {
        assert_eq!(stored.get(k), Some(v), "{k:?}");
    }

    // Importing again changes nothing.
    let before = store_counts(db);
    let out = deepred(&args);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(" 0 learned"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(before, store_counts(db));
    remove(db);
}

fn consistent(db: &Path) -> u64 {
    let store = Store::open_read_only(db).unwrap();
    for (moves, games) in store.consistency().unwrap() {
        assert_eq!(moves, games, "move counts disagree with the learned games");
    }
    store.game_count().unwrap()
}

// SIGKILL and `ulimit` are Unix; the other tests run everywhere.
#[cfg(unix)]
#[test]
fn sigkill_mid_import_loses_nothing_and_resume_imports_the_rest_once() {
    sigkill_mid_import(&temp_db("killed"));
}

#[cfg(unix)]
#[test]
fn postgres_sigkill_mid_import_loses_nothing_and_resume_imports_the_rest_once() {
    if let Some(db) = server_db("killed") {
        sigkill_mid_import(&db);
    }
}

#[cfg(unix)]
fn sigkill_mid_import(db: &Path) {
    let all = games("sf15-selfplay-6k-nodes_first200.pgn");
    // The reference on the same backend: its import time sets when to kill.
    let reference = if is_url(db) {
        server_db("reference").unwrap()
    } else {
        temp_db("reference")
    };
    let t0 = std::time::Instant::now();
    let out = deepred(&[
        "import",
        "--batch",
        "64",
        "--db",
        reference.to_str().unwrap(),
        all.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let full = t0.elapsed().as_millis() as u64;
    let expected = consistent(&reference);
    let expected_counts = store_counts(&reference);

    let mut killed_partway = false;
    // Kill part-way through; the machine's speed varies (a loaded machine imports more slowly
    // than the reference did), so the delay adapts: later after a kill before the first
    // commit, earlier after a kill that came too late.
    let mut delay_ms = full / 2;
    for _ in 0..12 {
        reset(db);
        let mut child = common::command()
            .args([
                "import",
                "--batch",
                "64",
                "--db",
                db.to_str().unwrap(),
                all.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let n = if exists(db) { consistent(db) } else { 0 };
        if n > 0 && n < expected {
            killed_partway = true;
            break;
        }
        delay_ms = if n == 0 {
            delay_ms * 3 / 2 + 1
        } else {
            delay_ms * 3 / 5
        };
    }
    assert!(
        killed_partway,
        "the import was never interrupted part-way; the test did not test anything"
    );
    // Resume.
    let out = import(db, all.as_path());
    assert!(out.status.success());
    assert_eq!(consistent(db), expected);
    assert_eq!(store_counts(db), expected_counts);
    remove(db);
    remove(&reference);
}

#[test]
fn two_processes_import_into_one_store() {
    two_processes_import(&temp_db("concurrent"));
}

#[test]
fn postgres_two_processes_import_into_one_store() {
    if let Some(db) = server_db("concurrent") {
        two_processes_import(&db);
    }
}

fn two_processes_import(db: &Path) {
    let a = games("Korchnoi_first500.pgn");
    let b = games("Nakamura_first500.pgn");
    let reference = temp_db(&format!("seq-{}", is_url(db)));
    assert!(
        deepred(&[
            "import",
            "--db",
            reference.to_str().unwrap(),
            a.to_str().unwrap(),
            b.to_str().unwrap()
        ])
        .status
        .success()
    );
    let spawn = |f: &Path| {
        common::command()
            .args([
                "import",
                "--batch",
                "128",
                "--db",
                db.to_str().unwrap(),
                f.to_str().unwrap(),
            ])
            .output()
    };
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| spawn(&a));
        let hb = s.spawn(|| spawn(&b));
        (ha.join().unwrap().unwrap(), hb.join().unwrap().unwrap())
    });
    assert!(
        ra.status.success(),
        "{}",
        String::from_utf8_lossy(&ra.stderr)
    );
    assert!(
        rb.status.success(),
        "{}",
        String::from_utf8_lossy(&rb.stderr)
    );
    assert_eq!(consistent(db), consistent(&reference));
    assert_eq!(store_counts(db), store_counts(&reference));
    remove(db);
    remove(&reference);
}

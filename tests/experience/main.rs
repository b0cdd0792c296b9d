//! The experience store under import: exact counts, re-import, a SIGKILL in the middle of an
//! import, and two processes importing at once, each against both backends: an SQLite file and
//! a database on a real PostgreSQL server (tests/common/pg.rs).

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

#[test]
fn bad_store_files_are_clear_errors() {
    let db = temp_db("bad");
    std::fs::write(
        &db,
        b"definitely not sqlite, definitely not sqlite, definitely not sqlite",
    )
    .unwrap();
    let out = deepred(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        games(TCEC).to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a Deep Red experience database"), "{err}");
    // The file was not touched.
    assert!(
        std::fs::read(&db)
            .unwrap()
            .starts_with(b"definitely not sqlite")
    );
    let out = deepred(&["experience", "stats", "--db", "/nonexistent/x.sqlite"]);
    assert!(!out.status.success());
    // A store to be made in a folder that does not exist: said so, naming the store.
    let tcec = games(TCEC);
    let out = deepred(&[
        "import",
        "--db",
        "/nonexistent/x.sqlite",
        tcec.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("'/nonexistent/x.sqlite': its folder does not exist"),
        "{err}"
    );
    let folder = db.parent().unwrap().to_str().unwrap().to_string();
    let out = deepred(&["experience", "stats", "--db", &folder]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("it is a folder"),
        "{err}"
    );
    #[cfg(unix)]
    {
        // An export over the store by another name (a hard link), over its log, or two exports
        // in one file: refused, the store untouched.
        let linked = db.with_file_name("linked.sqlite");
        std::fs::hard_link(&db, &linked).unwrap();
        let before = std::fs::read(&db).unwrap();
        let wal = db.with_file_name(format!("{}-wal", db.file_name().unwrap().to_str().unwrap()));
        // (no log there: SQLite would still take a file of that name for one)
        let two = db.with_file_name("two.out");
        for (args, want) in [
            (vec!["--bullet", linked.to_str().unwrap()], "also an input"),
            (vec!["--bullet", wal.to_str().unwrap()], "also an input"),
            (
                vec![
                    "--bullet",
                    two.to_str().unwrap(),
                    "--pgn",
                    two.to_str().unwrap(),
                ],
                "named for two exports",
            ),
        ] {
            let out = deepred(
                &[
                    &["experience", "export", "--db", db.to_str().unwrap()][..],
                    &args[..],
                ]
                .concat(),
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && err.contains(want),
                "{args:?}: {err}"
            );
        }
        assert_eq!(std::fs::read(&db).unwrap(), before);
        std::fs::remove_file(&linked).unwrap();
    }
    // One output that cannot be written (in a missing folder, a name that ends as a folder's,
    // a loop of links): refused before any is written (not a PGN made and the EPD refused
    // after it).
    let made = db.with_file_name("made.pgn");
    let (la, lb) = (
        db.with_file_name("loop-a.epd"),
        db.with_file_name("loop-b.epd"),
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&lb, &la).unwrap();
        std::os::unix::fs::symlink(&la, &lb).unwrap();
    }
    // A read-only file is kept as it is (the whole write's rename needed only its folder).
    let kept = db.with_file_name("kept.epd");
    std::fs::write(&kept, "kept\n").unwrap();
    let mut perms = std::fs::metadata(&kept).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&kept, perms).unwrap();
    for (bad, want) in [
        (
            "/nonexistent/x.epd".to_string(),
            "cannot write '/nonexistent/x.epd'",
        ),
        (kept.display().to_string(), "it is read-only"),
        (
            format!("{}/", db.with_file_name("newdir").display()),
            "it names a folder",
        ),
        (la.display().to_string(), "cannot write"),
    ] {
        let out = deepred(&[
            "experience",
            "export",
            "--db",
            db.to_str().unwrap(),
            "--pgn",
            made.to_str().unwrap(),
            "--epd",
            &bad,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{bad}: {err}");
        assert!(!made.exists(), "{bad}: the PGN was written");
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "kept\n");
    // A pipe is written as it is (the check before the export used to open and close it: the
    // reader saw the end of its input and the export then waited for another for ever), and
    // a link to a file not made yet stays a link, its target made by the export.
    #[cfg(unix)]
    {
        let good = db.with_file_name("good.sqlite");
        let out = deepred(&[
            "import",
            "--db",
            good.to_str().unwrap(),
            tcec.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let fifo = db.with_file_name("book.fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let mut export = common::command()
            .args([
                "experience",
                "export",
                "--db",
                good.to_str().unwrap(),
                "--epd",
            ])
            .arg(&fifo)
            .spawn()
            .unwrap();
        let t = std::time::Instant::now();
        while export.try_wait().unwrap().is_none() && t.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let done = export.try_wait().unwrap();
        if done.is_none() {
            let _ = export.kill();
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        assert!(
            done.is_some_and(|s| s.success()),
            "export into a pipe: {done:?}"
        );
        let epd = reader.join().unwrap();
        assert!(epd.lines().count() > 10 && epd.contains(" bm "), "{epd}");
        // `/dev/stdout` as the output, stdout a pipe: written there (the magic link was read
        // by hand as `pipe:[N]`, and the export failed after its work).
        let out = deepred(&[
            "experience",
            "export",
            "--db",
            good.to_str().unwrap(),
            "--epd",
            "/dev/stdout",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.lines().filter(|l| l.contains(" bm ")).count() > 10,
            "{out:?}"
        );
        let link = db.with_file_name("book-link.epd");
        let target = db.with_file_name("book-target.epd");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let out = deepred(&[
            "experience",
            "export",
            "--db",
            good.to_str().unwrap(),
            "--epd",
            link.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            epd,
            "the export through the link"
        );
    }
    // A plot into a folder: refused before the statistics, with the folder named.
    let out = deepred(&[
        "experience",
        "stats",
        "--db",
        db.to_str().unwrap(),
        "--plot",
        &folder,
    ]);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        !out.status.success()
            && err.contains(&format!("cannot write '{folder}'"))
            && text.is_empty(),
        "{text}{err}"
    );
    // No move enters a book or a coverage count with 0 games: 0 is refused, not read as 1.
    for args in [
        vec!["experience", "export", "--epd", "x.epd", "--min-games", "0"],
        vec![
            "experience",
            "coverage",
            "--pgn",
            tcec.to_str().unwrap(),
            "--min-games",
            "0",
        ],
    ] {
        let out = deepred(&[&args[..], &["--db", db.to_str().unwrap()][..]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("'0' for '--min-games"),
            "{args:?}: {err}"
        );
    }
    // Nor is a folder or a device a store to learn into: SQLite would take `/dev/null` and
    // learn every game into nothing.
    #[cfg(unix)]
    for (not_a_store, what) in [(folder.as_str(), "a folder"), ("/dev/null", "a device")] {
        let out = deepred(&["import", "--db", not_a_store, tcec.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(&format!("it is {what}")),
            "{err}"
        );
    }
    // A mistyped store for prune or vacuum is an error, not a new empty store; a bad merge
    // source leaves no new --into behind.
    let typo = db.with_file_name("typo.sqlite");
    let into = db.with_file_name("new.sqlite");
    for args in [
        vec![
            "experience",
            "prune",
            "--min-games",
            "2",
            "--db",
            typo.to_str().unwrap(),
        ],
        vec!["experience", "vacuum", "--db", typo.to_str().unwrap()],
        vec![
            "experience",
            "merge",
            db.to_str().unwrap(),
            "--into",
            into.to_str().unwrap(),
        ],
    ] {
        let out = deepred(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.starts_with("deepred: "),
            "{args:?}: {err}"
        );
        assert!(!typo.exists() && !into.exists(), "{args:?} made a store");
    }
    // An empty file (what a first import killed before its first commit leaves): reading it
    // says it is empty, and importing into it makes it a store.
    std::fs::write(&db, b"").unwrap();
    let out = deepred(&["experience", "stats", "--db", db.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("is empty"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(import(db.as_path(), games(TCEC).as_path()).status.success());
    assert!(consistent(&db) > 0);
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

#[cfg(unix)]
#[test]
fn a_full_disk_is_a_clear_error_and_loses_nothing() {
    // A file size limit (RLIMIT_FSIZE) makes writes past it fail as on a full disk; SIGXFSZ is
    // ignored so that the write fails instead of the process being killed.
    let db = temp_db("full");
    let pgn = games("Nakamura_first500.pgn");
    let out = Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 4000; exec \"$0\" import --batch 50 --db \"$1\" \"$2\"",
            env!("CARGO_BIN_EXE_deepred"),
            db.to_str().unwrap(),
            pgn.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the limit was never reached: {err}");
    assert!(
        err.contains("a write failed") || err.contains("disk is full"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // Whole games only, and some of them made it before the disk filled: the error says how
    // many.
    let learned = consistent(&db);
    assert!(learned > 0, "no batch landed before the limit");
    assert!(
        err.contains(&format!(
            "the import stopped there: {learned} games were learned before it"
        )),
        "{err}"
    );
    // With room again, the import completes exactly.
    let reference = temp_db("full-reference");
    assert!(import(reference.as_path(), pgn.as_path()).status.success());
    assert!(import(db.as_path(), pgn.as_path()).status.success());
    assert_eq!(consistent(&db), consistent(&reference));
    assert_eq!(store_counts(&db), store_counts(&reference));
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
    let _ = std::fs::remove_dir_all(reference.parent().unwrap());
}

#[test]
fn a_read_only_store_is_a_clear_error_and_is_left_unchanged() {
    let db = temp_db("ro");
    let first = games(TCEC);
    assert!(import(db.as_path(), first.as_path()).status.success());
    let before = store_counts(&db);
    let more = games(ALPHAZERO);
    // Read-only through an SQLite URI (works for every user, root included).
    let uri = format!("file:{}?mode=ro", db.display());
    let out = deepred(&["import", "--db", &uri, more.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(store_counts(&db), before);
    // The commands that only read take the URI as they take the file.
    let by_file = deepred(&["experience", "stats", "--db", db.to_str().unwrap()]);
    let by_uri = deepred(&["experience", "stats", "--db", &uri]);
    assert!(
        by_uri.status.success(),
        "{}",
        String::from_utf8_lossy(&by_uri.stderr)
    );
    let out = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).replace(&uri, "");
    assert_eq!(
        out(&by_uri),
        out(&by_file).replace(db.to_str().unwrap(), "")
    );
    // Read-only by permissions, where they bind (root ignores them).
    #[cfg(unix)]
    {
        let mut perm = std::fs::metadata(&db).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o444);
        std::fs::set_permissions(&db, perm.clone()).unwrap();
        if std::fs::OpenOptions::new().write(true).open(&db).is_err() {
            let out = import(db.as_path(), more.as_path());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success());
            assert!(err.contains("read-only"), "{err}");
            assert_eq!(store_counts(&db), before);
        }
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o644);
        std::fs::set_permissions(&db, perm).unwrap();
    }
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

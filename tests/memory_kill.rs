//! The search memory under a crash: a process that learns games with their searches (one
//! transaction each: the game's counts, its remembered positions, the Q-learning step) is
//! killed with SIGKILL; the store holds whole games only, and learning them again counts no game
//! twice.

#![cfg(unix)]

use std::path::Path;
use std::time::Duration;

use deepred::chess::rules::GameResult;
use deepred::experience::memory::{QParams, Remembered};
use deepred::experience::records::GameRecord;
use deepred::experience::store::{GameSearches, Learned, Store};
use shakmaty::{Chess, Position};

mod common;

/// Remembered positions a game writes.
const ROWS: u64 = 200;
const WRITER: &str = "DEEPRED_TEST_MEMORY_WRITER";

/// Game `i`: knights out and back, `i + 1` plies (every game differs).
fn game(i: u64) -> GameRecord {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for k in 0..=i {
        let m = cycle[(k % 4) as usize]
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    GameRecord {
        source: "test".into(),
        white: "w".into(),
        black: "b".into(),
        date: String::new(),
        result: GameResult::WhiteWins,
        start: Chess::default(),
        moves,
        evals: Vec::new(),
    }
}

fn rows(i: u64) -> Vec<Remembered> {
    (0..ROWS)
        .map(|j| Remembered {
            key: i * 1000 + j + 1,
            mv: 1,
            score: j as i32,
            depth: 5,
            learned: 0,
        })
        .collect()
}

/// Learns game `i` with its searches.
fn learn_one(store: &mut Store, i: u64) -> Learned {
    let g = game(i);
    let found = rows(i);
    let path: Vec<(u64, bool)> = found.iter().map(|r| (r.key, true)).collect();
    store
        .learn_searches(&GameSearches {
            record: Some(&g),
            found: &found,
            path: &path,
            result: Some(GameResult::WhiteWins),
            q: QParams::default(),
            tree_plies: None,
            retry: false,
        })
        .unwrap()
        .0
        .unwrap()
}

/// Learns games `from..to`.
fn learn(db: &Path, from: u64, to: u64) -> Vec<Learned> {
    let mut store = Store::open(db).unwrap();
    (from..to).map(|i| learn_one(&mut store, i)).collect()
}

/// In the child process (started by [`killed_writer`]): learn into the store named by the
/// environment until killed. Returns false in the test process itself.
fn child_writer() -> bool {
    let Ok(db) = std::env::var(WRITER) else {
        return false;
    };
    let mut store = Store::open(Path::new(&db)).unwrap();
    for i in 0.. {
        learn_one(&mut store, i);
    }
    true
}

#[test]
fn sigkill_while_learning_searches_leaves_whole_games() {
    if child_writer() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("deepred-memkill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    killed_writer(
        &dir.join("exp.sqlite"),
        "sigkill_while_learning_searches_leaves_whole_games",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same against a database on a real PostgreSQL server.
#[test]
fn postgres_sigkill_while_learning_searches_leaves_whole_games() {
    if child_writer() {
        return;
    }
    if let Some(server) = common::pg::server() {
        killed_writer(
            Path::new(&server.new_db("memkill")),
            "postgres_sigkill_while_learning_searches_leaves_whole_games",
        );
    }
}

/// Runs test `test` in a child process that learns into `db`, kills it mid-stream, checks the
/// store and resumes.
fn killed_writer(db: &Path, test: &str) {
    let db = db.to_path_buf();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--test-threads", "1"])
        .env(WRITER, &db)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has learned some games, mid-stream.
    let start = std::time::Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let learned = Store::open_read_only(&db)
            .and_then(|s| s.game_count())
            .unwrap_or(0);
        if learned >= 20 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let store = Store::open(&db).unwrap();
    let games = store.game_count().unwrap();
    assert!(games >= 20, "the writer learned {games} games");
    let memory = store.memory_rows().unwrap();
    // Game i's rows are there exactly when game i is, each with its one learning step.
    assert_eq!(memory.len() as u64, games * ROWS);
    for r in &memory {
        let i = (r.key - 1) / 1000;
        assert!(i < games, "row of an unlearned game: {r:?}");
    }
    let not_once = store
        .memory_rows_with_updates()
        .unwrap()
        .iter()
        .filter(|m| m.updates != 1)
        .count();
    assert_eq!(not_once, 0, "rows stored without their one learning step");
    drop(store);
    // Resuming from the start counts no game twice; the searches are learned again.
    let again = learn(&db, 0, games + 5);
    assert!(
        again[..games as usize]
            .iter()
            .all(|l| *l == Learned::AlreadyKnown)
    );
    assert!(
        again[games as usize..]
            .iter()
            .all(|l| matches!(l, Learned::New { .. }))
    );
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.game_count().unwrap(), games + 5);
    assert_eq!(store.memory_count().unwrap(), (games + 5) * ROWS);
}

//! `deepred selfplay`: legal finished games from book openings, learned and written as PGN.

use std::path::PathBuf;

use deepred::chess::pgn::read_games;
use deepred::chess::rules::GameResult;
use deepred::chess::rules::rule_result;
use deepred::experience::store::Store;

mod common;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-selfplay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn selfplay(args: &[&str]) -> String {
    let out = common::command()
        .arg("selfplay")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn games_are_legal_finished_learned_and_reproducible() {
    let dir = temp_dir("search");
    let db = dir.join("exp.sqlite");
    let book = common::data("books/noob_3moves_200.epd");
    let pgn = dir.join("games.pgn");
    let args = [
        "--games",
        "4",
        "--nodes",
        "2000",
        "--book",
        book.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
        "--seed",
        "7",
    ];
    let summary = selfplay(&args);
    assert!(summary.contains("4 learned"), "{summary}");
    let games: Vec<_> = read_games(std::fs::File::open(&pgn).unwrap())
        .into_iter()
        .map(|g| g.unwrap())
        .collect();
    assert_eq!(games.len(), 4);
    for g in &games {
        // Not from the standard start (book openings), finished by the rules or at 400 plies.
        assert_ne!(g.start, shakmaty::Chess::default());
        let by_rules = rule_result(&g.start, &g.moves);
        match by_rules {
            Some(r) => assert_eq!(Some(r), g.result),
            None => assert!(g.moves.len() >= 400 && g.result == Some(GameResult::Draw)),
        }
    }
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.game_count().unwrap(), 4);
    for (moves, games) in store.consistency().unwrap() {
        assert_eq!(moves, games);
    }
    // What the searches found is remembered: at least the root of every searched move.
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    assert!(
        store.memory_count().unwrap() as usize >= plies / 2,
        "{plies} plies"
    );
    // The same seed plays the same games (node limits are deterministic, and the search memory
    // is read between games, never during one), learning into a fresh store as the first did.
    let pgn2 = dir.join("again.pgn");
    let db2 = dir.join("again.sqlite");
    let mut args2 = args;
    args2[7] = db2.to_str().unwrap();
    args2[9] = pgn2.to_str().unwrap();
    selfplay(&args2);
    let moves = |p: &PathBuf| -> Vec<Vec<shakmaty::Move>> {
        let mut v: Vec<_> = read_games(std::fs::File::open(p).unwrap())
            .into_iter()
            .map(|g| g.unwrap().moves)
            .collect();
        v.sort_by_key(|m| format!("{m:?}"));
        v
    };
    assert_eq!(moves(&pgn), moves(&pgn2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exploration_mode_plays_random_then_known_moves() {
    let dir = temp_dir("explore");
    let db = dir.join("exp.sqlite");
    let summary = selfplay(&[
        "--games",
        "3",
        "--explore",
        "--db",
        db.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert!(summary.contains("3 learned"), "{summary}");
    let store = Store::open_read_only(&db).unwrap();
    // All three games start from the standard position and are different games (a lost line is
    // not replayed: an untried move is explored instead).
    let start = store.moves_from(&shakmaty::Chess::default()).unwrap();
    let total: u64 = start.iter().map(|m| m.games()).sum();
    assert_eq!(total, 3);
    assert!(start.len() <= 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--versus-random`: the pure mode against a random mover, read-only on the store: the games
/// add up, the same seed gives the same tally, and nothing is learned.
#[test]
fn the_pure_mode_is_measured_against_a_random_mover() {
    let dir = temp_dir("versus");
    let db = dir.join("exp.sqlite");
    selfplay(&["--explore", "--games", "20", "--db", db.to_str().unwrap()]);
    let before = Store::open_read_only(&db).unwrap().game_count().unwrap();
    let run = || {
        selfplay(&[
            "--explore",
            "--versus-random",
            "--games",
            "50",
            "--db",
            db.to_str().unwrap(),
            "--seed",
            "3",
        ])
    };
    let line = run();
    let count = |word: &str| -> u64 {
        let w: Vec<&str> = line.split_whitespace().collect();
        let i = w
            .iter()
            .position(|x| x.trim_end_matches([',', ';']) == word)
            .unwrap();
        w[i - 1].parse().unwrap()
    };
    assert_eq!(
        count("wins") + count("draws") + count("losses"),
        50,
        "{line}"
    );
    assert_eq!(run(), line);
    assert_eq!(
        Store::open_read_only(&db).unwrap().game_count().unwrap(),
        before
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--tree-plies N`: each game is stored whole, but its win/draw/loss counts cover its first N
/// plies only: the store's rows are exactly the distinct (position, move) pairs of the games'
/// first N plies, counted here from the PGN; without it, those of every ply.
#[test]
fn tree_plies_limits_the_counts_to_the_first_plies() {
    use std::collections::HashSet;
    let dir = temp_dir("tree");
    let book = common::data("books/noob_3moves_200.epd");
    let rows_of = |db: &PathBuf| -> usize {
        let store = Store::open_read_only(db).unwrap();
        store.all_rows(shakmaty::Color::White).unwrap().len()
            + store.all_rows(shakmaty::Color::Black).unwrap().len()
    };
    for tree in [Some(6usize), None] {
        let db = dir.join(format!("tree-{tree:?}.sqlite"));
        let pgn = dir.join(format!("tree-{tree:?}.pgn"));
        let mut args = vec![
            "--games".to_string(),
            "3".into(),
            "--nodes".into(),
            "500".into(),
            "--book".into(),
            book.to_str().unwrap().into(),
            "--db".into(),
            db.to_str().unwrap().into(),
            "--pgn".into(),
            pgn.to_str().unwrap().into(),
            "--seed".into(),
            "3".into(),
        ];
        if let Some(n) = tree {
            args.extend(["--tree-plies".to_string(), n.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        selfplay(&args);
        let mut pairs = HashSet::new();
        let mut plies = 0;
        for g in read_games(std::fs::File::open(&pgn).unwrap()) {
            let g = g.unwrap();
            plies += g.moves.len();
            let mut pos = g.start.clone();
            for &m in g.moves.iter().take(tree.unwrap_or(usize::MAX)) {
                let key = deepred::chess::fen::fen_of(&pos);
                let board: Vec<&str> = key.split_whitespace().take(4).collect();
                pairs.insert((
                    board.join(" "),
                    deepred::chess::notation::uci_move(m, false),
                ));
                shakmaty::Position::play_unchecked(&mut pos, m);
            }
        }
        assert!(plies > 3 * 6, "games long enough to tell: {plies} plies");
        assert_eq!(rows_of(&db), pairs.len(), "tree plies {tree:?}");
        let store = Store::open_read_only(&db).unwrap();
        assert_eq!(store.game_count().unwrap(), 3);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--pgn` gets each game as it finishes, not all of them at the end: a run stopped part-way
/// (Ctrl-C, a kill, a store that failed) keeps in its PGN every game it learned.
#[test]
fn a_stopped_run_keeps_its_finished_games_in_the_pgn() {
    let dir = temp_dir("stopped");
    let (db, pgn) = (dir.join("s.sqlite"), dir.join("s.pgn"));
    let book = common::data("books/noob_3moves_200.epd");
    let mut child = common::command()
        .args([
            "selfplay",
            "--games",
            "1000",
            "--nodes",
            "300",
            "--concurrency",
            "1",
        ])
        .arg("--book")
        .arg(&book)
        .arg("--db")
        .arg(&db)
        .arg("--pgn")
        .arg(&pgn)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let games_in_pgn = || {
        std::fs::read(&pgn).map_or(0, |t| {
            read_games(&t[..]).into_iter().filter(|g| g.is_ok()).count()
        })
    };
    while games_in_pgn() < 2 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its PGN held 2 games"
        );
        assert!(
            std::time::Instant::now() < deadline,
            "no game in the PGN after 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read(&pgn).unwrap();
    let games: Vec<_> = read_games(&text[..]).into_iter().collect();
    assert!(games.len() >= 2);
    // Whole games only, each one the store learned (a game played twice is learned once).
    assert!(games.iter().all(|g| g.is_ok()), "{games:?}");
    let distinct: std::collections::HashSet<String> = games
        .iter()
        .map(|g| {
            let g = g.as_ref().unwrap();
            format!("{} {:?}", deepred::chess::fen::fen_of(&g.start), g.moves)
        })
        .collect();
    let learned = Store::open_read_only(&db).unwrap().game_count().unwrap();
    assert!(
        learned as usize >= distinct.len(),
        "{learned} learned, {} in the PGN",
        distinct.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! Experience through UCI: learning finished games, the experience book, the experience
//! evaluator.

mod common;

use std::path::PathBuf;

use common::{SECS, Uci};
use deepred::experience::store::Store;
use shakmaty::Chess;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-uciexp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn info_until(e: &mut Uci, needle: &str) -> String {
    let lines = e.until(SECS(20), |l| l.contains(needle));
    lines.last().unwrap().clone()
}

#[test]
fn learning_records_finished_games_only() {
    let dir = temp_dir("learn");
    learning_records(&dir.join("exp.sqlite"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same with `ExperienceFile` a database on a real PostgreSQL server.
#[test]
fn postgres_learning_records_finished_games_only() {
    if let Some(server) = common::pg::server() {
        learning_records(&PathBuf::from(server.new_db("uci_learn")));
    }
}

fn learning_records(db: &std::path::Path) {
    let mut e = Uci::start();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("setoption name Learning value true");
    // An unfinished game, then a new game: nothing to learn.
    e.send("position startpos moves e2e4 e7e5");
    e.send("ucinewgame");
    e.isready();
    assert_eq!(
        Store::open_read_only(db).map_or(0, |s| s.game_count().unwrap()),
        0
    );
    // Fool's mate arrives as a position: learned at once.
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let l = info_until(&mut e, "learned the game");
    assert!(l.contains("4 plies, 0-1"), "{l}");
    // The same game again: the store counts it once, and the engine says so (it said it had
    // learned it each time).
    e.send("ucinewgame");
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let l = info_until(&mut e, "4 plies, 0-1");
    assert!(l.contains("already in") && !l.contains("learned"), "{l}");
    // A game that the engine itself ends: its mating move counts when the GUI moves on.
    e.send("ucinewgame");
    e.send("position startpos moves g2g4 e7e5 f2f3");
    e.send("go depth 3");
    let (best, _) = e.bestmove(SECS(30));
    assert_eq!(best.split_whitespace().nth(1), Some("d8h4"));
    e.send("ucinewgame");
    let l = info_until(&mut e, "learned the game");
    assert!(l.contains("4 plies, 0-1"), "{l}");
    // A ponder miss: the engine pondered on 1... Rb8 and found 2. Rxb8#, the opponent played
    // 1... Kh8. The mate was never played: no game is learned (it was, as 1-0 in 3 plies).
    e.send("setoption name Ponder value true");
    e.send("ucinewgame");
    let fen = "5rk1/5ppp/8/8/8/8/5PPP/1R4K1 w - - 0 1";
    e.send(&format!("position fen {fen} moves f2f3 f8b8"));
    e.send("go ponder wtime 10000 btime 10000");
    std::thread::sleep(std::time::Duration::from_millis(300));
    e.send("stop");
    let (best, _) = e.bestmove(SECS(30));
    assert!(best.starts_with("bestmove b1b8"), "{best}");
    e.send(&format!("position fen {fen} moves f2f3 g8h8"));
    e.send("go depth 4");
    e.bestmove(SECS(30));
    // And a ponder search stopped as the game ends (the opponent resigned, say): its move was
    // not played either.
    e.send("ucinewgame");
    e.send(&format!("position fen {fen} moves f2f3 f8b8"));
    e.send("go ponder wtime 10000 btime 10000");
    std::thread::sleep(std::time::Duration::from_millis(300));
    e.send("stop");
    e.bestmove(SECS(30));
    e.send("ucinewgame");
    e.isready();
    e.quit();
    let store = Store::open_read_only(db).unwrap();
    assert_eq!(store.game_count().unwrap(), 2);
    let start = store.moves_from(&Chess::default()).unwrap();
    let mut by_move: Vec<(String, u64)> =
        start.iter().map(|m| (m.mv.clone(), m.black_wins)).collect();
    by_move.sort();
    assert_eq!(
        by_move,
        vec![("f2f3".to_string(), 1), ("g2g4".to_string(), 1)]
    );
}

/// A finished game the store refused (here: a file where its folder goes) is kept and learned
/// when the next game starts and the store takes it; it was lost ("could not remember").
#[test]
fn a_game_the_store_refused_is_learned_at_the_next_game() {
    let dir = temp_dir("refused");
    let folder = dir.join("store");
    std::fs::write(&folder, "a file where the store's folder goes").unwrap();
    let db = folder.join("exp.sqlite");
    let mut e = Uci::start();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("setoption name Learning value true");
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let l = info_until(&mut e, "tried again");
    assert!(l.contains("4 plies, 0-1"), "{l}");
    // Still refused at the next game: kept again, and said.
    e.send("ucinewgame");
    let l = info_until(&mut e, "still refuses");
    assert!(l.contains("kept"), "{l}");
    std::fs::remove_file(&folder).unwrap();
    std::fs::create_dir(&folder).unwrap();
    e.send("ucinewgame");
    let l = info_until(&mut e, "learned the game");
    assert!(l.contains("4 plies, 0-1"), "{l}");
    e.isready();
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.game_count().unwrap(), 1);
    // Once: the next game tries nothing again (the store would count it once, but say so).
    e.send("ucinewgame");
    e.send("position startpos moves e2e4");
    e.send("isready");
    let lines = e.until(SECS(20), |l| l == "readyok");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("readyok"),
        "{lines:?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("learned the game") || l.contains("already in")),
        "{lines:?}"
    );
    assert_eq!(store.game_count().unwrap(), 1);
    assert!(e.quit().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn experience_book_plays_the_best_known_move() {
    let dir = temp_dir("book");
    let db = dir.join("exp.sqlite");
    // 12 distinct games won by White: 1.e4 once, 1.d4 eleven times (different third moves).
    let thirds = [
        "e3", "c4", "g3", "Bf4", "Bg5", "Nc3", "Nbd2", "c3", "a3", "h3", "b3",
    ];
    let mut pgn = String::from("[Event \"e4\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n");
    for (i, third) in thirds.iter().enumerate() {
        pgn.push_str(&format!(
            "[Event \"d4 {i}\"]\n[Result \"1-0\"]\n\n1. d4 d5 2. Nf3 Nf6 3. {third} 1-0\n\n"
        ));
    }
    let file = dir.join("book.pgn");
    std::fs::write(&file, pgn).unwrap();
    let out = common::command()
        .args([
            "import",
            "--db",
            db.to_str().unwrap(),
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let learned = Store::open_read_only(&db).unwrap().game_count().unwrap();
    assert_eq!(learned, 12, "{}", String::from_utf8_lossy(&out.stdout));

    let mut e = Uci::start();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("setoption name ExperienceBook value true");
    e.send("setoption name ExperienceMinGames value 5");
    e.send("position startpos");
    e.send("go wtime 10000 btime 10000");
    let (best, lines) = e.bestmove(SECS(10));
    assert_eq!(best, "bestmove d2d4");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string experience book: d2d4"))
    );
    // Too few games for the threshold: a normal search.
    e.send(&format!(
        "setoption name ExperienceMinGames value {}",
        learned + 1
    ));
    e.send("go depth 4");
    let (_, lines) = e.bestmove(SECS(30));
    assert!(!lines.iter().any(|l| l.contains("experience book")));
    assert!(lines.iter().any(|l| l.starts_with("info depth 4 ")));
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn experience_book_at_a_terminal_root_answers_none() {
    let dir = temp_dir("book-terminal");
    let db = dir.join("exp.sqlite");
    let file = dir.join("fools.pgn");
    std::fs::write(
        &file,
        "[Event \"fool's mate\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n",
    )
    .unwrap();
    let out = common::command()
        .args([
            "import",
            "--db",
            db.to_str().unwrap(),
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut e = Uci::start();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("setoption name ExperienceBook value true");
    e.send("setoption name ExperienceMinGames value 1");
    // The book is on and knows the mating move...
    e.send("position startpos moves f2f3 e7e5 g2g4");
    e.send("go wtime 10000 btime 10000");
    let (best, _) = e.bestmove(SECS(10));
    assert_eq!(best, "bestmove d8h4");
    // ... and after it there is no move to give: mated, `bestmove (none)`.
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.send("go wtime 10000 btime 10000");
    let (best, lines) = e.bestmove(SECS(10));
    assert_eq!(best, "bestmove (none)");
    assert!(
        lines.iter().any(|l| l == "info depth 0 score mate 0"),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("experience book")),
        "{lines:?}"
    );
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn experience_evaluator_loads_and_falls_back() {
    let dir = temp_dir("eval");
    let mut e = Uci::start();
    // No store yet: the evaluator works (pst everywhere).
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        dir.join("none.sqlite").display()
    ));
    e.send("setoption name Evaluator value experience");
    let l = info_until(&mut e, "experience evaluator");
    assert!(l.contains("0 known positions"), "{l}");
    e.send("position startpos");
    e.send("go depth 4");
    e.bestmove(SECS(30));
    // A file that is not a store: a clear error and pst.
    let bad = dir.join("bad.sqlite");
    std::fs::write(
        &bad,
        b"not a database, not a database, not a database, not a database",
    )
    .unwrap();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        bad.display()
    ));
    let l = info_until(&mut e, "error");
    assert!(l.contains("Evaluator is learned"), "{l}");
    e.send("go depth 4");
    let (best, _) = e.bestmove(SECS(30));
    assert!(best.starts_with("bestmove "));
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The depth of the last `info` line before `bestmove`.
fn final_depth(lines: &[String]) -> u32 {
    let l = lines.iter().rev().find(|l| l.contains(" depth ")).unwrap();
    let w: Vec<&str> = l.split_whitespace().collect();
    w[w.iter().position(|x| *x == "depth").unwrap() + 1]
        .parse()
        .unwrap()
}

fn learning_engine(db: &std::path::Path) -> Uci {
    let mut e = Uci::start();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("setoption name Learning value true");
    wait_for_memory(&mut e);
    e
}

/// Waits until the engine's search memory has read its store (it reads it on a thread of its
/// own and says so at the next `go`), so that what a test measures next starts from it.
fn wait_for_memory(e: &mut Uci) {
    let start = std::time::Instant::now();
    loop {
        e.send("d");
        let lines = e.until(SECS(10), |l| l.starts_with("info string Evaluator: "));
        let state = lines
            .iter()
            .find(|l| l.starts_with("info string Search memory: "))
            .expect("a Search memory line with Learning on");
        if !state.contains("reading") {
            return;
        }
        assert!(
            start.elapsed() < SECS(30),
            "the memory was never read: {state}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The nodes of the last `info` line before `bestmove`.
fn final_nodes(lines: &[String]) -> u64 {
    let l = lines.iter().rev().find(|l| l.contains(" nodes ")).unwrap();
    let w: Vec<&str> = l.split_whitespace().collect();
    w[w.iter().position(|x| *x == "nodes").unwrap() + 1]
        .parse()
        .unwrap()
}

/// With `Learning`, what a search found is remembered in the store (root and principal
/// variation, schema 3's `search_memory`), and a later engine, with an empty hash table, starts
/// from it: the same search needs far fewer nodes.
#[test]
fn searches_are_remembered_and_built_on() {
    let dir = temp_dir("memory");
    remembered_and_built_on(&dir.join("exp.sqlite"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn postgres_searches_are_remembered_and_built_on() {
    if let Some(server) = common::pg::server() {
        remembered_and_built_on(&PathBuf::from(server.new_db("uci_memory")));
    }
}

/// A server that refuses the password: `Learning` and the experience evaluator say so on the
/// UCI channel (without the password) and the engine goes on playing.
#[test]
fn postgres_a_refused_server_is_an_info_string_and_play_goes_on() {
    let Some(server) = common::pg::server() else {
        return;
    };
    let url = server
        .new_db("uci_refused")
        .replace(common::pg::PASSWORD, "wrong-pw");
    let mut e = learning_engine(std::path::Path::new(&url));
    e.send("setoption name Evaluator value experience");
    let l = info_until(&mut e, "error");
    assert!(l.contains("refused the user or password"), "{l}");
    assert!(l.contains("Evaluator is learned"), "{l}");
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.send("ucinewgame");
    e.send("position startpos");
    e.send("go depth 4");
    let (best, _) = e.bestmove(SECS(30));
    assert!(best.starts_with("bestmove "), "{best}");
    assert!(e.log.iter().all(|l| !l.contains("wrong-pw")), "{:?}", e.log);
    e.quit();
}

fn remembered_and_built_on(db: &std::path::Path) {
    let mut e = learning_engine(db);
    e.send("position startpos");
    e.send("go depth 10");
    let (_, lines) = e.bestmove(SECS(30));
    let (depth, first) = (final_depth(&lines), final_nodes(&lines));
    assert_eq!(depth, 10);
    e.send("ucinewgame");
    e.isready();
    e.quit();
    let store = Store::open_read_only(db).unwrap();
    let root = store
        .memory_of(deepred::chess::zobrist::hash_of(&Chess::default()))
        .unwrap()
        .expect("the root is remembered");
    assert_eq!(root.depth, 10);
    assert!(store.memory_count().unwrap() >= 3, "PV positions too");
    drop(store);

    let mut e = learning_engine(db);
    e.send("position startpos");
    e.send("go depth 10");
    let (best, lines) = e.bestmove(SECS(30));
    assert!(best.starts_with("bestmove "), "{best}");
    let second = final_nodes(&lines);
    assert!(
        second * 4 < first * 3,
        "built on the memory: {second} nodes against {first}"
    );
    e.quit();
    // Without `Learning` nothing is read or written: the first search again, node for node.
    let mut e = Uci::start();
    e.send(&format!(
        "setoption name ExperienceFile value {}",
        db.display()
    ));
    e.send("position startpos");
    e.send("go depth 10");
    let (_, lines) = e.bestmove(SECS(30));
    assert_eq!(final_nodes(&lines), first, "the same search as the first");
    e.quit();
}

/// With `Learning`, a root move whose record is significantly bad for the mover loses
/// `ExperiencePenalty`: the engine's own choice, given 30 lost games, is no longer played.
#[test]
fn a_significantly_bad_record_keeps_the_move_out() {
    let dir = temp_dir("bias");
    let db = dir.join("exp.sqlite");
    let mut e = learning_engine(&db);
    e.send("setoption name ExperiencePenalty value 0");
    e.send("position startpos");
    e.send("go depth 6");
    let (best, _) = e.bestmove(SECS(30));
    let choice = best.split_whitespace().nth(1).unwrap().to_string();
    e.quit();
    {
        let mut store = Store::open(&db).unwrap();
        // Every first move of Black after it: 20 distinct games, all lost by White.
        let after = {
            use shakmaty::Position;
            let mut p = Chess::default();
            p.play_unchecked(shakmaty_line(&choice)[0]);
            p.legal_moves()
        };
        assert_eq!(after.len(), 20);
        for reply in after {
            {
                let mut moves = shakmaty_line(&choice);
                moves.push(reply);
                let game = deepred::experience::records::GameRecord {
                    source: "test".into(),
                    white: "w".into(),
                    black: "b".into(),
                    date: String::new(),
                    result: deepred::chess::rules::GameResult::BlackWins,
                    start: Chess::default(),
                    moves,
                    evals: Vec::new(),
                };
                store.learn_game(game).unwrap();
            }
        }
    }
    for (penalty, kept) in [("0", true), ("300", false)] {
        let mut e = learning_engine(&db);
        e.send(&format!("setoption name ExperiencePenalty value {penalty}"));
        e.send("position startpos");
        e.send("go depth 6");
        let (best, _) = e.bestmove(SECS(30));
        assert_eq!(
            best.split_whitespace().nth(1) == Some(choice.as_str()),
            kept,
            "penalty {penalty}: {best}"
        );
        e.quit();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn shakmaty_line(moves: &str) -> Vec<shakmaty::Move> {
    use shakmaty::Position;
    let mut pos = Chess::default();
    moves
        .split_whitespace()
        .map(|t| {
            let m = t
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// With `Learning`, a lost game turns the engine away from the move that led into it: the
/// result flows back (Q-learning step) to the position after the engine's move, and the root
/// bias leaves that move in the new search. `LearningRate 0` learns nothing: the new search, as
/// deep as the first, plays the first one's move again.
#[test]
fn a_lost_line_is_left_the_next_time() {
    use deepred::chess::rules::GameResult;
    use deepred::experience::memory::{QParams, Remembered};
    use deepred::experience::store::GameSearches;
    let dir = temp_dir("qlearn");
    let db = dir.join("exp.sqlite");
    // pst, and the same depth before and after: only the learning step may change the move
    // (a deeper search could change it by itself). A search that starts from the memory of an
    // earlier one need not choose as that one did (the remembered line is scored from the
    // memory, its rivals are searched afresh with other histories), so the engine searches
    // until its memory leads it to the move it remembers: a memory whose own search keeps its
    // move, which the control below (rate 0) then reproduces.
    let search = |db: &std::path::Path| {
        let mut e = learning_engine(db);
        e.send("setoption name Evaluator value pst");
        e.send("position startpos");
        e.send("go depth 8");
        let (best, _) = e.bestmove(SECS(30));
        e.quit();
        best.split_whitespace().nth(1).unwrap().to_string()
    };
    let mut choice = search(&db);
    let mut settled = false;
    for _ in 0..4 {
        let next = search(&db);
        settled = next == choice;
        choice = next;
        if settled {
            break;
        }
    }
    assert!(
        settled,
        "the memory keeps leading to another move (last: {choice})"
    );
    // The game went on from the engine's move and was lost.
    let start = Chess::default();
    let moved = shakmaty_line(&choice)[0];
    let root = deepred::chess::zobrist::hash_of(&start);
    let (_, child) = deepred::chess::zobrist::play(&start, root, moved);
    let before = Store::open_read_only(&db)
        .unwrap()
        .memory_of(child)
        .unwrap()
        .expect("the position after the move is remembered (principal variation)");
    for (rate, left) in [(0, false), (50, true)] {
        let copy = dir.join(format!("rate{rate}.sqlite"));
        std::fs::copy(&db, &copy).unwrap();
        let mut store = Store::open(&copy).unwrap();
        store
            .learn_searches(&GameSearches {
                record: None,
                found: &[] as &[Remembered],
                path: &[(root, true), (child, false)],
                result: Some(GameResult::BlackWins),
                q: QParams {
                    rate: f64::from(rate) / 100.0,
                    ..QParams::default()
                },
                tree_plies: None,
                retry: false,
            })
            .unwrap();
        let after = store.memory_of(child).unwrap().unwrap();
        assert_eq!(after.score, before.score);
        // Black to move there: the loss is good news for Black.
        assert_eq!(after.learned > 0, left, "{after:?}");
        drop(store);
        let mut e = learning_engine(&copy);
        e.send("setoption name Evaluator value pst");
        e.send("position startpos");
        e.send("go depth 8");
        let (best, _) = e.bestmove(SECS(30));
        assert_eq!(
            best.split_whitespace().nth(1) != Some(choice.as_str()),
            left,
            "rate {rate}: {best} (before: {choice})"
        );
        e.quit();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The search memory never holds up a `go`: it reads the store on a thread of its own, and at
/// each `ucinewgame` catches up with what another process sharing the store remembered since
/// (only the rows written since it last read).
#[test]
fn the_memory_catches_up_with_another_process() {
    use deepred::chess::notation::encode_move;
    use deepred::experience::memory::{QParams, Remembered};
    use deepred::experience::store::GameSearches;
    let dir = temp_dir("catchup");
    let db = dir.join("shared.sqlite");
    let mut e = learning_engine(&db);
    e.send("setoption name MemoryMinDepth value 1");
    // Another process remembers, deep, that after 1. e4 e5 White is lost.
    let start = Chess::default();
    let line = shakmaty_line("e2e4 e7e5 g1f3");
    let (mut pos, mut key) = (start.clone(), deepred::chess::zobrist::hash_of(&start));
    for m in &line[..2] {
        (pos, key) = deepred::chess::zobrist::play(&pos, key, *m);
    }
    let best = line[2];
    Store::open(&db)
        .unwrap()
        .learn_searches(&GameSearches {
            record: None,
            found: &[Remembered {
                key,
                mv: encode_move(&best),
                score: -900,
                depth: 30,
                learned: 0,
            }],
            path: &[],
            result: None,
            q: QParams::default(),
            tree_plies: None,
            retry: false,
        })
        .unwrap();
    // A new game: the memory catches up in the background.
    e.send("ucinewgame");
    let start_wait = std::time::Instant::now();
    loop {
        e.send("d");
        let lines = e.until(SECS(10), |l| l.starts_with("info string Evaluator: "));
        if lines
            .iter()
            .any(|l| l.starts_with("info string Search memory: 1 positions ("))
        {
            break;
        }
        assert!(start_wait.elapsed() < SECS(30), "{lines:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Black after 1. e4 now plays e5 at once, for the +9 the other process found.
    e.send("position startpos moves e2e4");
    e.send("go depth 3");
    let (best, lines) = e.bestmove(SECS(30));
    assert!(best.starts_with("bestmove e7e5"), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains(" score cp 900 ")),
        "{lines:?}"
    );
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

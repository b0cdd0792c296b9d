//! `deepred match` against real engines (Deep Red itself) and against broken fake engines (shell
//! scripts, so Unix only): a crashing one, one that plays illegal moves, one that answers no
//! move, one that never moves.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use deepred::chess::pgn::read_games;
use deepred::chess::rules::GameResult;
use deepred::chess::rules::rule_result;
use deepred::experience::store::Store;
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_deepred");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-match-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn book() -> String {
    common::data("books/noob_3moves_200.epd")
        .to_string_lossy()
        .into_owned()
}

/// Every game of a PGN file the match wrote (each must read back).
fn read_pgn(path: &Path) -> Vec<deepred::chess::pgn::PgnGame> {
    read_games(std::fs::File::open(path).unwrap())
        .into_iter()
        .map(|g| g.expect("the PGN the match wrote reads back"))
        .collect()
}

fn run_match(args: &[&str]) -> Output {
    Command::new(BIN).arg("match").args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fake UCI engine: a shell script answering the handshake, doing `on_go` for every `go`.
#[cfg(unix)]
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo \"id name {name}\"; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn deep_red_against_itself_alternates_colours_writes_pgn_and_learns() {
    let dir = temp_dir("self");
    let pgn = dir.join("m.pgn");
    let db = dir.join("x.sqlite");
    let o = run_match(&[
        "--opponent",
        &format!("{BIN} uci"),
        "--opponent-option",
        "Hash=8",
        "--nodes",
        "3000",
        "--games",
        "4",
        "--book",
        &book(),
        "--concurrency",
        "2",
        "--pgn",
        pgn.to_str().unwrap(),
        "--learn",
        "--db",
        db.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(": 4 games,"), "{out}");
    assert!(out.contains("Elo"), "{out}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("game ")).count(),
        4,
        "{err}"
    );

    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 4);
    let mut rounds: Vec<_> = games
        .iter()
        .map(|g| g.tag("Round").unwrap().parse::<usize>().unwrap())
        .collect();
    rounds.sort();
    assert_eq!(rounds, [1, 2, 3, 4]);
    let by_round = |r: &str| games.iter().find(|g| g.tag("Round") == Some(r)).unwrap();
    for (a, b) in [("1", "2"), ("3", "4")] {
        let (a, b) = (by_round(a), by_round(b));
        assert_eq!(a.start, b.start, "a pair shares its opening");
        assert_eq!(a.tag("White"), b.tag("Black"), "colours are swapped");
        assert_ne!(a.tag("White"), a.tag("Black"));
    }
    // Every game is decided on the board and learned; the same game played twice (two equal
    // engines can repeat each other's game with colours swapped) is learned once.
    let mut distinct = std::collections::HashSet::new();
    for g in &games {
        let term = g.tag("Termination").unwrap();
        if term == "normal" {
            assert_eq!(rule_result(&g.start, &g.moves), g.result);
        } else {
            assert_eq!(term, "adjudication", "no forfeits between two Deep Reds");
        }
        let start = Fen::from_position(&g.start, EnPassantMode::Legal).to_string();
        distinct.insert((start, g.moves.clone(), g.result));
    }
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.game_count().unwrap(), distinct.len() as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_crashing_opponent_loses_and_is_restarted_and_forfeits_are_not_learned() {
    let dir = temp_dir("crash");
    let crasher = fake_engine(&dir, "Crasher", "exit 3");
    let pgn = dir.join("m.pgn");
    let db = dir.join("x.sqlite");
    let o = run_match(&[
        "--opponent",
        &crasher,
        "--nodes",
        "500",
        "--games",
        "3",
        "--pgn",
        pgn.to_str().unwrap(),
        "--learn",
        "--db",
        db.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("3 games, 3 wins, 0 losses, 0 draws"), "{out}");
    assert!(out.contains("disconnect by Crasher 3"), "{out}");
    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 3);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("abandoned"));
        let crasher_white = g.tag("White") == Some("Crasher");
        let expected = if crasher_white {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        };
        assert_eq!(g.result, Some(expected));
        // Deep Red's move is kept when the crasher had Black.
        assert_eq!(g.moves.len(), usize::from(!crasher_white));
    }
    assert_eq!(Store::open_read_only(&db).unwrap().game_count().unwrap(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn illegal_moves_lose() {
    let dir = temp_dir("illegal");
    // e2e5 is illegal for both colours at move one, garbage is no move either.
    for (i, reply) in ["e2e5", "xyz"].iter().enumerate() {
        let bad = fake_engine(
            &dir,
            &format!("Cheater{i}"),
            &format!("echo 'info depth 1 score cp 0'; echo 'bestmove {reply}'"),
        );
        let o = run_match(&["--opponent", &bad, "--depth", "2", "--games", "2"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        assert!(out.contains("2 games, 2 wins, 0 losses"), "{reply}: {out}");
        assert!(
            out.contains(&format!("illegal move by Cheater{i} 2")),
            "{out}"
        );
        assert!(err.contains(&format!("illegal move: {reply}")), "{err}");
    }
    // "(none)" (what Stockfish answers a position without a legal move) and the null move
    // "0000" are understood as no move: a position with legal moves, so they lose too.
    for (i, reply) in ["(none)", "0000"].iter().enumerate() {
        let idle = fake_engine(
            &dir,
            &format!("Idle{i}"),
            &format!("echo 'info depth 0 score cp 0'; echo 'bestmove {reply}'"),
        );
        let o = run_match(&["--opponent", &idle, "--depth", "2", "--games", "2"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        assert!(out.contains("2 games, 2 wins, 0 losses"), "{reply}: {out}");
        assert!(out.contains(&format!("no move by Idle{i} 2")), "{out}");
        assert!(
            err.contains(&format!(
                "Idle{i} gives no move in a position with legal moves"
            )),
            "{err}"
        );
        assert!(!err.contains("illegal move: "), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn an_engine_that_never_moves_loses_on_time() {
    let dir = temp_dir("slow");
    let sleeper = fake_engine(&dir, "Sleeper", ":");
    let o = run_match(&["--opponent", &sleeper, "--tc", "0.3+0", "--games", "2"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("2 games, 2 wins"), "{out}");
    assert!(out.contains("time forfeit by Sleeper 2"), "{out}");
    assert!(err.contains("Sleeper loses on time"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn bad_arguments_fail_cleanly() {
    let cases: [&[&str]; 5] = [
        &["--opponent", "/nonexistent/engine"],
        &["--opponent", "true"],
        &["--opponent", "cat", "--tc", "fast"],
        &["--opponent", "cat", "--book", "/nonexistent.epd"],
        &["--opponent", "cat", "--engine-option", "Hash"],
    ];
    for args in cases {
        let o = run_match(args);
        let (out, err) = text(&o);
        assert!(!o.status.success(), "{args:?}: {out}");
        assert!(err.starts_with("deepred: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

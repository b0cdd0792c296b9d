//! `deepred match` against engines that misbehave in the middle of a game, and against files
//! that fail it: each fault is scored as cutechess-cli and fastchess score it, and no game is
//! hidden, lost or merged with another. Fake engines are shell scripts, so Unix only.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Output;

use deepred::chess::pgn::{PgnGame, read_games};
use deepred::chess::rules::GameResult;

mod common;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_match(args: &[&str]) -> (Output, String, String) {
    let o = common::command().arg("match").args(args).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o, out, err)
}

/// The games of a PGN file that read back whole.
fn games_of(path: &Path) -> Vec<PgnGame> {
    read_games(std::fs::File::open(path).unwrap())
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

/// An executable shell script `name` in `dir` with `body`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path.to_string_lossy().into_owned()
}

/// A fake UCI engine: answers the handshake (its `id` lines as given, which may hold bytes
/// that are not UTF-8) and does `on_go` for every `go`; `$side` is `w` or `b`, the side to move
/// in the book position given (White to move) after the moves of the `position` line.
fn fake(dir: &Path, name: &str, id: &str, on_go: &str) -> String {
    script(
        dir,
        name,
        &format!(
            "side=w\nwhile read line; do\n  case \"$line\" in\n    uci) {id}; echo uciok;;\n    isready) echo readyok;;\n    position*moves*) side=b;;\n    position*) side=w;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
        ),
    )
}

fn book(dir: &Path, fen: &str) -> String {
    let path = dir.join("book.epd");
    std::fs::write(&path, format!("{fen}\n")).unwrap();
    path.to_string_lossy().into_owned()
}

/// An engine that dies right after sending a move loses the game then ("abandoned"), and is
/// started again only for the next game: a restart in the middle hid the crash.
#[test]
fn an_engine_that_dies_between_its_moves_loses_that_game() {
    let dir = temp_dir("between");
    // Pawns far from the kings: each side's first move stays legal whatever the other does.
    let pawns = book(&dir, "4k3/p7/8/8/8/8/7P/4K3 w - -");
    let once = fake(
        &dir,
        "Once",
        "echo 'id name Once'",
        "if [ $side = w ]; then echo 'bestmove h2h3'; else echo 'bestmove a7a6'; fi; exit 0",
    );
    let pgn = dir.join("m.pgn");
    let args = ["--opponent", &once, "--nodes", "2000", "--games", "2"];
    let (o, out, err) = run_match(
        &[
            &args[..],
            &["--book", &pawns, "--pgn", pgn.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("2 games, 2 wins, 0 losses, 0 draws"), "{out}");
    let games = games_of(&pgn);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(
            g.tag("Termination"),
            Some("abandoned"),
            "{:?}",
            g.tag("Comment")
        );
        // Its one move is played; it loses at its second turn.
        let once_white = g.tag("White") == Some("Once");
        assert_eq!(g.moves.len(), if once_white { 2 } else { 3 });
        let won = if once_white {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        };
        assert_eq!(g.result, Some(won));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A flag that falls is a draw when the other side has no mating material (FIDE 6.9); an
/// engine's byte that is not UTF-8 is read, not taken for its exit.
#[test]
fn a_flag_against_a_bare_king_is_a_draw_and_odd_bytes_are_read() {
    let dir = temp_dir("flag");
    let queen = book(&dir, "k7/8/8/8/8/8/8/KQ6 w - -");
    let sleeper = fake(
        &dir,
        "Sleeper",
        "printf 'id name Sleeper\\nid author caf\\351\\n'",
        "printf 'info string caf\\351\\n'",
    );
    let pgn = dir.join("m.pgn");
    let (o, out, err) = run_match(&[
        "--opponent",
        &sleeper,
        // Only the sleeper's clock is short: a loaded machine cannot flag Deep Red.
        "--tc",
        "10+0.1",
        "--opponent-tc",
        "0.3+0",
        "--games",
        "2",
        "--book",
        &queen,
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{out}\n{err}");
    // Deep Red's queen wins on time against the sleeper; with the bare king, a draw.
    assert!(out.contains("2 games, 1 wins, 0 losses, 1 draws"), "{out}");
    let games = games_of(&pgn);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(
            g.tag("Termination"),
            Some("time forfeit"),
            "{:?}",
            g.tag("Comment")
        );
    }
    let drawn = games
        .iter()
        .find(|g| g.tag("White") == Some("Sleeper"))
        .unwrap();
    assert_eq!(drawn.result, Some(GameResult::Draw));
    assert_eq!(
        drawn.tag("Comment"),
        Some("Sleeper's flag falls, but the other side cannot mate: draw")
    );
    // The game's line names the flagged side too (it said '?').
    assert!(
        err.contains("{Sleeper's flag falls, but the other side cannot mate: draw}"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PGN that cannot be written stops the match at once, with an error and exit 1 (it could
/// not be resumed); a book line whose game is already over is refused.
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_pgn_stops_the_match_and_finished_openings_are_refused() {
    let dir = temp_dir("full");
    let (o, out, err) = run_match(&[
        "--opponent",
        common::command().get_program().to_str().unwrap(),
        "--nodes",
        "300",
        "--games",
        "6",
        "--pgn",
        "/dev/full",
    ]);
    assert!(!o.status.success(), "{out}\n{err}");
    assert!(
        err.contains("the match stopped after 1 of 6 games"),
        "{err}"
    );
    assert!(err.contains("cannot write the PGN of game 1"), "{err}");
    let mated = book(&dir, "7k/5QQ1/8/8/8/8/8/K7 b - -");
    let (o, _, err) = run_match(&["--opponent", "cat", "--book", &mated]);
    assert!(!o.status.success());
    assert!(
        err.contains("book.epd:1: the game is over in this position"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--resume` on a PGN whose last game was cut short (a match killed while writing) plays that
/// game again, on a line of its own, where the cut game was: a second `--resume` finds the file
/// whole. (A game cut in its result token, or in a tag, was left in the file: read as a whole
/// game, or swallowing the next one, once another game followed it, and the second resume
/// refused the file: "round 2 is in the file twice", "round 2 has no result".)
#[test]
fn a_game_cut_short_in_the_pgn_is_played_again() {
    let dir = temp_dir("cut");
    let pgn = dir.join("m.pgn");
    let me = common::command()
        .get_program()
        .to_str()
        .unwrap()
        .to_string();
    let args = [
        "--opponent",
        &me,
        "--nodes",
        "300",
        "--games",
        "2",
        "--max-plies",
        "30",
    ];
    let with_pgn = |resume: bool| {
        let mut a = args.to_vec();
        a.extend(["--pgn", pgn.to_str().unwrap()]);
        if resume {
            a.push("--resume");
        }
        run_match(&a)
    };
    let (o, out, err) = with_pgn(false);
    assert!(o.status.success(), "{out}\n{err}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let whole = text.trim_end();
    let last_result = games_of(&pgn)[1].tag("Result").unwrap().to_string();
    let cuts = [
        ("in the moves", text.len() - 20),
        ("in the result", whole.len() - last_result.len() + 2),
        ("in a tag", text.rfind("[Comment \"").unwrap() + 13),
        (
            "in the first tag's name",
            text.rfind("[Event ").unwrap() + 4,
        ),
    ];
    for (how, cut) in cuts {
        std::fs::write(&pgn, &text[..cut]).unwrap();
        let (o, out, err) = with_pgn(true);
        assert!(o.status.success(), "{how}: {out}\n{err}");
        assert!(err.contains("played again"), "{how}: {err}");
        assert!(out.contains("2 games"), "{how}: {out}");
        // What was cut off is kept beside the file.
        let kept = std::fs::read_to_string(dir.join("m.pgn.cut")).unwrap();
        assert!(
            text[..cut].ends_with(&kept)
                && "[Event \"Deep Red match\"]\n[Site".starts_with(&kept[..kept.len().min(30)]),
            "{how}: {kept}"
        );
        let (o, out, err) = with_pgn(true);
        assert!(o.status.success(), "{how}, again: {out}\n{err}");
        assert!(!err.contains("played again"), "{how}, again: {err}");
        let read = read_games(std::fs::File::open(&pgn).unwrap());
        assert!(read.iter().all(Result::is_ok), "{how}: {read:?}");
        let games = games_of(&pgn);
        let rounds: Vec<&str> = games.iter().filter_map(|g| g.tag("Round")).collect();
        assert_eq!(rounds, ["1", "2"], "{how}");
        assert!(
            games
                .iter()
                .all(|g| g.tag("PlyCount") == Some(&g.moves.len().to_string())),
            "{how}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine behind a shell script that does not `exec` it, hung in a search: the runner ends
/// the engine too, not only the shell.
#[cfg(target_os = "linux")]
#[test]
fn a_hung_engine_behind_a_wrapper_leaves_no_process_behind() {
    let dir = temp_dir("orphan");
    // A sleep of this process's id in seconds plus a fraction: no other run's.
    let marker = format!("{}.{}", 1_000_000 + std::process::id(), 271_828);
    let hung = fake(
        &dir,
        "Hung",
        "echo 'id name Hung'",
        &format!("sleep {marker}"),
    );
    let wrapper = script(&dir, "wrapper", &format!("{hung}\necho wrapper done >&2\n"));
    let (o, out, err) = run_match(&["--opponent", &wrapper, "--movetime", "100", "--games", "1"]);
    assert!(o.status.success(), "{out}\n{err}");
    // Scored as a stall, as cutechess-cli names it (it was a "disconnect").
    assert!(
        out.contains("stalled by Hung") && err.contains("Hung stalls: no move after"),
        "{out}\n{err}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let left: Vec<(String, String)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let c = std::fs::read(e.path().join("cmdline")).ok()?;
            let pid = e.file_name().to_string_lossy().into_owned();
            Some((pid, String::from_utf8_lossy(&c).replace('\0', " ")))
        })
        .filter(|(_, c)| c.contains(&format!("sleep {marker}")) || c.contains(&hung))
        .collect();
    // Whatever the outcome, nothing of this test outlives it.
    for (pid, _) in &left {
        let _ = std::process::Command::new("kill")
            .args(["-9", pid])
            .status();
    }
    assert!(left.is_empty(), "left running: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that writes without end and no line end (here 3 GB of 'x' after its `go`) loses
/// on its move timeout, and the runner holds a line's worth of it, not all of it: under a
/// limit of 2 GB of address space the runner used to abort for want of memory.
#[cfg(target_os = "linux")]
#[test]
fn an_engine_that_writes_without_end_loses_and_costs_no_memory() {
    let dir = temp_dir("spew");
    let spew = fake(
        &dir,
        "Spew",
        "echo 'id name Spew'",
        "head -c 3000000000 /dev/zero | tr '\\0' x",
    );
    let pgn = dir.join("m.pgn");
    let me = common::command().get_program().to_owned();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 2000000 && exec '{}' match --opponent '{spew}' --nodes 500 --games 1 --move-timeout 3000 --pgn '{}'",
            me.to_string_lossy(),
            pgn.display()
        ))
        .env("DEEPRED_HOME", common::test_home())
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("1 games, 1 wins, 0 losses"), "{out}");
    let games = games_of(&pgn);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].tag("Termination"), Some("stalled connection"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-C in a terminal (SIGINT to the whole process group: the runner and its engines) stops
/// the match with the summary of the games finished, exit 130. The games under way, whose
/// engines the signal killed, are dropped, not scored as crashes; `--resume` plays on. (The
/// runner died with its engines, and printed no summary.)
#[test]
fn ctrl_c_stops_the_match_with_its_summary_and_drops_the_games_under_way() {
    use std::os::unix::process::CommandExt;
    let dir = temp_dir("ctrl-c");
    let pgn = dir.join("m.pgn");
    let me = common::command()
        .get_program()
        .to_str()
        .unwrap()
        .to_string();
    let args = |games: &str| {
        [
            "match",
            "--opponent",
            &me,
            "--nodes",
            "400",
            "--max-plies",
            "60",
            "--concurrency",
            "2",
            "--pgn",
            pgn.to_str().unwrap(),
            "--games",
            games,
        ]
        .map(String::from)
    };
    let child = common::command()
        .args(args("200"))
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&pgn).map_or(0, |t| t.matches("[Result ").count()) < 3 {
        assert!(start.elapsed().as_secs() < 120, "no games played");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{out}\n{err}");
    assert!(err.contains("stopped by Ctrl-C"), "{err}");
    let games = games_of(&pgn);
    let n = games.len();
    assert!((3..200).contains(&n), "{n}");
    // The summary counts exactly the games on file, none of them a killed engine's forfeit.
    assert!(out.contains(&format!(": {n} games,")), "{out}\n{err}");
    for g in &games {
        let t = g.tag("Termination").unwrap();
        assert!(t == "normal" || t == "adjudication", "{t}: {err}");
    }
    let more = (n + 2).to_string();
    let again = args(&more);
    let mut again: Vec<&str> = again[1..].iter().map(String::as_str).collect();
    again.push("--resume");
    let (o, out, err) = run_match(&again);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(&format!(": {} games,", n + 2)), "{out}");
    assert_eq!(games_of(&pgn).len(), n + 2);
    let _ = std::fs::remove_dir_all(&dir);
}

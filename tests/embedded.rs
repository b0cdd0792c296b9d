//! Out of the box: the binary alone, copied into an empty folder and started from another,
//! plays with its embedded nets; the default evaluator is the learned net; the experience store
//! lives in Deep Red's data folder (`DEEPRED_HOME` here), whatever the working directory.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::SECS;

/// A fresh folder under the temporary directory.
fn fresh(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-embedded-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The built binary copied alone into an empty folder (once per test process).
fn copied_binary() -> PathBuf {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        let exe = fresh("bin").join("deepred");
        std::fs::copy(env!("CARGO_BIN_EXE_deepred"), &exe).unwrap();
        exe
    })
    .clone()
}

/// Runs `exe` in `cwd` with `home` as its data folder, feeds it `input`, returns stdout. A
/// `quit` at the end of `input` is sent once every `go` has had its `bestmove`: `quit` stops a
/// search, so sent at once it raced the search it meant to read (`go nodes 2000` stopped after
/// its first root move and played 1. e4 Nh6).
fn converse(exe: &Path, cwd: &Path, home: &Path, input: &str) -> String {
    use std::io::Write;
    let mut tries = 0;
    let mut child = loop {
        let spawned = Command::new(exe)
            .current_dir(cwd)
            .env("DEEPRED_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            // A file just written may be held open for a moment by a process another test
            // thread forked meanwhile ("text file busy"): try again.
            Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    let (body, quit) = match input.strip_suffix("quit\n") {
        Some(body) => (body, true),
        None => (input, false),
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(body.as_bytes()).unwrap();
    let rx = common::lines_of(child.stdout.take().unwrap());
    let searches = body.lines().filter(|l| l.starts_with("go")).count();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + SECS(120);
    while out
        .iter()
        .filter(|l: &&String| l.starts_with("bestmove"))
        .count()
        < searches
    {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => out.push(line),
            Err(_) => panic!("no bestmove for every go in 120 s:\n{}", out.join("\n")),
        }
    }
    if quit {
        stdin.write_all(b"quit\n").unwrap();
    }
    drop(stdin);
    let status = common::wait_exit(&mut child, SECS(60)).expect("the engine exits");
    assert!(status.success(), "{status:?}");
    out.extend(rx.iter());
    out.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_copied_binary_plays_every_net_from_any_folder() {
    let exe = copied_binary();
    let cwd = fresh("cwd");
    let home = fresh("home");
    for (name, nodes) in [("learned", 2000), ("deeppink", 2000), ("deepchess", 300)] {
        let out = converse(
            &exe,
            &cwd,
            &home,
            &format!(
                "setoption name Evaluator value {name}\nposition startpos moves e2e4\ngo nodes {nodes}\nisready\nquit\n"
            ),
        );
        let named = out
            .lines()
            .find(|l| l.starts_with(&format!("info string Evaluator {name}: {name}")))
            .unwrap_or_else(|| panic!("{name} not named:\n{out}"));
        assert!(named.contains("embedded"), "{named}");
        assert!(!out.contains("error"), "{out}");
        let best = out.lines().find(|l| l.starts_with("bestmove")).unwrap();
        let mv = best.split_whitespace().nth(1).unwrap();
        assert!(
            [
                "e7e5", "c7c5", "e7e6", "c7c6", "d7d5", "g8f6", "b8c6", "d7d6", "g7g6"
            ]
            .contains(&mv),
            "{name} answered 1. e4 with {best}"
        );
    }
    // Nothing was written beside the binary or in the working directory.
    assert_eq!(std::fs::read_dir(exe.parent().unwrap()).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0);
}

#[test]
fn the_default_evaluator_is_the_embedded_learned_net() {
    let exe = copied_binary();
    let cwd = fresh("default");
    let home = fresh("default-home");
    let out = converse(
        &exe,
        &cwd,
        &home,
        "uci\nposition startpos\ngo depth 3\nisready\nquit\n",
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("option name Evaluator type combo default learned ")),
        "{out}"
    );
    assert!(out.contains("option name EvalFile type string default auto"));
    let named = out
        .lines()
        .find(|l| l.starts_with("info string Evaluator learned: learned (768->"))
        .unwrap_or_else(|| panic!("no net named at the first go:\n{out}"));
    // The metadata of the shipped net: its generation and positions.
    assert!(named.contains("embedded (generation "), "{named}");
    assert!(named.contains(" positions)"), "{named}");
    // `eval` names the net in use and every net's origin.
    let out = converse(&exe, &cwd, &home, "eval\nquit\n");
    assert!(
        out.contains("info string in use: Evaluator learned: learned"),
        "{out}"
    );
    for net in ["deeppink", "learned", "deepchess"] {
        let l = out
            .lines()
            .find(|l| l.starts_with(&format!("info string {net}:")))
            .unwrap();
        assert!(l.contains("embedded"), "{l}");
    }
}

/// A promoted net in the data folder that cannot be read (an empty file, a killed copy): said
/// at the first `go`, and the embedded net plays, not pst.
#[test]
fn a_broken_promoted_net_gives_way_to_the_embedded_one_and_is_said() {
    let exe = copied_binary();
    let cwd = fresh("broken");
    let home = fresh("broken-home");
    std::fs::create_dir_all(home.join("nets")).unwrap();
    std::fs::write(home.join("nets/learned-gen99.safetensors"), b"").unwrap();
    let out = converse(
        &exe,
        &cwd,
        &home,
        "uci
position startpos
go depth 3
isready
quit
",
    );
    let error = out
        .lines()
        .find(|l| l.starts_with("info string error: "))
        .unwrap_or_else(|| panic!("the broken net was not said:\n{out}"));
    assert!(error.contains("learned-gen99.safetensors"), "{error}");
    assert!(error.contains("uses its embedded net instead"), "{error}");
    assert!(
        out.lines().any(
            |l| l.starts_with("info string Evaluator learned: learned (768->")
                && l.contains("embedded (generation ")
        ),
        "{out}"
    );
}

#[test]
fn an_eval_file_overrides_the_embedded_net_and_a_bad_one_is_a_clear_error() {
    let dir = fresh("evalfile");
    let bad = dir.join("bad.safetensors");
    std::fs::write(&bad, b"not a net at all").unwrap();
    // A real net file: the embedded learned net written out by `nn info`'s source, the repo.
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/learned.safetensors");
    let mut e = common::Uci::start();
    e.send(&format!("setoption name EvalFile value {}", bad.display()));
    let l = e.until(SECS(10), |l| l.contains("error"));
    let l = l.last().unwrap();
    assert!(l.contains("bad.safetensors"), "{l}");
    assert!(l.contains("Evaluator stays learned"), "{l}");
    e.send(&format!("setoption name EvalFile value {}", good.display()));
    let l = e.until(SECS(10), |l| l.starts_with("info string Evaluator learned"));
    assert!(
        l.last().unwrap().contains("file '") && !l.last().unwrap().contains("embedded"),
        "{l:?}"
    );
    e.send("setoption name EvalFile value auto");
    let l = e.until(SECS(10), |l| l.starts_with("info string Evaluator learned"));
    assert!(l.last().unwrap().contains("embedded"), "{l:?}");
    // A file that is not a regular file: a FIFO would block the engine forever.
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo.safetensors");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            e.send(&format!("setoption name EvalFile value {}", fifo.display()));
            let l = e.until(SECS(10), |l| l.contains("error"));
            assert!(l.last().unwrap().contains("not a regular file"), "{l:?}");
        }
    }
    // With an evaluator without a net (pst), a file that is no net is said at once; a neural
    // evaluator then refuses it, and takes its automatic net again after `EvalFile auto`.
    e.send("setoption name Evaluator value pst");
    e.send(&format!("setoption name EvalFile value {}", bad.display()));
    let l = e.until(SECS(10), |l| l.contains("warning"));
    assert!(
        l.last()
            .unwrap()
            .contains("a neural Evaluator will refuse it"),
        "{l:?}"
    );
    e.send("setoption name Evaluator value learned");
    let l = e.until(SECS(10), |l| l.contains("error"));
    assert!(l.last().unwrap().contains("Evaluator stays pst"), "{l:?}");
    e.send("setoption name EvalFile value auto");
    e.send("setoption name Evaluator value learned");
    let l = e.until(SECS(10), |l| l.starts_with("info string Evaluator learned"));
    assert!(l.last().unwrap().contains("embedded"), "{l:?}");
    e.send("setoption name Evaluator value nonsense");
    let l = e.until(SECS(10), |l| l.contains("error"));
    assert!(
        l.last().unwrap().contains("unknown evaluator 'nonsense'"),
        "{l:?}"
    );
    e.send("position startpos");
    e.send("go depth 2");
    e.bestmove(SECS(10));
    e.quit();
}

#[test]
fn deepred_eval_names_the_embedded_nets() {
    let cwd = fresh("eval-cwd");
    let out = common::command()
        .current_dir(&cwd)
        .arg("eval")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    for net in ["deeppink", "learned", "deepchess"] {
        let l = text
            .lines()
            .find(|l| l.starts_with(&format!("{net}:")))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(l.contains("embedded"), "{l}");
    }
}

#[test]
fn the_store_lives_in_the_data_folder_from_any_working_directory() {
    let exe = copied_binary();
    let home = fresh("store-home");
    // A game ended by checkmate (fool's mate) and learned, played from two folders.
    let game = "setoption name Learning value true\nucinewgame\nposition startpos moves f2f3 e7e5 g2g4\ngo depth 2\nisready\nposition startpos moves f2f3 e7e5 g2g4 d8h4\nucinewgame\nquit\n";
    for cwd in [fresh("store-cwd1"), fresh("store-cwd2")] {
        let out = converse(&exe, &cwd, &home, game);
        let store = home.join("experience.sqlite");
        let note = out
            .lines()
            .find(|l| l.starts_with("info string Learning into the experience store"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(note.contains(&store.display().to_string()), "{note}");
        assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0, "{out}");
    }
    let (ok, stats, err) = common::deepred(&[
        "experience",
        "stats",
        "--db",
        home.join("experience.sqlite").to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // The same game twice counts once.
    assert!(stats.contains("games: 1"), "{stats}");
}

#[test]
fn a_store_in_the_old_default_place_is_still_found() {
    let exe = copied_binary();
    let cwd = fresh("legacy-cwd");
    let home = fresh("legacy-home");
    let (ok, _, err) = common::deepred(&[
        "import",
        "--db",
        cwd.join("deepred-experience.sqlite").to_str().unwrap(),
        common::data("pgn/games/Nakamura_first500.pgn")
            .to_str()
            .unwrap(),
    ]);
    assert!(ok, "{err}");
    let out = converse(
        &exe,
        &cwd,
        &home,
        "setoption name Evaluator value experience\nquit\n",
    );
    let l = out
        .lines()
        .find(|l| l.starts_with("info string experience evaluator: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        !l.starts_with("info string experience evaluator: 0 "),
        "{l}"
    );
    assert!(l.contains("the old default place"), "{l}");
    assert!(l.contains("mv deepred-experience.sqlite"), "{l}");
}

#[test]
fn an_unwritable_data_folder_is_a_clear_error_and_the_engine_plays_on() {
    let dir = fresh("unwritable");
    let file = dir.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    // A data folder below a file cannot be created.
    let home = file.join("deepred");
    let out = converse(
        Path::new(env!("CARGO_BIN_EXE_deepred")),
        &dir,
        &home,
        "setoption name Learning value true\nposition startpos\ngo depth 3\nisready\nquit\n",
    );
    let err = out
        .lines()
        .find(|l| l.starts_with("info string error"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        err.contains("cannot create Deep Red's data folder"),
        "{err}"
    );
    assert!(out.lines().any(|l| l.starts_with("bestmove ")), "{out}");
}

//! The scripts parse, and share one preamble (`scripts/lib.sh`) instead of copies of it.

use std::path::PathBuf;
use std::process::Command;

fn scripts() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .collect();
    v.sort();
    v
}

/// An empty scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deepred-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `python3 scripts/spsa.py --engine ENGINE --state STATE`, more arguments to follow.
fn spsa(engine: &str, state: &std::path::Path) -> Command {
    let mut cmd = Command::new("python3");
    cmd.arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/spsa.py"))
        .args(["--engine", engine, "--state", state.to_str().unwrap()]);
    cmd
}

#[test]
fn every_script_parses_and_sources_the_shared_preamble() {
    let all = scripts();
    assert!(all.len() >= 15, "{all:?}");
    for s in all {
        let out = Command::new("bash").arg("-n").arg(&s).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            s.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        if s.ends_with("lib.sh") {
            continue;
        }
        let text = std::fs::read_to_string(&s).unwrap();
        assert!(
            text.contains(r#". "$(dirname "${BASH_SOURCE[0]}")/lib.sh""#),
            "{} does not source scripts/lib.sh",
            s.display()
        );
        // The root is lib.sh's to find.
        for copy in ["REPO_ROOT=", "ROOT=\"$(cd", "cd \"$(dirname \"$0\")/..\""] {
            assert!(
                !text.contains(copy),
                "{} computes the root itself ({copy})",
                s.display()
            );
        }
    }
}

/// A missing binary stops a script at once, with one line naming it.
#[test]
fn a_missing_binary_is_one_clear_line() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let out = Command::new("bash")
        .arg(dir.join("bench-vs-stockfish.sh"))
        .env("DEEPRED", "/nonexistent/deepred")
        .env("STOCKFISH", "/bin/true")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("'/nonexistent/deepred' not found"), "{err}");
}

/// `scripts/spsa.py` against a stand-in engine whose matches the test decides: the first
/// engine (theta + c * delta) wins both games of the first iteration and loses both of the
/// second, so each parameter moves by `r * c * (wins - losses)` towards the winner's side, with
/// OpenBench's schedule computed here independently; the third match fails, the script stops
/// with a clear error and keeps its state, and a second run finishes the tune from there.
#[test]
fn spsa_moves_each_parameter_towards_the_winner_and_resumes() {
    let dir = scratch("spsa");
    // The stand-in: `ENGINE match ...` prints a result line chosen by how often it was called,
    // and keeps its arguments.
    let engine = dir.join("engine.sh");
    std::fs::write(
        &engine,
        format!(
            r#"#!/bin/sh
d={dir}
n=$(cat "$d/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$d/calls"
echo "$@" > "$d/args$n"
case $n in
  1|4) echo "A vs B: 2 games, 2 wins, 0 losses, 0 draws" ;;
  2) echo "A vs B: 2 games, 0 wins, 2 losses, 0 draws" ;;
  *) echo "engine broke" >&2; exit 1 ;;
esac
"#,
            dir = dir.display()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&engine)
        .status()
        .unwrap();
    let inputs = dir.join("inputs.txt");
    std::fs::write(
        &inputs,
        "Alpha, int, 100, 0, 200, 10, 0.002\nBeta, int, 50, 40, 60, 4, 0.002\n",
    )
    .unwrap();
    let state = dir.join("state.json");
    let run = || {
        spsa(engine.to_str().unwrap(), &state)
            .args(["--inputs", inputs.to_str().unwrap()])
            .args(["--iterations", "4", "--pairs", "1", "--nodes", "100"])
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("spsa: match failed") && err.contains("engine broke"),
        "{err}"
    );

    // OpenBench's schedule, written out again here.
    let (n, alpha, gamma, a_ratio) = (4.0f64, 0.602f64, 0.101f64, 0.1f64);
    let step = |c_end: f64, r_end: f64, i: f64| {
        let c_value = c_end * n.powf(gamma);
        let a_value = r_end * c_end * c_end * (a_ratio * n + n).powf(alpha);
        let c = (c_value / i.powf(gamma)).max(0.5);
        let r = a_value / (a_ratio * n + i).powf(alpha) / (c * c);
        (c, r)
    };
    let option = |call: u32, side: &str, name: &str| -> f64 {
        let args = std::fs::read_to_string(dir.join(format!("args{call}"))).unwrap();
        let words: Vec<&str> = args.split_whitespace().collect();
        let at = words
            .windows(2)
            .find(|w| w[0] == side && w[1].starts_with(&format!("{name}=")))
            .unwrap_or_else(|| panic!("{side} {name} in {args}"));
        at[1].split('=').nth(1).unwrap().parse().unwrap()
    };
    let mut want = [(100.0, 10.0), (50.0, 4.0)];
    for (call, result) in [(1u32, 2.0), (2, -2.0)] {
        for (k, name) in ["Alpha", "Beta"].iter().enumerate() {
            let (theta, c_end) = want[k];
            let (c, r) = step(c_end, 0.002, f64::from(call));
            let plus = option(call, "--engine-option", name);
            let minus = option(call, "--opponent-option", name);
            let sign = (plus - minus).signum();
            assert_eq!(plus, (theta + c * sign).round(), "{name} at {call}");
            assert_eq!(minus, (theta - c * sign).round(), "{name} at {call}");
            want[k].0 = theta + r * c * result * sign;
        }
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved["done"], 2);
    assert_eq!(saved["games"], 4);
    for (k, p) in saved["params"].as_array().unwrap().iter().enumerate() {
        let v = p["value"].as_f64().unwrap();
        assert!((v - want[k].0).abs() < 1e-9, "{p} against {}", want[k].0);
    }

    // Resumed: iteration 3 (the stand-in's fourth call) and then the fourth (a failure again).
    std::fs::write(dir.join("calls"), "3").unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved["done"], 3, "{saved}");
    assert_eq!(saved["wld"], serde_json::json!([4, 2, 0]));
    for p in saved["params"].as_array().unwrap() {
        let (v, lo, hi) = (p["value"].as_f64(), p["min"].as_f64(), p["max"].as_f64());
        assert!(lo <= v && v <= hi, "{p}");
    }
    let log = std::fs::read_to_string(dir.join("state.json.csv")).unwrap();
    assert_eq!(log.lines().count(), 1 + 3, "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bad input line and an unknown `--only` name are refused with one clear line.
#[test]
fn spsa_refuses_bad_inputs() {
    let dir = scratch("spsa-bad");
    let inputs = dir.join("inputs.txt");
    for (text, only, message) in [
        ("Alpha, int, 100, 0\n", None, "line 1: not 'name, int"),
        (
            "Alpha, int, 100, 0, 200, 10, 0.002\n",
            Some("Gamma"),
            "--only names no tunable: gamma",
        ),
    ] {
        std::fs::write(&inputs, text).unwrap();
        let state = dir.join("state.json");
        let mut cmd = spsa("/bin/sh", &state);
        cmd.args(["--inputs", inputs.to_str().unwrap()]);
        if let Some(o) = only {
            cmd.args(["--only", o]);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(message), "{err}");
        assert!(!state.exists());
    }
    // A float tunable (Deep Red has none; the schedule here is for integers).
    std::fs::write(&inputs, "Alpha, float, 1.5, 0, 2, 0.1, 0.002\n").unwrap();
    let out = spsa("/bin/sh", &dir.join("f.json"))
        .args(["--inputs", inputs.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A state file of something else.
    let other = dir.join("other.json");
    std::fs::write(&other, "{}").unwrap();
    let out = spsa("/bin/sh", &other).arg("--show").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is no state of this script"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scripts/sprt-chain.sh` against a stand-in for `deepred match` (the commits' binaries
/// already in place, so nothing is built): stopped by SIGTERM mid-test, it keeps the games
/// played so far compressed in its archive (as `--snapshot` does beside it, whole games only,
/// leaving the archive as it was when compression fails); with the data folder's PGN lost, it
/// resumes from the archive, hands the match those games with `--resume`, and records the
/// decision; run once more, it skips the decided test. A CHANGE of the form COMMIT+NAME=VALUE
/// plays COMMIT's binary with that option; a PARENT of that form gives the opponent its options
/// (a technique taken out), and a fourth field names the test.
#[cfg(unix)]
#[test]
fn sprt_chain_keeps_its_games_through_a_stop_and_a_lost_data_folder() {
    use std::os::unix::process::CommandExt;
    let dir = scratch("sprt-chain");
    let (data, archive) = (dir.join("data"), dir.join("archive"));
    std::fs::create_dir_all(data.join("bin")).unwrap();
    let stand_in = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    };
    stand_in(data.join("bin/aaa1111"), "#!/bin/sh\n");
    stand_in(data.join("bin/bbb2222"), "#!/bin/sh\n");
    let book = dir.join("book.epd");
    std::fs::write(&book, "8/8/8/8/8/8/8/K1k5 w - -\n").unwrap();
    // The stand-in match: notes its arguments and the games it was handed, adds two games;
    // the first time it then waits to be stopped, the second time it decides.
    stand_in(
        dir.join("deepred.sh"),
        &format!(
            r#"#!/bin/sh
d={dir}
n=$(cat "$d/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$d/calls"
echo "$@" > "$d/args$n"
pgn=$(echo "$@" | sed 's/.*--pgn \([^ ]*\).*/\1/')
grep -c '^\[Result' "$pgn" > "$d/handed$n" 2>/dev/null || echo 0 > "$d/handed$n"
for g in 1 2; do printf '[Result "1-0"]\n\n1. e4 1-0\n\n' >> "$pgn"; done
if [ $n = 1 ]; then sleep 60; exit 0; fi
echo "SPRT: llr 2.95 (bounds [-2.94, 2.94]) - H1 accepted"
"#,
            dir = dir.display()
        ),
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/sprt-chain.sh");
    let chain = || {
        let mut cmd = Command::new("bash");
        cmd.arg(&script)
            .env("DEEPRED", dir.join("deepred.sh"))
            .env("SPRT_DIR", &data)
            .env("ARCHIVE", &archive)
            .env("BOOK", &book)
            .env("CHAIN", "aaa1111:bbb2222:7");
        cmd
    };
    let games = |text: &str| text.matches("[Result").count();
    let pgn = data.join("aaa1111.pgn");

    // Stopped by SIGTERM (as the chain is at the end of a sitting) while its match plays.
    let mut first = chain()
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::fs::read_to_string(&pgn).map_or(0, |t| games(&t)) < 2 {
        assert!(std::time::Instant::now() < deadline, "no games after 30 s");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let xz = archive.join("aaa1111.pgn.xz");
    let unpack = || {
        let out = Command::new("xz").arg("-dc").arg(&xz).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // A game half written: a snapshot beside the running chain archives the whole games only.
    let mut file = std::fs::OpenOptions::new().append(true).open(&pgn).unwrap();
    std::io::Write::write_all(&mut file, b"[Result \"*\"]\n\n1. d4 d5 2.").unwrap();
    let out = chain().arg("--snapshot").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("aaa1111: 2 games in"),
        "{out:?}"
    );
    assert!(unpack().ends_with("1. e4 1-0\n\n"), "{}", unpack());
    assert_eq!(games(&unpack()), 2);
    // A test without games is refused by name.
    let out = chain().args(["--snapshot", "ccc3333"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no games in"));
    // A snapshot whose compression fails (a full disk) says so, leaves the archive as it was
    // and nothing beside it.
    let broken = dir.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    stand_in(broken.join("xz"), "#!/bin/sh\ncat > /dev/null\nexit 1\n");
    let path = format!("{}:{}", broken.display(), std::env::var("PATH").unwrap());
    let out = chain()
        .env("PATH", path)
        .arg("--snapshot")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("aaa1111 could not be archived"),
        "{out:?}"
    );
    let left: Vec<_> = std::fs::read_dir(&archive)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["aaa1111.pgn.xz"]);
    assert_eq!(games(&unpack()), 2);
    Command::new("kill")
        .args(["-TERM", "--", &format!("-{}", first.id())])
        .status()
        .unwrap();
    assert_eq!(first.wait().unwrap().code(), Some(143));
    assert_eq!(games(&unpack()), 2);

    // The data folder's PGN lost: the games come back from the archive, the match is handed
    // them and told to resume, and the decision is kept.
    std::fs::remove_file(&pgn).unwrap();
    let out = chain().output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.contains("resumed from") && stdout.contains("(2 games)"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("handed2")).unwrap().trim(),
        "2"
    );
    let args = std::fs::read_to_string(dir.join("args2")).unwrap();
    for want in [
        "--resume",
        "--seed 7",
        "bin/aaa1111",
        "--opponent",
        "bin/bbb2222",
    ] {
        assert!(args.contains(want), "{want} not in {args}");
    }
    assert_eq!(games(&unpack()), 4);
    let result = std::fs::read_to_string(data.join("aaa1111.result")).unwrap();
    assert!(result.contains("H1 accepted"), "{result}");

    // Decided: the next run plays nothing.
    let out = chain().output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("aaa1111: decided before"));
    assert_eq!(
        std::fs::read_to_string(dir.join("calls")).unwrap().trim(),
        "2"
    );

    // A link played to its decision: the match (call `n`) was handed every wanted argument.
    let decided = |link: &str, n: usize, wants: &[&str]| {
        let out = chain().env("CHAIN", link).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let args = std::fs::read_to_string(dir.join(format!("args{n}"))).unwrap();
        for want in wants {
            assert!(args.contains(want), "{want} not in {args}");
        }
    };
    // A link refused before any game.
    let refused = |link: &str| {
        let out = chain().env("CHAIN", link).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("after '+' comes NAME=VALUE"));
    };

    // An option's test: the commit's binary with the option against the same binary without.
    decided(
        "aaa1111+EvalFiftyDamp=50:aaa1111:8",
        3,
        &[
            "bin/aaa1111 --engine-option EvalFiftyDamp=50 --opponent",
            "bin/aaa1111 --tc",
            "--seed 8",
            "aaa1111+EvalFiftyDamp=50.pgn",
        ],
    );
    assert!(data.join("aaa1111+EvalFiftyDamp=50.result").exists());
    // A technique taken out: the opponent is the same binary with two options, and the test's
    // files take the link's name.
    decided(
        "aaa1111:aaa1111+RazorMaxDepth=0+HistoryPruneDepth=0:10:no-razor",
        4,
        &[
            "bin/aaa1111 --opponent",
            "bin/aaa1111 --opponent-option RazorMaxDepth=0 --opponent-option HistoryPruneDepth=0 --tc",
            "--seed 10",
            "no-razor.pgn",
        ],
    );
    assert!(data.join("no-razor.result").exists());
    assert!(archive.join("no-razor.pgn.xz").exists());
    // A '+' without NAME=VALUE after it, on either side, is refused before any game.
    refused("aaa1111+EvalFiftyDamp:aaa1111:9");
    refused("aaa1111:aaa1111+RazorMaxDepth:11:bad");
    assert_eq!(
        std::fs::read_to_string(dir.join("calls")).unwrap().trim(),
        "4"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `python3 scripts/pgn_pairs.py FILE` on `pgn`: its exit status, stdout and stderr.
fn pgn_pairs(name: &str, pgn: &str) -> (bool, String, String) {
    let dir = scratch(name);
    let file = dir.join("match.pgn");
    std::fs::write(&file, pgn).unwrap();
    let out = Command::new("python3")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/pgn_pairs.py"))
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A game of a `deepred match` PGN: its round, players and result.
fn game(round: u32, white: &str, black: &str, result: &str) -> String {
    format!(
        "[Event \"Deep Red match\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n\
         [Black \"{black}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n"
    )
}

/// The counts of `pgn_pairs.py` (the statistics after them need mpmath: not checked here),
/// against counts made by hand: for the first engine, also against an engine of another name,
/// with the games written as they ended rather than in round order.
#[test]
fn pgn_pairs_counts_the_first_engines_games_and_pairs() {
    // Alpha is the first engine (White in round 1). By round, Alpha's points: 1/2, 1 (pair
    // 1.5: WD); 0, 0 (LL); 1, 1/2 (WD); round 7 unfinished, so round 8 (a win) has no pair.
    let pgn = [
        game(2, "Beta 2.0", "Alpha 1.0", "0-1"),
        game(1, "Alpha 1.0", "Beta 2.0", "1/2-1/2"),
        game(4, "Beta 2.0", "Alpha 1.0", "1-0"),
        game(3, "Alpha 1.0", "Beta 2.0", "0-1"),
        game(5, "Alpha 1.0", "Beta 2.0", "1-0"),
        game(6, "Beta 2.0", "Alpha 1.0", "1/2-1/2"),
        game(8, "Beta 2.0", "Alpha 1.0", "0-1"),
        game(7, "Alpha 1.0", "Beta 2.0", "*"),
    ]
    .concat();
    let (_, out, err) = pgn_pairs("pairs-names", &pgn);
    let lines: Vec<&str> = out.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            "games 7: W 3 / D 2 / L 2",
            "pentanomial LL LD DD WD WW: 1 0 0 2 0"
        ],
        "{out}{err}"
    );
    // Only an even round finished: the first engine is the one with Black.
    let (_, out, err) = pgn_pairs("pairs-even", &game(2, "Beta 2.0", "Alpha 1.0", "1-0"));
    assert_eq!(
        out.lines().next(),
        Some("games 1: W 0 / D 0 / L 1"),
        "{out}{err}"
    );
    // Two engines of one name, numbered by the runner: "(1)" is the first, whatever the colours.
    let pgn = [
        game(1, "Deep Red (2)", "Deep Red (1)", "1-0"),
        game(2, "Deep Red (1)", "Deep Red (2)", "1/2-1/2"),
    ]
    .concat();
    let (_, out, err) = pgn_pairs("pairs-numbered", &pgn);
    let lines: Vec<&str> = out.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            "games 2: W 0 / D 1 / L 1",
            "pentanomial LL LD DD WD WW: 0 1 0 0 0"
        ],
        "{out}{err}"
    );
    // One name for both, not numbered: no way to tell the first engine, and it says so.
    let pgn = [
        game(1, "Twin", "Twin", "1-0"),
        game(2, "Twin", "Twin", "0-1"),
    ]
    .concat();
    let (ok, out, err) = pgn_pairs("pairs-twins", &pgn);
    assert!(
        !ok && err.contains("both players are named 'Twin'"),
        "{out}{err}"
    );
}

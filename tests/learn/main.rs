//! `deepred learn` on tiny settings: the loop plays into the store, trains a candidate on the
//! store, gates it, promotes it (into the store and the data folder, where `EvalFile auto`
//! finds it) and records it; killed, it resumes and loses nothing (a gate goes on from its
//! games); on a farm (PostgreSQL, `postgres.rs`), two players and a trainer share one store and
//! the promoted net reaches both players.
//!
//! The loop starts from a random net, and the gate's SPRT bounds are permissive
//! (-1000, -900): these tests check the loop's mechanics, not what it gains (BENCHMARKS.md).

#[path = "../common/mod.rs"]
mod common;
mod postgres;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deepred::experience::store::Store;
use deepred::nn::net::{Kind, NetFile};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-learn-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A random learned net in `dir` (generation 0: no metadata says otherwise).
fn random_net(dir: &Path) -> PathBuf {
    let p = dir.join("random.safetensors");
    deepred::nn::random::write(&p, Kind::Learned, 7).unwrap();
    p
}

/// A random learned net of the loop's test size (16 hidden units: its candidates are gated at
/// fixed nodes).
fn small_random_net(dir: &Path) -> PathBuf {
    let p = dir.join("random16.safetensors");
    deepred::nn::random::write_learned(&p, 16, 1, 7).unwrap();
    p
}

/// `deepred learn` with tiny settings and a data folder of its own; a setting in `extra`
/// replaces the tiny one of the same name.
fn learn(home: &Path, db: &str, work: &Path, from: &Path, extra: &[&str]) -> Command {
    let mut c = common::command();
    c.env("DEEPRED_HOME", home).args([
        "learn",
        "--db",
        db,
        "--dir",
        work.to_str().unwrap(),
        "--from",
        from.to_str().unwrap(),
    ]);
    let tiny = [
        ("--nodes", "200"),
        ("--window", "1000"),
        ("--epochs", "3"),
        ("--hidden", "16"),
        ("--batch", "256"),
        ("--gate-nodes", "200"),
        ("--gate-games", "60"),
        ("--gate-tc", "1+0.01"),
        ("--reference-games", "4"),
        ("--sprt", "-1000,-900,0.05,0.05"),
    ];
    for (name, value) in tiny {
        let replaced = extra
            .iter()
            .any(|a| *a == name || a.starts_with(&format!("{name}=")));
        if !replaced {
            c.arg(format!("{name}={value}"));
        }
    }
    c.args(extra);
    c
}

fn run_ok(mut c: Command) -> String {
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    text
}

#[test]
fn the_loop_promotes_records_and_installs_a_net_that_auto_plays() {
    let dir = temp("promote");
    let (home, work) = (dir.join("home"), dir.join("work"));
    let db = dir.join("store.sqlite");
    let from = random_net(&dir);
    let log = run_ok(learn(
        &home,
        db.to_str().unwrap(),
        &work,
        &from,
        &["--generations", "1", "--games", "24", "--threads", "2"],
    ));
    assert!(log.contains("generations promoted: 1"), "{log}");
    // The random net has 256 hidden units, the candidate 16: gated on the clock, not nodes.
    assert!(
        log.contains("gate: generation 1 against 0 at 1+0.01 (the net's width changes)"),
        "{log}"
    );
    // The store: 24 games of generation 0, each with Deep Red's evaluations, and the net.
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(
        store.count_games("learn", "Deep Red learn gen 0").unwrap(),
        24
    );
    assert_eq!(store.latest_net_generation("learned").unwrap(), Some(1));
    // What the loop said last is kept for those who watch the store (deepred web): that it
    // stopped, with what it did (it kept its last step's line, as if still recording).
    let (at, line) = store.loop_status().unwrap().expect("the loop's status");
    assert_eq!(
        line, "stopped: 24 games played, 1 candidates, 1 promoted",
        "{log}"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!((now - at).abs() < 600, "{at}");
    let kept = store.net(1).unwrap().unwrap();
    assert_eq!(kept.parent, Some(0));
    // Installed in the data folder, the same bytes, with its history in its metadata.
    let installed = home.join("nets/learned-gen1.safetensors");
    assert_eq!(std::fs::read(&installed).unwrap(), kept.bytes);
    let net = NetFile::load(&installed, Some(Kind::Learned)).unwrap();
    assert_eq!(net.meta["generation"], "1");
    assert_eq!(net.meta["parent"], "0");
    assert!(
        net.meta["data"].contains("games of the experience store"),
        "{:?}",
        net.meta
    );
    assert!(net.meta["gate"].contains("H1 accepted"), "{:?}", net.meta);
    // Recorded: against its parent and against pst, and the plot.
    let csv = std::fs::read_to_string(work.join("generations.csv")).unwrap();
    assert!(
        csv.starts_with("generation,opponent,games,score_pct,elo,elo_95\n"),
        "{csv}"
    );
    assert!(csv.contains("\n1,generation 0,"), "{csv}");
    assert!(csv.contains("\n1,pst,4,"), "{csv}");
    assert!(work.join("generations.png").is_file() || !csv.contains(",generation 0,"));
    // EvalFile auto plays the newest promoted net of the data folder.
    let mut uci = common::command();
    uci.env("DEEPRED_HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = uci.spawn().unwrap();
    use std::io::Write;
    writeln!(
        child.stdin.take().unwrap(),
        "position startpos\ngo nodes 500\nisready\nquit"
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let named = text
        .lines()
        .find(|l| l.starts_with("info string Evaluator learned"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(named.contains("learned-gen1.safetensors"), "{named}");
    assert!(named.contains("generation 1"), "{named}");
}

/// Waits until the store at `db` holds at least `n` games of the loop (polling).
fn wait_for_games(db: &Path, n: u64, limit: Duration) -> u64 {
    let start = Instant::now();
    loop {
        let count = Store::open_read_only(db)
            .and_then(|s| s.count_games("learn", "Deep Red learn gen 0"))
            .unwrap_or(0);
        if count >= n || start.elapsed() > limit {
            return count;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_killed_loop_resumes_where_it_was_and_loses_nothing() {
    let dir = temp("kill");
    let (home, work) = (dir.join("home"), dir.join("work"));
    let db = dir.join("store.sqlite");
    let from = random_net(&dir);
    // Games of at most 200 plies: a random net's games run long, more so since the histories
    // carry over from move to move (fewer repetitions).
    let args = [
        "--generations",
        "1",
        "--games",
        "60",
        "--threads",
        "2",
        "--max-plies",
        "200",
    ];
    // Killed (SIGKILL) in the middle of its self-play.
    let mut child = learn(&home, db.to_str().unwrap(), &work, &from, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let before = wait_for_games(&db, 15, Duration::from_secs(120));
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = wait_for_games(&db, 0, Duration::ZERO);
    assert!((15..60).contains(&at_kill), "{before} {at_kill}");
    // Run again: it plays what is missing, no more, then trains, gates and promotes.
    let log = run_ok(learn(&home, db.to_str().unwrap(), &work, &from, &args));
    assert!(
        log.contains(&format!("generation 0 has {at_kill} of 60 games")),
        "{log}"
    );
    assert!(log.contains("generations promoted: 1"), "{log}");
    assert_eq!(wait_for_games(&db, 0, Duration::ZERO), 60);
    // Once more, as if killed between the promotion and the end of its record: nothing is
    // left to do for generation 1's parent, but generation 1 is recorded first.
    let no_round = || {
        run_ok(learn(
            &home,
            db.to_str().unwrap(),
            &work,
            &from,
            &["--rounds", "0", "--games", "60", "--max-plies", "200"],
        ))
    };
    let csv = std::fs::read_to_string(work.join("generations.csv")).unwrap();
    std::fs::remove_file(work.join("log.csv")).unwrap();
    std::fs::write(work.join("generations.csv"), csv.lines().next().unwrap()).unwrap();
    let log = no_round();
    assert!(log.contains("0 candidates trained"), "{log}");
    assert!(
        log.contains("record: generation 1 was promoted, but the loop stopped before its record"),
        "{log}"
    );
    let again = std::fs::read_to_string(work.join("generations.csv")).unwrap();
    assert!(again.contains("\n1,generation 0,"), "{again}");
    assert!(again.contains("\n1,pst,4,"), "{again}");
    assert!(
        std::fs::read_to_string(work.join("log.csv"))
            .unwrap()
            .contains("\n1,0,")
    );
    // Recorded once: a further run leaves it alone.
    let log = no_round();
    assert!(!log.contains("record:"), "{log}");
    assert_eq!(
        Store::open_read_only(&db)
            .unwrap()
            .latest_net_generation("learned")
            .unwrap(),
        Some(1)
    );
    // A promotion stopped between the store and the data folder, and a damaged copy in the
    // work folder: the next run writes both again from the store's bytes.
    let kept = Store::open_read_only(&db)
        .unwrap()
        .net(1)
        .unwrap()
        .unwrap()
        .bytes;
    let (installed, copy) = (
        home.join("nets/learned-gen1.safetensors"),
        work.join("nets/learned-gen1.safetensors"),
    );
    std::fs::remove_file(&installed).unwrap();
    std::fs::write(&copy, &kept[..1000]).unwrap();
    no_round();
    assert_eq!(std::fs::read(&installed).unwrap(), kept);
    assert_eq!(std::fs::read(&copy).unwrap(), kept);
    // A generations.csv that cannot be read is an error, not an empty file to write over.
    let mut csv = std::fs::read(work.join("generations.csv")).unwrap();
    csv.extend_from_slice(b"\xff\n");
    std::fs::write(work.join("generations.csv"), &csv).unwrap();
    std::fs::remove_file(work.join("log.csv")).unwrap();
    let out = learn(
        &home,
        db.to_str().unwrap(),
        &work,
        &from,
        &["--rounds", "0"],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cannot read"),
        "{err}"
    );
    assert_eq!(std::fs::read(work.join("generations.csv")).unwrap(), csv);
}

/// Finished games in the PGN at `path` (0 if there is none).
fn pgn_games(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.matches("[Result ").count())
        .unwrap_or(0)
}

#[test]
fn a_gate_killed_part_way_goes_on_from_its_games() {
    let dir = temp("gate-kill");
    let (home, work) = (dir.join("home"), dir.join("work"));
    let db = dir.join("store.sqlite");
    let from = small_random_net(&dir);
    // Bounds 1 Elo apart: no verdict within 40 games, so the gate plays them all.
    let args = [
        "--rounds",
        "1",
        "--games",
        "16",
        "--threads",
        "2",
        "--gate-games",
        "40",
        "--sprt=0,1,0.05,0.05",
    ];
    let pgn = work.join("gates").join("gen1-try0.pgn");
    let mut child = learn(&home, db.to_str().unwrap(), &work, &from, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while pgn_games(&pgn) < 6 && start.elapsed() < Duration::from_secs(180) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = pgn_games(&pgn);
    assert!((6..40).contains(&at_kill), "{at_kill} games when killed");
    let before = std::fs::read_to_string(&pgn).unwrap();
    // Run again: the candidate is kept, and the gate plays only the games it lacks.
    let log = run_ok(learn(&home, db.to_str().unwrap(), &work, &from, &args));
    assert!(log.contains("train: candidate"), "{log}");
    assert!(
        log.contains(&format!(
            "gate: {at_kill} of its 40 games were played before it was stopped"
        )),
        "{log}"
    );
    assert!(log.contains("SPRT continue: 40 games"), "{log}");
    let after = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        after.starts_with(&before),
        "the games before the kill are kept as they were"
    );
    assert_eq!(pgn_games(&pgn), 40);
    // The gate again with fewer games (its verdict forgotten): its PGN cannot be resumed, and
    // is kept beside the new one (it was written over), with the settings to blame named.
    std::fs::remove_file(work.join("gates").join("gen1-try0.txt")).unwrap();
    let fewer: Vec<&str> = args
        .iter()
        .map(|a| if *a == "40" { "20" } else { a })
        .collect();
    let log = run_ok(learn(&home, db.to_str().unwrap(), &work, &from, &fewer));
    assert!(
        log.contains("is played again") && log.contains("--gate-games") && log.contains("kept in"),
        "{log}"
    );
    assert_eq!(pgn_games(&pgn.with_extension("pgn.old")), 40);
    assert_eq!(pgn_games(&pgn), 20);
}

/// What the loop said last, kept in the store at `db` (empty before it says anything).
fn last_status(db: &Path) -> String {
    Store::open_read_only(db)
        .ok()
        .and_then(|s| s.loop_status().ok().flatten())
        .map(|(_, line)| line)
        .unwrap_or_default()
}

#[test]
fn games_merged_while_the_loop_plays_count_towards_its_quota() {
    let dir = temp("merge");
    let from = small_random_net(&dir);
    let elsewhere = dir.join("elsewhere.sqlite");
    let db = dir.join("store.sqlite");
    // A machine without the loop's store plays the current net's 200 games into its own.
    run_ok(learn(
        &dir.join("home-elsewhere"),
        elsewhere.to_str().unwrap(),
        &dir.join("work-elsewhere"),
        &from,
        &["--play-only", "--max-games", "200", "--threads", "2"],
    ));
    // The loop needs the same 200 and plays them on one thread, until its store holds them.
    let (home, work) = (dir.join("home"), dir.join("work"));
    let args = ["--games", "200", "--threads", "1", "--seed", "3"];
    let log_path = dir.join("loop.log");
    let mut child = learn(&home, db.to_str().unwrap(), &work, &from, &args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let at_merge = wait_for_games(&db, 2, Duration::from_secs(60));
    assert!((2..100).contains(&at_merge), "{at_merge}");
    let out = common::command()
        .args(["experience", "merge", "--into"])
        .arg(&db)
        .arg(&elsewhere)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // It notices within a few games and trains: it does not play its 200 on its own.
    let past_play = |s: &str| s.starts_with("train: ") || s.starts_with("gate: ");
    let start = Instant::now();
    let mut status = last_status(&db);
    while !past_play(&status) && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(50));
        status = last_status(&db);
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(past_play(&status), "{status}\n{log}");
    assert!(
        log.contains(
            "play: the store holds the 200 games of generation 0, with games learned elsewhere"
        ),
        "{log}"
    );
    assert!(log.contains("train: generation 1 (attempt 0)"), "{log}");
    let total = wait_for_games(&db, 0, Duration::ZERO);
    let own = total - 200;
    assert!(own >= at_merge && own < 100, "{at_merge} {total}\n{log}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = temp("bad");
    let (home, work) = (dir.join("home"), dir.join("work"));
    let db = dir.join("store.sqlite");
    let pink = dir.join("pink.safetensors");
    deepred::nn::random::write(&pink, Kind::DeepPink, 1).unwrap();
    // A net of two output buckets (256 hidden units, --hidden's default).
    let two = dir.join("two.safetensors");
    deepred::nn::random::write_learned(&two, 256, 2, 3).unwrap();
    let foreign = dir.join("foreign.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE customers (id INTEGER);")
        .unwrap();
    for (args, want) in [
        (
            vec!["--from", "/nonexistent/net.safetensors"],
            "cannot read",
        ),
        (vec!["--from", pink.to_str().unwrap()], "not a learned net"),
        (vec!["--book", "/nonexistent/book.epd"], "book.epd"),
        (vec!["--sprt", "1,2,3"], "--sprt"),
        (vec!["--window", "0"], "0 is not in"),
        (vec!["--lr", "NaN"], "NaN is not in"),
        // Found before the games, not after hours of them.
        (
            vec!["--trainer", "torch", "--python", "/nonexistent/python"],
            "cannot run '/nonexistent/python'",
        ),
        (
            vec!["--fine-tune", "--hidden", "64"],
            "hidden units where --hidden asks 64",
        ),
        (
            vec![
                "--from",
                two.to_str().unwrap(),
                "--fine-tune",
                "--buckets",
                "8",
            ],
            "has 2 output buckets where --buckets asks 8",
        ),
        (
            vec!["--buckets", "3"],
            "3 output buckets: a learned net has [1, 2, 4, 8]",
        ),
        (
            vec!["--buckets", "eight"],
            "'eight' is not a number of output buckets",
        ),
        (
            vec!["--reference", "nothing=/nonexistent/engine"],
            "--reference nothing",
        ),
        // A reference's name is a file name and a CSV field: a '/' made every restart fail
        // after the promotion, a ',' a row of 7 fields, 'pst' replaced pst's rows.
        (vec!["--reference", "a/b=/bin/true"], "--reference 'a/b'"),
        (vec!["--reference", "a,b=/bin/true"], "--reference 'a,b'"),
        (vec!["--reference", "pst=/bin/true"], "--reference 'pst'"),
        (vec!["--gate-games", "18446744073709551615"], "--gate-games"),
        (vec!["--hidden", "8"], "8 is not in 16..=2048"),
        (vec!["--val-fraction=-1"], "not a share from 0 to 0.5"),
        // Fixed nodes and one start: every game the same one.
        (
            vec!["--random-plies", "0"],
            "every self-play game would be the same",
        ),
        (vec!["--max-plies", "8"], "no position of a self-play game"),
        (
            vec!["--skip-plies", "999999"],
            "no position of a self-play game",
        ),
        (
            vec!["--source-weight", "learn=0"],
            "leaves out the loop's own games",
        ),
        (vec!["--source-weight", "learn"], "--source-weight: option"),
        // A player's limit given to a trainer, and a trainer's to a player: refused by the
        // arguments (each was taken and ignored).
        (
            vec!["--train-only", "--max-games", "5"],
            "cannot be used with",
        ),
        (
            vec!["--play-only", "--max-wait", "5"],
            "cannot be used with",
        ),
        // A copy of the positions per unit of weight: 1e300 aborted for want of memory.
        (
            vec!["--source-weight", "learn=1e300"],
            "the weight must be a number from 0 to 100",
        ),
    ] {
        let mut c = common::command();
        c.env("DEEPRED_HOME", &home).args([
            "learn",
            "--db",
            db.to_str().unwrap(),
            "--dir",
            work.to_str().unwrap(),
            "--games",
            "2",
            "--generations",
            "1",
        ]);
        let out = c.args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!err.contains("learn: play"), "{args:?} played first: {err}");
    }
    let out = common::command()
        .env("DEEPRED_HOME", &home)
        .args(["learn", "--db", foreign.to_str().unwrap(), "--dir"])
        .arg(&work)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another application"), "{err}");
    // A work folder that is a file: said so (it was "File exists").
    let out = common::command()
        .env("DEEPRED_HOME", &home)
        .args(["learn", "--db", db.to_str().unwrap(), "--dir"])
        .arg(&pink)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("is a file, not a folder"),
        "{err}"
    );
}

/// A trained candidate whose gate has not ended is reused by the next run with the same
/// settings, and trained again by a run with others (a resumed run with another --lr or
/// --hidden gated the old net before).
#[test]
fn a_candidate_of_other_settings_is_trained_again() {
    let dir = temp("settings");
    let (home, work) = (dir.join("home"), dir.join("work"));
    let db = dir.join("store.sqlite");
    let from = small_random_net(&dir);
    // A gate of 2 games cannot decide [0, 10]: the candidate stays, not promoted.
    let args = [
        "--rounds",
        "1",
        "--games",
        "12",
        "--threads",
        "2",
        "--gate-games",
        "2",
        "--sprt",
        "0,10,0.05,0.05",
    ];
    let run = |extra: &[&str]| {
        let all: Vec<&str> = args.iter().chain(extra).copied().collect();
        run_ok(learn(&home, db.to_str().unwrap(), &work, &from, &all))
    };
    let trained = "train: generation 1 (attempt 0) on";
    let log = run(&[]);
    assert!(log.contains(trained), "{log}");
    // The line kept in the store says the loop ended (it said it was gating).
    let status = last_status(&db);
    assert!(
        status.starts_with("stopped: ") && status.ends_with("1 candidates, 0 promoted"),
        "{status}"
    );
    // Its gate's files gone, as if it had been stopped before its first game.
    let forget_gate = || {
        for ext in ["txt", "pgn"] {
            std::fs::remove_file(work.join(format!("gates/gen1-try0.{ext}"))).unwrap();
        }
    };
    forget_gate();
    let log = run(&[]);
    assert!(
        !log.contains(trained) && log.contains("is trained"),
        "{log}"
    );
    forget_gate();
    let log = run(&["--lr", "0.001"]);
    assert!(log.contains(trained), "{log}");
    // Output buckets are another net: trained again, but gated at fixed nodes (they cost no
    // speed, where another width is gated on the clock).
    forget_gate();
    let log = run(&["--lr", "0.001", "--buckets", "2"]);
    assert!(log.contains(trained), "{log}");
    assert!(
        log.contains(" nodes, SPRT") && !log.contains("width changes"),
        "{log}"
    );
    let candidate = work.join("nets/candidate-gen1-try0.safetensors");
    let net = deepred::nn::value::ValueNet::load(&candidate).unwrap();
    assert_eq!(net.buckets, 2, "{log}");
    // The same settings and work folder on another store: its candidate was trained on the
    // other store's games (and its gate, when kept, promoted it into this store).
    forget_gate();
    let other = dir.join("other.sqlite");
    let all: Vec<&str> = args.iter().chain(&["--lr", "0.001"]).copied().collect();
    let log = run_ok(learn(&home, other.to_str().unwrap(), &work, &from, &all));
    assert!(log.contains(trained), "{log}");
    // Filters that leave nothing to train on: said with the filters (it was the trainer's
    // bare "no training positions").
    let out = learn(
        &home,
        db.to_str().unwrap(),
        &work,
        &from,
        &[&args[..], &["--min-depth", "200"]].concat(),
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("passes the filters") && err.contains("--min-depth 200"),
        "{err}"
    );
    let status = last_status(&db);
    assert!(
        status.starts_with("stopped: ") && status.contains("--min-depth 200"),
        "{status}"
    );
    // Another net to start from in the same work folder, before any promotion: refused (its
    // games, candidate and half-played gate were counted as the new net's).
    let another = dir.join("another.safetensors");
    deepred::nn::random::write_learned(&another, 16, 1, 8).unwrap();
    let out = learn(&home, db.to_str().unwrap(), &work, &another, &args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("began from another generation-0 net")
            && err.contains("go on with --from")
            && err.contains("learned-gen0.safetensors"),
        "{err}"
    );
    assert!(!err.contains("learn: play"), "{err}");
}

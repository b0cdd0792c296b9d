//! The command line: bench, perft, eval, sts, and clear errors for bad input.

mod common;
use common::deepred;

#[test]
fn bench_is_deterministic_and_openbench_shaped() {
    let (ok, a, _) = deepred(&["bench", "5"]);
    assert!(ok);
    let (_, b, _) = deepred(&["bench", "5"]);
    let last = |s: &str| s.lines().last().unwrap().to_string();
    let parse = |l: &str| -> u64 {
        let w: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(w.len(), 4, "{l}");
        assert_eq!((w[1], w[3]), ("nodes", "nps"), "{l}");
        w[2].parse::<u64>().unwrap();
        w[0].parse().unwrap()
    };
    let (na, nb) = (parse(&last(&a)), parse(&last(&b)));
    assert_eq!(na, nb, "node count must not change between runs");
    assert!(na > 1000);
    // One progress line per bench position before the summary.
    let positions = deepred::search::bench::positions().len();
    assert_eq!(a.lines().count(), positions + 1);
}

#[test]
fn perft_command() {
    let (ok, out, _) = deepred(&["perft", "4"]);
    assert!(ok);
    assert_eq!(out.lines().last().unwrap(), "Nodes searched: 197281");
    let (ok, out, _) = deepred(&[
        "perft",
        "3",
        "--divide",
        "--fen",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ]);
    assert!(ok);
    assert!(out.contains("e1g1: "), "castling in standard notation");
    assert_eq!(out.lines().count(), 49);
    assert_eq!(out.lines().last().unwrap(), "Nodes searched: 97862");
}

#[test]
fn eval_command() {
    let (ok, out, _) = deepred(&[
        "eval",
        "--fen",
        "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ]);
    assert!(ok);
    let line = out.lines().find(|l| l.starts_with("pst:")).unwrap();
    let v: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(v > 8.0, "a queen up: {line}");
    // A position the rules end, in words (it was Rust's debug text); kings alone still get
    // every evaluator's view.
    let (ok, out, _) = deepred(&["eval", "--fen", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1"]);
    assert!(ok && !out.starts_with("game over"), "{out}");
    let (ok, out, _) = deepred(&["eval", "--fen", "3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1"]);
    assert!(ok, "{out}");
    assert_eq!(out, "game over: 1-0 (checkmate)\n");
    let (ok, out, _) = deepred(&["eval", "--fen", "8/8/4k3/8/8/4K3/8/8 w - - 0 1"]);
    assert!(ok && out.starts_with("game over: 1/2-1/2 ("), "{out}");
    assert!(out.contains("\npst: "), "{out}");
}

/// `import` fails (exit 1) when a file cannot be read, a folder among them, or when nothing in
/// them can be learned, so that a script notices; what was learnable is learned either way.
#[test]
fn import_fails_on_unreadable_or_unlearnable_input() {
    let dir = std::env::temp_dir().join(format!("deepred-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("x.sqlite");
    let binary = dir.join("binary.pgn");
    std::fs::write(&binary, [0u8, 159, 146, 150, 255, 1, 2, 3].repeat(64)).unwrap();
    let good = common::data("pgn/games/Nakamura_first500.pgn");
    let folder = dir.to_str().unwrap().to_string();
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, " \n\n").unwrap();
    // Not one file to read: refused before the store is opened, so that a name mistyped
    // makes no store (an empty one was left behind).
    for files in [
        vec!["/nonexistent.pgn"],
        vec![folder.as_str(), "/nonexistent.pgn"],
    ] {
        let mut args = vec!["import", "--db", db.to_str().unwrap()];
        args.extend(&files);
        let (ok, out, err) = deepred(&args);
        assert!(!ok, "{files:?}: {out}");
        assert!(
            err.contains("deepred: no file could be read; the store was not opened")
                && err.contains("cannot read"),
            "{files:?}: {err}"
        );
        assert!(!db.exists(), "{files:?}");
    }
    for (files, want) in [
        (vec![empty.to_str().unwrap()], "no game in '"),
        (vec![binary.to_str().unwrap()], "no game could be learned"),
        (
            vec![good.to_str().unwrap(), "/nonexistent.pgn"],
            "1 file(s) could not be read",
        ),
    ] {
        let mut args = vec!["import", "--db", db.to_str().unwrap()];
        args.extend(&files);
        let (ok, out, err) = deepred(&args);
        assert!(!ok, "{files:?}: {out}");
        assert!(
            err.contains(&format!("deepred: {want}")),
            "{files:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{files:?}: {err}");
    }
    // The good file's games were learned all the same.
    let (ok, out, err) = deepred(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        good.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains(" 0 learned, 500 already known"), "{out}");
    // An import of nothing into a store that holds games leaves it as it was.
    let (ok, _, _) = deepred(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        empty.to_str().unwrap(),
    ]);
    assert!(!ok);
    let (ok, out, err) = deepred(&["experience", "stats", "--db", db.to_str().unwrap()]);
    assert!(ok && out.contains("games: 500"), "{out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `selfplay --pgn` appends, as `play` and `match` do: a file's earlier text and games stay.
#[test]
fn selfplay_appends_to_its_pgn() {
    let dir = std::env::temp_dir().join(format!("deepred-selfplay-pgn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("games.pgn");
    std::fs::write(&pgn, "precious notes").unwrap();
    for _ in 0..2 {
        let (ok, _, err) = deepred(&[
            "selfplay",
            "--games",
            "1",
            "--nodes",
            "200",
            "--max-plies",
            "4",
            "--no-learn",
            "--pgn",
            pgn.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
    }
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.starts_with("precious notes\n\n[Event "), "{text}");
    assert_eq!(text.matches("[Event ").count(), 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_a_clear_error_not_a_panic() {
    for args in [
        vec!["perft", "3", "--fen", "rubbish"],
        vec!["eval", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
        vec!["sts", "/nonexistent/suite.epd"],
        vec!["bench", "--evaluator", "oracle"],
        // An output that cannot be written fails before the games, not after them.
        vec!["play", "--pgn", "/nonexistent/folder/game.pgn"],
        vec![
            "selfplay",
            "--games",
            "1",
            "--pgn",
            "/nonexistent/folder/games.pgn",
        ],
        vec!["play", "--elo", "5"],
        vec!["selfplay", "--nodes", "0"],
        vec!["datagen", "--nodes", "0"],
        vec!["nn", "accuracy", "--samples", "0"],
        vec!["nn", "accuracy", "--val-fraction", "NaN"],
        vec!["nn", "accuracy", "--val-fraction", "1.5"],
    ] {
        let (ok, _, err) = deepred(&args);
        assert!(!ok, "{args:?}");
        // Our own messages, or clap's for a value it refuses.
        assert!(
            err.starts_with("deepred: ") || err.starts_with("error: invalid value"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // Refused as values, before any file is read (sts said the suite had no usable position).
    for args in [
        vec!["sts", "--limit", "0", "suite.epd"],
        vec!["selfplay", "--nodes", "0"],
    ] {
        let (ok, _, err) = deepred(&args);
        assert!(!ok && err.contains("invalid value '0'"), "{args:?}: {err}");
    }
    // A net file given to an evaluator that runs none is refused, not ignored; datagen writes
    // nothing.
    let out = std::env::temp_dir().join(format!("deepred-cli-no-net-{}.bin", std::process::id()));
    let out = out.to_str().unwrap();
    for args in [
        vec![
            "bench",
            "1",
            "--evaluator",
            "pst",
            "--eval-file",
            "x.safetensors",
        ],
        vec![
            "web",
            "--evaluator",
            "experience",
            "--eval-file",
            "x.safetensors",
        ],
        vec![
            "datagen",
            "--evaluator",
            "pst",
            "--eval-file",
            "x.safetensors",
            "--out",
            out,
        ],
    ] {
        let (ok, _, err) = deepred(&args);
        assert!(
            !ok && err.contains("evaluator runs no net"),
            "{args:?}: {err}"
        );
    }
    assert!(!std::path::Path::new(out).exists());
}

#[test]
fn sts_scores_a_small_suite() {
    let dir = std::env::temp_dir().join(format!("deepred-sts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let epd = dir.join("mini.epd");
    // Two mates in one (10 points each when found) and a line that is not EPD.
    std::fs::write(
        &epd,
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"mini.001\";\n\
         this is not an epd line\n\
         r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id \"mini.002\";\n",
    )
    .unwrap();
    let (ok, out, err) = deepred(&["sts", epd.to_str().unwrap(), "--movetime", "200"]);
    assert!(ok, "{err}");
    assert!(err.contains("skipped line 2"), "{err}");
    assert!(out.contains("Total: 20 / 20 (100.00%)"), "{out}");

    // Another engine by command: a command that is not a UCI engine (`true`, Unix) is a clear
    // error.
    #[cfg(unix)]
    {
        let (ok, _, err) = deepred(&["sts", epd.to_str().unwrap(), "--engine", "true"]);
        assert!(!ok);
        assert!(err.contains("deepred: engine"), "{err}");
    }
    // An engine that dies at every `go`: after 5 positions in a row the run stops, and the
    // score of unanswered positions is not given as the engine's (exit 1).
    #[cfg(unix)]
    {
        let crasher = dir.join("crasher.sh");
        std::fs::write(
            &crasher,
            "#!/bin/sh\nwhile read l; do case \"$l\" in uci) echo uciok;; isready) echo readyok;; go*) exit 1;; esac; done\n",
        )
        .unwrap();
        let mut perm = std::fs::metadata(&crasher).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&crasher, perm).unwrap();
        let line = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#;";
        let many: String = (0..8).map(|i| format!("{line} id \"c.{i}\";\n")).collect();
        let suite = dir.join("many.epd");
        std::fs::write(&suite, many).unwrap();
        let args = [
            "sts",
            suite.to_str().unwrap(),
            "--engine",
            crasher.to_str().unwrap(),
        ];
        let (ok, out, err) = deepred(&args);
        assert!(!ok, "{out}");
        assert!(
            out.contains("5 positions failed in a row: the run stopped"),
            "{out}"
        );
        assert!(err.contains("8 of 8 positions got no answer"), "{err}");
        // One error line a failed position (it is tried twice; each try once listed it).
        for i in 0..8 {
            assert!(out.matches(&format!("c.{i}: ")).count() <= 1, "{out}");
        }
    }
    // An option the engine refuses is an error, not a suite run at the defaults.
    for option in ["Hash=abc", "NoSuchOption=1"] {
        let (ok, out, err) = deepred(&["sts", epd.to_str().unwrap(), "--option", option]);
        assert!(!ok, "{option}: {out}");
        assert!(err.contains("refused its options"), "{option}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `deepred <subcommand> | head -1`: the reader closes the pipe after a line, and the command
/// stops without a panic or a message.
#[test]
fn every_subcommand_exits_quietly_on_a_closed_pipe() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let db = std::env::temp_dir().join(format!("deepred-pipe-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let pgn = common::data("pgn/games/Nakamura_first500.pgn");
    assert!(
        deepred(&[
            "import",
            "--db",
            db.to_str().unwrap(),
            pgn.to_str().unwrap()
        ])
        .0
    );
    let db = db.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["bench", "6"],
        vec!["perft", "5", "--divide"],
        vec!["spsa"],
        vec!["eval"],
        vec!["--help"],
        vec!["experience", "stats", "--db", db],
        vec!["experience", "show", "--db", db],
        // An export into the pipe (it said "Broken pipe" and exited 1).
        vec!["experience", "export", "--db", db, "--pgn", "/dev/stdout"],
        vec!["experience", "export", "--db", db, "--epd", "/dev/stdout"],
    ];
    for args in cases {
        let mut child = common::command()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is gone: the pipe is closed.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{args:?}: no output");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
        assert!(out.status.success(), "{args:?}: {:?} {err}", out.status);
    }
}

/// `eval --db` names a store: one that is missing or is not a store is an error (the report said
/// "unavailable" and the exit status was 0).
#[test]
fn eval_with_a_store_that_is_none_is_an_error() {
    let dir = std::env::temp_dir().join(format!("deepred-eval-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a database").unwrap();
    let missing = dir.join("typo.sqlite");
    for db in [&missing, &text] {
        let (ok, _, err) = deepred(&["eval", "--db", db.to_str().unwrap()]);
        assert!(!ok, "{}: {err}", db.display());
        assert!(
            err.contains(db.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
    }
    assert!(!missing.exists(), "the missing store was made");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Output that cannot be written (a full disk) is an error of one line, not a panic.
#[test]
fn output_to_a_full_disk_is_an_error() {
    for args in [vec!["spsa"], vec!["perft", "3"], vec!["eval"]] {
        let out = common::command()
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("deepred: cannot write the output: No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// OpenBench's datagen protocol, read the way its client reads it (Client/genfens.py): the
/// lines that start with `info string genfens `, the text after `genfens `, whose last two
/// fields are the move counters it turns into EPD's `hmvc` and `fmvn`.
#[test]
fn genfens_prints_the_openings_openbench_reads() {
    let openings = |cmd: &str| -> Vec<String> {
        let out = common::command().args([cmd, "quit"]).output().unwrap();
        assert!(out.status.success(), "{cmd}: {out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("info string genfens "))
            .map(|l| l.split("genfens ").nth(1).unwrap().trim_end().to_string())
            .collect()
    };
    let a = openings("genfens 12 seed 2025 book None");
    assert_eq!(a.len(), 12);
    for fen in &a {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        assert_eq!(fields.len(), 6, "{fen}");
        let (hmvc, fmvn): (u32, u32) = (fields[4].parse().unwrap(), fields[5].parse().unwrap());
        assert!(fmvn >= 1 && hmvc < 100, "{fen}");
        let pos = deepred::chess::fen::parse_fen(fen, false).unwrap();
        assert!(!shakmaty::Position::is_game_over(&pos), "{fen}");
    }
    // The same seed gives the same openings, another seed others.
    assert_eq!(openings("genfens 12 seed 2025 book None"), a);
    assert_ne!(openings("genfens 12 seed 2026 book None"), a);
    // OpenBench passes a test's own words on after the book: the same openings, and the words
    // named on stderr (a mistyped 'plies' is not silently lost).
    let out = common::command()
        .args(["genfens 12 seed 2025 book None plys 4", "quit"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ignored 'plys 4'"), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines()
            .filter_map(|l| l.strip_prefix("info string genfens "))
            .map(|l| l.trim_end().to_string())
            .collect::<Vec<_>>(),
        a
    );
    // A walk far longer than a game stops before the rules end it as a draw (it printed
    // openings past the fifty-move rule).
    let long = openings("genfens 8 seed 7 book None plies 100000");
    assert_eq!(long.len(), 8);
    for fen in &long {
        let pos = deepred::chess::fen::parse_fen(fen, false).unwrap();
        assert!(
            shakmaty::Position::halfmoves(&pos) < 100 && !shakmaty::Position::is_game_over(&pos),
            "{fen}"
        );
    }
    // The most openings allowed: the first come at once, each as it is found (all were held
    // until the last, hours away), and a reader that stops reading stops it.
    let mut child = common::command()
        .args(["genfens 10000000 seed 1 book None", "quit"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = common::lines_of(child.stdout.take().unwrap());
    for _ in 0..3 {
        let l = lines.recv_timeout(common::SECS(20)).unwrap();
        assert!(l.starts_with("info string genfens "), "{l}");
    }
    drop(lines);
    let status = common::wait_exit(&mut child, common::SECS(60));
    assert!(status.is_some_and(|s| !s.success()), "{status:?}");
    // From a book: its lines, a couple of random moves on.
    let book = common::data("books/noob_3moves_200.epd");
    let b = openings(&format!("genfens 5 seed 1 book {}", book.display()));
    assert_eq!(b.len(), 5);
    // Bad commands and a missing book are clear errors.
    for bad in [
        "genfens 5 seed x book None",
        "genfens 5 book None",
        "genfens 3 seed 1 book /nonexistent.epd",
        // More openings than memory holds: refused, not an allocation abort.
        "genfens 99999999999999 seed 1 book None",
    ] {
        let out = common::command().args([bad, "quit"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.starts_with("deepred: ") && err.lines().count() == 1,
            "{bad}: {err}"
        );
    }
}

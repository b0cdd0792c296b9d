//! The neural commands of the command line: random nets, bench and eval with a net, data sets,
//! accuracy, and clean failures.

mod common;
use common::deepred;

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("deepred-cli-nn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}

fn tcec() -> String {
    common::data("pgn/games/TCEC_Season_13_-_Superfinal_nocomments.pgn")
        .display()
        .to_string()
}

#[test]
fn bench_eval_and_accuracy_with_random_nets() {
    let dp = temp("dp.safetensors");
    let dc = temp("dc.safetensors");
    assert!(deepred(&["nn", "random-net", "deeppink", "--out", &dp]).0);
    assert!(deepred(&["nn", "random-net", "deepchess", "--out", &dc, "--seed", "3"]).0);
    // Bench: OpenBench-shaped and deterministic with Deep Pink.
    let nodes = |out: &str| -> u64 {
        let last = out.lines().last().unwrap();
        let w: Vec<&str> = last.split_whitespace().collect();
        assert_eq!((w.len(), w[1], w[3]), (4, "nodes", "nps"), "{last}");
        w[0].parse().unwrap()
    };
    let args = ["bench", "3", "--evaluator", "deeppink", "--eval-file", &dp];
    let (ok, a, err) = deepred(&args);
    assert!(ok, "{err}");
    let (_, b, _) = deepred(&args);
    assert_eq!(nodes(&a), nodes(&b));
    let (ok, c, err) = deepred(&["bench", "1", "--evaluator", "deepchess", "--eval-file", &dc]);
    assert!(ok, "{err}");
    assert!(nodes(&c) > 0);
    // Eval shows both nets' views when given one file each way.
    let (ok, out, _) = deepred(&["eval", "--eval-file", &dp]);
    assert!(ok);
    assert!(
        out.lines()
            .any(|l| l.starts_with("deeppink: ") && l.contains("dp.safetensors"))
    );
    let (ok, out, _) = deepred(&["eval", "--eval-file", &dc]);
    assert!(ok);
    assert!(
        out.lines()
            .any(|l| l.starts_with("deepchess: P(better for White than its colour mirror)"))
    );
    // Accuracy reports.
    let tcec = tcec();
    let az = common::data("pgn/games/alphazero_vs_stockfish_all.pgn")
        .display()
        .to_string();
    let accuracy = |net: &str, pgns: &[&str], more: &[&str]| {
        let mut args = vec!["nn", "accuracy", "--net", net, "--pgn"];
        args.extend(pgns);
        args.extend(more);
        deepred(&args)
    };
    let (ok, out, err) = accuracy(&dc, &[&tcec], &["--samples", "3000"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("pair accuracy: ") && out.contains("of 3000 pairs"),
        "{out}"
    );
    assert!(
        out.contains("Pos2Vec from scratch: ") && out.contains("comparisons: "),
        "{out}"
    );
    // The percentage after `prefix` on a line of the report.
    let percent = |prefix: &str| -> f64 {
        out.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|v| v.trim_end_matches('%').parse().ok())
            .unwrap_or_else(|| panic!("no line '{prefix}' in {out}"))
    };
    // The pst reference on the same pairs: decisive TCEC games are clear to a material count
    // (a sign error would put it far below 50%).
    assert!(
        percent("pst evaluation on the same pairs: ") > 75.0,
        "{out}"
    );
    // As the comparator search decides: material settles most of those pairs whatever the
    // (random) net says; the pairs of equal material are counted apart.
    let searched = percent(
        "as the comparator search decides (material when the SEE-resolved balances differ by at least 100 cp, else the net): ",
    );
    assert!(searched > 70.0, "{out}");
    let equal: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("pairs of equal SEE-resolved material: "))
        .and_then(|v| v.split(',').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no equal-material line in {out}"));
    assert!(equal > 0 && equal < 3000, "{out}");
    // A folder given as PGN beside a good file is an error that names it, not a file ignored.
    let folder = std::env::temp_dir().display().to_string();
    let (ok, _, err) = accuracy(&dc, &[&tcec, &folder], &["--samples", "10"]);
    assert!(
        !ok && err.contains(&folder) && err.contains("no game could be read"),
        "{err}"
    );
    // --only scores the games of some files, numbered as in the whole list: the validation
    // games of the two files add up to the validation games of both.
    let games = |only: &[&str]| -> usize {
        let mut more = vec![
            "--samples",
            "10",
            "--split",
            "validation",
            "--val-fraction",
            "0.5",
        ];
        more.extend(only);
        let (ok, out, err) = accuracy(&dc, &[&az, &tcec], &more);
        assert!(ok, "{err}");
        let line = out.lines().find(|l| l.starts_with("games: ")).unwrap();
        line[7..].split(' ').next().unwrap().parse().unwrap()
    };
    let (both, a, t) = (
        games(&[]),
        games(&["--only", "alphazero"]),
        games(&["--only", "TCEC"]),
    );
    assert!(a > 0 && t > 0, "{a} {t}");
    assert_eq!(a + t, both);
    let (ok, _, err) = accuracy(&dc, &[&tcec], &["--only", "no-such-file"]);
    assert!(!ok && err.contains("no-such-file"), "{err}");
    let (ok, out, err) = accuracy(&dp, &[&tcec], &["--samples", "500"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("triplet accuracy (f(q) < f(r)): ") && out.contains("of 500;"),
        "{out}"
    );
}

#[test]
fn dataset_files_match_their_summary() {
    for kind in ["deepchess", "deeppink"] {
        let out = temp(&format!("{kind}.bin"));
        let (ok, text, err) = deepred(&[
            "dataset",
            kind,
            "--pgn",
            &tcec(),
            "--out",
            &out,
            "--val-fraction",
            "0.2",
            "--seed",
            "5",
        ]);
        assert!(ok, "{err}");
        let d = deepred::train::data::read(std::path::Path::new(&out)).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with(&format!("{kind}: {} records written", d.records.len())),
            "{text}"
        );
        assert!(text.contains("games: 100 read"), "{text}");
        assert!(text.contains("validation"), "{text}");
        assert!(!d.records.is_empty());
        if kind == "deepchess" {
            assert!(text.contains("by result: "), "{text}");
        }
    }
}

#[test]
fn neural_commands_fail_cleanly() {
    let part = std::path::Path::new("/tmp/deepred-cli-nn-x.bin.part");
    let _ = std::fs::remove_file(part);
    for args in [
        vec![
            "bench",
            "1",
            "--evaluator",
            "deeppink",
            "--eval-file",
            "/nonexistent/x.safetensors",
        ],
        vec!["eval", "--eval-file", "/nonexistent/x.safetensors"],
        vec![
            "nn",
            "accuracy",
            "--net",
            "/nonexistent/x.safetensors",
            "--pgn",
            "/nonexistent.pgn",
        ],
        vec![
            "dataset",
            "deepchess",
            "--pgn",
            "/nonexistent.pgn",
            "--out",
            "/nonexistent/dir/x.bin",
        ],
        vec![
            "dataset",
            "deeppink",
            "--pgn",
            "/nonexistent.pgn",
            "--out",
            "/tmp/deepred-cli-nn-x.bin",
        ],
    ] {
        let (ok, _, err) = deepred(&args);
        assert!(!ok, "{args:?}");
        assert!(err.starts_with("deepred: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!part.exists(), "a failed data set left its partial file");
    // wdl-fit on a folder: the games that could not be read are named (it said "only 0
    // positions in the games").
    let (ok, _, err) = deepred(&["wdl-fit", "--pgn", "/tmp"]);
    assert!(
        !ok && err.contains("'/tmp': no game could be read") && err.contains("directory"),
        "{err}"
    );
    // selfplay's move limits are one or another, as the docs say (both were taken); so are
    // play's (--depth 3 --nodes 100 was taken).
    let (ok, _, err) = deepred(&["selfplay", "--nodes", "100", "--depth", "3"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    let (ok, _, err) = deepred(&["play", "--depth", "3", "--nodes", "100"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    // wdl-fit's --positions below what a fit needs is refused by the arguments (it sampled
    // them, then said the games held too few).
    let (ok, _, err) = deepred(&["wdl-fit", "--pgn", "/tmp", "--positions", "50"]);
    assert!(!ok && err.contains("--positions"), "{err}");
    // dataset's store window of no game, and a store window or datagen share asked of PGN, are
    // refused by the arguments (the first was taken, the others ignored).
    for (input, option, value, want) in [
        ("--db", "--window", "0", "--window"),
        ("--pgn", "--sample", "0.5", "cannot be used with '--sample"),
        ("--pgn", "--window", "5", "cannot be used with '--window"),
    ] {
        let (ok, _, err) = deepred(&[
            "dataset",
            "deeppink",
            input,
            "/tmp/none.x",
            option,
            value,
            "--out",
            "/tmp/x.bin",
        ]);
        assert!(!ok && err.contains(want), "{input} {option} {value}: {err}");
    }
    // A net of one kind whose file says another: eval fails, naming what is missing (it said
    // "learned: unavailable" and exited 0).
    {
        use deepred::nn::net::Kind;
        use deepred::nn::random;
        let layout = random::layout(Kind::DeepPink);
        let bytes = random::serialize(
            &random::tensors(&layout, 3),
            random::metadata(Kind::Learned, &layout),
        )
        .unwrap();
        let mislabelled = temp("mislabelled.safetensors");
        std::fs::write(&mislabelled, bytes).unwrap();
        let (ok, out, err) = deepred(&["eval", "--eval-file", &mislabelled]);
        assert!(!ok && err.contains("tensor"), "{out}{err}");
    }
    // Input with no game: an error, and the data set already there is left as it was.
    let dir = std::env::temp_dir().join(format!("deepred-cli-nn-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (binary, out) = (dir.join("binary.pgn"), dir.join("set.bin"));
    std::fs::write(&binary, [0u8, 255, 7, 128].repeat(100)).unwrap();
    std::fs::write(&out, b"the previous data set").unwrap();
    let (ok, _, err) = deepred(&[
        "dataset",
        "deepchess",
        "--pgn",
        binary.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("no record came from the input"),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"the previous data set");
    // Through a link, the link's file is replaced and the link stays; a pipe (like a device:
    // `/dev/full` became a file of records) is refused and stays what it was.
    let games_in = common::data("pgn/games/Nakamura_first500.pgn");
    let link = dir.join("set-link.bin");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    let fifo = dir.join("set.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (target, ok_wanted) in [(&link, true), (&fifo, false)] {
        let (ok, _, err) = deepred(&[
            "dataset",
            "deepchess",
            "--pgn",
            games_in.to_str().unwrap(),
            "--out",
            target.to_str().unwrap(),
        ]);
        assert_eq!(ok, ok_wanted, "{target:?}: {err}");
        if !ok {
            assert!(err.contains("it is not a file"), "{err}");
        }
    }
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_ne!(std::fs::read(&out).unwrap(), b"the previous data set");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &std::fs::symlink_metadata(&fifo).unwrap().file_type()
    ));
    // An output that is an input (also by another name) is refused, the input untouched.
    let games = dir.join("games.pgn");
    std::fs::copy(common::data("pgn/games/Nakamura_first500.pgn"), &games).unwrap();
    let same = dir.join(".").join("games.pgn");
    let store = dir.join("store.sqlite");
    assert!(
        deepred(&[
            "import",
            "--db",
            store.to_str().unwrap(),
            games.to_str().unwrap()
        ])
        .0
    );
    // The store through a symbolic link.
    let same_store = dir.join("store-link.png");
    std::os::unix::fs::symlink(&store, &same_store).unwrap();
    let before = (
        std::fs::read(&games).unwrap(),
        std::fs::read(&store).unwrap(),
    );
    let store_uri_ro = format!("file:{}?mode=ro", store.display());
    let store_uri_authority = format!("file://localhost{}", store.display());
    for args in [
        vec![
            "dataset",
            "deepchess",
            "--pgn",
            games.to_str().unwrap(),
            "--out",
            same.to_str().unwrap(),
        ],
        vec![
            "train-learned",
            "--data",
            games.to_str().unwrap(),
            "--out",
            games.to_str().unwrap(),
        ],
        vec![
            "experience",
            "export",
            "--db",
            store.to_str().unwrap(),
            "--pgn",
            store.to_str().unwrap(),
        ],
        vec![
            "experience",
            "export",
            "--db",
            store.to_str().unwrap(),
            "--polyglot",
            store.to_str().unwrap(),
        ],
        // The store named by an SQLite URI, read-only or not, absolute or relative to the
        // authority (the guard compared the URI's text, and the export wrote over the store).
        vec![
            "experience",
            "export",
            "--db",
            &store_uri_ro,
            "--polyglot",
            store.to_str().unwrap(),
        ],
        vec![
            "experience",
            "export",
            "--db",
            &store_uri_authority,
            "--epd",
            same_store.to_str().unwrap(),
        ],
        vec![
            "dataset",
            "deepchess",
            "--db",
            &store_uri_ro,
            "--out",
            store.to_str().unwrap(),
        ],
        // A plot drawn over the store it reads; an average over one of its nets.
        vec![
            "experience",
            "stats",
            "--db",
            store.to_str().unwrap(),
            "--plot",
            same_store.to_str().unwrap(),
        ],
        vec![
            "nn",
            "average",
            games.to_str().unwrap(),
            store.to_str().unwrap(),
            "--out",
            same.to_str().unwrap(),
        ],
        vec![
            "curve-plot",
            "--csv",
            games.to_str().unwrap(),
            "--out",
            same.to_str().unwrap(),
        ],
        // A training curve over the store or the data it trains on (it was made before the
        // first epoch, by a run that then failed too).
        vec![
            "train-learned",
            "--db",
            store.to_str().unwrap(),
            "--out",
            "/tmp/deepred-cli-nn-never.safetensors",
            "--csv",
            same_store.to_str().unwrap(),
        ],
        vec![
            "train-learned",
            "--data",
            games.to_str().unwrap(),
            "--out",
            "/tmp/deepred-cli-nn-never.safetensors",
            "--csv",
            same.to_str().unwrap(),
        ],
        // Games appended to the store or to the book they were played from.
        vec![
            "selfplay",
            "--games",
            "1",
            "--nodes",
            "100",
            "--db",
            store.to_str().unwrap(),
            "--pgn",
            same_store.to_str().unwrap(),
        ],
        vec![
            "selfplay",
            "--games",
            "1",
            "--nodes",
            "100",
            "--no-learn",
            "--book",
            games.to_str().unwrap(),
            "--pgn",
            same.to_str().unwrap(),
        ],
        vec![
            "match",
            "--opponent",
            env!("CARGO_BIN_EXE_deepred"),
            "--games",
            "2",
            "--nodes",
            "100",
            "--learn",
            "--db",
            store.to_str().unwrap(),
            "--pgn",
            same_store.to_str().unwrap(),
        ],
        vec![
            "play",
            "--human",
            "both",
            "--db",
            store.to_str().unwrap(),
            "--pgn",
            same_store.to_str().unwrap(),
        ],
    ] {
        let (ok, _, err) = deepred(&args);
        assert!(
            !ok && err.contains("is also an input of this command"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        before,
        (
            std::fs::read(&games).unwrap(),
            std::fs::read(&store).unwrap()
        )
    );
    // An input named twice (here by a hard link) would be read twice: refused, nothing written.
    let link = dir.join("again.pgn");
    std::fs::hard_link(&games, &link).unwrap();
    let twice = dir.join("twice.bin");
    for flag in ["--pgn", "--datagen"] {
        let (ok, _, err) = deepred(&[
            "dataset",
            "deeppink",
            flag,
            games.to_str().unwrap(),
            link.to_str().unwrap(),
            "--out",
            twice.to_str().unwrap(),
        ]);
        assert!(!ok && err.contains("are one file"), "{flag}: {err}");
        assert!(!twice.exists());
    }
    // Position filters belong to --bullet, the book's settings to --polyglot and --epd: with
    // another output they are refused, not ignored.
    let pgn_out = dir.join("out.pgn");
    for (filter, want) in [
        (["--source-weight", "noequals"], "noequals"),
        (["--window", "5"], "choose the positions of --bullet"),
        (["--skip-plies", "3"], "choose the positions of --bullet"),
        (["--min-depth", "4"], "choose the positions of --bullet"),
        (["--max-ply", "5"], "choose the moves of --polyglot"),
        (["--min-games", "3"], "choose the moves of --polyglot"),
    ] {
        let mut args = vec!["experience", "export", "--db", store.to_str().unwrap()];
        args.extend(["--pgn", pgn_out.to_str().unwrap()]);
        args.extend(filter);
        let (ok, _, err) = deepred(&args);
        assert!(!ok && err.contains(want), "{filter:?}: {err}");
        assert!(!pgn_out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `nn average`: every tensor of the output is the weighted mean of the inputs' tensors (read
/// back from the files), a net averaged with itself evaluates as itself, and nets that cannot
/// be averaged are refused without writing anything.
#[test]
fn nn_average_writes_the_weighted_mean_of_the_tensors() {
    use deepred::nn::net::NetFile;
    use std::path::Path;
    let a = temp("avg-a.safetensors");
    let b = temp("avg-b.safetensors");
    let dp = temp("avg-dp.safetensors");
    assert!(deepred(&["nn", "random-net", "deepchess", "--out", &a, "--seed", "1"]).0);
    assert!(deepred(&["nn", "random-net", "deepchess", "--out", &b, "--seed", "2"]).0);
    assert!(deepred(&["nn", "random-net", "deeppink", "--out", &dp]).0);
    let load = |p: &str| NetFile::load(Path::new(p), None).unwrap();
    for (weights, wa) in [(None, 0.5f64), (Some("3,1"), 0.75)] {
        let out = temp("avg-out.safetensors");
        let mut args = vec![
            "nn",
            "average",
            &a,
            &b,
            "--out",
            &out,
            "--games-note",
            "noted",
        ];
        if let Some(w) = weights {
            args.extend(["--weights", w]);
        }
        let (ok, text, err) = deepred(&args);
        assert!(ok, "{err}");
        assert!(text.contains("weighted mean"), "{text}");
        let (ta, tb, to) = (load(&a).tensors(), load(&b).tensors(), load(&out).tensors());
        assert_eq!(to.len(), ta.len());
        let mut differs = false;
        for ((ta, tb), to) in ta.iter().zip(&tb).zip(&to) {
            assert_eq!((&to.0, &to.1), (&ta.0, &ta.1));
            for ((x, y), z) in ta.2.iter().zip(&tb.2).zip(&to.2) {
                let want = wa * f64::from(*x) + (1.0 - wa) * f64::from(*y);
                assert!((f64::from(*z) - want).abs() < 1e-6, "{} {z} {want}", ta.0);
                differs |= x != y;
            }
        }
        assert!(differs, "the two random nets are the same");
        let meta = &load(&out).meta;
        assert_eq!(meta["kind"], "deepchess");
        assert!(meta["training"].contains("avg-a.safetensors"), "{meta:?}");
        assert_eq!(meta["games"], "noted");
    }
    // A net averaged with itself evaluates exactly as itself.
    let same = temp("avg-same.safetensors");
    assert!(deepred(&["nn", "average", &a, &a, "--out", &same]).0);
    let eval = |net: &str| {
        let (ok, out, err) = deepred(&["eval", "--eval-file", net]);
        assert!(ok, "{err}");
        out.lines()
            .filter(|l| l.starts_with("deepchess: "))
            .map(|l| l.split(", file '").next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(!eval(&a).is_empty());
    assert_eq!(eval(&same), eval(&a));
    // Refused, and nothing written: two kinds, one net, wrong weights, a file that is no net.
    let refused = temp("avg-refused.safetensors");
    let junk = temp("avg-junk.safetensors");
    std::fs::write(&junk, b"not a net at all").unwrap();
    for (args, want) in [
        (vec![a.as_str(), dp.as_str()], "deeppink"),
        (
            vec![a.as_str(), b.as_str(), "--weights", "1"],
            "1 weights for 2 nets",
        ),
        (
            vec![a.as_str(), b.as_str(), "--weights", "1,-1"],
            "positive",
        ),
        (
            vec![a.as_str(), b.as_str(), "--weights", "1e308,1e308"],
            "more than a number can hold",
        ),
        (vec![a.as_str(), junk.as_str()], "avg-junk"),
    ] {
        let mut full = vec!["nn", "average", "--out", &refused];
        full.extend(args);
        let (ok, _, err) = deepred(&full);
        assert!(!ok, "{full:?}");
        assert!(
            err.starts_with("deepred: ") && err.contains(want),
            "{full:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!Path::new(&refused).exists(), "{full:?} wrote a file");
    }
    let (ok, _, err) = deepred(&["nn", "average", &a, "--out", &refused]);
    assert!(!ok && !err.contains("panicked"), "{err}");
}

/// `nn kernel-bench` refuses a measurement time and layer sizes that cannot give a number (0
/// and NaN printed 0 us a layer, infinity never ended, 65536 by 65536 asked for 16 GiB).
#[test]
fn kernel_bench_refuses_times_and_sizes_it_cannot_measure() {
    for (args, want) in [
        (["--seconds", "0"], "not a number of seconds"),
        (["--seconds", "nan"], "not a number of seconds"),
        (["--seconds", "inf"], "not a number of seconds"),
        (["--inputs", "65536"], "65536 is not in 1..=8192"),
    ] {
        let mut all = vec!["nn", "kernel-bench"];
        all.extend(args);
        let (ok, _, err) = deepred(&all);
        assert!(!ok && err.contains(want), "{args:?}: {err}");
    }
}

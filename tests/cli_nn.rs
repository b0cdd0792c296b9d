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
    for args in [
        vec![
            "bench",
            "1",
            "--evaluator",
            "deeppink",
            "--eval-file",
            "/nonexistent/x.safetensors",
        ],
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
}

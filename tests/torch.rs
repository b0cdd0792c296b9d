//! The `torch` feature: native inference against tch on the same weights, training end to end
//! (log, plot, checkpoint, resume, a net the engine loads), and TorchScript nets through
//! `EvalFile`. Run with `cargo test --release --features torch` (see scripts/torch-env.sh).
#![cfg(feature = "torch")]

mod common;
use common::deepred;

use std::path::{Path, PathBuf};
use std::time::Duration;

use deepred::chess::pgn::read_games;
use deepred::nn::net::Kind;
use deepred::nn::{DeepChess, DeepPink, features};
use deepred::train;
use shakmaty::{Chess, Position};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-torch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A game file of tests/data/pgn/games.
fn games(name: &str) -> PathBuf {
    common::data(&format!("pgn/games/{name}"))
}

/// Positions of real games (every 7th position of the first games of a test file).
fn positions(n: usize) -> Vec<Chess> {
    let file = std::fs::File::open(games("TCEC_Season_13_-_Superfinal_nocomments.pgn")).unwrap();
    let mut out = Vec::new();
    for g in read_games(file).into_iter().flatten() {
        for (i, p) in g.positions().into_iter().enumerate() {
            if i % 7 == 3 {
                out.push(p);
            }
        }
        if out.len() >= n {
            break;
        }
    }
    out.truncate(n);
    assert_eq!(out.len(), n);
    out
}

fn close(a: f32, b: f32) -> bool {
    within(a, b, 1e-4)
}

fn within(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * (1.0 + a.abs().max(b.abs()))
}

/// A random net of `kind` whose weights are binary16 values (as f32): native inference keeps
/// dense weights at half precision, so on these weights it computes what tch computes.
fn half_exact_net(path: &Path, kind: Kind, seed: u64) {
    use deepred::nn::random;
    let layout = random::layout(kind);
    let mut tensors = random::tensors(&layout, seed);
    for (_, _, values) in &mut tensors {
        for v in values.iter_mut() {
            *v = deepred::nn::layers::round_to_f16(*v);
        }
    }
    let bytes = random::serialize(&tensors, random::metadata(kind, &layout)).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Native DeepChess logits (Pos2Vec through the native kernels) of 200 pairs of real positions,
/// and Deep Pink values of those positions (from the side to move's view), against tch's on the
/// same net files: asserts each is within `tolerance` (relative) and returns the largest
/// relative difference.
fn native_against_tch(deepchess: &Path, deeppink: &Path, tolerance: f32) -> f32 {
    let pos = positions(200);
    let rel = |a: f32, b: f32| (a - b).abs() / (1.0 + a.abs().max(b.abs()));
    let mut worst = 0f32;
    let native = DeepChess::load(deepchess).unwrap();
    let fa: Vec<Vec<u16>> = pos
        .iter()
        .map(|p| features::deepchess(p).to_vec())
        .collect();
    let fb: Vec<Vec<u16>> = fa.iter().rev().cloned().collect();
    let reference = train::tch_outputs(deepchess, Kind::DeepChess, &fa, &fb).unwrap();
    for (i, p) in pos.iter().enumerate() {
        let l = native.logits(&native.pos2vec(p), &native.pos2vec(&pos[pos.len() - 1 - i]));
        for k in 0..2 {
            worst = worst.max(rel(l[k], reference[i][k]));
            assert!(
                within(l[k], reference[i][k], tolerance),
                "pair {i}: native {l:?}, tch {:?}",
                reference[i]
            );
        }
    }
    let native = DeepPink::load(deeppink).unwrap();
    let fp: Vec<Vec<u16>> = pos
        .iter()
        .map(|p| features::deeppink(p, p.turn()).to_vec())
        .collect();
    let reference = train::tch_outputs(deeppink, Kind::DeepPink, &fp, &[]).unwrap();
    for (i, p) in pos.iter().enumerate() {
        let f = native.forward(p);
        worst = worst.max(rel(f, reference[i][0]));
        assert!(
            within(f, reference[i][0], tolerance),
            "position {i}: native {f}, tch {}",
            reference[i][0]
        );
    }
    worst
}

#[test]
fn native_inference_equals_tch_on_the_same_weights() {
    let dir = temp_dir("equal");
    let (dc, dp) = (dir.join("dc.safetensors"), dir.join("dp.safetensors"));
    half_exact_net(&dc, Kind::DeepChess, 7);
    half_exact_net(&dp, Kind::DeepPink, 8);
    native_against_tch(&dc, &dp, 1e-4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shipped_nets_stay_within_half_precision_of_tch() {
    // Trained weights are not binary16 values: native inference rounds them (by at most 2^-11
    // of each weight), tch does not, and the outputs differ by that rounding carried through
    // the layers, far below what changes a comparison or a move.
    let nets = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
    let worst = native_against_tch(
        &nets.join("deepchess.safetensors"),
        &nets.join("deeppink.safetensors"),
        2e-3,
    );
    eprintln!("largest relative difference {worst:e}");
}

/// `deepred dataset KIND` of a PGN file into `out`, a fifth of the games held out.
fn dataset(pgn: &Path, kind: &str, out: &Path, per_game: &str) {
    let (ok, _, err) = deepred(&[
        "dataset",
        kind,
        "--pgn",
        pgn.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--val-fraction",
        "0.2",
        "--per-game",
        per_game,
    ]);
    assert!(ok, "{err}");
}

#[test]
fn training_logs_plots_checkpoints_resumes_and_writes_a_net_the_engine_loads() {
    let dir = temp_dir("train");
    let pgn = games("Korchnoi_first500.pgn");
    for (kind, extra, per_game) in [
        (
            "deepchess",
            &["--ae-epochs", "1", "--pairs", "2000"][..],
            "20",
        ),
        ("deeppink", &["--hidden", "32,16"][..], "2"),
    ] {
        let data = dir.join(format!("{kind}.bin"));
        dataset(&pgn, kind, &data, per_game);
        let net = dir.join(format!("{kind}.safetensors"));
        let run = dir.join("runs");
        let train = |epochs: &str, resume: bool| {
            let mut args = vec![
                "train",
                kind,
                "--data",
                data.to_str().unwrap(),
                "--out",
                net.to_str().unwrap(),
                "--run-dir",
                run.to_str().unwrap(),
                "--epochs",
                epochs,
                "--threads",
                "2",
                "--quiet",
            ];
            args.extend_from_slice(extra);
            if resume {
                args.push("--resume");
            }
            deepred(&args)
        };
        let (ok, out, err) = train("1", false);
        assert!(ok, "{out}\n{err}");
        let csv = std::fs::read_to_string(run.join(format!("{kind}.csv"))).unwrap();
        let main_epochs = |csv: &str| -> Vec<String> {
            csv.lines()
                .filter(|l| l.starts_with("main,"))
                .map(|l| l.split(',').nth(1).unwrap().to_string())
                .collect()
        };
        assert_eq!(main_epochs(&csv), ["1"], "{csv}");
        if kind == "deepchess" {
            assert_eq!(csv.lines().filter(|l| l.starts_with("ae")).count(), 4);
        }
        let png = std::fs::read(run.join(format!("{kind}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Resume: epoch 2 only, not epoch 1 again.
        let (ok, out, err) = train("2", true);
        assert!(ok, "{out}\n{err}");
        let csv = std::fs::read_to_string(run.join(format!("{kind}.csv"))).unwrap();
        assert_eq!(main_epochs(&csv), ["1", "2"], "{csv}");
        // The net loads natively and through UCI, and its metadata says what it is.
        let file = deepred::nn::net::NetFile::load(&net, None).unwrap();
        assert_eq!(file.kind.name(), kind);
        assert!(file.meta_or("validation_accuracy").contains('%'));
        let mut e = common::Uci::start();
        e.send(&format!("setoption name EvalFile value {}", net.display()));
        e.send(&format!("setoption name Evaluator value {kind}"));
        e.send("position startpos moves e2e4");
        e.send("go depth 2");
        let (best, lines) = e.bestmove(Duration::from_secs(30));
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
        let pos = Chess::default()
            .play(
                shakmaty::uci::UciMove::from_ascii(b"e2e4")
                    .unwrap()
                    .to_move(&Chess::default())
                    .unwrap(),
            )
            .unwrap();
        let best = best.split_whitespace().nth(1).unwrap().to_string();
        let m: shakmaty::uci::UciMove = best.parse().unwrap();
        assert!(m.to_move(&pos).is_ok(), "illegal bestmove {best}");
        e.quit();
    }
    // DeepChess from the net above (--init: no autoencoder stage), with the sibling pairs of the
    // Deep Pink triplets (the child after the move played against one after another move).
    let run = dir.join("runs-siblings");
    let net = dir.join("siblings.safetensors");
    let sib_args = |siblings: &Path| {
        vec![
            "train".to_string(),
            "deepchess".into(),
            "--data".into(),
            dir.join("deepchess.bin").display().to_string(),
            "--siblings".into(),
            siblings.display().to_string(),
            "--sibling-pairs".into(),
            "3000".into(),
            "--pairs".into(),
            "1000".into(),
            "--init".into(),
            dir.join("deepchess.safetensors").display().to_string(),
            "--out".into(),
            net.display().to_string(),
            "--run-dir".into(),
            run.display().to_string(),
            "--epochs".into(),
            "1".into(),
            "--threads".into(),
            "2".into(),
            "--quiet".into(),
        ]
    };
    let args = sib_args(&dir.join("deeppink.bin"));
    let (ok, out, err) = deepred(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{out}\n{err}");
    let csv = std::fs::read_to_string(run.join("deepchess.csv")).unwrap();
    assert!(
        !csv.contains("\nae"),
        "--init skips the autoencoders: {csv}"
    );
    assert_eq!(csv.lines().filter(|l| l.starts_with("main,")).count(), 1);
    let file = deepred::nn::net::NetFile::load(&net, None).unwrap();
    assert!(
        file.meta_or("validation_accuracy")
            .contains("sibling pairs"),
        "{}",
        file.meta_or("validation_accuracy")
    );
    // The sibling accuracy of the net, and the pst evaluation's, on the held-out triplets.
    let (ok, out, err) = deepred(&[
        "nn",
        "accuracy",
        "--net",
        net.to_str().unwrap(),
        "--dataset",
        dir.join("deeppink.bin").to_str().unwrap(),
        "--split",
        "validation",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("sibling pair accuracy") && out.contains("pst evaluation"),
        "{out}"
    );
    // Sibling pairs come from triplets only.
    let args = sib_args(&dir.join("deepchess.bin"));
    let (ok, _, err) = deepred(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        !ok && err.contains("sibling pairs come from Deep Pink triplets"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn torchscript_modules_work_through_eval_file_and_match_the_net() {
    let dir = temp_dir("script");
    for (kind, seed) in [(Kind::DeepPink, 3), (Kind::DeepChess, 4)] {
        let net = dir.join(format!("{}.safetensors", kind.name()));
        half_exact_net(&net, kind, seed);
        let script = dir.join(format!("{}.pt", kind.name()));
        let (ok, out, err) = deepred(&[
            "nn",
            "export-torchscript",
            "--net",
            net.to_str().unwrap(),
            "--out",
            script.to_str().unwrap(),
        ]);
        assert!(ok, "{out}\n{err}");
        assert!(deepred::eval::torchscript::is_torchscript(&script));
        // Same outputs as the native net on real positions.
        let pos = positions(30);
        match kind {
            Kind::DeepPink => {
                let native = DeepPink::load(&net).unwrap();
                let ts = deepred::eval::torchscript::ScriptPink::load(&script).unwrap();
                for p in &pos {
                    let (a, b) = (native.forward(p), ts.forward(p).unwrap());
                    assert!(close(a, b), "native {a}, TorchScript {b}");
                }
            }
            Kind::DeepChess => {
                use deepred::eval::ComparatorEvaluator;
                let native = DeepChess::load(&net).unwrap();
                let ts = deepred::eval::torchscript::ScriptChess::load(&script).unwrap();
                for w in pos.windows(2) {
                    let a = native.compare(&native.pos2vec(&w[0]), &native.pos2vec(&w[1]));
                    let b = ts.prob_first_better(&w[0], &w[1]);
                    assert!(close(a, b), "native {a}, TorchScript {b}");
                }
            }
            Kind::Learned => unreachable!("the loop exports Deep Pink and DeepChess only"),
        }
        // Through UCI.
        let mut e = common::Uci::start();
        e.send(&format!(
            "setoption name EvalFile value {}",
            script.display()
        ));
        e.send(&format!("setoption name Evaluator value {}", kind.name()));
        e.send("go depth 2");
        let (best, lines) = e.bestmove(Duration::from_secs(60));
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
        let best = best.split_whitespace().nth(1).unwrap().to_string();
        let m: shakmaty::uci::UciMove = best.parse().unwrap();
        assert!(
            m.to_move(&Chess::default()).is_ok(),
            "illegal bestmove {best}"
        );
        e.quit();
    }
    // A file that is neither: a clear error, the engine keeps pst.
    let junk = dir.join("junk.pt");
    std::fs::write(&junk, b"PK\x03\x04 not really a zip").unwrap();
    let mut e = common::Uci::start();
    e.send(&format!("setoption name EvalFile value {}", junk.display()));
    e.send("setoption name Evaluator value deeppink");
    e.send("isready");
    let lines = e.until(Duration::from_secs(30), |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("TorchScript")),
        "{lines:?}"
    );
    e.send("go depth 2");
    let (best, _) = e.bestmove(Duration::from_secs(30));
    assert_ne!(best.split_whitespace().nth(1), Some("0000"));
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs scripts/train_gpu.py with the venv's python (scripts/torch-env.sh puts it first on the
/// PATH): (success, stdout, stderr).
fn train_gpu(args: &[&str]) -> (bool, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/train_gpu.py");
    let out = std::process::Command::new(std::env::var("PYTHON").unwrap_or("python3".into()))
        .arg(script)
        .args(args)
        .output()
        .expect("run python3 scripts/train_gpu.py");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The script's output lines as numbers.
fn numbers(text: &str) -> Vec<Vec<f32>> {
    text.lines()
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect()
}

#[test]
fn gpu_trainer_script_writes_nets_on_which_the_engine_computes_what_it_computes() {
    // The GPU trainer (plain PyTorch, run here on the CPU) has its own feature code, colour
    // mirroring and net files: its outputs on data set boards must be the engine's native ones
    // (dense weights at half precision: within 2e-3), and its nets must load and calibrate.
    use deepred::train::data::{self, BOARD_LEN};
    let dir = temp_dir("gpu-script");
    let pgn = games("Korchnoi_first500.pgn");
    let set = |kind: &str, per_game: &str| {
        let out = dir.join(format!("{kind}.bin"));
        dataset(&pgn, kind, &out, per_game);
        out
    };
    let (positions, triplets) = (set("deepchess", "20"), set("deeppink", "2"));
    let (p, t) = (positions.to_str().unwrap(), triplets.to_str().unwrap());
    let dc = dir.join("dc.safetensors");
    let csv = dir.join("dc.csv");
    let (ok, out, err) = train_gpu(&[
        "deepchess",
        "--data",
        p,
        "--siblings",
        t,
        "--out",
        dc.to_str().unwrap(),
        "--epochs",
        "2",
        "--ae-epochs",
        "1",
        "--pairs",
        "2000",
        "--sibling-pairs",
        "1000",
        "--mirror",
        "--dropout",
        "0.1",
        "--device",
        "cpu",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    let log = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        log.lines().filter(|l| l.starts_with("ae")).count(),
        4,
        "{log}"
    );
    assert_eq!(
        log.lines().filter(|l| l.starts_with("main,")).count(),
        2,
        "{log}"
    );
    let native = DeepChess::load(&dc).unwrap();
    let (ok, out, err) = train_gpu(&[
        "outputs",
        "--net",
        dc.to_str().unwrap(),
        "--data",
        p,
        "--count",
        "60",
    ]);
    assert!(ok, "{err}");
    let reference = numbers(&out);
    let records = data::read(&positions).unwrap().records;
    assert_eq!(reference.len(), 60);
    let pos = |i: usize| data::decode(&data::board_at(&records[i], 0)).unwrap();
    for (i, r) in reference.iter().enumerate() {
        let (a, b) = (pos(i), pos(i + 1));
        let l = native.logits(&native.pos2vec(&a), &native.pos2vec(&b));
        let m = native.logits(&native.pos2vec_mirror(&a), &native.pos2vec_mirror(&b));
        for (k, v) in l.iter().chain(&m).enumerate() {
            assert!(
                within(*v, r[k], 2e-3),
                "pair {i}: native {l:?} {m:?}, script {r:?}"
            );
        }
    }
    let dp = dir.join("dp.safetensors");
    let (ok, out, err) = train_gpu(&[
        "deeppink",
        "--data",
        t,
        "--out",
        dp.to_str().unwrap(),
        "--epochs",
        "2",
        "--hidden",
        "32,16",
        "--device",
        "cpu",
    ]);
    assert!(ok, "{out}\n{err}");
    let (ok, out, err) = train_gpu(&[
        "outputs",
        "--net",
        dp.to_str().unwrap(),
        "--data",
        t,
        "--count",
        "40",
    ]);
    assert!(ok, "{err}");
    let reference = numbers(&out);
    let records = data::read(&triplets).unwrap().records;
    assert_eq!(reference.len(), 40);
    let native = DeepPink::load(&dp).unwrap();
    for (i, r) in reference.iter().enumerate() {
        assert_eq!(r.len(), 3, "triplet {i}: one output per board");
        for (k, &script) in r.iter().enumerate() {
            let b = data::decode(&data::board_at(&records[i], k * BOARD_LEN)).unwrap();
            let f = native.forward(&b);
            assert!(
                within(f, script, 2e-3),
                "triplet {i}, board {k}: native {f}, script {script}"
            );
        }
    }
    // The script leaves the centipawn scale to `deepred nn calibrate`.
    assert_eq!(native.cp_scale, 100.0);
    let (ok, out, err) = deepred(&[
        "nn",
        "calibrate",
        "--net",
        dp.to_str().unwrap(),
        "--dataset",
        t,
    ]);
    assert!(ok && out.contains("cp_scale"), "{out}\n{err}");
    assert_ne!(DeepPink::load(&dp).unwrap().cp_scale, 100.0);
    // A data set of the wrong kind is refused with a message.
    let (ok, _, err) = train_gpu(&[
        "deeppink",
        "--data",
        p,
        "--out",
        dp.to_str().unwrap(),
        "--device",
        "cpu",
    ]);
    assert!(!ok && err.contains("deepchess data set"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Python the torch scripts run with (scripts/torch-env.sh puts the venv's first on PATH).
fn python() -> String {
    std::env::var("PYTHON").unwrap_or("python3".into())
}

#[test]
fn the_learned_net_trained_with_pytorch_is_the_net_the_cpu_trainer_computes_and_the_loop_uses_it() {
    // scripts/train_learned.py (run here on the CPU) has its own record decoding, features and
    // net files: its outputs on the records must be the CPU trainer's forward pass on the same
    // file's weights, and `deepred learn --trainer torch` must promote a net it trained.
    use deepred::train::value::{ValueParams, read_records};
    let dir = temp_dir("learned-script");
    let data = dir.join("d.bin");
    let (ok, out, err) = deepred(&[
        "datagen",
        "--games",
        "30",
        "--nodes",
        "300",
        "--threads",
        "1",
        "--out",
        data.to_str().unwrap(),
    ]);
    assert!(ok, "{out}{err}");
    let net = dir.join("n.safetensors");
    let csv = dir.join("n.csv");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/train_learned.py");
    let run = |args: &[&str]| {
        let o = std::process::Command::new(python())
            .arg(&script)
            .args(args)
            .output()
            .expect("run scripts/train_learned.py");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        text
    };
    run(&[
        "--data",
        data.to_str().unwrap(),
        "--out",
        net.to_str().unwrap(),
        "--hidden",
        "32",
        "--epochs",
        "3",
        "--batch",
        "256",
        "--device",
        "cpu",
        "--csv",
        csv.to_str().unwrap(),
        "--meta",
        "parent=0",
    ]);
    let log = std::fs::read_to_string(&csv).unwrap();
    let losses: Vec<f64> = log
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    assert_eq!(losses.len(), 3, "{log}");
    assert!(losses[2] < losses[0], "the loss does not fall: {log}");
    let file = deepred::nn::net::NetFile::load(&net, Some(Kind::Learned)).unwrap();
    assert_eq!(file.meta["epochs"], "3");
    assert_eq!(file.meta["parent"], "0");
    assert!(file.meta["trainer"].starts_with("scripts/train_learned.py on CPU"));
    // The script's outputs on the first `count` records: the CPU trainer's forward pass.
    let records = read_records(std::slice::from_ref(&data)).unwrap();
    let same_outputs = |net: &Path, count: usize| {
        let outputs = run(&[
            "outputs",
            "--net",
            net.to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
            "--count",
            &count.to_string(),
        ]);
        let params = ValueParams::load(net).unwrap();
        let got = numbers(&outputs);
        assert_eq!(got.len(), count);
        for (r, v) in records.iter().zip(&got) {
            let want = params.forward(r);
            assert!(
                (want - v[0]).abs() < 1e-4,
                "record {r:?}: {want} against {}",
                v[0]
            );
        }
        params
    };
    same_outputs(&net, 60);
    // The engine quantises and plays it.
    deepred::nn::value::ValueNet::load(&net).unwrap();
    // With eight output buckets by material: the script picks each record's row as the CPU
    // trainer and the engine do.
    let net8 = dir.join("n8.safetensors");
    run(&[
        "--data",
        data.to_str().unwrap(),
        "--out",
        net8.to_str().unwrap(),
        "--hidden",
        "32",
        "--buckets",
        "8",
        "--epochs",
        "2",
        "--batch",
        "256",
        "--device",
        "cpu",
    ]);
    let params = same_outputs(&net8, 200);
    assert_eq!(params.buckets, 8);
    assert!(
        params
            .out_w
            .chunks(64)
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w[0] != w[1])
    );
    let file = deepred::nn::net::NetFile::load(&net8, Some(Kind::Learned)).unwrap();
    assert_eq!(file.meta["architecture"], "(768-32)x2-1x8");
    // The one-bucket net grown into eight (--init), frozen: each bucket its output row, so it
    // computes what the one-bucket net computes.
    let grown = dir.join("grown.safetensors");
    run(&[
        "--data",
        data.to_str().unwrap(),
        "--out",
        grown.to_str().unwrap(),
        "--hidden",
        "32",
        "--buckets",
        "8",
        "--init",
        net.to_str().unwrap(),
        "--lr",
        "0",
        "--epochs",
        "1",
        "--device",
        "cpu",
    ]);
    let (one, eight) = (ValueParams::load(&net).unwrap(), same_outputs(&grown, 60));
    assert_eq!(eight.buckets, 8);
    for r in &records {
        assert_eq!(one.forward(r), eight.forward(r));
    }
    assert_eq!(
        deepred::nn::value::ValueNet::load(&net8).unwrap().buckets,
        8
    );

    // The loop with --trainer torch, on tiny settings, from a parent of the same size.
    let parent = dir.join("parent.safetensors");
    deepred::nn::random::write_learned(&parent, 16, 1, 7).unwrap();
    let home = dir.join("home");
    let out = common::command()
        .env("DEEPRED_HOME", &home)
        .args(["learn", "--db"])
        .arg(dir.join("store.sqlite"))
        .arg("--dir")
        .arg(dir.join("work"))
        .arg("--from")
        .arg(&parent)
        .args(["--trainer", "torch", "--python", &python()])
        .args(["--generations", "1", "--games", "12", "--threads", "2"])
        .args([
            "--nodes", "200", "--hidden", "16", "--epochs", "2", "--batch", "256",
        ])
        .args([
            "--gate-nodes",
            "200",
            "--gate-games",
            "40",
            "--reference-games",
            "0",
        ])
        .arg("--sprt=-1000,-900,0.05,0.05")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("generations promoted: 1"), "{text}");
    assert!(text.contains("train: with PyTorch"), "{text}");
    let installed = home.join("nets/learned-gen1.safetensors");
    let file = deepred::nn::net::NetFile::load(&installed, Some(Kind::Learned)).unwrap();
    assert!(
        file.meta["trainer"].contains("train_learned.py"),
        "{:?}",
        file.meta
    );
    assert!(file.meta["data"].contains("games of the experience store"));
    let _ = std::fs::remove_dir_all(&dir);
}

//! The learned net's trainer and inference: native quantised inference against the trainer's
//! f32 forward pass, incremental accumulators against a refresh, the CPU trainer (the loss
//! falls; the file it writes loads) and fine-tuning from a parent.

use deepred::chess::bullet::ChessBoard;
use deepred::nn::value::{ValueAccumulators, ValueNet};
use deepred::train::value::{ValueParams, ValueTrainOptions, read_records, train_value};
use shakmaty::{Chess, Color, Position};

use super::{common, datagen, frame_position, temp_dir};

/// Positions along a few games of the test PGNs.
fn positions() -> Vec<Chess> {
    let pgn = common::data("pgn/games/TCEC_Season_13_-_Superfinal_nocomments.pgn");
    let games = deepred::chess::pgn::read_games(std::fs::File::open(pgn).unwrap());
    let mut out = Vec::new();
    for g in games.into_iter().take(6).flatten() {
        out.extend(g.positions().into_iter().step_by(3));
    }
    out
}

/// The quantised net written out in plain integer loops from the trainer's f32 weights (the
/// quantisation documented in `nn::value`): centipawns for the side to move of a record. With
/// output buckets, the row of bullet's `MaterialCount<B>`: (pieces - 2) / (32 / B).
fn integer_reference(p: &ValueParams, b: &ChessBoard) -> i32 {
    let h = p.hidden;
    let q = |v: f32, s: f32, lim: i64| ((v * s).round() as i64).clamp(-lim, lim);
    let (us, them) = deepred::chess::bullet::features(b);
    let k = ((us.len() - 2) / (32 / p.buckets)).min(p.buckets - 1);
    let out_w = &p.out_w[2 * h * k..];
    let mut sum: i64 = 0;
    for (side, feats) in [us, them].iter().enumerate() {
        for j in 0..h {
            let mut acc = q(p.ft_b[j], 255.0, 32767);
            for &f in feats {
                acc += q(p.ft_w[usize::from(f) * h + j], 255.0, 32767);
            }
            let c = acc.clamp(0, 255);
            sum += c * c * q(out_w[side * h + j], 64.0, 127);
        }
    }
    let out = sum / 255 + q(p.out_b[k], 255.0 * 64.0, i64::from(i32::MAX / 4));
    (out * 400 / (255 * 64)) as i32
}

#[test]
fn native_quantised_inference_matches_the_trainer_and_updates_incrementally() {
    let one = native_inference_matches(1);
    // Eight output buckets, each row scaled and biased differently: the same integers as the
    // reference, which picks each position's row itself.
    let eight = native_inference_matches(8);
    // The buckets are used: the two nets share the first bucket's row only.
    let positions = positions();
    let pieces = |p: &Chess| p.board().occupied().count();
    let differ = |lo: usize, hi: usize| {
        positions
            .iter()
            .zip(one.iter().zip(&eight))
            .filter(|(p, _)| (lo..=hi).contains(&pieces(p)))
            .filter(|(_, (a, b))| a != b)
            .count()
    };
    assert!(differ(6, 32) > 50, "{}", differ(6, 32));
    assert_eq!(differ(2, 5), 0);
}

/// Builds a net of 64 hidden units with `buckets` output buckets, checks the engine's
/// evaluation of the test positions against [`integer_reference`] and the trainer's f32 pass,
/// and its accumulators move by move; returns the evaluations.
fn native_inference_matches(buckets: usize) -> Vec<i32> {
    let dir = temp_dir(&format!("native{buckets}"));
    let file = dir.join("net.safetensors");
    // A trained-looking net: random weights scaled up so that activations spread over the
    // clamp range; bucket k's output row scaled by 1 + k/2 and biased by 0.1 + k/10.
    let mut p = ValueParams::random(64, buckets, 11);
    p.ft_w.iter_mut().for_each(|w| *w *= 6.0);
    p.ft_b.iter_mut().for_each(|w| *w = 0.3);
    for (k, row) in p.out_w.chunks_mut(128).enumerate() {
        row.iter_mut()
            .for_each(|w| *w *= 4.0 * (1.0 + k as f32 / 2.0) / 4.5);
    }
    for (k, b) in p.out_b.iter_mut().enumerate() {
        *b = 0.1 + k as f32 / 10.0;
    }
    p.save(
        &file,
        std::collections::HashMap::from([
            ("format".to_string(), "deepred-nn".to_string()),
            ("kind".to_string(), "learned".to_string()),
        ]),
    )
    .unwrap();
    let net = ValueNet::load(&file).unwrap();
    assert_eq!(net.buckets, buckets);
    let (mut total, mut n) = (0.0f32, 0);
    let mut evals = Vec::new();
    for pos in positions() {
        evals.push(net.evaluate_cp(&pos));
        let b = deepred::chess::bullet::board_of(&pos, 0, 0.5, 0);
        // Exactly the integers of an independent quantised forward pass.
        assert_eq!(net.evaluate_cp(&pos), integer_reference(&p, &b), "{pos:?}");
        // Close to the trainer's f32 forward pass (weights rounded to 1/255 and 1/64).
        let float_cp = 400.0 * p.forward(&b);
        let err = (net.evaluate_cp(&pos) as f32 - float_cp).abs();
        assert!(
            err <= 40.0 + 0.05 * float_cp.abs(),
            "{err} cp off at {float_cp} cp"
        );
        total += err;
        n += 1;
    }
    assert!(
        n > 100 && total / n as f32 <= 10.0,
        "mean error {} cp",
        total / n as f32
    );
    // Move by move: the accumulators equal a refresh at every ply.
    let pgn = common::data("pgn/games/sf15-selfplay-6k-nodes_first200.pgn");
    let games = deepred::chess::pgn::read_games(std::fs::File::open(pgn).unwrap());
    let mut acc = ValueAccumulators::try_new(&net, 600).unwrap();
    let mut fresh = ValueAccumulators::try_new(&net, 1).unwrap();
    for g in games.into_iter().take(5).flatten() {
        let mut pos = g.start.clone();
        acc.refresh(0, &pos);
        for (ply, &m) in g.moves.iter().enumerate().take(590) {
            acc.push(ply, &pos, m);
            pos.play_unchecked(m);
            fresh.refresh(0, &pos);
            for persp in Color::ALL {
                assert_eq!(acc.get(ply + 1, persp), fresh.get(0, persp));
            }
            assert_eq!(acc.evaluate_cp(ply + 1, &pos), net.evaluate_cp(&pos));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    evals
}

#[test]
fn the_trainer_lowers_the_loss_and_writes_a_net_the_engine_loads() {
    let dir = temp_dir("train");
    let data = dir.join("d.bin");
    datagen(&data, 6, 2);
    let out = dir.join("learned.safetensors");
    let opts = ValueTrainOptions {
        hidden: 32,
        buckets: 1,
        epochs: 4,
        batch: 64,
        lr: 0.01,
        lr_decay: 1.0,
        wdl: 0.3,
        val_fraction: 0.0,
        init: None,
        threads: 2,
        seed: 3,
        out: out.clone(),
        generation: "test".to_string(),
        meta: vec![("parent".to_string(), "none".to_string())],
    };
    let log = train_value(
        &opts,
        read_records(std::slice::from_ref(&data)).unwrap(),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(log.len(), 4);
    assert!(
        log[3].train_loss < log[0].train_loss * 0.9,
        "{:?}",
        log.iter().map(|e| e.train_loss).collect::<Vec<_>>()
    );
    let net = ValueNet::load(&out).unwrap();
    assert_eq!(net.hidden, 32);
    assert!(
        net.description.contains("generation test"),
        "{}",
        net.description
    );
    let file = deepred::nn::net::NetFile::load(&out, None).unwrap();
    assert_eq!(file.meta["parent"], "none");
    assert_eq!(file.meta["architecture"], "(768-32)x2-1");
    // With eight output buckets: the loss falls too, and the file has a row per bucket.
    let bucketed = dir.join("bucketed.safetensors");
    let opts8 = ValueTrainOptions {
        buckets: 8,
        out: bucketed.clone(),
        ..opts.clone()
    };
    let records = read_records(std::slice::from_ref(&data)).unwrap();
    let log8 = train_value(&opts8, records.clone(), |_, _| {}).unwrap();
    assert!(
        log8[3].train_loss < log8[0].train_loss * 0.9,
        "{:?}",
        log8.iter().map(|e| e.train_loss).collect::<Vec<_>>()
    );
    let file = deepred::nn::net::NetFile::load(&bucketed, None).unwrap();
    assert_eq!(file.meta["architecture"], "(768-32)x2-1x8");
    let p8 = ValueParams::load(&bucketed).unwrap();
    assert_eq!((p8.buckets, p8.out_w.len(), p8.out_b.len()), (8, 8 * 64, 8));
    let net8 = ValueNet::load(&bucketed).unwrap();
    assert!(net8.description.contains("x2->1x8"), "{}", net8.description);
    // The rows part as they learn from positions of different material (they start equal).
    let rows: Vec<&[f32]> = p8.out_w.chunks(64).collect();
    assert!(rows.windows(2).any(|w| w[0] != w[1]));
    // What the trainer computes, the engine computes (quantised).
    let mut compared = 0;
    for r in records.iter().take(200) {
        if let Some(pos) = frame_position(r) {
            assert_eq!(net8.evaluate_cp(&pos), integer_reference(&p8, r));
            compared += 1;
        }
    }
    assert!(compared > 150, "{compared}");
    // Other bucket counts are refused, by the trainer and by the engine.
    let opts3 = ValueTrainOptions {
        buckets: 3,
        ..opts.clone()
    };
    let err = train_value(&opts3, records, |_, _| {})
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("3 output buckets"), "{err}");
    // Through UCI: a search with the net.
    let mut e = common::Uci::start();
    e.send(&format!("setoption name EvalFile value {}", out.display()));
    e.send("setoption name Evaluator value learned");
    e.send("position startpos moves e2e4");
    e.send("go depth 5");
    let (best, _) = e.bestmove(common::SECS(30));
    assert!(best.starts_with("bestmove "), "{best}");
    e.quit();
    // Bad files: no data, a Deep Pink net given as the learned net, weights out of range.
    let empty = dir.join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    let err = train_value(&opts, read_records(&[empty]).unwrap(), |_, _| {})
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no training positions"), "{err}");
    let pink = dir.join("pink.safetensors");
    deepred::nn::random::write(&pink, deepred::nn::net::Kind::DeepPink, 1).unwrap();
    let err = ValueNet::load(&pink).err().unwrap().to_string();
    assert!(err.contains("not a learned net"), "{err}");
    let meta = || {
        std::collections::HashMap::from([
            ("format".to_string(), "deepred-nn".to_string()),
            ("kind".to_string(), "learned".to_string()),
        ])
    };
    let mut three = ValueParams::random(16, 1, 1);
    three.buckets = 3;
    three.out_w = three.out_w.repeat(3);
    three.out_b = vec![0.0; 3];
    let bad = dir.join("three.safetensors");
    three.save(&bad, meta()).unwrap();
    let err = ValueNet::load(&bad).err().unwrap().to_string();
    assert!(err.contains("3 output buckets"), "{err}");
    let mut big = ValueParams::random(16, 1, 1);
    big.ft_w[5] = 500.0;
    let bad = dir.join("big.safetensors");
    big.save(&bad, meta()).unwrap();
    let err = ValueNet::load(&bad).err().unwrap().to_string();
    assert!(err.contains("beyond"), "{err}");
    // Wider than the kernels take: said so (its weights, all zero, were blamed).
    let mut too_wide = ValueParams::random(4096, 1, 1);
    too_wide.ft_w.iter_mut().for_each(|w| *w = 0.0);
    let wide_file = dir.join("wide.safetensors");
    too_wide.save(&wide_file, meta()).unwrap();
    let err = ValueNet::load(&wide_file).err().unwrap().to_string();
    assert!(
        err.contains("hidden size 4096 is more than the 2048") && !err.contains("beyond"),
        "{err}"
    );
    // Each weight within its bound, but one hidden unit's bias and 32 pieces' weights would
    // wrap its i16 accumulator (5.0 * 32 * 255 > 32,767): refused, naming the unit.
    let mut wide = ValueParams::random(16, 1, 1);
    for f in 0..768 {
        wide.ft_w[f * 16 + 3] = 5.0;
    }
    wide.save(&bad, meta()).unwrap();
    let err = ValueNet::load(&bad).err().unwrap().to_string();
    assert!(err.contains("hidden unit 3"), "{err}");
    // An output bias of thousands of pawns.
    let mut biased = ValueParams::random(16, 1, 1);
    biased.out_b = vec![1000.0];
    biased.save(&bad, meta()).unwrap();
    let err = ValueNet::load(&bad).err().unwrap().to_string();
    assert!(err.contains("'out.bias'"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fine_tuning_starts_from_the_parents_weights() {
    let dir = temp_dir("finetune");
    let data = dir.join("d.bin");
    datagen(&data, 4, 5);
    let records = read_records(std::slice::from_ref(&data)).unwrap();
    let parent = dir.join("parent.safetensors");
    let opts = ValueTrainOptions {
        hidden: 32,
        buckets: 1,
        epochs: 3,
        batch: 64,
        lr: 0.01,
        lr_decay: 1.0,
        wdl: 0.0,
        val_fraction: 0.0,
        init: None,
        threads: 2,
        seed: 9,
        out: parent.clone(),
        generation: "1".to_string(),
        meta: Vec::new(),
    };
    let from_random = train_value(&opts, records.clone(), |_, _| {}).unwrap();
    // A learning rate of 0 keeps the parent's weights: the child computes what it computes.
    let child = dir.join("child.safetensors");
    let frozen = ValueTrainOptions {
        init: Some(parent.clone()),
        lr: 0.0,
        epochs: 1,
        out: child.clone(),
        ..opts.clone()
    };
    let log = train_value(&frozen, records.clone(), |_, _| {}).unwrap();
    let (a, b) = (
        ValueParams::load(&parent).unwrap(),
        ValueParams::load(&child).unwrap(),
    );
    for r in records.iter().take(200) {
        assert_eq!(a.forward(r), b.forward(r));
    }
    // Fine-tuned, the first epoch starts where the parent ended, far below a random start.
    assert!(
        log[0].train_loss < from_random[0].train_loss * 0.9,
        "{} against {}",
        log[0].train_loss,
        from_random[0].train_loss
    );
    // Another size than the parent's: a clear error.
    let wider = ValueTrainOptions {
        hidden: 64,
        ..frozen.clone()
    };
    let err = train_value(&wider, records.clone(), |_, _| {})
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("has 32 hidden units") && err.contains("64"),
        "{err}"
    );
    // A parent of one output bucket grows into four, each its row: frozen, the child
    // computes what the parent computes, in every bucket.
    let grown = dir.join("grown.safetensors");
    let four = ValueTrainOptions {
        buckets: 4,
        out: grown.clone(),
        ..frozen.clone()
    };
    train_value(&four, records.clone(), |_, _| {}).unwrap();
    let c = ValueParams::load(&grown).unwrap();
    assert_eq!(c.buckets, 4);
    let pieces: std::collections::BTreeSet<usize> = records
        .iter()
        .take(2000)
        .map(|r| deepred::chess::bullet::features(r).0.len())
        .collect();
    assert!(pieces.len() > 8, "{pieces:?}");
    for r in records.iter().take(2000) {
        assert_eq!(a.forward(r), c.forward(r));
    }
    // Four buckets do not start eight: a clear error.
    let eight = ValueTrainOptions {
        buckets: 8,
        init: Some(grown),
        ..frozen
    };
    let err = train_value(&eight, records, |_, _| {})
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("has 4 output buckets where the training asks 8"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

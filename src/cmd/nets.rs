//! The nets: `dataset`, `train` (feature `torch`), `nn accuracy|export-torchscript|random-net|kernel-bench`.

use std::process::ExitCode;

use super::fail;
use crate::cli::{AccuracyArgs, DatasetArgs, NnCmd, SplitArg, TrainArgs, TrainLearnedArgs};

pub fn dataset(a: DatasetArgs) -> ExitCode {
    let DatasetArgs {
        kind,
        pgn,
        db,
        window,
        datagen,
        sample,
        out,
        val_fraction,
        seed,
        per_game,
        equal_material,
    } = a;
    let sample = sample.unwrap_or(1.0);
    use deepred::train::data;
    let inputs = pgn.iter().chain(&datagen).chain(&db).map(|p| p.as_path());
    if let Err(e) = super::not_an_input(&out, inputs)
        .and_then(|_| super::named_once(pgn.iter().chain(&datagen).map(|p| p.as_path())))
    {
        return fail(e);
    }
    if !(0.0..=1.0).contains(&val_fraction) {
        return fail(format!("--val-fraction {val_fraction} is not within 0..1"));
    }
    if equal_material && kind.kind() != deepred::nn::net::Kind::DeepPink {
        return fail(
            "--equal-material filters Deep Pink triplets (deepred dataset deeppink --datagen ...)",
        );
    }
    if !(sample > 0.0 && sample <= 1.0) {
        return fail(format!("--sample {sample} is not within (0, 1]"));
    }
    let opts = data::DatasetOptions {
        kind: kind.kind(),
        val_fraction,
        seed,
        per_game,
        sample,
        equal_material,
    };
    let unit = if datagen.is_empty() {
        "games"
    } else {
        "records"
    };
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {unit} {{per_sec}} eta {{eta}}"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let r = if let Some(db) = &db {
        let filter = deepred::experience::positions::PositionFilter {
            window,
            seed,
            ..Default::default()
        };
        match deepred::experience::store::Store::open_read_only(db) {
            Ok(store) => data::build_from_store(&store, &filter, &out, &opts, &bar),
            Err(e) => Err(e.into()),
        }
    } else if datagen.is_empty() {
        data::build(&pgn, &out, &opts, &bar)
    } else {
        data::build_from_datagen(&datagen, &out, &opts, &bar)
    };
    bar.finish_and_clear();
    match r {
        Ok(s) => {
            print!("{}", s.report(kind.kind(), &out));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

#[cfg(feature = "torch")]
pub fn train(a: TrainArgs) -> ExitCode {
    use deepred::train;
    let device = match a.device.as_str() {
        "cpu" => tch::Device::Cpu,
        "cuda" => tch::Device::Cuda(0),
        d => match d.strip_prefix("cuda:").and_then(|n| n.parse().ok()) {
            Some(n) => tch::Device::Cuda(n),
            None => return fail(format!("--device '{d}' is not cpu, cuda or cuda:N")),
        },
    };
    if matches!(device, tch::Device::Cuda(_)) && !tch::Cuda::is_available() {
        return fail("--device cuda: no CUDA device is available to libtorch");
    }
    let kind = a.kind.kind();
    let o = train::TrainOptions {
        kind,
        out: a
            .out
            .unwrap_or_else(|| format!("nets/{}.safetensors", kind.name()).into()),
        data: a.data,
        run_dir: a.run_dir,
        epochs: a.epochs,
        ae_epochs: a.ae_epochs,
        batch: a.batch,
        lr: a.lr,
        lr_decay: a.lr_decay,
        pairs: a.pairs,
        kappa: a.kappa,
        hidden: a.hidden,
        weight_decay: a.weight_decay,
        dropout: a.dropout,
        mirror: a.mirror,
        device,
        threads: a.threads,
        seed: a.seed,
        resume: a.resume,
        init: a.init,
        siblings: a.siblings,
        sibling_pairs: a.sibling_pairs,
        games_note: a.games_note,
        quiet: a.quiet,
    };
    match train::train(&o) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

#[cfg(feature = "torch")]
fn export_torchscript(net: &std::path::Path, out: &std::path::Path) -> ExitCode {
    match deepred::train::export_torchscript(net, out) {
        Ok(m) => {
            println!("{m}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

#[cfg(not(feature = "torch"))]
fn export_torchscript(_: &std::path::Path, _: &std::path::Path) -> ExitCode {
    fail("this deepred was built without the `torch` feature; TorchScript needs libtorch")
}

#[cfg(not(feature = "torch"))]
pub fn train(_: TrainArgs) -> ExitCode {
    fail(
        "this deepred was built without the `torch` feature; training needs libtorch: \
         scripts/torch-venv.sh, eval \"$(scripts/torch-env.sh)\", \
         cargo build --release --features torch",
    )
}

pub fn nn(what: NnCmd) -> ExitCode {
    match what {
        NnCmd::Accuracy(a) => accuracy(a),
        NnCmd::ExportTorchscript(a) => export_torchscript(&a.net, &a.out),
        NnCmd::RandomNet(a) => match deepred::nn::random::write(&a.out, a.kind.kind(), a.seed) {
            Ok(()) => {
                println!(
                    "wrote a random {} net to '{}'",
                    a.kind.kind().name(),
                    a.out.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        NnCmd::KernelBench(a) => super::tools::kernel_bench(a),
        NnCmd::Average(a) => {
            if let Err(e) = super::not_an_input(&a.out, a.nets.iter().map(|p| p.as_path())) {
                return fail(e);
            }
            match deepred::train::average::average(
                &a.nets,
                a.weights.as_deref(),
                a.games_note.as_deref(),
                &a.out,
            ) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            }
        }
        NnCmd::Calibrate(a) => {
            match deepred::train::calibrate::calibrate(&a.net, &a.dataset, a.samples) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            }
        }
    }
}

fn accuracy(a: AccuracyArgs) -> ExitCode {
    use deepred::train::accuracy;
    let o = accuracy::AccuracyOptions {
        net: a.net,
        pgns: a.pgn,
        dataset: a.dataset,
        samples: a.samples.max(1),
        seed: a.seed,
        split: match a.split {
            SplitArg::All => accuracy::Split::All,
            SplitArg::Train => accuracy::Split::Train,
            SplitArg::Validation => accuracy::Split::Validation,
        },
        val_fraction: a.val_fraction,
        per_game: a.per_game,
        only: a.only,
        material_margin: a.material_margin,
    };
    match accuracy::run(&o) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `deepred train-learned`: the value net on datagen files, epoch by epoch.
pub fn train_learned(a: TrainLearnedArgs) -> ExitCode {
    use deepred::train::value::{ValueTrainOptions, read_records, train_value};
    use std::io::Write;
    // `--init` may be `--out` (a net fine-tuned in place): it is read before the first save.
    let inputs = a.data.iter().chain(&a.db).map(|p| p.as_path());
    if let Err(e) = super::not_an_input(&a.out, inputs.clone()) {
        return fail(e);
    }
    // The CSV is made before the first epoch: checked, as the net is, before anything is read
    // (it was made over an input, the store too, even by a run that then failed).
    if let Some(csv) = &a.csv {
        let others = inputs.chain([a.out.as_path()]).chain(a.init.as_deref());
        if let Err(e) = super::not_an_input(csv, others) {
            return fail(e);
        }
    }
    if let Some(dir) = a.out.parent()
        && !dir.as_os_str().is_empty()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("cannot create '{}': {e}", dir.display()));
    }
    // After the net's folder is made: the CSV may go beside it.
    if let Some(Err(e)) = a.csv.as_deref().map(super::writable) {
        return fail(e);
    }
    let data = match &a.db {
        Some(db) => match super::experience::store_positions(db, &a.positions) {
            Ok(d) => d,
            Err(e) => return fail(e),
        },
        None => match read_records(&a.data) {
            Ok(d) => d,
            Err(e) => return fail(e),
        },
    };
    let opts = ValueTrainOptions {
        hidden: a.value.hidden,
        buckets: a.value.buckets,
        epochs: a.value.epochs,
        batch: a.value.batch,
        lr: a.value.lr,
        lr_decay: a.value.lr_decay,
        wdl: a.value.wdl.clamp(0.0, 1.0),
        val_fraction: a.value.val_fraction.clamp(0.0, 0.5),
        init: a.init.clone(),
        threads: a.threads.unwrap_or_else(super::games::cores).max(1),
        seed: a.seed,
        out: a.out.clone(),
        generation: a.generation.clone(),
        meta: Vec::new(),
    };
    let mut csv = match &a.csv {
        Some(p) => match std::fs::File::create(p) {
            Ok(mut f) => {
                let _ = writeln!(f, "epoch,train_loss,val_loss,seconds");
                Some(f)
            }
            Err(e) => return fail(format!("cannot create '{}': {e}", p.display())),
        },
        None => None,
    };
    let result = train_value(&opts, data, |e, _| {
        println!(
            "epoch {}: train loss {:.6}, validation loss {:.6}, {:.1} s",
            e.epoch, e.train_loss, e.val_loss, e.seconds
        );
        if let Some(f) = csv.as_mut() {
            let _ = writeln!(
                f,
                "{},{:.6},{:.6},{:.2}",
                e.epoch, e.train_loss, e.val_loss, e.seconds
            );
        }
    });
    match result {
        Ok(_) => {
            println!("{}: written", a.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

//! Tools: `sts` (an EPD suite on any UCI engine), `wdl-fit`, `curve-plot` and `nn kernel-bench`.

use std::process::ExitCode;

use deepred::tools::{kernels, sts as suite, wdl};

use super::{fail, parse_options};
use crate::cli::{CurvePlotArgs, KernelBenchArgs, StsArgs, WdlFitArgs};

pub fn sts(a: StsArgs) -> ExitCode {
    let StsArgs {
        epd,
        engine,
        movetime,
        threads,
        hash,
        concurrency,
        limit,
        options,
    } = a;
    let text = match std::fs::read(&epd) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => return fail(format!("cannot read '{epd}': {e}")),
    };
    let (mut positions, bad) = suite::parse_suite(&text);
    for b in &bad {
        eprintln!("{epd}: skipped {b}");
    }
    if let Some(n) = limit {
        positions.truncate(n);
    }
    if positions.is_empty() {
        return fail(format!("'{epd}' has no usable position"));
    }
    let opts_kv = match parse_options(&options) {
        Ok(kv) => kv,
        Err(e) => return fail(e),
    };
    let opts = suite::StsOptions {
        engine,
        movetime_ms: movetime,
        threads,
        hash_mb: hash,
        concurrency,
        options: opts_kv,
    };
    match suite::run(&positions, &opts) {
        Ok(r) => {
            print!("{}", suite::format_report(&r, &opts));
            // A score with unanswered positions counted as 0 is not the engine's score.
            if r.unanswered > 0 {
                return fail(format!(
                    "{} of {} positions got no answer from the engine: the score above is not its score",
                    r.unanswered,
                    positions.len()
                ));
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

pub fn kernel_bench(a: KernelBenchArgs) -> ExitCode {
    println!(
        "{}x{} dense layer, about half the inputs non-zero:",
        a.inputs, a.outputs
    );
    for t in kernels::run(a.inputs as usize, a.outputs as usize, a.seconds) {
        println!(
            "{:<14} {:<11} {:8.2} us per layer",
            t.kernel, t.inputs, t.micros
        );
    }
    ExitCode::SUCCESS
}

pub fn wdl_fit(a: WdlFitArgs) -> ExitCode {
    let o = wdl::FitOptions {
        pgns: a.pgn,
        positions: a.positions,
        depth: a.depth,
        seed: a.seed,
    };
    let samples = match wdl::samples(&o) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if samples.len() < 100 {
        return fail(format!(
            "only {} positions in the games (not in check, not decided by a mate score): too few to fit, at least 100 are needed",
            samples.len()
        ));
    }
    let f = wdl::fit(&samples);
    println!(
        "{} positions at depth {}: a = {:.1}, b = {:.1}; log-likelihood per position {:.4} (without the score: {:.4})",
        f.samples, o.depth, f.model.a, f.model.b, f.log_likelihood, f.baseline
    );
    ExitCode::SUCCESS
}

pub fn curve_plot(a: CurvePlotArgs) -> ExitCode {
    use deepred::tools::curve::{plot, plot_against, read_curve, read_generations};
    if let Err(e) = super::not_an_input(&a.out, [a.csv.as_path()]) {
        return fail(e);
    }
    let text = match std::fs::read_to_string(&a.csv) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read '{}': {e}", a.csv.display())),
    };
    let drawn = if a.generations {
        read_generations(&text).and_then(|s| plot_against(&a.out, &a.title, "generation", &s))
    } else {
        read_curve(&text).and_then(|s| plot(&a.out, &a.title, &s))
    };
    match drawn {
        Ok(()) => {
            println!("wrote {}", a.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

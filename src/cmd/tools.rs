//! Tools: `sts` (an EPD suite on any UCI engine) and `nn kernel-bench`.

use std::process::ExitCode;

use deepred::tools::{kernels, sts as suite};

use super::{fail, parse_options};
use crate::cli::{KernelBenchArgs, StsArgs};

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

//! The `deepred` command line. With no argument it speaks UCI (GUIs start it that way).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use deepred::{bench, eval, perft, search, sts, uci};

#[derive(Parser)]
#[command(
    name = "deepred",
    version,
    about = "Deep Red: a UCI chess engine that learns from experience"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Speak UCI on stdin/stdout (the default).
    Uci,
    /// Fixed-depth search of the bench positions; last line `<N> nodes <M> nps` (OpenBench).
    Bench {
        /// Search depth.
        #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// Evaluator to bench.
        #[arg(long, default_value = "pst")]
        evaluator: String,
        /// Search threads (node counts are deterministic only with 1).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Count the leaf nodes of the legal move tree.
    Perft {
        #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
        depth: u32,
        /// Position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Read the FEN's castling rights as Chess960.
        #[arg(long)]
        chess960: bool,
    },
    /// Every evaluator's view of a position.
    Eval {
        #[arg(long)]
        fen: Option<String>,
    },
    /// Run an EPD suite (STS points in c8/c9, or bm) on Deep Red or another UCI engine.
    Sts {
        /// The EPD file, e.g. ../shared/data/sts/STS1-STS15_LAN_v3.epd
        epd: String,
        /// Shell command of another UCI engine (default: this Deep Red).
        #[arg(long)]
        engine: Option<String>,
        /// Thinking time per position.
        #[arg(long, default_value_t = 100)]
        movetime: u64,
        /// Threads option of the engine.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hash option of the engine (MB).
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Engines run side by side (positions in parallel).
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Only the first N positions.
        #[arg(long)]
        limit: Option<usize>,
        /// Extra engine option, NAME=VALUE (repeatable).
        #[arg(long = "option", value_name = "NAME=VALUE")]
        options: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None | Some(Cmd::Uci) => {
            let mut engine = uci::Engine::new();
            engine.run(std::io::stdin().lock());
            ExitCode::SUCCESS
        }
        Some(Cmd::Bench {
            depth,
            evaluator,
            threads,
        }) => {
            let ev = match eval::by_name(&evaluator) {
                Ok(e) => e,
                Err(e) => return fail(&e),
            };
            let r = bench::run(depth, threads, &ev, |l| println!("{l}"));
            println!("{} nodes {} nps", r.nodes, r.nps());
            ExitCode::SUCCESS
        }
        Some(Cmd::Perft {
            depth,
            fen,
            divide,
            chess960,
        }) => {
            let pos = match fen {
                Some(f) => match uci::parse_fen(&f, chess960) {
                    Ok(p) => p,
                    Err(e) => return fail(&e),
                },
                None => shakmaty::Chess::default(),
            };
            let start = std::time::Instant::now();
            let total = if divide {
                perft::divide(&pos, depth, |m, n| {
                    println!("{}: {n}", search::uci_move(m, chess960))
                })
            } else {
                perft::perft(&pos, depth)
            };
            let ms = start.elapsed().as_millis().max(1) as u64;
            println!("Nodes searched: {total}");
            eprintln!("{ms} ms, {} nodes/s", total * 1000 / ms);
            ExitCode::SUCCESS
        }
        Some(Cmd::Eval { fen }) => {
            let pos = match fen {
                Some(f) => match uci::parse_fen(&f, false) {
                    Ok(p) => p,
                    Err(e) => return fail(&e),
                },
                None => shakmaty::Chess::default(),
            };
            print!("{}", deepred::eval_report(&pos));
            ExitCode::SUCCESS
        }
        Some(Cmd::Sts {
            epd,
            engine,
            movetime,
            threads,
            hash,
            concurrency,
            limit,
            options,
        }) => {
            let text = match std::fs::read(&epd) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => return fail(&format!("cannot read '{epd}': {e}")),
            };
            let (mut positions, bad) = sts::parse_suite(&text);
            for b in &bad {
                eprintln!("{epd}: skipped {b}");
            }
            if let Some(n) = limit {
                positions.truncate(n);
            }
            if positions.is_empty() {
                return fail(&format!("'{epd}' has no usable position"));
            }
            let mut opts_kv = Vec::new();
            for o in options {
                match o.split_once('=') {
                    Some((k, v)) => opts_kv.push((k.to_string(), v.to_string())),
                    None => return fail(&format!("--option '{o}' is not NAME=VALUE")),
                }
            }
            let opts = sts::StsOptions {
                engine,
                movetime_ms: movetime,
                threads,
                hash_mb: hash,
                concurrency,
                options: opts_kv,
            };
            match sts::run(&positions, &opts) {
                Ok(r) => {
                    print!("{}", sts::format_report(&r, &opts));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("deepred: {msg}");
    ExitCode::FAILURE
}

//! The command line: clap definitions of every subcommand and its arguments, grouped by
//! subject as the functions of `cmd/` are.

mod experience;
mod games;
mod learn;
mod nets;
mod tools;
mod web;

pub use experience::*;
pub use games::*;
pub use learn::*;
pub use nets::*;
pub use tools::*;
pub use web::*;

use clap::{Parser, Subcommand};
use deepred::eval::EvalKind;
use deepred::search::bench;

#[derive(Parser)]
#[command(
    name = "deepred",
    version,
    about = "Deep Red: a UCI chess engine that learns from experience"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Speak UCI on stdin/stdout (the default).
    Uci,
    /// Fixed-depth search of the bench positions; last line `<N> nodes <M> nps` (OpenBench).
    Bench(BenchArgs),
    /// Count the leaf nodes of the legal move tree.
    Perft(PerftArgs),
    /// Print the search's tunable parameters as an OpenBench SPSA input (one
    /// `name, int, default, min, max, c_end, r_end` line each); each is a UCI option too.
    Spsa,
    /// Every evaluator's view of a position.
    Eval(EvalArgs),
    /// Training positions from PGN games for DeepChess or Deep Pink (binary DRDSET01 file).
    Dataset(DatasetArgs),
    /// Training positions for the learned value net from Deep Red's own games at fixed nodes
    /// (bulletformat records: position, search score, best move, game result); resumable.
    Datagen(DatagenArgs),
    /// Train the learned value net (`Evaluator=learned`) on `datagen` files or a store, on the CPU.
    TrainLearned(TrainLearnedArgs),
    /// Train DeepChess or Deep Pink on a `deepred dataset` file with libtorch (needs a build
    /// with `--features torch`; see scripts/train-nets.sh).
    Train(Box<TrainArgs>),
    /// Neural net tools.
    #[command(subcommand)]
    Nn(NnCmd),
    /// Learn PGN games into the experience store.
    Import(ImportArgs),
    /// Deep Red against itself from book openings; finished games are learned.
    Selfplay(SelfplayArgs),
    /// Deep Red (or --engine) against another UCI engine: clocks or node limits, an opening book
    /// played with colours alternated, adjudication, PGN, Elo with error bars, optional learning.
    Match(Box<MatchArgs>),
    /// The learning loop: self-play with the current net into the store, a candidate trained
    /// on the store, gated by an SPRT against the current net, promoted when it passes;
    /// resumable; --play-only and --train-only split it over a farm.
    Learn(Box<LearnArgs>),
    /// Play in the terminal: a human against Deep Red, or two humans; finished games are learned.
    Play(PlayArgs),
    /// Look into the experience store.
    #[command(subcommand)]
    Experience(ExperienceCmd),
    /// The local web application: play Deep Red in the browser (finished games are learned), and
    /// explore what the experience store learned (http://127.0.0.1:8080/ by default;
    /// --explore-only serves it read-only).
    Web(WebArgs),
    /// Run an EPD suite (STS points in c8/c9, or bm) on Deep Red or another UCI engine.
    Sts(StsArgs),
    /// Fit the win/draw/loss model of UCI_ShowWDL to finished games (positions searched at a
    /// fixed depth, maximum likelihood).
    WdlFit(WdlFitArgs),
    /// Draw a learning curve (the CSV of scripts/learn-curve.sh) as a PNG: Elo and score with
    /// 95% error bars against games learned, learning on beside learning off.
    CurvePlot(CurvePlotArgs),
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Search depth.
    #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Evaluator to bench.
    #[arg(long, default_value_t = EvalKind::DEFAULT)]
    pub evaluator: EvalKind,
    /// Search threads (node counts are deterministic only with 1).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256), default_value_t = 1)]
    pub threads: usize,
    /// Net file of a neural evaluator (default: as `EvalFile auto`, the newest promoted net in
    /// the data folder, else the net embedded in the binary).
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub struct PerftArgs {
    #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
    pub depth: u32,
    /// Position (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Read the FEN's castling rights as Chess960.
    #[arg(long)]
    pub chess960: bool,
}

#[derive(clap::Args)]
pub struct EvalArgs {
    #[arg(long)]
    pub fen: Option<String>,
    /// Experience store to consult; one named must be a store.
    /// (Default: experience.sqlite in Deep Red's data folder, if there is one.)
    #[arg(long)]
    pub db: Option<std::path::PathBuf>,
    /// A net file (learned, deepchess or deeppink) to show instead of the embedded one.
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// The long names of a command's options and of all its subcommands' (clap checks this
    /// only in debug builds; the tests run in release).
    fn duplicates(c: &clap::Command, path: &str, out: &mut Vec<String>) {
        let mut seen = std::collections::HashSet::new();
        for a in c.get_arguments() {
            if let Some(long) = a.get_long()
                && !seen.insert(long)
            {
                out.push(format!("{path} --{long}"));
            }
        }
        for sub in c.get_subcommands() {
            duplicates(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn no_option_is_defined_twice() {
        let mut out = Vec::new();
        duplicates(&super::Cli::command(), "deepred", &mut out);
        assert!(out.is_empty(), "options defined twice: {out:?}");
    }

    /// `learn --help` names the window a candidate trains on by default.
    #[test]
    fn learn_window_help_names_the_default() {
        let cli = super::Cli::command();
        let learn = cli.find_subcommand("learn").expect("a learn command");
        let window = learn
            .get_arguments()
            .find(|a| a.get_long() == Some("window"))
            .expect("learn --window");
        let help = window.get_help().expect("a help text").to_string();
        let named = format!("the latest {}", super::LEARN_WINDOW);
        assert!(help.contains(&named), "{help:?} does not say {named:?}");
    }
}

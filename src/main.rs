//! The `deepred` executable: with no argument it speaks UCI (GUIs start it that way); otherwise
//! it parses the command line ([`cli`]) and hands each subcommand to its function in [`cmd`].

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;
use cli::{Cli, Cmd};
use cmd::{engine, experience, games, nets, tools};

fn main() -> ExitCode {
    match Cli::parse().command {
        None | Some(Cmd::Uci) => engine::uci(),
        Some(Cmd::Bench(a)) => engine::bench(a),
        Some(Cmd::Perft(a)) => engine::perft(a),
        Some(Cmd::Spsa) => engine::spsa(),
        Some(Cmd::Eval(a)) => engine::eval(a),
        Some(Cmd::Dataset(a)) => nets::dataset(a),
        Some(Cmd::Datagen(a)) => games::datagen(a),
        Some(Cmd::TrainLearned(a)) => nets::train_learned(a),
        Some(Cmd::Train(a)) => nets::train(*a),
        Some(Cmd::Nn(what)) => nets::nn(what),
        Some(Cmd::Import(a)) => experience::import(a),
        Some(Cmd::Experience(what)) => experience::experience(what),
        Some(Cmd::Selfplay(a)) => games::selfplay(a),
        Some(Cmd::Match(a)) => games::run_match(*a),
        Some(Cmd::Play(a)) => games::play(a),
        Some(Cmd::Sts(a)) => tools::sts(a),
        Some(Cmd::WdlFit(a)) => tools::wdl_fit(a),
        Some(Cmd::CurvePlot(a)) => tools::curve_plot(a),
    }
}

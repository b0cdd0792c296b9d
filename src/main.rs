//! The `deepred` executable: with no argument it speaks UCI (GUIs start it that way); otherwise
//! it parses the command line ([`cli`]) and hands each subcommand to its function in [`cmd`].

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;
use cli::{Cli, Cmd};
use cmd::{engine, experience, games, learn, nets, tools, web};

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    // OpenBench passes its datagen command as one argument: "genfens N seed S book B" quit.
    if let Some(command) = std::env::args().nth(1).filter(|a| a.starts_with("genfens")) {
        return games::genfens(&command);
    }
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
        Some(Cmd::Learn(a)) => learn::learn(*a),
        Some(Cmd::Play(a)) => games::play(a),
        Some(Cmd::Web(a)) => web::web(a),
        Some(Cmd::Sts(a)) => tools::sts(a),
        Some(Cmd::WdlFit(a)) => tools::wdl_fit(a),
        Some(Cmd::CurvePlot(a)) => tools::curve_plot(a),
    }
}

/// `deepred <subcommand> | head -1`: Rust ignores SIGPIPE, so a closed stdout makes the next
/// `println!` panic with "failed printing to stdout: Broken pipe". Such a reader wants no more
/// output: exit quietly instead. (SIGPIPE itself stays ignored: `match` writes to child engines,
/// and one that dies must be a reported forfeit, not the death of the match.) Any other failure
/// to write stdout (`> /dev/full`) is an error of one line and exit status 1; every other
/// panic is reported as usual. UCI output never gets here: it ignores a closed stdout.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = message.strip_prefix("failed printing to stdout") {
            if why.contains("Broken pipe") {
                std::process::exit(0);
            }
            // A full disk, a closed file: an error, not a panic.
            eprintln!(
                "deepred: cannot write the output: {}",
                why.trim_start_matches(':').trim()
            );
            std::process::exit(1);
        }
        default(info);
    }));
}

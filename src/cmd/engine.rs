//! The engine itself: `uci` (the default), `bench`, `spsa`, `perft`, `eval`.

use std::process::ExitCode;

use deepred::chess::notation::uci_move;
use deepred::chess::perft;
use deepred::eval::{self, report::eval_report};
use deepred::search::bench;
use deepred::uci::Engine;
use shakmaty::Position;

use super::{fail, position_arg};
use crate::cli::{BenchArgs, EvalArgs, PerftArgs};

/// Speaks UCI on stdin/stdout until `quit` or the end of input.
pub fn uci() -> ExitCode {
    let mut engine = Engine::new();
    engine.run(std::io::stdin().lock());
    ExitCode::SUCCESS
}

pub fn bench(a: BenchArgs) -> ExitCode {
    let ctx = eval::EvalContext {
        eval_file: a.eval_file,
        ..Default::default()
    };
    let ev = match super::evaluator_with_net(a.evaluator, &ctx) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let r = bench::run(a.depth, a.threads, &ev, |l| println!("{l}"));
    println!("{} nodes {} nps", r.nodes, r.nps());
    ExitCode::SUCCESS
}

pub fn spsa() -> ExitCode {
    print!("{}", deepred::search::params::spsa_input());
    ExitCode::SUCCESS
}

pub fn perft(a: PerftArgs) -> ExitCode {
    let pos = match position_arg(a.fen, a.chess960) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // King-takes-rook where standard notation cannot tell a castle from a king move.
    let notation960 = a.chess960 || pos.castles().mode().is_chess960();
    let start = std::time::Instant::now();
    let total = if a.divide {
        perft::divide(&pos, a.depth, |m, n| {
            println!("{}: {n}", uci_move(m, notation960))
        })
    } else {
        perft::perft(&pos, a.depth)
    };
    let ms = start.elapsed().as_millis().max(1) as u64;
    println!("Nodes searched: {total}");
    eprintln!("{ms} ms, {} nodes/s", total * 1000 / ms);
    ExitCode::SUCCESS
}

pub fn eval(a: EvalArgs) -> ExitCode {
    let pos = match position_arg(a.fen, false) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // A net asked for by name must be one, and load as the evaluator of its kind (a learned
    // net missing a tensor, a Deep Pink net whose cp_scale is no number): the report would only
    // say "unavailable", with exit status 0.
    if let Some(f) = &a.eval_file {
        let kind = match deepred::nn::net::NetFile::load(f, None) {
            Ok(net) => net.kind,
            Err(e) => return fail(e),
        };
        let ctx = eval::EvalContext {
            eval_file: Some(f.clone()),
            ..Default::default()
        };
        if let Some(ek) = eval::EvalKind::ALL
            .into_iter()
            .find(|k| k.net() == Some(kind))
            && let Err(e) = eval::build(ek, &ctx)
        {
            return fail(e);
        }
    }
    // So must a store: one named that is missing, or any that is not a store (the report said
    // "unavailable" and the exit status was 0). The default store may not exist yet.
    let db =
        a.db.clone()
            .unwrap_or_else(deepred::experience::location::default_store);
    if (a.db.is_some() || db.exists())
        && let Err(e) = deepred::experience::store::Store::open_read_only(&db)
    {
        return fail(e);
    }
    let ctx = eval::EvalContext {
        experience_file: db,
        eval_file: a.eval_file,
        ..Default::default()
    };
    print!("{}", eval_report(&pos, &ctx));
    ExitCode::SUCCESS
}

//! Games: `selfplay`, `match`, `play`.

use std::path::Path;
use std::process::ExitCode;

use super::{evaluator_arg, fail, parse_options, position_arg};
use crate::cli::{DatagenArgs, HumanSide, MatchArgs, PlayArgs, SelfplayArgs};

pub fn selfplay(a: SelfplayArgs) -> ExitCode {
    let SelfplayArgs {
        games,
        nodes,
        nodes_jitter,
        depth,
        movetime,
        book,
        explore,
        explore_epsilon,
        versus_random,
        evaluator,
        db,
        no_learn,
        pgn,
        seed,
        concurrency,
        max_plies,
        random_plies,
        tree_plies,
    } = a;
    use deepred::games::selfplay;
    let max_plies = super::ply_limit(max_plies);
    if let Err(e) = super::games_record(pgn.as_deref(), &[Some(&db), book.as_deref()]) {
        return fail(e);
    }
    let ev = match evaluator_arg(evaluator, &db) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let openings = match &book {
        Some(b) => match selfplay::load_openings(b) {
            Ok(o) => o,
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    if versus_random {
        let store = match deepred::experience::store::Store::open_read_only(&db) {
            Ok(s) => Some(s),
            Err(deepred::experience::Error::Missing { .. }) => None,
            Err(e) => return fail(e),
        };
        let t = selfplay::versus_random(store.as_ref(), &openings, games, max_plies, seed);
        let (elo, err) = t.elo();
        println!(
            "pure mode against a random mover: {} games, {} wins, {} draws, {} losses; score {:.1}%, Elo {}",
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            100.0 * t.score(),
            deepred::games::matchrun::format_elo(elo, err)
        );
        return ExitCode::SUCCESS;
    }
    let nodes = if nodes.is_none() && depth.is_none() && movetime.is_none() {
        Some(20_000)
    } else {
        nodes
    };
    let opts = selfplay::SelfplayOptions {
        games,
        nodes,
        nodes_jitter,
        depth,
        movetime_ms: movetime,
        openings,
        explore,
        explore_epsilon: f64::from(explore_epsilon) / 100.0,
        evaluator: ev,
        seed,
        max_plies,
        concurrency,
        store: (!no_learn).then_some(db),
        random_plies,
        tree_plies,
        pgn,
        ..selfplay::SelfplayOptions::new(deepred::eval::pst_evaluator(), None)
    };
    let bar = indicatif::ProgressBar::new(games as u64);
    let r = match selfplay::run(&opts, |done| bar.set_position(done as u64)) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    bar.finish_and_clear();
    println!(
        "{} games: {} won by White, {} by Black, {} drawn; {} plies; {} learned",
        games, r.white_wins, r.black_wins, r.draws, r.plies, r.learned
    );
    ExitCode::SUCCESS
}

pub fn run_match(args: MatchArgs) -> ExitCode {
    use deepred::games::matchrun::{
        Adjudication, EngineSpec, MatchOptions, MoveLimit, Sprt, TimeControl,
    };
    let MatchArgs {
        opponent,
        engine,
        games,
        sprt,
        tc,
        nodes,
        depth,
        movetime,
        opponent_nodes,
        opponent_tc,
        book,
        concurrency,
        pgn,
        learn,
        db,
        engine_options,
        opponent_options,
        draw_move,
        draw_plies,
        draw_cp,
        resign_plies,
        resign_cp,
        max_plies,
        time_margin,
        resume,
        move_timeout,
        chess960,
        seed,
        event,
        quiet,
    } = args;

    // The engine under test is this binary unless --engine names another.
    let engine_binary = engine
        .as_deref()
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::current_exe().ok());
    let inputs = [
        Some(db.as_path()),
        book.as_deref(),
        Some(Path::new(&opponent)),
        engine_binary.as_deref(),
    ];
    if let Err(e) = super::games_record(pgn.as_deref(), &inputs) {
        return fail(e);
    }
    let limit = match (tc, nodes, depth, movetime) {
        (_, Some(n), _, _) => MoveLimit::Nodes(n.max(1)),
        (_, _, Some(d), _) => MoveLimit::Depth(d.clamp(1, 64)),
        (_, _, _, Some(ms)) => MoveLimit::MoveTime(ms.max(1)),
        (tc, _, _, _) => match TimeControl::parse(tc.as_deref().unwrap_or("10+0.1")) {
            Ok(t) => MoveLimit::Clock(t),
            Err(e) => return fail(e),
        },
    };
    let opponent_limit = match (opponent_nodes, opponent_tc) {
        (Some(n), _) => Some(MoveLimit::Nodes(n.max(1))),
        (_, Some(t)) => match TimeControl::parse(&t) {
            Ok(t) => Some(MoveLimit::Clock(t)),
            Err(e) => return fail(e),
        },
        _ => None,
    };
    let openings = match &book {
        Some(b) => match deepred::games::selfplay::load_openings_mode(b, chess960) {
            Ok(o) => o,
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    let (engine_options, opponent_options) = match (
        parse_options(&engine_options),
        parse_options(&opponent_options),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    // `--learn` with this Deep Red: it learns as it plays (search memory, results, records),
    // into the same store, unless its options say otherwise.
    let mut engine_options = engine_options;
    if learn && engine.is_none() {
        let set = |name: &str| {
            engine_options
                .iter()
                .any(|(k, _): &(String, String)| k.eq_ignore_ascii_case(name))
        };
        // The store first: `Learning` checks the store it will learn into when it is set.
        let mut implied = Vec::new();
        if !set("ExperienceFile") {
            implied.push(("ExperienceFile".to_string(), db.display().to_string()));
        }
        if !set("Learning") {
            implied.push(("Learning".to_string(), "true".to_string()));
        }
        engine_options.splice(0..0, implied);
    }
    let sprt = match sprt.as_deref().map(Sprt::parse).transpose() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let games = games.unwrap_or(if sprt.is_some() { 20_000 } else { 2 });
    if games == 0 {
        return fail("--games must be at least 1");
    }
    let opts = MatchOptions {
        engine: EngineSpec {
            cmd: engine,
            options: engine_options,
        },
        opponent: EngineSpec {
            cmd: Some(opponent),
            options: opponent_options,
        },
        limit,
        opponent_limit,
        openings,
        games,
        sprt,
        concurrency,
        seed,
        pgn,
        learn: learn.then_some(db),
        adjudication: Adjudication {
            draw_move,
            draw_plies,
            draw_cp,
            resign_plies,
            resign_cp,
            max_plies: super::ply_limit(max_plies),
        },
        time_margin_ms: time_margin,
        resume,
        move_timeout_ms: move_timeout,
        chess960,
        event,
    };
    report_match(&opts, quiet)
}

/// The first Ctrl-C stops the match with its summary (the games under way dropped); the second
/// ends the process at once. A handler that cannot be set leaves Ctrl-C as it was (said once).
fn stop_on_ctrl_c() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static PRESSED: AtomicUsize = AtomicUsize::new(0);
    let set = ctrlc::set_handler(|| {
        if PRESSED.fetch_add(1, Ordering::SeqCst) > 0 {
            std::process::exit(130);
        }
        deepred::games::matchrun::STOP.store(true, Ordering::SeqCst);
        eprintln!("stopping: the games under way are dropped (Ctrl-C again to quit at once)");
    });
    match set {
        Ok(()) => deepred::games::matchrun::STOP_WATCHED.store(true, Ordering::SeqCst),
        Err(e) => eprintln!("warning: Ctrl-C will end the match without its summary ({e})"),
    }
}

/// Plays the match of `opts`: a line per game (a progress bar when `quiet`), then the summary;
/// exit 1 when it stopped before its games were played.
fn report_match(opts: &deepred::games::matchrun::MatchOptions, quiet: bool) -> ExitCode {
    use deepred::games::matchrun::{game_line, run};
    let games = opts.games;
    let bar = if quiet {
        Some(indicatif::ProgressBar::new(games as u64))
    } else {
        None
    };
    stop_on_ctrl_c();
    let result = run(opts, |r, g| match &bar {
        Some(b) => b.set_position(r.tally.games() as u64),
        None => eprintln!("{}", game_line(r, g)),
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    match result {
        Ok(r) => {
            for w in &r.warnings {
                eprintln!("warning: {w}");
            }
            print!("{}", r.summary());
            if r.interrupted {
                eprintln!(
                    "the match stopped after {} of {games} games: {}",
                    r.tally.games(),
                    r.stopped.as_deref().unwrap_or_default()
                );
                return ExitCode::from(130);
            }
            match &r.stopped {
                Some(why) => fail(format!(
                    "the match stopped after {} of {games} games: {why}",
                    r.tally.games()
                )),
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => fail(e),
    }
}

pub fn play(a: PlayArgs) -> ExitCode {
    let PlayArgs {
        human,
        movetime,
        depth,
        nodes,
        fen,
        evaluator,
        db,
        no_learn,
        pgn,
        flip,
        book,
        elo,
    } = a;
    use deepred::games::play;
    if let Err(e) = super::games_record(pgn.as_deref(), &[Some(&db)]) {
        return fail(e);
    }
    let start = match position_arg(fen, false) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let ev = match evaluator_arg(evaluator, &db) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let opts = play::PlayOptions {
        humans: match human {
            HumanSide::White => play::Humans::White,
            HumanSide::Black => play::Humans::Black,
            HumanSide::Both => play::Humans::Both,
        },
        movetime_ms: movetime,
        depth,
        nodes,
        start,
        evaluator: ev,
        store: (!no_learn).then_some(db),
        pgn,
        flip,
        book,
        elo,
        ..Default::default()
    };
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr());
    match play::run(&opts, std::io::stdin().lock(), &mut out, &mut err) {
        // Said on stderr already; the exit code tells a script.
        Ok(outcome) if outcome.not_kept.is_some() => ExitCode::FAILURE,
        Ok(_) => ExitCode::SUCCESS,
        // Only a closed stdout ends up here.
        Err(e) => fail(format!("play: {e}")),
    }
}

/// OpenBench's `genfens`: the openings of a datagen workload, each as `info string genfens
/// <FEN>` (its client reads those lines), balanced by a short search with the default
/// evaluator.
pub fn genfens(command: &str) -> ExitCode {
    use deepred::games::genfens::{generate, parse};
    let req = match parse(command) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    if !req.ignored.is_empty() {
        eprintln!(
            "deepred: genfens: ignored '{}' (this engine reads only 'plies P' after the book)",
            req.ignored.join(" ")
        );
    }
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let mut closed = None;
    let emit = |p: &shakmaty::Chess| {
        // Each line as it is found (OpenBench's client reads them as they come).
        let line = format!("info string genfens {}", deepred::chess::fen::fen_of(p));
        match writeln!(out, "{line}").and_then(|()| out.flush()) {
            Ok(()) => true,
            Err(e) => {
                closed = Some(e);
                false
            }
        }
    };
    match generate(&req, &deepred::eval::default_evaluator(), emit) {
        Ok(()) => match closed {
            None => ExitCode::SUCCESS,
            Some(e) => fail(format!("cannot write the output: {e}")),
        },
        Err(e) => fail(e),
    }
}

/// The cores of this machine (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `deepred datagen`: positions from self-play at fixed nodes, resumable, with a progress bar.
pub fn datagen(a: DatagenArgs) -> ExitCode {
    use deepred::games::datagen::{DatagenOptions, fingerprint, run};
    use deepred::games::selfplay::load_openings;
    // Both are appended to: a folder or a file that cannot be written is refused before the
    // net is loaded, and the PGN is not the book the games start from.
    let inputs = [a.book.as_deref(), a.eval_file.as_deref()];
    if let Err(e) = super::writable(&a.out)
        .and_then(|()| super::not_an_input(&a.out, inputs.iter().flatten().copied()))
        .and_then(|()| super::games_record(a.pgn.as_deref(), &inputs))
    {
        return fail(e);
    }
    let ctx = deepred::eval::EvalContext {
        eval_file: a.eval_file.clone(),
        ..Default::default()
    };
    let evaluator = match super::evaluator_with_net(a.evaluator, &ctx) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let openings = match &a.book {
        Some(b) => match load_openings(b) {
            Ok(o) => o,
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    // The net by its contents too (one replaced under the same name is another run), and the
    // embedded one by its generation.
    let evaluator_text = match &a.eval_file {
        Some(f) => match std::fs::read(f) {
            Ok(bytes) => format!(
                "{} {} {:016x}",
                a.evaluator,
                f.display(),
                fingerprint(&bytes)
            ),
            Err(e) => return fail(format!("'{}': {e}", f.display())),
        },
        None => match evaluator.description() {
            Some(d) => format!("{} {d}", a.evaluator),
            None => a.evaluator.to_string(),
        },
    };
    let opts = DatagenOptions {
        games: a.games,
        nodes: a.nodes,
        openings,
        random_plies: a.random_plies,
        skip_plies: a.skip_plies,
        evaluator,
        evaluator_text,
        seed: a.seed,
        threads: a.threads.unwrap_or_else(cores).max(1),
        max_plies: super::ply_limit(a.max_plies),
        out: a.out.clone(),
        pgn: a.pgn.clone(),
    };
    let bar = indicatif::ProgressBar::new(a.games as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games, {msg} [{elapsed_precise} < {eta}]",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let stop = std::sync::atomic::AtomicBool::new(false);
    let result = run(&opts, &stop, |games, positions| {
        bar.set_position(games as u64);
        bar.set_message(format!("{positions} positions"));
    });
    bar.finish_and_clear();
    match result {
        Ok(r) => {
            let per_hour = r.new_positions as f64 / r.seconds.max(1e-9) * 3600.0;
            println!(
                "{}: {} games, {} positions ({} games and {} positions this run, {:.1} s: {:.0} positions/hour with {} threads)",
                a.out.display(),
                r.games,
                r.positions,
                r.new_games,
                r.new_positions,
                r.seconds,
                per_hour,
                opts.threads
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

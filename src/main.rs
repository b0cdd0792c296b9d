//! The `deepred` command line. With no argument it speaks UCI (GUIs start it that way).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use deepred::chess::{fen, notation, perft};
use deepred::search::bench;
use deepred::{eval, sts, uci};

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
        /// Net file of a neural evaluator (default: nets/<evaluator>.safetensors).
        #[arg(long)]
        eval_file: Option<std::path::PathBuf>,
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
        /// Experience store to consult.
        #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
        db: std::path::PathBuf,
        /// A net file (deepchess or deeppink) to show instead of nets/<kind>.safetensors.
        #[arg(long)]
        eval_file: Option<std::path::PathBuf>,
    },
    /// Training positions from PGN games for DeepChess or Deep Pink (binary DRDSET01 file).
    Dataset {
        #[arg(value_enum)]
        kind: NetKind,
        /// PGN files.
        #[arg(long, required = true, num_args = 1..)]
        pgn: Vec<std::path::PathBuf>,
        /// Output file.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Share of the games put in the validation split.
        #[arg(long, default_value_t = 0.1)]
        val_fraction: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Deep Pink triplets per game at most.
        #[arg(long, default_value_t = 20)]
        per_game: usize,
    },
    /// Train DeepChess or Deep Pink on a `deepred dataset` file with libtorch (needs a build
    /// with `--features torch`; see scripts/train-nets.sh).
    Train(Box<TrainArgs>),
    /// Neural net tools.
    Nn {
        #[command(subcommand)]
        what: NnCmd,
    },
    /// Learn PGN games into the experience store.
    Import {
        /// PGN files.
        #[arg(required = true)]
        pgn: Vec<std::path::PathBuf>,
        /// Experience store (SQLite file).
        #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
        db: std::path::PathBuf,
        /// Games per transaction (each transaction holds whole games only).
        #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        batch: u64,
    },
    /// Deep Red against itself from book openings; finished games are learned.
    Selfplay {
        #[arg(long, default_value_t = 10)]
        games: usize,
        /// Nodes per move (the default limit when no other is given: 20000).
        #[arg(long)]
        nodes: Option<u64>,
        /// Vary each move's node limit at random by up to this many percent (game variety).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=90))]
        nodes_jitter: u32,
        /// Depth per move.
        #[arg(long)]
        depth: Option<u32>,
        /// Milliseconds per move.
        #[arg(long)]
        movetime: Option<u64>,
        /// EPD file of openings (e.g. ../shared/data/books/noob_3moves.epd); default: start position.
        #[arg(long)]
        book: Option<std::path::PathBuf>,
        /// Pure exploration: best known move from the store, else a random legal move.
        #[arg(long)]
        explore: bool,
        #[arg(long, default_value = "pst")]
        evaluator: String,
        #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
        db: std::path::PathBuf,
        /// Do not learn the games.
        #[arg(long)]
        no_learn: bool,
        /// Write the games to this PGN file.
        #[arg(long)]
        pgn: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Adjudicate a draw after this many plies.
        #[arg(long, default_value_t = 400)]
        max_plies: usize,
    },
    /// Deep Red (or --engine) against another UCI engine: clocks or node limits, an opening book
    /// played with colours alternated, adjudication, PGN, Elo with error bars, optional learning.
    Match(Box<MatchArgs>),
    /// Play in the terminal: a human against Deep Red, or two humans; finished games are learned.
    Play {
        /// Who is at the keyboard: white, black (Deep Red plays the other colour) or both (two humans).
        #[arg(long, value_enum, default_value_t = HumanSide::White)]
        human: HumanSide,
        /// Engine milliseconds per move (the default limit when no other is given: 1000).
        #[arg(long)]
        movetime: Option<u64>,
        /// Engine depth per move.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: Option<u32>,
        /// Engine nodes per move.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        /// Start position (default: the standard start).
        #[arg(long)]
        fen: Option<String>,
        #[arg(long, default_value = "pst")]
        evaluator: String,
        /// Experience store the finished game is learned into.
        #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
        db: std::path::PathBuf,
        /// Do not learn the game.
        #[arg(long)]
        no_learn: bool,
        /// Append the finished game to this PGN file.
        #[arg(long)]
        pgn: Option<std::path::PathBuf>,
        /// Turn the board around (default: your colour at the bottom).
        #[arg(long)]
        flip: bool,
        /// Deep Red plays the best known move of the store in positions with at least 10 games.
        #[arg(long)]
        book: bool,
    },
    /// Look into the experience store.
    Experience {
        #[command(subcommand)]
        what: ExperienceCmd,
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

#[derive(clap::Args)]
struct MatchArgs {
    /// Shell command of the opponent engine, e.g. "stockfish" or "/path/to/engine --uci".
    #[arg(long)]
    opponent: String,
    /// Shell command of the first engine (default: this Deep Red).
    #[arg(long)]
    engine: Option<String>,
    /// Games to play (openings are played in pairs, colours swapped).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Time control, SECONDS+INCREMENT (the default when no other limit is given: 10+0.1).
    #[arg(long)]
    tc: Option<String>,
    /// Nodes per move instead of a clock.
    #[arg(long, conflicts_with_all = ["tc", "depth", "movetime"])]
    nodes: Option<u64>,
    /// Depth per move instead of a clock.
    #[arg(long, conflicts_with_all = ["tc", "movetime"])]
    depth: Option<u32>,
    /// Milliseconds per move instead of a clock.
    #[arg(long, conflicts_with = "tc")]
    movetime: Option<u64>,
    /// The opponent's own limit instead: nodes per move (e.g. a fixed-node Stockfish against
    /// Deep Red on a clock).
    #[arg(long)]
    opponent_nodes: Option<u64>,
    /// The opponent's own limit instead: a time control SECONDS+INCREMENT.
    #[arg(long, conflicts_with = "opponent_nodes")]
    opponent_tc: Option<String>,
    /// EPD/FEN openings, e.g. ../shared/data/books/noob_3moves.epd (shuffled by --seed).
    #[arg(long)]
    book: Option<std::path::PathBuf>,
    /// Games played at once (each has its own pair of engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Append every finished game to this PGN file.
    #[arg(long)]
    pgn: Option<std::path::PathBuf>,
    /// Learn the games decided on the board into the experience store (--db).
    #[arg(long)]
    learn: bool,
    #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
    db: std::path::PathBuf,
    /// Option of the first engine, NAME=VALUE (repeatable).
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    engine_options: Vec<String>,
    /// Option of the opponent, NAME=VALUE (repeatable).
    #[arg(long = "opponent-option", value_name = "NAME=VALUE")]
    opponent_options: Vec<String>,
    /// Draw adjudication: from this move number, after --draw-plies scores within --draw-cp (0: off).
    #[arg(long, default_value_t = 40)]
    draw_move: u32,
    #[arg(long, default_value_t = 8)]
    draw_plies: usize,
    #[arg(long, default_value_t = 10)]
    draw_cp: i32,
    /// Resign adjudication: after this many plies of scores all beyond --resign-cp for one side (0: off).
    #[arg(long, default_value_t = 6)]
    resign_plies: usize,
    #[arg(long, default_value_t = 1000)]
    resign_cp: i32,
    /// A game this long is drawn.
    #[arg(long, default_value_t = 400)]
    max_plies: usize,
    /// Milliseconds an engine may overstep its clock before it loses on time.
    #[arg(long, default_value_t = 100)]
    time_margin: u64,
    /// Longest wait for a move under --nodes, --depth or --movetime, in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    move_timeout: u64,
    /// Openings and moves are Chess960 (sets UCI_Chess960 on both engines).
    #[arg(long)]
    chess960: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// PGN Event tag.
    #[arg(long, default_value = "Deep Red match")]
    event: String,
    /// Only the summary (no line per game).
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum HumanSide {
    White,
    Black,
    Both,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum NetKind {
    Deepchess,
    Deeppink,
}

impl NetKind {
    fn kind(self) -> deepred::nn::net::Kind {
        match self {
            NetKind::Deepchess => deepred::nn::net::Kind::DeepChess,
            NetKind::Deeppink => deepred::nn::net::Kind::DeepPink,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SplitArg {
    All,
    Train,
    Validation,
}

#[derive(clap::Args)]
struct TrainArgs {
    #[arg(value_enum)]
    kind: NetKind,
    /// Data set file of `deepred dataset` (its split byte gives train and validation).
    #[arg(long)]
    data: std::path::PathBuf,
    /// The net file to write (rewritten after every epoch).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Where the CSV log, the PNG plot and the checkpoints go.
    #[arg(long, default_value = "data/runs")]
    run_dir: std::path::PathBuf,
    /// Epochs of the main training (the siamese network for DeepChess).
    #[arg(long, default_value_t = 30)]
    epochs: usize,
    /// DeepChess: autoencoder epochs per Pos2Vec layer.
    #[arg(long, default_value_t = 3)]
    ae_epochs: usize,
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Learning rate (Adam).
    #[arg(long, default_value_t = 0.001)]
    lr: f64,
    /// Factor applied to the learning rate after every epoch.
    #[arg(long, default_value_t = 0.95)]
    lr_decay: f64,
    /// DeepChess: pairs per epoch (0 = the number of positions of the smaller side).
    #[arg(long, default_value_t = 0)]
    pairs: usize,
    /// Deep Pink: weight of the f(p) = -f(q) terms.
    #[arg(long, default_value_t = 1.0)]
    kappa: f64,
    /// Deep Pink: hidden layer sizes.
    #[arg(long, value_delimiter = ',', default_value = "512,256")]
    hidden: Vec<usize>,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f64,
    /// DeepChess: dropout after the comparator's hidden layers while training.
    #[arg(long, default_value_t = 0.0)]
    dropout: f64,
    /// DeepChess: also train on the colour-mirrored positions (doubles the data).
    #[arg(long)]
    mirror: bool,
    /// cpu, cuda, or cuda:N.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Threads of libtorch on the CPU (0: its default).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Continue from the checkpoint in --run-dir.
    #[arg(long)]
    resume: bool,
    /// Free text stored as the net's `games` metadata.
    #[arg(long, default_value = "")]
    games_note: String,
    /// No progress bars or per-epoch lines.
    #[arg(long)]
    quiet: bool,
}

#[cfg(feature = "torch")]
fn train_command(a: TrainArgs) -> ExitCode {
    use deepred::nn::train;
    let device = match a.device.as_str() {
        "cpu" => tch::Device::Cpu,
        "cuda" => tch::Device::Cuda(0),
        d => match d.strip_prefix("cuda:").and_then(|n| n.parse().ok()) {
            Some(n) => tch::Device::Cuda(n),
            None => return fail(&format!("--device '{d}' is not cpu, cuda or cuda:N")),
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
        games_note: a.games_note,
        quiet: a.quiet,
    };
    match train::train(&o) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

#[cfg(feature = "torch")]
fn export_torchscript(net: &std::path::Path, out: &std::path::Path) -> ExitCode {
    match deepred::nn::train::export_torchscript(net, out) {
        Ok(m) => {
            println!("{m}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

#[cfg(not(feature = "torch"))]
fn export_torchscript(_: &std::path::Path, _: &std::path::Path) -> ExitCode {
    fail("this deepred was built without the `torch` feature; TorchScript needs libtorch")
}

#[cfg(not(feature = "torch"))]
fn train_command(_: TrainArgs) -> ExitCode {
    fail(
        "this deepred was built without the `torch` feature; training needs libtorch: \
         scripts/torch-venv.sh, eval \"$(scripts/torch-env.sh)\", \
         cargo build --release --features torch",
    )
}

#[derive(Subcommand)]
enum NnCmd {
    /// DeepChess pair accuracy or Deep Pink triplet accuracy on PGN games, and speed.
    Accuracy {
        /// Net file (its kind is read from the file).
        #[arg(long)]
        net: std::path::PathBuf,
        #[arg(long, required = true, num_args = 1..)]
        pgn: Vec<std::path::PathBuf>,
        /// Pairs (DeepChess) or triplets (Deep Pink) scored.
        #[arg(long, default_value_t = 10_000)]
        samples: usize,
        /// Seed of the sampling and of the split (as in `deepred dataset`).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Which games: all, or the train or validation split of `deepred dataset` with the same
        /// files, seed and --val-fraction.
        #[arg(long, value_enum, default_value = "all")]
        split: SplitArg,
        #[arg(long, default_value_t = 0.1)]
        val_fraction: f64,
        #[arg(long, default_value_t = 20)]
        per_game: usize,
        /// Score only the games of files whose path contains this text (e.g. data/generated);
        /// the split still numbers the games of every --pgn file, as `deepred dataset` did.
        #[arg(long)]
        only: Option<String>,
    },
    /// Write a net as a TorchScript module that EvalFile accepts (needs --features torch).
    ExportTorchscript {
        #[arg(long)]
        net: std::path::PathBuf,
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Write a randomly initialised net (for trying the engine before trained nets exist).
    RandomNet {
        #[arg(value_enum)]
        kind: NetKind,
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Subcommand)]
enum ExperienceCmd {
    /// Games, rows per table, distinct positions, file size, bytes per row.
    Stats {
        #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
        db: std::path::PathBuf,
    },
    /// Known moves of a position with their counts and scores.
    Show {
        /// Position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        #[arg(long, default_value = deepred::experience::store::DEFAULT_FILE)]
        db: std::path::PathBuf,
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
            eval_file,
        }) => {
            let ctx = eval::EvalContext {
                eval_file,
                ..Default::default()
            };
            let ev = match eval::by_name_with(&evaluator, &ctx) {
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
            let pos = match position_arg(fen, chess960) {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            let start = std::time::Instant::now();
            let total = if divide {
                perft::divide(&pos, depth, |m, n| {
                    println!("{}: {n}", notation::uci_move(m, chess960))
                })
            } else {
                perft::perft(&pos, depth)
            };
            let ms = start.elapsed().as_millis().max(1) as u64;
            println!("Nodes searched: {total}");
            eprintln!("{ms} ms, {} nodes/s", total * 1000 / ms);
            ExitCode::SUCCESS
        }
        Some(Cmd::Eval { fen, db, eval_file }) => {
            let pos = match position_arg(fen, false) {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            let ctx = eval::EvalContext {
                experience_file: db,
                eval_file,
                ..Default::default()
            };
            print!("{}", deepred::eval_report(&pos, &ctx));
            ExitCode::SUCCESS
        }
        Some(Cmd::Train(args)) => train_command(*args),
        Some(Cmd::Dataset {
            kind,
            pgn,
            out,
            val_fraction,
            seed,
            per_game,
        }) => {
            use deepred::nn::data;
            if !(0.0..=1.0).contains(&val_fraction) {
                return fail(&format!("--val-fraction {val_fraction} is not within 0..1"));
            }
            let opts = data::DatasetOptions {
                kind: kind.kind(),
                val_fraction,
                seed,
                per_game,
            };
            let bar = indicatif::ProgressBar::new(0).with_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} games {per_sec} eta {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            let r = data::build(&pgn, &out, &opts, &bar);
            bar.finish_and_clear();
            match r {
                Ok(s) => {
                    print!("{}", s.report(kind.kind(), &out));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Some(Cmd::Nn { what }) => nn_command(what),
        Some(Cmd::Import { pgn, db, batch }) => {
            let mut store = match deepred::experience::store::Store::open(&db) {
                Ok(s) => s,
                Err(e) => return fail(&e),
            };
            match deepred::experience::import::import(&mut store, &pgn, batch as usize, true) {
                Ok(r) => {
                    for s in &r.skipped {
                        eprintln!("skipped: {s}");
                    }
                    println!(
                        "{} file(s), {} games read: {} learned, {} already known, {} skipped; {} move rows; {:.2} s, {:.0} games/s",
                        r.files,
                        r.games_read,
                        r.learned,
                        r.already_known,
                        r.skipped.len(),
                        r.rows_written,
                        r.seconds,
                        r.games_per_second()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Some(Cmd::Experience { what }) => experience_command(what),
        Some(Cmd::Match(args)) => match_command(*args),
        Some(Cmd::Selfplay {
            games,
            nodes,
            nodes_jitter,
            depth,
            movetime,
            book,
            explore,
            evaluator,
            db,
            no_learn,
            pgn,
            seed,
            concurrency,
            max_plies,
        }) => {
            use deepred::games::selfplay;
            let ctx = eval::EvalContext {
                experience_file: db.clone(),
                ..Default::default()
            };
            let ev = match eval::by_name_with(&evaluator, &ctx) {
                Ok(e) => e,
                Err(e) => return fail(&e),
            };
            let openings = match &book {
                Some(b) => match selfplay::load_openings(b) {
                    Ok(o) => o,
                    Err(e) => return fail(&e),
                },
                None => Vec::new(),
            };
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
                evaluator: ev,
                seed,
                max_plies,
                concurrency,
                store: (!no_learn).then_some(db),
            };
            let bar = indicatif::ProgressBar::new(games as u64);
            let r = match selfplay::run(&opts, |done| bar.set_position(done as u64)) {
                Ok(r) => r,
                Err(e) => return fail(&e),
            };
            bar.finish_and_clear();
            if let Some(p) = pgn
                && let Err(e) = std::fs::write(&p, &r.pgn)
            {
                return fail(&format!("cannot write '{}': {e}", p.display()));
            }
            println!(
                "{} games: {} won by White, {} by Black, {} drawn; {} plies; {} learned",
                games, r.white_wins, r.black_wins, r.draws, r.plies, r.learned
            );
            ExitCode::SUCCESS
        }
        Some(Cmd::Play {
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
        }) => {
            use deepred::games::play;
            let start = match position_arg(fen, false) {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            let ctx = eval::EvalContext {
                experience_file: db.clone(),
                ..Default::default()
            };
            let ev = match eval::by_name_with(&evaluator, &ctx) {
                Ok(e) => e,
                Err(e) => return fail(&e),
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
                ..Default::default()
            };
            let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr());
            match play::run(&opts, std::io::stdin().lock(), &mut out, &mut err) {
                Ok(_) => ExitCode::SUCCESS,
                // Only a closed stdout ends up here.
                Err(e) => fail(&format!("play: {e}")),
            }
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
            let opts_kv = match parse_options(&options) {
                Ok(kv) => kv,
                Err(e) => return fail(&e),
            };
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

/// The position of a `--fen` argument, the start position without one.
fn position_arg(fen: Option<String>, chess960: bool) -> Result<shakmaty::Chess, String> {
    fen.map_or_else(
        || Ok(shakmaty::Chess::default()),
        |f| Ok(fen::parse_fen(&f, chess960)?),
    )
}

/// `NAME=VALUE` option arguments.
fn parse_options(list: &[String]) -> Result<Vec<(String, String)>, String> {
    list.iter()
        .map(|o| match o.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(format!("option '{o}' is not NAME=VALUE")),
        })
        .collect()
}

fn match_command(args: MatchArgs) -> ExitCode {
    use deepred::games::matchrun::{
        Adjudication, EngineSpec, MatchOptions, MoveLimit, TimeControl, game_line, run,
    };
    let MatchArgs {
        opponent,
        engine,
        games,
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
        move_timeout,
        chess960,
        seed,
        event,
        quiet,
    } = args;

    let limit = match (tc, nodes, depth, movetime) {
        (_, Some(n), _, _) => MoveLimit::Nodes(n.max(1)),
        (_, _, Some(d), _) => MoveLimit::Depth(d.clamp(1, 64)),
        (_, _, _, Some(ms)) => MoveLimit::MoveTime(ms.max(1)),
        (tc, _, _, _) => match TimeControl::parse(tc.as_deref().unwrap_or("10+0.1")) {
            Ok(t) => MoveLimit::Clock(t),
            Err(e) => return fail(&e),
        },
    };
    let opponent_limit = match (opponent_nodes, opponent_tc) {
        (Some(n), _) => Some(MoveLimit::Nodes(n.max(1))),
        (_, Some(t)) => match TimeControl::parse(&t) {
            Ok(t) => Some(MoveLimit::Clock(t)),
            Err(e) => return fail(&e),
        },
        _ => None,
    };
    let openings = match &book {
        Some(b) => match deepred::games::selfplay::load_openings_mode(b, chess960) {
            Ok(o) => o,
            Err(e) => return fail(&e),
        },
        None => Vec::new(),
    };
    let (engine_options, opponent_options) = match (
        parse_options(&engine_options),
        parse_options(&opponent_options),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return fail(&e),
    };
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
            max_plies: max_plies.max(1),
        },
        time_margin_ms: time_margin,
        move_timeout_ms: move_timeout.max(1),
        chess960,
        event,
    };
    let bar = if quiet {
        Some(indicatif::ProgressBar::new(games as u64))
    } else {
        None
    };
    let result = run(&opts, |r, g| match &bar {
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
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

fn experience_command(what: ExperienceCmd) -> ExitCode {
    use deepred::experience::store::Store;
    match what {
        ExperienceCmd::Stats { db } => {
            let store = match Store::open_read_only(&db) {
                Ok(s) => s,
                Err(e) => return fail(&e),
            };
            match store.stats() {
                Ok(s) => {
                    println!("file: {}", db.display());
                    println!("games: {}", s.games);
                    println!("white_moves rows: {}", s.white_rows);
                    println!("black_moves rows: {}", s.black_rows);
                    println!("distinct positions: {}", s.positions);
                    println!("file size: {} bytes", s.file_bytes);
                    println!("bytes per row: {:.1}", s.bytes_per_row());
                    println!("bytes per game: {:.1}", s.bytes_per_game());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        ExperienceCmd::Show { fen, db } => {
            let pos = match position_arg(fen, false) {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            let store = match Store::open_read_only(&db) {
                Ok(s) => s,
                Err(e) => return fail(&e),
            };
            let turn = shakmaty::Position::turn(&pos);
            match store.moves_from(&pos) {
                Ok(mut moves) => {
                    println!("{}", fen::fen_of(&pos));
                    if moves.is_empty() {
                        println!("no known moves");
                    }
                    moves.sort_by(|a, b| {
                        b.confidence_score(turn)
                            .total_cmp(&a.confidence_score(turn))
                    });
                    println!(
                        "{:<8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}",
                        "move", "games", "1-0", "0-1", "draws", "score", "confidence"
                    );
                    for m in moves {
                        println!(
                            "{:<8} {:>8} {:>8} {:>8} {:>8} {:>7.1}% {:>9.1}%",
                            m.mv,
                            m.games(),
                            m.white_wins,
                            m.black_wins,
                            m.draws,
                            100.0 * m.score_for(turn),
                            100.0 * m.confidence_score(turn)
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
    }
}

fn nn_command(what: NnCmd) -> ExitCode {
    use deepred::nn::accuracy;
    match what {
        NnCmd::Accuracy {
            net,
            pgn,
            samples,
            seed,
            split,
            val_fraction,
            per_game,
            only,
        } => {
            let o = accuracy::AccuracyOptions {
                net,
                pgns: pgn,
                samples: samples.max(1),
                seed,
                split: match split {
                    SplitArg::All => accuracy::Split::All,
                    SplitArg::Train => accuracy::Split::Train,
                    SplitArg::Validation => accuracy::Split::Validation,
                },
                val_fraction,
                per_game,
                only,
            };
            match accuracy::run(&o) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        NnCmd::ExportTorchscript { net, out } => export_torchscript(&net, &out),
        NnCmd::RandomNet { kind, out, seed } => {
            match deepred::nn::random::write(&out, kind.kind(), seed) {
                Ok(()) => {
                    println!(
                        "wrote a random {} net to '{}'",
                        kind.kind().name(),
                        out.display()
                    );
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

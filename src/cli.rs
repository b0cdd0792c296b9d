//! The command line: clap definitions of every subcommand and its arguments.

use clap::{Parser, Subcommand};
use deepred::eval::EvalKind;
use deepred::experience::location::default_store;
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
    /// Train the learned value net (`Evaluator=learned`) on `datagen` files, on the CPU.
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
    /// Play in the terminal: a human against Deep Red, or two humans; finished games are learned.
    Play(PlayArgs),
    /// Look into the experience store.
    #[command(subcommand)]
    Experience(ExperienceCmd),
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
pub struct MatchArgs {
    /// Shell command of the opponent engine, e.g. "stockfish" or "/path/to/engine --uci".
    #[arg(long)]
    pub opponent: String,
    /// Shell command of the first engine (default: this Deep Red).
    #[arg(long)]
    pub engine: Option<String>,
    /// Games to play (openings are played in pairs, colours swapped; default 2); with --sprt the
    /// most to play (default 20000).
    #[arg(long)]
    pub games: Option<usize>,
    /// Sequential probability ratio test on the game pairs, ELO0,ELO1,ALPHA,BETA (e.g.
    /// 0,5,0.05,0.05): the match stops once it accepts H0 (elo <= elo0) or H1 (elo >= elo1).
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA", allow_hyphen_values = true)]
    pub sprt: Option<String>,
    /// Time control, [MOVES/]SECONDS[+INCREMENT]: 10+0.1, or 40/60 (40 moves in 60 s, the clock
    /// refilled every 40 moves). The default when no other limit is given: 10+0.1.
    #[arg(long)]
    pub tc: Option<String>,
    /// Nodes per move instead of a clock.
    #[arg(long, conflicts_with_all = ["tc", "depth", "movetime"])]
    pub nodes: Option<u64>,
    /// Depth per move instead of a clock.
    #[arg(long, conflicts_with_all = ["tc", "movetime"])]
    pub depth: Option<u32>,
    /// Milliseconds per move instead of a clock.
    #[arg(long, conflicts_with = "tc")]
    pub movetime: Option<u64>,
    /// The opponent's own limit instead: nodes per move (e.g. a fixed-node Stockfish against
    /// Deep Red on a clock).
    #[arg(long)]
    pub opponent_nodes: Option<u64>,
    /// The opponent's own limit instead: a time control [MOVES/]SECONDS[+INCREMENT].
    #[arg(long, conflicts_with = "opponent_nodes")]
    pub opponent_tc: Option<String>,
    /// EPD/FEN openings, e.g. ../shared/data/books/noob_3moves.epd (shuffled by --seed).
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Games played at once (each has its own pair of engine processes).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Append every finished game to this PGN file.
    #[arg(long)]
    pub pgn: Option<std::path::PathBuf>,
    /// Learn the games decided on the board or by adjudication (not forfeits) into the
    /// experience store (--db); when the first engine is this Deep Red it also learns as it
    /// plays (Learning=true, ExperienceFile=--db, unless --engine-option says otherwise).
    #[arg(long)]
    pub learn: bool,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// Option of the first engine, NAME=VALUE (repeatable).
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    pub engine_options: Vec<String>,
    /// Option of the opponent, NAME=VALUE (repeatable).
    #[arg(long = "opponent-option", value_name = "NAME=VALUE")]
    pub opponent_options: Vec<String>,
    /// Draw adjudication: from this move number, after --draw-plies scores within --draw-cp (0: off).
    #[arg(long, default_value_t = 40)]
    pub draw_move: u32,
    #[arg(long, default_value_t = 8)]
    pub draw_plies: usize,
    #[arg(long, default_value_t = 10)]
    pub draw_cp: i32,
    /// Resign adjudication: after this many plies of scores all beyond --resign-cp for one side (0: off).
    #[arg(long, default_value_t = 6)]
    pub resign_plies: usize,
    #[arg(long, default_value_t = 1000)]
    pub resign_cp: i32,
    /// A game this long is drawn.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Milliseconds an engine may overstep its clock before it loses on time.
    #[arg(long, default_value_t = 100)]
    pub time_margin: u64,
    /// Longest wait for a move under --nodes, --depth or --movetime, in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    pub move_timeout: u64,
    /// Openings and moves are Chess960 (sets UCI_Chess960 on both engines).
    #[arg(long)]
    pub chess960: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// PGN Event tag.
    #[arg(long, default_value = "Deep Red match")]
    pub event: String,
    /// Only the summary (no line per game).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum HumanSide {
    White,
    Black,
    Both,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum NetKind {
    Deepchess,
    Deeppink,
}

impl NetKind {
    pub fn kind(self) -> deepred::nn::net::Kind {
        match self {
            NetKind::Deepchess => deepred::nn::net::Kind::DeepChess,
            NetKind::Deeppink => deepred::nn::net::Kind::DeepPink,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SplitArg {
    All,
    Train,
    Validation,
}

#[derive(clap::Args)]
pub struct TrainArgs {
    #[arg(value_enum)]
    pub kind: NetKind,
    /// Data set file of `deepred dataset` (its split byte gives train and validation).
    #[arg(long)]
    pub data: std::path::PathBuf,
    /// The net file to write (rewritten after every epoch).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Where the CSV log, the PNG plot and the checkpoints go.
    #[arg(long, default_value = "data/runs")]
    pub run_dir: std::path::PathBuf,
    /// Epochs of the main training (the siamese network for DeepChess).
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// DeepChess: autoencoder epochs per Pos2Vec layer.
    #[arg(long, default_value_t = 3)]
    pub ae_epochs: usize,
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Learning rate (Adam).
    #[arg(long, default_value_t = 0.001)]
    pub lr: f64,
    /// Factor applied to the learning rate after every epoch.
    #[arg(long, default_value_t = 0.95)]
    pub lr_decay: f64,
    /// DeepChess: pairs per epoch (0 = the number of positions of the smaller side).
    #[arg(long, default_value_t = 0)]
    pub pairs: usize,
    /// Deep Pink: weight of the f(p) = -f(q) terms.
    #[arg(long, default_value_t = 1.0)]
    pub kappa: f64,
    /// Deep Pink: hidden layer sizes.
    #[arg(long, value_delimiter = ',', default_value = "512,256")]
    pub hidden: Vec<usize>,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f64,
    /// DeepChess: dropout after the comparator's hidden layers while training.
    #[arg(long, default_value_t = 0.0)]
    pub dropout: f64,
    /// DeepChess: also train on the colour-mirrored positions (doubles the data).
    #[arg(long)]
    pub mirror: bool,
    /// cpu, cuda, or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Threads of libtorch on the CPU (0: its default).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Continue from the checkpoint in --run-dir.
    #[arg(long)]
    pub resume: bool,
    /// Start from the weights of this net file (DeepChess: no autoencoder pretraining).
    #[arg(long)]
    pub init: Option<std::path::PathBuf>,
    /// DeepChess: also train on sibling pairs, the two children of each triplet of this Deep
    /// Pink data set (`deepred dataset deeppink --datagen ...`): after the search's best move
    /// and after a random other move.
    #[arg(long)]
    pub siblings: Option<std::path::PathBuf>,
    /// Sibling pairs per epoch (0: one per train triplet).
    #[arg(long, default_value_t = 0)]
    pub sibling_pairs: usize,
    /// Free text stored as the net's `games` metadata.
    #[arg(long, default_value = "")]
    pub games_note: String,
    /// No progress bars or per-epoch lines.
    #[arg(long)]
    pub quiet: bool,
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
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Net file of a neural evaluator (default: the net embedded in the binary).
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
    /// Experience store to consult.
    /// (Default: experience.sqlite in Deep Red's data folder.)
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// A net file (deepchess or deeppink) to show instead of the embedded one.
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub struct DatasetArgs {
    #[arg(value_enum)]
    pub kind: NetKind,
    /// PGN files.
    #[arg(long, num_args = 1.., required_unless_present = "datagen", conflicts_with = "datagen")]
    pub pgn: Vec<std::path::PathBuf>,
    /// `deepred datagen` files instead of PGN: Deep Pink triplets after the search's best move
    /// and a random other move (also DeepChess's sibling pairs), or DeepChess positions of
    /// decisive games.
    #[arg(long, num_args = 1..)]
    pub datagen: Vec<std::path::PathBuf>,
    /// Share of the datagen records used.
    #[arg(long, default_value_t = 1.0)]
    pub sample: f64,
    /// Output file.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Share of the games put in the validation split (datagen: of the blocks of 256 records).
    #[arg(long, default_value_t = 0.1)]
    pub val_fraction: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Deep Pink triplets per game at most.
    #[arg(long, default_value_t = 20)]
    pub per_game: usize,
    /// Deep Pink from datagen: keep only the triplets whose children q and r have the same
    /// SEE-resolved material (the sibling pairs the comparator search asks DeepChess about).
    #[arg(long, requires = "datagen")]
    pub equal_material: bool,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    /// PGN files.
    #[arg(required = true)]
    pub pgn: Vec<std::path::PathBuf>,
    /// Experience store (SQLite file).
    /// (Default: experience.sqlite in Deep Red's data folder.)
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// Games per transaction (each transaction holds whole games only).
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub batch: u64,
}

#[derive(clap::Args)]
pub struct DatagenArgs {
    /// Games to play (a resumed run plays those not yet in --out).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// EPD file of openings (e.g. ../shared/data/books/noob_3moves.epd); default: the start
    /// position.
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Random legal moves after the opening (variety).
    #[arg(long, default_value_t = 6)]
    pub random_plies: usize,
    /// Positions of the first plies of a game are not written.
    #[arg(long, default_value_t = 8)]
    pub skip_plies: usize,
    /// The evaluator Deep Red plays with (the embedded learned net by default; pst for a first
    /// generation, learned with --eval-file for the next).
    #[arg(long, default_value_t = EvalKind::DEFAULT)]
    pub evaluator: EvalKind,
    /// The net of a neural evaluator.
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Adjudicate a draw after this many plies.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// The output file (appended to when resumed; `<out>.progress` records where it stands).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Also write every game, whole, to this PGN file (from the position after the random
    /// plies, in game order, resumed with --out): the data of `dataset deeppink --pgn`, whose
    /// triplets need every move, captures included, where --out keeps only quiet ones.
    #[arg(long)]
    pub pgn: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub struct TrainLearnedArgs {
    /// `deepred datagen` files.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<std::path::PathBuf>,
    /// The net file to write (rewritten after every epoch).
    #[arg(long, default_value = "nets/learned.safetensors")]
    pub out: std::path::PathBuf,
    /// Hidden units of each view's accumulator.
    #[arg(long, default_value_t = 256)]
    pub hidden: usize,
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    #[arg(long, default_value_t = 8192)]
    pub batch: usize,
    /// Learning rate (Adam).
    #[arg(long, default_value_t = 0.002)]
    pub lr: f32,
    /// Factor applied to the learning rate after every epoch.
    #[arg(long, default_value_t = 0.92)]
    pub lr_decay: f32,
    /// Weight of the game result in the target (the rest: the sigmoid of the search score).
    /// 0 by default: with results of Deep Red's own 5,000-node games the net played far worse
    /// (BENCHMARKS.md, "A learned evaluation").
    #[arg(long, default_value_t = 0.0)]
    pub wdl: f32,
    /// Share of the positions kept out to measure the loss on.
    #[arg(long, default_value_t = 0.05)]
    pub val_fraction: f64,
    /// Threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Free text stored as the net's `generation` metadata.
    #[arg(long, default_value = "1")]
    pub generation: String,
    /// Write each epoch's losses here (CSV).
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub struct SelfplayArgs {
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Nodes per move (the default limit when no other is given: 20000).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Vary each move's node limit at random by up to this many percent (game variety).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=90))]
    pub nodes_jitter: u32,
    /// Depth per move.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long)]
    pub movetime: Option<u64>,
    /// EPD file of openings (e.g. ../shared/data/books/noob_3moves.epd); default: start position.
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Pure exploration: best known move from the store, else a random legal move.
    #[arg(long)]
    pub explore: bool,
    /// With --explore: play a uniformly random move at this share of plies (percent), so that
    /// exploration goes on once every game the pure mode would play is known (default 0: the
    /// seed's pure mode).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100), requires = "explore")]
    pub explore_epsilon: u32,
    /// With --explore: instead of learning, measure the pure mode (reading --db) against a
    /// uniformly random mover over --games games, colours alternating.
    #[arg(long, requires = "explore")]
    pub versus_random: bool,
    /// The evaluator Deep Red plays with.
    #[arg(long, default_value_t = EvalKind::DEFAULT)]
    pub evaluator: EvalKind,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// Do not learn the games.
    #[arg(long)]
    pub no_learn: bool,
    /// Write the games to this PGN file.
    #[arg(long)]
    pub pgn: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Adjudicate a draw after this many plies.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    /// Who is at the keyboard: white, black (Deep Red plays the other colour) or both (two humans).
    #[arg(long, value_enum, default_value_t = HumanSide::White)]
    pub human: HumanSide,
    /// Engine milliseconds per move (the default limit when no other is given: 1000).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Engine depth per move.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: Option<u32>,
    /// Engine nodes per move.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Start position (default: the standard start).
    #[arg(long)]
    pub fen: Option<String>,
    /// The evaluator Deep Red plays with.
    #[arg(long, default_value_t = EvalKind::DEFAULT)]
    pub evaluator: EvalKind,
    /// Experience store the finished game is learned into.
    /// (Default: experience.sqlite in Deep Red's data folder.)
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// Do not learn the game.
    #[arg(long)]
    pub no_learn: bool,
    /// Append the finished game to this PGN file.
    #[arg(long)]
    pub pgn: Option<std::path::PathBuf>,
    /// Turn the board around (default: your colour at the bottom).
    #[arg(long)]
    pub flip: bool,
    /// Deep Red plays the best known move of the store in positions with at least 10 games.
    #[arg(long)]
    pub book: bool,
    /// Deep Red plays at about this Elo (as UCI_Elo, 1350..2300) instead of full strength.
    #[arg(long)]
    pub elo: Option<i64>,
}

#[derive(clap::Args)]
pub struct StsArgs {
    /// The EPD file, e.g. ../shared/data/sts/STS1-STS15_LAN_v3.epd
    pub epd: String,
    /// Shell command of another UCI engine (default: this Deep Red).
    #[arg(long)]
    pub engine: Option<String>,
    /// Thinking time per position.
    #[arg(long, default_value_t = 100)]
    pub movetime: u64,
    /// Threads option of the engine.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Hash option of the engine (MB).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Engines run side by side (positions in parallel).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Only the first N positions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Extra engine option, NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

#[derive(Subcommand)]
pub enum NnCmd {
    /// DeepChess pair accuracy or Deep Pink triplet accuracy on PGN games, and speed.
    Accuracy(AccuracyArgs),
    /// Write a net as a TorchScript module that EvalFile accepts (needs --features torch).
    ExportTorchscript(ExportTorchscriptArgs),
    /// Write a randomly initialised net (for trying the engine before trained nets exist).
    RandomNet(RandomNetArgs),
    /// Time one dense layer of the nets with each kernel (AVX2 and portable), in microseconds.
    KernelBench(KernelBenchArgs),
    /// Fit a Deep Pink net's centipawn scale (`cp_scale`) against the pst evaluation on the
    /// positions p of a Deep Pink data set, and write it into the net file (what `deepred
    /// train` does after each epoch; for nets trained by scripts/train_gpu.py).
    Calibrate(CalibrateArgs),
    /// Write the element-wise (weighted) mean of nets of one kind and architecture, e.g.
    /// several fine-tunes of one parent ("model soup"); measure it with `nn accuracy`.
    Average(AverageArgs),
}

#[derive(clap::Args)]
pub struct AverageArgs {
    /// The nets (at least two).
    #[arg(required = true, num_args = 2..)]
    pub nets: Vec<std::path::PathBuf>,
    /// The averaged net.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// One positive weight a net, comma-separated (default: equal).
    #[arg(long, value_delimiter = ',')]
    pub weights: Option<Vec<f64>>,
    /// What the averaged nets learned from, for the net file's `games` metadata (default: the
    /// nets' own notes, joined).
    #[arg(long)]
    pub games_note: Option<String>,
}

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// The Deep Pink net; its metadata `cp_scale` is rewritten in place.
    #[arg(long)]
    pub net: std::path::PathBuf,
    /// A Deep Pink data set (`deepred dataset deeppink`); its validation split is used.
    #[arg(long)]
    pub dataset: std::path::PathBuf,
    /// Positions used at most.
    #[arg(long, default_value_t = 20_000)]
    pub samples: usize,
}

#[derive(Subcommand)]
pub enum ExperienceCmd {
    /// Games, rows per table, distinct positions, file size, bytes per row.
    Stats(StatsArgs),
    /// Known moves of a position with their counts and scores, and what the search memory
    /// remembers of it.
    Show(ShowArgs),
    /// The store as an opening book: a Polyglot book (--polyglot, for Cute Chess, fastchess,
    /// python-chess...), an EPD list of the known positions with their best move (--epd), and/or
    /// the learned games as PGN (--pgn).
    Export(ExportArgs),
    /// Add the experience of other stores (SQLite files or PostgreSQL URLs) to --into (created
    /// if missing): counts add up, a game known to several is counted once (content hashes),
    /// search memory merged (the deeper search wins). One transaction per source.
    Merge(MergeArgs),
    /// Drop the move rows seen in fewer than --min-games games beyond the first --keep-plies
    /// plies of the store's games (one transaction), with the rows and size before and after.
    Prune(PruneArgs),
    /// Rebuild the store file without its free pages (after a prune), with the size before and
    /// after.
    Vacuum(VacuumArgs),
    /// How much of some games' play the store already knew: the share of one player's moves
    /// whose position the search memory remembers or the move records know.
    Coverage(CoverageArgs),
}

#[derive(clap::Args)]
pub struct PruneArgs {
    /// Rows with fewer games than this go (beyond --keep-plies).
    #[arg(long)]
    pub min_games: u64,
    /// Rows of positions within this many plies of a game's start all stay.
    #[arg(long, default_value_t = 20)]
    pub keep_plies: usize,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The stores to merge (files or postgresql:// URLs).
    #[arg(required = true, num_args = 1..)]
    pub sources: Vec<std::path::PathBuf>,
    /// The store that receives them (a file or a postgresql:// URL).
    #[arg(long)]
    pub into: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// Write a Polyglot book here.
    #[arg(long)]
    pub polyglot: Option<std::path::PathBuf>,
    /// Write the known positions as EPD here (bm: the best known move).
    #[arg(long)]
    pub epd: Option<std::path::PathBuf>,
    /// Write the learned games as PGN here (the games whose moves the store kept: those
    /// learned since schema version 4).
    #[arg(long)]
    pub pgn: Option<std::path::PathBuf>,
    /// Games a move needs to enter the book.
    #[arg(long, default_value_t = 1)]
    pub min_games: u64,
    /// Deepest ply from the start position.
    #[arg(long, default_value_t = 30)]
    pub max_ply: usize,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct CoverageArgs {
    /// PGN files of the games.
    #[arg(long, required = true, num_args = 1..)]
    pub pgn: Vec<std::path::PathBuf>,
    /// Count the positions where a player whose name (White or Black tag) contains this text is
    /// to move; empty: every position.
    #[arg(long, default_value = "Deep Red")]
    pub player: String,
    /// Games a position needs in the move records to count as known there.
    #[arg(long, default_value_t = 1)]
    pub min_games: u64,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct AccuracyArgs {
    /// Net file (its kind is read from the file).
    #[arg(long)]
    pub net: std::path::PathBuf,
    #[arg(long, num_args = 1.., required_unless_present = "dataset", conflicts_with = "dataset")]
    pub pgn: Vec<std::path::PathBuf>,
    /// A `deepred dataset` file instead of PGN games (its split byte chooses the records):
    /// DeepChess positions give cross-game pairs; Deep Pink triplets give triplets, or for a
    /// DeepChess net sibling pairs (the two children of each triplet).
    #[arg(long)]
    pub dataset: Option<std::path::PathBuf>,
    /// Pairs (DeepChess) or triplets (Deep Pink) scored.
    #[arg(long, default_value_t = 10_000)]
    pub samples: usize,
    /// Seed of the sampling and of the split (as in `deepred dataset`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which games: all, or the train or validation split of `deepred dataset` with the same
    /// files, seed and --val-fraction.
    #[arg(long, value_enum, default_value = "all")]
    pub split: SplitArg,
    #[arg(long, default_value_t = 0.1)]
    pub val_fraction: f64,
    #[arg(long, default_value_t = 20)]
    pub per_game: usize,
    /// Score only the games of files whose path contains this text (e.g. data/generated);
    /// the split still numbers the games of every --pgn file, as `deepred dataset` did.
    #[arg(long)]
    pub only: Option<String>,
    /// DeepChess cross-game pairs are also scored as the comparator search decides them:
    /// by material when their SEE-resolved balances differ by at least this many centipawns
    /// (`ComparatorMaterialMargin`), else by the net.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i32).range(1..=2000))]
    pub material_margin: i32,
}

#[derive(clap::Args)]
pub struct ExportTorchscriptArgs {
    #[arg(long)]
    pub net: std::path::PathBuf,
    #[arg(long)]
    pub out: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct RandomNetArgs {
    #[arg(value_enum)]
    pub kind: NetKind,
    #[arg(long)]
    pub out: std::path::PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args)]
pub struct StatsArgs {
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// Also draw the store's growth (games and move rows against time) and the learned book's
    /// depth (known positions by ply) into this PNG.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub struct VacuumArgs {
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct ShowArgs {
    /// Position (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
}

#[derive(clap::Args)]
pub struct CurvePlotArgs {
    /// The curve's CSV (scripts/learn-curve.sh writes $OUT/curve.csv).
    #[arg(long)]
    pub csv: std::path::PathBuf,
    /// The PNG to write.
    #[arg(long)]
    pub out: std::path::PathBuf,
    #[arg(long, default_value = "Deep Red learning")]
    pub title: String,
    /// The CSV is scripts/learned-generations.sh's (Elo per net generation, one line per
    /// opponent).
    #[arg(long)]
    pub generations: bool,
}

#[derive(clap::Args)]
pub struct WdlFitArgs {
    /// PGN files of finished games (Deep Red's own, e.g. from `deepred selfplay --pgn`).
    #[arg(long, required = true, num_args = 1..)]
    pub pgn: Vec<std::path::PathBuf>,
    /// Positions sampled at most.
    #[arg(long, default_value_t = 20_000)]
    pub positions: usize,
    /// Search depth of each position.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=30))]
    pub depth: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args)]
pub struct KernelBenchArgs {
    /// Inputs of the layer.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub inputs: u64,
    /// Outputs of the layer.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub outputs: u64,
    /// CPU seconds per measurement.
    #[arg(long, default_value_t = 0.5)]
    pub seconds: f64,
}

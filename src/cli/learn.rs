//! Arguments of `deepred learn`.

use deepred::experience::location::default_store;

use super::nets::PositionArgs;

#[derive(clap::Args)]
pub struct LearnArgs {
    /// The experience store games are learned into and nets promoted into: an SQLite file or a
    /// postgresql:// URL (a farm's players and trainer share one server).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// The work folder (candidates, gate games, generations.csv and .png, log.csv; default
    /// `learn` in Deep Red's data folder).
    #[arg(long)]
    pub dir: Option<std::path::PathBuf>,
    /// Stop after this many promoted generations (default: go on until stopped).
    #[arg(long)]
    pub generations: Option<usize>,
    /// Stop after this many candidates trained, promoted or not.
    #[arg(long)]
    pub rounds: Option<usize>,
    /// The learned net the loop starts from while the store has promoted none (default: the
    /// net embedded in the binary); its metadata's generation, else 0.
    #[arg(long)]
    pub from: Option<std::path::PathBuf>,
    /// Only play, with the newest net of the store (a farm's player).
    #[arg(long, conflicts_with = "train_only")]
    pub play_only: bool,
    /// Only train, gate, promote and record, when the players have added the games (a farm's
    /// trainer).
    #[arg(long)]
    pub train_only: bool,
    /// A player stops after this many games. (It conflicts with --train-only by name too:
    /// clap drops a `requires` whose argument conflicts with one given, and a trainer took
    /// `--max-games` and ignored it.)
    #[arg(long, requires = "play_only", conflicts_with = "train_only")]
    pub max_games: Option<u64>,
    /// A trainer stops when it has waited this many seconds for games.
    #[arg(long, requires = "train_only", conflicts_with = "play_only")]
    pub max_wait: Option<u64>,
    /// Self-play games of each net before it trains a candidate (again as many after a
    /// candidate fails its gate).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Nodes a move in self-play.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// EPD openings (default: the start position); random plies follow.
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Random legal moves after the opening, before a game starts.
    #[arg(long, default_value_t = 6, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1000))]
    pub random_plies: usize,
    /// A self-play game this long is drawn (0: no limit).
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// The win/draw/loss counts of each self-play game's first N plies only (the default 0:
    /// none; the store then grows by the game, its moves and their evaluations, about 1.3 KB).
    #[arg(long, default_value_t = 0)]
    pub tree_plies: usize,
    /// How a candidate is trained: cpu (on every core), or torch (scripts/train_learned.py,
    /// which the binary carries, on a CUDA device when --python's PyTorch has one, else its CPU).
    #[arg(long, value_enum, default_value_t = TrainerArg::Cpu)]
    pub trainer: TrainerArg,
    /// With --trainer torch: the Python that has PyTorch.
    #[arg(long, default_value = "python3")]
    pub python: std::path::PathBuf,
    #[command(flatten)]
    pub value: super::ValueTrainArgs,
    /// Start each candidate from its parent's weights instead of random ones (fine-tuning on
    /// the window; the parent's hidden size must be --hidden's, its output buckets --buckets' or 1: a net of one bucket grows into --buckets, each a copy of its output row).
    #[arg(long)]
    pub fine_tune: bool,
    #[command(flatten)]
    pub positions: PositionArgs,
    /// Nodes a move in the gate and the reference matches.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub gate_nodes: u64,
    /// The most games of a gate.
    #[arg(long, default_value_t = 2_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=1_000_000))]
    pub gate_games: usize,
    /// The gate's clock when the candidate's net has other hidden units than its parent's (a
    /// wider net is slower: fixed nodes would not see the cost), BASE+INC in seconds.
    #[arg(long, default_value = "10+0.1")]
    pub gate_tc: String,
    /// The gate's SPRT, ELO0,ELO1,ALPHA,BETA (pentanomial).
    #[arg(long, default_value = "0,10,0.05,0.05")]
    pub sprt: String,
    /// Games of each promoted generation against each reference (0: none).
    #[arg(long, default_value_t = 200, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1_000_000))]
    pub reference_games: usize,
    /// A UCI engine each generation is measured against besides pst, NAME=COMMAND
    /// (repeatable), e.g. sf=/usr/games/stockfish; it plays at the gate's nodes.
    #[arg(long = "reference", value_name = "NAME=COMMAND")]
    pub references: Vec<String>,
    /// Threads (default: every core): self-play games, training, games at once in matches.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainerArg {
    Cpu,
    Torch,
}

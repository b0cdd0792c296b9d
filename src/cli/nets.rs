//! Arguments of the nets: `dataset`, `train`, `train-learned`, `nn ...`.

use clap::Subcommand;

/// Any kind of net, the learned value net included.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum AnyNetKind {
    Learned,
    Deepchess,
    Deeppink,
}

impl AnyNetKind {
    pub fn kind(self) -> deepred::nn::net::Kind {
        match self {
            AnyNetKind::Learned => deepred::nn::net::Kind::Learned,
            AnyNetKind::Deepchess => deepred::nn::net::Kind::DeepChess,
            AnyNetKind::Deeppink => deepred::nn::net::Kind::DeepPink,
        }
    }
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
    /// The net file to write (rewritten after every epoch; default nets/<kind>.safetensors).
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
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=256), default_value_t = 0)]
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
pub struct DatasetArgs {
    #[arg(value_enum)]
    pub kind: NetKind,
    /// PGN files.
    #[arg(long, num_args = 1.., required_unless_present_any = ["datagen", "db"], conflicts_with_all = ["datagen", "db"])]
    pub pgn: Vec<std::path::PathBuf>,
    /// The experience store's games instead (an SQLite file or a postgresql:// URL), as from
    /// the same games in PGN; with `--window N`, the latest N only.
    #[arg(long, conflicts_with = "datagen")]
    pub db: Option<std::path::PathBuf>,
    /// With --db: only the latest N games of the store. (These options also conflict with
    /// the other inputs by name: clap drops a `requires` whose argument conflicts with one
    /// given, so `--pgn F --window 5` was taken and the window ignored.)
    #[arg(long, requires = "db", conflicts_with_all = ["pgn", "datagen"], value_parser = clap::value_parser!(u64).range(1..))]
    pub window: Option<u64>,
    /// `deepred datagen` files instead of PGN: Deep Pink triplets after the search's best move
    /// and a random other move (also DeepChess's sibling pairs), or DeepChess positions of
    /// decisive games.
    #[arg(long, num_args = 1..)]
    pub datagen: Vec<std::path::PathBuf>,
    /// With --datagen: share of the records used (default 1).
    #[arg(long, requires = "datagen", conflicts_with_all = ["pgn", "db"])]
    pub sample: Option<f64>,
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
    #[arg(long, requires = "datagen", conflicts_with_all = ["pgn", "db"])]
    pub equal_material: bool,
}

#[derive(clap::Args)]
pub struct TrainLearnedArgs {
    /// `deepred datagen` files (bulletformat records).
    #[arg(long, num_args = 1.., required_unless_present = "db", conflicts_with = "db")]
    pub data: Vec<std::path::PathBuf>,
    /// Or the experience store: the positions of its games that a search evaluated.
    #[arg(long)]
    pub db: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub positions: PositionArgs,
    /// The net file to write (rewritten after every epoch).
    #[arg(long, default_value = "nets/learned.safetensors")]
    pub out: std::path::PathBuf,
    #[command(flatten)]
    pub value: ValueTrainArgs,
    /// Start from this learned net's weights instead of random ones (fine-tuning); its hidden
    /// size must be --hidden's, its output buckets --buckets' or 1 (a net of one bucket grows
    /// into --buckets, each a copy of its output row).
    #[arg(long)]
    pub init: Option<std::path::PathBuf>,
    /// Threads (default: every core).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
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

/// The games `learn` trains a candidate on without `--window` (the help of `--window` below
/// names it; a test holds them together).
pub const LEARN_WINDOW: u64 = 80_000;

/// Which positions of the store's games are trained on (`--db`).
#[derive(clap::Args, Clone, Debug)]
pub struct PositionArgs {
    /// Only the latest N games of the store (by default all of them; `learn`: the latest 80000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub window: Option<u64>,
    /// The weight of a game by its source, SOURCE=W (repeatable): 0.5 takes such a game half
    /// the time, 2 twice; sources: selfplay, learn, match, play, uci, web, a PGN file's name, or
    /// import for every imported file.
    #[arg(long = "source-weight", value_name = "SOURCE=W")]
    pub source_weights: Vec<String>,
    /// Positions of a game's first plies are left out.
    #[arg(long, default_value_t = deepred::experience::positions::PositionFilter::default().skip_plies)]
    pub skip_plies: usize,
    /// Searches shallower than this are left out.
    #[arg(long, default_value_t = 0)]
    pub min_depth: u8,
    /// Also the evaluations of other engines and of PGN annotations (by default only Deep
    /// Red's own searches).
    #[arg(long)]
    pub other_evals: bool,
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
    #[arg(long, default_value_t = 20_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub samples: usize,
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
    #[arg(long, default_value_t = 10_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub samples: usize,
    /// Seed of the sampling and of the split (as in `deepred dataset`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which games: all, or the train or validation split of `deepred dataset` with the same
    /// files, seed and --val-fraction.
    #[arg(long, value_enum, default_value = "all")]
    pub split: SplitArg,
    #[arg(long, default_value_t = 0.1, value_parser = share)]
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
    pub kind: AnyNetKind,
    #[arg(long)]
    pub out: std::path::PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args)]
pub struct KernelBenchArgs {
    /// Inputs of the layer (at most 8192: 65536 by 65536 weights asked for 16 GiB).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=8192))]
    pub inputs: u64,
    /// Outputs of the layer (at most 8192).
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..=8192))]
    pub outputs: u64,
    /// CPU seconds per measurement (above 0, at most 60).
    #[arg(long, default_value_t = 0.5, value_parser = bench_seconds)]
    pub seconds: f64,
}

/// The learned value net's training settings, the same for `train-learned` and `learn`.
#[derive(clap::Args)]
pub struct ValueTrainArgs {
    /// Hidden units of each view's accumulator (16 to 2048).
    #[arg(long, default_value_t = 256, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(16..=2048))]
    pub hidden: usize,
    /// Output buckets by material (1, 2, 4 or 8): the output layer has this many rows and a
    /// position uses the row of its piece count (bullet's MaterialCount).
    #[arg(long, default_value_t = 1, value_parser = output_buckets)]
    pub buckets: usize,
    #[arg(long, default_value_t = 30, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub epochs: usize,
    #[arg(long, default_value_t = 8192, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1 << 24))]
    pub batch: usize,
    /// Learning rate (Adam).
    #[arg(long, default_value_t = 0.002, value_parser = fraction_parser(false))]
    pub lr: f32,
    /// Factor applied to the learning rate after every epoch.
    #[arg(long, default_value_t = 0.92, value_parser = fraction_parser(false))]
    pub lr_decay: f32,
    /// Weight of the game result in the target (the rest: the sigmoid of the search score).
    /// 0 by default: with results of Deep Red's own 5,000-node games the net played far worse
    /// (BENCHMARKS.md, "A learned evaluation").
    #[arg(long, default_value_t = 0.0, value_parser = fraction_parser(true))]
    pub wdl: f32,
    /// Share of the positions kept out to measure the loss on (0 to 0.5).
    #[arg(long, default_value_t = 0.05, value_parser = val_share)]
    pub val_fraction: f64,
}

/// A number of output buckets a learned net may have.
fn output_buckets(s: &str) -> Result<usize, String> {
    let buckets: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number of output buckets"))?;
    deepred::nn::value::check_buckets(buckets).map_err(|p| p.to_string())?;
    Ok(buckets)
}

/// A number in (0, 1] (`zero`: in [0, 1]): learning rates, their decay, weights. NaN, infinities
/// and numbers outside are refused before any work.
fn fraction_parser(zero: bool) -> impl Fn(&str) -> Result<f32, String> + Clone {
    move |s: &str| {
        let v: f32 = s
            .trim()
            .parse()
            .map_err(|_| format!("'{s}' is not a number"))?;
        let low_ok = if zero { v >= 0.0 } else { v > 0.0 };
        if low_ok && v <= 1.0 {
            Ok(v)
        } else {
            Err(format!(
                "{s} is not in {}0, 1]",
                if zero { "[" } else { "(" }
            ))
        }
    }
}

/// A measurement's seconds: above 0 and at most 60 (0 and NaN printed 0 us a layer, infinity
/// never ended).
fn bench_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 60.0 => Ok(v),
        _ => Err(format!(
            "'{s}' is not a number of seconds above 0 and at most 60"
        )),
    }
}

/// A share: a number from 0 to 1 (NaN refused).
fn share(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("{s} is not a share from 0 to 1")),
    }
}

/// A validation share: a number from 0 to 0.5 (more would train on less than it measures).
fn val_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=0.5).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a share from 0 to 0.5")),
    }
}

//! Arguments of the tools: `sts`, `curve-plot`, `wdl-fit`.

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
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256), default_value_t = 1)]
    pub threads: usize,
    /// Hash option of the engine (MB).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Engines run side by side (positions in parallel).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256), default_value_t = 1)]
    pub concurrency: usize,
    /// Only the first N positions.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub limit: Option<usize>,
    /// Extra engine option, NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
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
    /// Positions sampled at most (at least 100: fewer are too few to fit).
    #[arg(long, default_value_t = 20_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(100..))]
    pub positions: usize,
    /// Search depth of each position.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=30))]
    pub depth: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

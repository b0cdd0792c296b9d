//! Arguments of the experience store: `import`, `experience ...`.

use clap::Subcommand;
use deepred::experience::location::default_store;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// PGN files.
    #[arg(required = true)]
    pub pgn: Vec<std::path::PathBuf>,
    /// Experience store: an SQLite file or a postgresql:// URL.
    /// (Default: experience.sqlite in Deep Red's data folder.)
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// Games per transaction (each transaction holds whole games only).
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub batch: u64,
}

#[derive(Subcommand)]
pub enum ExperienceCmd {
    /// Games, rows per table, distinct positions, search memory positions, file size, bytes per
    /// row and per game (`--plot`: growth and the book's depth as a PNG).
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
    /// Write the training positions of the learned games here, as bulletformat records (the
    /// format of the bullet trainer and `scripts/train_gpu.py`): the positions a search
    /// evaluated, with its score, the game's result and the move (filters below).
    #[arg(long)]
    pub bullet: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub positions: crate::cli::PositionArgs,
    /// Games a move needs to enter the book. At least 1.
    #[arg(long, default_value_t = ExportArgs::MIN_GAMES, value_parser = clap::value_parser!(u64).range(1..))]
    pub min_games: u64,
    /// Deepest ply from the start position.
    #[arg(long, default_value_t = ExportArgs::MAX_PLY)]
    pub max_ply: usize,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
}

impl ExportArgs {
    /// The book's defaults: `--min-games` and `--max-ply`.
    pub const MIN_GAMES: u64 = 1;
    pub const MAX_PLY: usize = 30;
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
    /// Games a position needs in the move records to count as known there. At least 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub min_games: u64,
    /// The experience store: an SQLite file or a postgresql:// URL (default: experience.sqlite
    /// in Deep Red's data folder, $DEEPRED_HOME or the user data folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
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

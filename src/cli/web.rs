//! `deepred web`.

use deepred::eval::EvalKind;
use deepred::experience::location::default_store;

#[derive(clap::Args)]
pub struct WebArgs {
    /// The address to serve on: loopback by default; 0.0.0.0:8080 opens it to the network.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    /// The experience store: finished games are learned into it, the explorer reads it; an SQLite file or a postgresql:// URL
    /// (default: experience.sqlite in Deep Red's data folder, $DEEPRED_HOME or the user data
    /// folder).
    #[arg(long, default_value_os_t = default_store())]
    pub db: std::path::PathBuf,
    /// The evaluator of the explorer's net column and of Deep Red's choice.
    #[arg(long, default_value_t = EvalKind::DEFAULT)]
    pub evaluator: EvalKind,
    /// The net of a neural evaluator (default: the newest promoted net, else the embedded one).
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
    /// Games a position needs before the book plays from it (`ExperienceMinGames`).
    #[arg(long, default_value_t = 10)]
    pub min_games: u32,
    /// Megabytes of hash table for each game in the browser (at most 64 games at once: 64
    /// times this must fit in memory).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub hash: u32,
    /// The explorer only: no games, no route that writes the store.
    #[arg(long)]
    pub explore_only: bool,
    /// The learning loop's work folder, whose generations.csv the learning page draws
    /// (default: `learn` in Deep Red's data folder, deepred learn's own default).
    #[arg(long)]
    pub learn_dir: Option<std::path::PathBuf>,
    /// A learning curve to draw (the CSV of scripts/learn-curve.sh, or a generations.csv);
    /// repeatable.
    #[arg(long)]
    pub curve: Vec<std::path::PathBuf>,
}

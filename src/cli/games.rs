//! Arguments of the games: `match`, `selfplay`, `play`, `datagen`.

use deepred::eval::EvalKind;
use deepred::experience::location::default_store;

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
    #[arg(long, conflicts_with_all = ["tc", "depth", "movetime"], value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Depth per move instead of a clock.
    #[arg(long, conflicts_with_all = ["tc", "movetime"], value_parser = clap::value_parser!(u32).range(1..=255))]
    pub depth: Option<u32>,
    /// Milliseconds per move instead of a clock.
    #[arg(long, conflicts_with = "tc", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// The opponent's own limit instead: nodes per move (e.g. a fixed-node Stockfish against
    /// Deep Red on a clock).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub opponent_nodes: Option<u64>,
    /// The opponent's own limit instead: a time control [MOVES/]SECONDS[+INCREMENT].
    #[arg(long, conflicts_with = "opponent_nodes")]
    pub opponent_tc: Option<String>,
    /// EPD/FEN openings, e.g. ../shared/data/books/noob_3moves.epd (shuffled by --seed).
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Games played at once (each has its own pair of engine processes).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256), default_value_t = 1)]
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
    /// A game this long is drawn (0: no limit).
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Count the games already in the --pgn file (an earlier run of the same match: same
    /// engines, options, --book, --seed and --tc) and play only the others: a stopped match or
    /// SPRT goes on where it was.
    #[arg(long, requires = "pgn")]
    pub resume: bool,
    /// Milliseconds an engine may overstep its clock before it loses on time.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub time_margin: u64,
    /// Longest wait for a move under --nodes, --depth or --movetime, in milliseconds.
    #[arg(long, default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub move_timeout: u64,
    /// Openings and moves are Chess960 (sets UCI_Chess960 on both engines).
    #[arg(long)]
    pub chess960: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// PGN Event tag.
    #[arg(long, default_value = "Deep Red match")]
    pub event: String,
    /// Only a progress bar and the summary (no line per game).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum HumanSide {
    White,
    Black,
    Both,
}

#[derive(clap::Args)]
pub struct SelfplayArgs {
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Nodes per move (the default limit when no other is given: 20000).
    #[arg(long, conflicts_with_all = ["depth", "movetime"], value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Vary each move's node limit at random by up to this many percent (game variety).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=90))]
    pub nodes_jitter: u32,
    /// Depth per move.
    #[arg(long, conflicts_with = "movetime")]
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
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256), default_value_t = 1)]
    pub concurrency: usize,
    /// Adjudicate a draw after this many plies (0: no limit).
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Random legal moves after the opening, before the game starts (variety; the game is
    /// learned from the position they reach).
    #[arg(long, default_value_t = 0, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1000))]
    pub random_plies: usize,
    /// Learn the win/draw/loss counts of each game's first N plies only (the store grows by
    /// the game, not by a row per position).
    #[arg(long)]
    pub tree_plies: Option<usize>,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    /// Who is at the keyboard: white, black (Deep Red plays the other colour) or both (two humans).
    #[arg(long, value_enum, default_value_t = HumanSide::White)]
    pub human: HumanSide,
    /// Engine milliseconds per move (the default limit when no other is given: 1000).
    #[arg(long, conflicts_with_all = ["depth", "nodes"])]
    pub movetime: Option<u64>,
    /// Engine depth per move.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64), conflicts_with = "nodes")]
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
    #[arg(long, value_parser = clap::value_parser!(i64).range(deepred::search::skill::ELO_MIN..=deepred::search::skill::ELO_MAX))]
    pub elo: Option<i64>,
}

#[derive(clap::Args)]
pub struct DatagenArgs {
    /// Games to play (a resumed run plays those not yet in --out).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// EPD file of openings (e.g. ../shared/data/books/noob_3moves.epd); default: the start
    /// position.
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Random legal moves after the opening (variety).
    #[arg(long, default_value_t = 6, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1000))]
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
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: Option<usize>,
    /// Adjudicate a draw after this many plies (0: no limit).
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

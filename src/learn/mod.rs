//! `deepred learn`: Deep Red teaches itself, as one resumable command.
//!
//! A round, for the current net (generation G):
//! 1. **play** ([`play`]): self-play with net G at fixed nodes on every core, from book
//!    openings plus random plies, each game learned into the store at once (its moves, each
//!    search's score and depth, and the counts of its first plies);
//! 2. **train** ([`gate::train`]): a candidate net trained on the latest games of the store
//!    (the store is the truth; `experience::positions` applies datagen's filters);
//! 3. **gate** ([`gate::gate`]): an SPRT of the candidate against net G at fixed nodes;
//! 4. **promote** ([`gate::promote`]): a candidate that passes becomes generation G+1: kept in
//!    the store (every machine learning into it picks it up) and installed in the data folder,
//!    where `EvalFile auto` finds it; its metadata says its generation, parent, data and gate;
//! 5. **record** ([`record`]): the generations CSV and its plot, each generation against its
//!    parent and against fixed references.
//!
//! A candidate that fails leaves net G in place: the next round plays more games with it and
//! trains on more data. Resumable at every step, because each step's result is on disk before
//! the next starts: the games are in the store (a game is learned whole or not at all), a
//! trained candidate and its gate result are files of the work folder, a promoted net is in the
//! store and the data folder. Stopped anywhere (Ctrl-C, SIGKILL, a full disk), the same command
//! goes on where it was: it loses at most the games being played and the step being run.
//!
//! On a farm ([`Mode`]): players (`--play-only`) on any number of machines play with the newest
//! net of the shared store and pick up each new one between games; one trainer
//! (`--train-only`) trains, gates and promotes whenever enough new games are there.

pub mod gate;
pub mod play;
pub mod record;
pub mod torch;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::Chess;

use crate::experience::store::Store;
use crate::games::matchrun::Sprt;
use crate::nn::net::{Kind, NetFile};

/// What this process does of the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Play, train, gate, promote, record: the whole loop on one machine.
    Full,
    /// Only play, with the newest net of the store, picking up each new one between games.
    PlayOnly,
    /// Only train, gate, promote and record, whenever the players have added enough games.
    TrainOnly,
}

/// The settings of the loop.
#[derive(Clone, Debug)]
pub struct LearnOptions {
    pub mode: Mode,
    /// The experience store (an SQLite file or a PostgreSQL URL).
    pub store: PathBuf,
    /// The work folder: candidates, gate games, the generations CSV and plot, the state.
    pub dir: PathBuf,
    /// Where promoted nets are installed (the data folder's `nets/`; `EvalFile auto` reads it).
    pub nets_dir: PathBuf,
    /// Promoted generations to reach before stopping (`None`: go on until stopped).
    pub generations: Option<usize>,
    /// Candidates to train before stopping, promoted or not (`None`: no limit).
    pub rounds: Option<usize>,
    /// The net to start from while the store has promoted none (`None`: the embedded one).
    pub from: Option<PathBuf>,
    /// Self-play games of a net before each training.
    pub games: u64,
    /// Nodes a move in self-play.
    pub nodes: u64,
    pub openings: Vec<Chess>,
    pub random_plies: usize,
    pub max_plies: usize,
    /// Win/draw/loss counts of each self-play game's first this many plies only.
    pub tree_plies: Option<usize>,
    /// The candidate's training: the latest this many games, and the trainer's settings.
    pub window: u64,
    pub train: gate::TrainSettings,
    pub gate: gate::GateSettings,
    /// Fixed engines every promoted generation is measured against (besides its parent).
    pub references: Vec<record::Reference>,
    pub reference_games: usize,
    pub threads: usize,
    pub seed: u64,
    /// A player (`PlayOnly`) stops after this many games (`None`: when stopped).
    pub max_games: Option<u64>,
    /// A trainer (`TrainOnly`) stops when the players have not given it its games in this long.
    pub max_wait: Option<std::time::Duration>,
}

impl LearnOptions {
    /// The SPRT of the gate.
    pub fn sprt(&self) -> Sprt {
        self.gate.sprt
    }
}

/// Why the loop stopped, or could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] crate::experience::Error),
    #[error(transparent)]
    Net(#[from] crate::nn::Error),
    #[error(transparent)]
    Games(#[from] crate::games::Error),
    #[error(transparent)]
    Train(#[from] crate::train::Error),
    #[error(transparent)]
    Eval(#[from] crate::eval::Error),
    #[error("{what} '{}': {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

impl Error {
    /// Whether this says the store's server went away (see
    /// [`crate::experience::Error::server_gone`]): the loop connects again and goes on.
    pub fn server_gone(&self) -> bool {
        matches!(self, Error::Store(s) if s.server_gone())
    }

    fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Error + use<> {
        let path = path.to_path_buf();
        move |source| Error::Io { what, path, source }
    }
}

/// A net of the loop: its generation and file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Net {
    pub generation: i64,
    pub path: PathBuf,
}

/// The players' name in the games of generation `g`'s net (how the loop counts them).
pub fn player_name(g: i64) -> String {
    format!("Deep Red learn gen {g}")
}

/// The games' source in the store.
pub const SOURCE: &str = crate::experience::source::LEARN;

/// Where the loop's nets are kept in the work folder (the current one and the candidates).
fn nets_work_dir(dir: &Path) -> PathBuf {
    dir.join("nets")
}

/// The leading number of a net's `generation` metadata ("3 (all data)" is 3).
fn generation_of(meta: Option<&String>) -> Option<i64> {
    let text = meta?;
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The current net: the newest one the store holds (written to the work folder), else `from`
/// (or the net embedded in the binary), as generation its metadata says (else 0).
pub fn current_net(store: &Store, dir: &Path, from: Option<&Path>) -> Result<Net, Error> {
    let work = nets_work_dir(dir);
    std::fs::create_dir_all(&work).map_err(Error::io("cannot create", &work))?;
    if let Some(g) = store.latest_net_generation(Kind::Learned.name())? {
        // The store's bytes are the net: a copy missing or damaged is written again.
        let path = install_from_store(store, &work, g)?;
        return Ok(Net {
            generation: g,
            path,
        });
    }
    let (first, bytes) = match from {
        Some(p) => (
            NetFile::load(p, Some(Kind::Learned))?,
            std::fs::read(p).map_err(Error::io("cannot read", p))?,
        ),
        None => (
            NetFile::embedded(Kind::Learned)?,
            crate::nn::embedded::LEARNED.to_vec(),
        ),
    };
    let g = generation_of(first.meta.get("generation")).unwrap_or(0);
    let path = crate::experience::location::promoted_file(&work, Kind::Learned.name(), g);
    let there = std::fs::read(&path).ok();
    if let Some(other) = &there
        && *other != bytes
        && NetFile::load(&path, Some(Kind::Learned)).is_ok()
    {
        // The work folder's games, candidate and gate are another starting net's: going on
        // would count them as this one's.
        return Err(Error::Other(format!(
            "the work folder '{}' began from another generation-{g} net than {}: its candidate and gate are that net's, and the store's games of generation {g} were played by it; go on with --from {}, or start anew with another --dir and --db",
            dir.display(),
            from.map_or("the embedded one".to_string(), |p| format!(
                "'{}'",
                p.display()
            )),
            path.display()
        )));
    }
    if there.as_deref() != Some(&bytes[..]) {
        crate::experience::location::install_net(&work, Kind::Learned.name(), g, &bytes)
            .map_err(Error::io("cannot write", &path))?;
    }
    Ok(Net {
        generation: g,
        path,
    })
}

/// Writes generation `g`'s net from the store into `dir` unless the file there already holds
/// those bytes; its path.
fn install_from_store(store: &Store, dir: &Path, g: i64) -> Result<PathBuf, Error> {
    let kind = Kind::Learned.name();
    let path = crate::experience::location::promoted_file(dir, kind, g);
    let net = store
        .net(g)?
        .ok_or_else(|| Error::Other(format!("net {g} vanished from the store")))?;
    if std::fs::read(&path).ok().as_deref() != Some(&net.bytes[..]) {
        crate::experience::location::install_net(dir, kind, g, &net.bytes)
            .map_err(Error::io("cannot install the net in", dir))?;
    }
    Ok(path)
}

/// Stops the loop between steps (set when a player fails); the step under way ends first.
/// Ctrl-C or a kill ends the process at once: every step resumes from what it wrote (games
/// in the store, the candidate file, the gate's PGN).
pub static STOP: AtomicBool = AtomicBool::new(false);

fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// What the loop did in this run.
#[derive(Clone, Debug, Default)]
pub struct LearnReport {
    pub games_played: u64,
    pub candidates: usize,
    pub promoted: Vec<i64>,
    /// The last candidate counted (its parent's generation and attempt): a round gone through
    /// again after a lost server counts its candidate once.
    counted: Option<(i64, usize)>,
}

/// Runs the loop (or its part, by `opts.mode`) until `opts.generations` promotions, or until
/// stopped. `status` gets one line per step; each is also kept in the store for those who
/// watch it (`deepred web`).
pub fn run(opts: &LearnOptions, status: &(dyn Fn(&str) + Sync)) -> Result<LearnReport, Error> {
    let published = std::sync::Mutex::new(None::<Store>);
    let mode = match opts.mode {
        Mode::Full => "",
        Mode::PlayOnly => "(player) ",
        Mode::TrainOnly => "(trainer) ",
    };
    let status = |line: &str| {
        status(line);
        publish_status(&published, &opts.store, &format!("{mode}{line}"));
    };
    let done = run_steps(opts, &status);
    // The last line kept says the loop ended (it went on saying "playing" or "waiting"); it is
    // not printed: the caller says the same. A kill still leaves the last step's line (its
    // age tells).
    let last = match &done {
        Ok(r) => format!(
            "{mode}stopped: {} games played, {} candidates, {} promoted",
            r.games_played,
            r.candidates,
            r.promoted.len()
        ),
        Err(e) => format!("{mode}stopped: {e}"),
    };
    publish_status(&published, &opts.store, &last);
    done
}

/// Keeps `line` in the store (`Store::set_loop_status`); a store that cannot take it only
/// loses the line (the loop's own writes report their errors).
fn publish_status(store: &std::sync::Mutex<Option<Store>>, path: &Path, line: &str) {
    let mut slot = store.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_none() {
        *slot = Store::open(path).ok();
    }
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    if let Some(s) = slot.as_ref()
        && s.set_loop_status(at, line).is_err()
    {
        *slot = None;
    }
}

/// What the training, the gate and the records will need, checked before the loop plays its
/// games (hours of them): the trainer's Python, a fine-tuned parent of the asked width, and
/// reference engines that answer as UCI engines.
fn preflight(opts: &LearnOptions, net: &Net) -> Result<(), Error> {
    if let torch::Trainer::Torch { python } = &opts.train.trainer {
        torch::check(python)?;
    }
    if opts.train.fine_tune {
        let parent = crate::train::value::ValueParams::load(&net.path)
            .map_err(|e| Error::Other(e.to_string()))?;
        if parent.hidden != opts.train.hidden {
            return Err(Error::Other(format!(
                "--fine-tune: the current net (generation {}) has {} hidden units where --hidden asks {}",
                net.generation, parent.hidden, opts.train.hidden
            )));
        }
        if !crate::nn::value::grows_into(parent.buckets, opts.train.buckets) {
            return Err(Error::Other(format!(
                "--fine-tune: the current net (generation {}) has {} output buckets where --buckets asks {} (a net of one bucket can start any number)",
                net.generation, parent.buckets, opts.train.buckets
            )));
        }
    }
    for r in opts.references.iter().filter(|r| r.engine.cmd.is_some()) {
        let mut e = r
            .engine
            .start()
            .map_err(|e| Error::Other(format!("--reference {}: {e}", r.name)))?;
        let _ = e.send("quit");
    }
    Ok(())
}

fn run_steps(opts: &LearnOptions, status: &(dyn Fn(&str) + Sync)) -> Result<LearnReport, Error> {
    if std::fs::metadata(&opts.dir).is_ok_and(|m| !m.is_dir()) {
        return Err(Error::Other(format!(
            "--dir '{}' is a file, not a folder: name the loop's work folder",
            opts.dir.display()
        )));
    }
    std::fs::create_dir_all(&opts.dir).map_err(Error::io("cannot create", &opts.dir))?;
    let mut report = LearnReport::default();
    if opts.mode == Mode::PlayOnly {
        report.games_played = play::play_forever(opts, status)?;
        return Ok(report);
    }
    loop {
        match rounds(opts, &mut report, status) {
            Ok(()) => return Ok(report),
            // The server restarted or cut the connection: every step resumes from what it
            // wrote, so the loop goes on from the top once the server is back (a trainer
            // stopped, and had to be started again by hand).
            Err(e) if e.server_gone() => {
                if play::reconnect(opts, status, &e)?.is_none() {
                    return Ok(report);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// The loop's rounds (train, gate, promote, record; and play in [`Mode::Full`]) until
/// `opts.generations` promotions, `opts.rounds` candidates or a stop, counted into `report`.
fn rounds(
    opts: &LearnOptions,
    report: &mut LearnReport,
    status: &(dyn Fn(&str) + Sync),
) -> Result<(), Error> {
    // A promotion whose record was cut short is recorded before anything else.
    {
        let store = Store::open(&opts.store)?;
        let net = current_net(&store, &opts.dir, opts.from.as_deref())?;
        preflight(opts, &net)?;
        // A promotion stopped between the store and the data folder (a kill, a full disk, a
        // lost server) reaches the data folder now, where `EvalFile auto` looks.
        if store
            .latest_net_generation(Kind::Learned.name())?
            .is_some_and(|g| g == net.generation)
        {
            install_from_store(&store, &opts.nets_dir, net.generation)?;
        }
        record::catch_up(opts, &net, status)?;
    }
    loop {
        if stopped()
            || opts.generations.is_some_and(|n| report.promoted.len() >= n)
            || opts.rounds.is_some_and(|n| report.candidates >= n)
        {
            return Ok(());
        }
        let mut store = Store::open(&opts.store)?;
        let net = current_net(&store, &opts.dir, opts.from.as_deref())?;
        let attempt = gate::attempts(&opts.dir, net.generation);
        let need = opts.games.saturating_mul(attempt as u64 + 1);
        if opts.mode == Mode::Full {
            report.games_played += play::play_until(opts, &net, need, status)?;
        } else if !play::wait_for_games(opts, &store, &net, need, status)? {
            return Ok(());
        }
        if stopped() {
            return Ok(());
        }
        let candidate = gate::train(opts, &store, &net, attempt, status)?;
        if report.counted != Some((net.generation, attempt)) {
            report.counted = Some((net.generation, attempt));
            report.candidates += 1;
        }
        if stopped() {
            return Ok(());
        }
        let verdict = gate::gate(opts, &net, &candidate, attempt, status)?;
        if verdict.promoted() {
            let promoted = gate::promote(opts, &mut store, &net, &candidate, &verdict, status)?;
            record::record(opts, net.generation, &promoted, &verdict, status)?;
            report.promoted.push(promoted.generation);
        }
    }
}

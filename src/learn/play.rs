//! The loop's self-play: the current net against itself at fixed nodes on every core, each game
//! learned into the store as soon as it ends (its moves with each search's score and depth, and
//! the counts of its first plies). The games of a net are counted in the store by their players'
//! name, so a stopped run goes on with what is missing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::{Error, LearnOptions, Net, SOURCE, current_net, player_name, stopped};
use crate::eval::{EvalContext, EvalKind, Evaluator};
use crate::experience::store::Store;
use crate::games::selfplay::{SelfplayOptions, opening, play_game};
use crate::player::{LearnSettings, Player};

/// The self-play settings of a net.
fn selfplay_options(opts: &LearnOptions, net: &Net, evaluator: Evaluator) -> SelfplayOptions {
    SelfplayOptions {
        nodes: Some(opts.nodes),
        openings: Vec::new(),
        max_plies: opts.max_plies,
        learn_searches: false,
        source: SOURCE.to_string(),
        player: player_name(net.generation),
        tree_plies: opts.tree_plies,
        ..SelfplayOptions::new(evaluator, None)
    }
}

/// The evaluator of a net file.
fn evaluator_of(net: &Net) -> Result<Evaluator, Error> {
    let ctx = EvalContext {
        eval_file: Some(net.path.clone()),
        ..EvalContext::default()
    };
    Ok(crate::eval::build(EvalKind::Learned, &ctx)?)
}

/// Plays game `index` of a run with `player` (the net's) and learns it into `store` (the
/// thread's own connection, kept between games). True if it was new.
fn play_one(
    opts: &LearnOptions,
    store: &mut Store,
    (sp, player): (&SelfplayOptions, &mut Player),
    salt: u64,
    index: u64,
) -> Result<bool, Error> {
    let mut rng = StdRng::seed_from_u64(
        opts.seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(salt.wrapping_mul(0xD1B5_4A32_D192_ED03))
            .wrapping_add(index),
    );
    let start = opening(&opts.openings, opts.random_plies, &mut rng);
    // The player learns nothing itself: no search memory, the game written here.
    let settings = LearnSettings::new(opts.store.clone(), false);
    let game = play_game(&start, sp, player, &settings, None, &mut rng);
    let learned = store.learn_first_plies(&game, opts.tree_plies)?;
    Ok(learned != crate::experience::store::Learned::AlreadyKnown)
}

/// A salt for a run's game seeds: the games already in the store (a resumed run plays other
/// games than the one it resumes) and the clock.
fn salt(count: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    count ^ nanos.rotate_left(17)
}

/// How many games a run plays between two counts of the store: games that other writers add
/// (a farm's players, `experience merge` of a store played elsewhere) count towards the quota.
const RECOUNT_EVERY: u64 = 8;

/// The loop's games of `generation` in the store.
fn games_of(store: &Store, generation: i64) -> Result<u64, Error> {
    Ok(store.count_games(SOURCE, &player_name(generation))?)
}

/// Plays with `net` until the store holds `need` games of it (on `opts.threads` threads),
/// counting the store again every few games, so that games learned meanwhile by other writers
/// count too; returns the games this call added.
pub fn play_until(
    opts: &LearnOptions,
    net: &Net,
    need: u64,
    status: &(dyn Fn(&str) + Sync),
) -> Result<u64, Error> {
    let store = Store::open(&opts.store)?;
    let have = games_of(&store, net.generation)?;
    if have >= need {
        return Ok(0);
    }
    let todo = need - have;
    status(&format!(
        "play: generation {} has {have} of {need} games; playing {todo} at {} nodes on {} threads",
        net.generation, opts.nodes, opts.threads
    ));
    let evaluator = evaluator_of(net)?;
    let sp = selfplay_options(opts, net, evaluator);
    let bar = progress(todo, "play");
    let (next, added) = (AtomicU64::new(0), AtomicU64::new(0));
    let met = AtomicBool::new(false);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let salt = salt(have);
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                let mut store = match Store::open(&opts.store) {
                    Ok(st) => st,
                    Err(e) => {
                        *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.into());
                        return;
                    }
                };
                let mut player = Player::with_evaluator(sp.evaluator.clone(), 16);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let done = met.load(Ordering::SeqCst) || stopped();
                    if i >= todo || done || failed.lock().map_or(true, |f| f.is_some()) {
                        return;
                    }
                    if i > 0 && i % RECOUNT_EVERY == 0 {
                        match games_of(&store, net.generation) {
                            Ok(n) if n >= need => return met.store(true, Ordering::SeqCst),
                            Ok(_) => {}
                            Err(e) => {
                                *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                                return;
                            }
                        }
                    }
                    match play_one(opts, &mut store, (&sp, &mut player), salt, i) {
                        Ok(new) => {
                            added.fetch_add(u64::from(new), Ordering::SeqCst);
                            bar.inc(1);
                        }
                        Err(e) => {
                            *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                            return;
                        }
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let added = added.into_inner();
    status(&format!(
        "play: {added} games of generation {} learned ({} s)",
        net.generation,
        bar.elapsed().as_secs()
    ));
    if met.into_inner() {
        status(&format!(
            "play: the store holds the {need} games of generation {}, with games learned \
             elsewhere meanwhile",
            net.generation
        ));
    }
    Ok(added)
}

/// A farm's player: plays with the newest net of the store on `opts.threads` threads until
/// stopped (or `opts.max_games`), picking up each new net between games. Returns the games
/// it learned.
pub fn play_forever(opts: &LearnOptions, status: &(dyn Fn(&str) + Sync)) -> Result<u64, Error> {
    let (next, added) = (AtomicU64::new(0), AtomicU64::new(0));
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let salt = salt(0);
    let limit = opts.max_games.unwrap_or(u64::MAX);
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                if let Err(e) = player(opts, &next, &added, salt, limit, status) {
                    *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    super::STOP.store(true, Ordering::SeqCst);
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(added.into_inner())
}

/// One thread of [`play_forever`].
fn player(
    opts: &LearnOptions,
    next: &AtomicU64,
    added: &AtomicU64,
    salt: u64,
    limit: u64,
    status: &(dyn Fn(&str) + Sync),
) -> Result<(), Error> {
    let mut store = Store::open(&opts.store)?;
    let mut current: Option<(i64, SelfplayOptions, Player)> = None;
    loop {
        if stopped() {
            return Ok(());
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= limit {
            return Ok(());
        }
        match one_game(opts, &mut store, &mut current, (salt, i), status) {
            Ok(true) => {
                added.fetch_add(1, Ordering::SeqCst);
            }
            Ok(false) => {}
            // The server restarted or cut the connection: the game under way is lost, the
            // player goes on once the server is back (it stopped, and a farm's every player
            // had to be started again by hand).
            Err(e) if e.server_gone() => match reconnect(opts, status, &e)? {
                Some(s) => store = s,
                None => return Ok(()),
            },
            Err(e) => return Err(e),
        }
    }
}

/// How often, and how many times, the loop tries to reach the store's server again.
const RECONNECT_EVERY: Duration = Duration::from_secs(2);
const RECONNECT_TRIES: u32 = 300;

/// The store again after `lost` (`None`: stopped meanwhile), trying every
/// [`RECONNECT_EVERY`] for about ten minutes. A player, a trainer and the whole loop all wait
/// so for a server that restarted.
pub(super) fn reconnect(
    opts: &LearnOptions,
    status: &(dyn Fn(&str) + Sync),
    lost: &Error,
) -> Result<Option<Store>, Error> {
    let who = match opts.mode {
        super::Mode::PlayOnly => "play",
        _ => "learn",
    };
    status(&format!("{who}: lost the store ({lost}); connecting again"));
    for _ in 0..RECONNECT_TRIES {
        std::thread::sleep(RECONNECT_EVERY);
        if stopped() {
            return Ok(None);
        }
        match Store::open(&opts.store) {
            Ok(s) => {
                status(&format!("{who}: connected to the store again"));
                return Ok(Some(s));
            }
            Err(e) if e.server_gone() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Other(format!(
        "the store's server has not come back in {} s ({lost})",
        (RECONNECT_EVERY * RECONNECT_TRIES).as_secs()
    )))
}

/// One game of a player: the newest net first (a new one is loaded between games). Whether a
/// new game was learned.
fn one_game(
    opts: &LearnOptions,
    store: &mut Store,
    current: &mut Option<(i64, SelfplayOptions, Player)>,
    (salt, i): (u64, u64),
    status: &(dyn Fn(&str) + Sync),
) -> Result<bool, Error> {
    {
        // A new net between games: the store says which is newest, cheaply.
        let newest = store.latest_net_generation(crate::nn::net::Kind::Learned.name())?;
        let known = current.as_ref().map(|(g, _, _)| *g);
        if known.is_none() || newest.is_some_and(|g| Some(g) != known) {
            let net = current_net(store, &opts.dir, opts.from.as_deref())?;
            status(&format!(
                "play: with generation {} ({})",
                net.generation,
                net.path.display()
            ));
            let evaluator = evaluator_of(&net)?;
            let player = Player::with_evaluator(evaluator.clone(), 16);
            *current = Some((
                net.generation,
                selfplay_options(opts, &net, evaluator),
                player,
            ));
        }
    }
    let Some((_, sp, player)) = current.as_mut() else {
        return Ok(false); // unreachable: set above
    };
    play_one(opts, store, (sp, player), salt, i)
}

/// A trainer without players of its own: waits until the store holds `need` games of `net`
/// (checking every few seconds). False if stopped first.
pub fn wait_for_games(
    opts: &LearnOptions,
    store: &Store,
    net: &Net,
    need: u64,
    status: &(dyn Fn(&str) + Sync),
) -> Result<bool, Error> {
    let mut said = None;
    let started = Instant::now();
    loop {
        let have = games_of(store, net.generation)?;
        if have >= need {
            return Ok(true);
        }
        if said != Some(have) {
            status(&format!(
                "train: waiting for the players: generation {} has {have} of {need} games",
                net.generation
            ));
            said = Some(have);
        }
        if stopped() {
            return Ok(false);
        }
        if let Some(w) = opts.max_wait
            && started.elapsed() > w
        {
            status(&format!(
                "train: stopped waiting after {} s (--max-wait): generation {} has {have} of {need} games",
                w.as_secs(),
                net.generation
            ));
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A progress bar of `len` steps named `what` (hidden when stderr is no terminal).
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{what} {{bar:30}} {{pos}}/{{len}} [{{elapsed_precise}} < {{eta}}]"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

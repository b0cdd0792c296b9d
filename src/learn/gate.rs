//! A candidate net: trained on the store, gated by an SPRT against the current net, promoted
//! when it passes. Each step leaves a file in the work folder before the next starts (the
//! candidate, then its gate result), so a stopped loop takes up where it was; a gate stopped
//! part-way goes on from the games in its PGN.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use shakmaty::Chess;

use super::{Error, LearnOptions, Net};
use crate::experience::positions::{PositionFilter, training_boards};
use crate::experience::store::{Store, StoredNet};
use crate::games::matchrun::{
    Adjudication, EngineSpec, MatchOptions, MatchReport, MoveLimit, Sprt, TimeControl, Verdict,
};
use crate::nn::net::{Kind, NetFile};
use crate::train::value::{ValueTrainOptions, train_value};

/// The candidate's training (`deepred train-learned`'s settings).
#[derive(Clone, Debug)]
pub struct TrainSettings {
    pub hidden: usize,
    /// Output buckets (`nn::value::OUTPUT_BUCKETS`).
    pub buckets: usize,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub lr_decay: f32,
    pub wdl: f32,
    pub val_fraction: f64,
    /// Each candidate starts from its parent's weights, not from random ones.
    pub fine_tune: bool,
    /// The filters of the positions (the window is the loop's own setting).
    pub positions: PositionFilter,
    /// On the CPU, or with PyTorch (a CUDA device when there is one).
    pub trainer: super::torch::Trainer,
}

/// The gate: an SPRT at fixed nodes, at most `max_games` games; on the clock `tc` when the
/// candidate's net is another size than its parent's.
#[derive(Clone, Copy, Debug)]
pub struct GateSettings {
    pub nodes: u64,
    pub max_games: usize,
    pub sprt: Sprt,
    pub tc: TimeControl,
}

/// A trained candidate for the generation after its parent's.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub generation: i64,
    pub attempt: usize,
    pub path: PathBuf,
    pub positions: u64,
}

/// The gate's result, kept in the work folder.
#[derive(Clone, Debug, PartialEq)]
pub struct GateResult {
    pub verdict: Verdict,
    pub games: u32,
    pub score: f64,
    pub elo: f64,
    pub error: f64,
    pub llr: f64,
    /// The pentanomial counts, [LL, LD, DD+WL, WD, WW].
    pub pentanomial: [u32; 5],
}

impl GateResult {
    pub fn promoted(&self) -> bool {
        self.verdict == Verdict::H1
    }

    /// One line for people and for the net's metadata.
    pub fn describe(&self) -> String {
        format!(
            "SPRT {}: {} games, score {:.1}%, Elo {:+.0} ± {:.0}, LLR {:.2}, pentanomial {:?}",
            self.verdict.describe(),
            self.games,
            100.0 * self.score,
            self.elo,
            self.error,
            self.llr,
            self.pentanomial
        )
    }

    fn to_text(&self) -> String {
        format!(
            "verdict {}\ngames {}\nscore {}\nelo {}\nerror {}\nllr {}\npentanomial {}\n",
            match self.verdict {
                Verdict::H1 => "H1",
                Verdict::H0 => "H0",
                Verdict::Continue => "none",
            },
            self.games,
            self.score,
            self.elo,
            self.error,
            self.llr,
            self.pentanomial.map(|n| n.to_string()).join(",")
        )
    }

    fn from_text(text: &str) -> Option<GateResult> {
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix(' '))
                .map(str::trim)
        };
        let p: Vec<u32> = get("pentanomial")?
            .split(',')
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?;
        Some(GateResult {
            verdict: match get("verdict")? {
                "H1" => Verdict::H1,
                "H0" => Verdict::H0,
                _ => Verdict::Continue,
            },
            games: get("games")?.parse().ok()?,
            score: get("score")?.parse().ok()?,
            elo: get("elo")?.parse().ok()?,
            error: get("error")?.parse().ok()?,
            llr: get("llr")?.parse().ok()?,
            pentanomial: p.try_into().ok()?,
        })
    }
}

fn gates_dir(dir: &Path) -> PathBuf {
    dir.join("gates")
}

/// The files of candidate `attempt` for the generation after `parent`: the net, its gate games
/// and its gate result.
fn files(dir: &Path, parent: i64, attempt: usize) -> (PathBuf, PathBuf, PathBuf) {
    let name = format!("gen{}-try{attempt}", parent + 1);
    (
        dir.join("nets")
            .join(format!("candidate-{name}.safetensors")),
        gates_dir(dir).join(format!("{name}.pgn")),
        gates_dir(dir).join(format!("{name}.txt")),
    )
}

/// Candidates of the generation after `parent` that failed their gate (the next one is
/// attempt number this).
pub fn attempts(dir: &Path, parent: i64) -> usize {
    (0..)
        .take_while(|&k| {
            let (_, _, result) = files(dir, parent, k);
            std::fs::read_to_string(result)
                .ok()
                .and_then(|t| GateResult::from_text(&t))
                .is_some_and(|r| !r.promoted())
        })
        .count()
}

/// The gate result of the candidate that was promoted after `parent`, if this work folder
/// gated it.
pub fn promoting_gate(dir: &Path, parent: i64) -> Option<GateResult> {
    (0..=attempts(dir, parent))
        .filter_map(|k| std::fs::read_to_string(files(dir, parent, k).2).ok())
        .filter_map(|t| GateResult::from_text(&t))
        .find(GateResult::promoted)
}

/// Trains candidate `attempt` for the generation after `parent` on the latest games of the
/// store (a candidate already trained, to its last epoch, is kept).
pub fn train(
    opts: &LearnOptions,
    store: &Store,
    parent: &Net,
    attempt: usize,
    status: &(dyn Fn(&str) + Sync),
) -> Result<Candidate, Error> {
    let (path, gate_pgn, gate_result) = files(&opts.dir, parent.generation, attempt);
    let generation = parent.generation + 1;
    let t = &opts.train;
    // A candidate file is this candidate only if it was trained with these settings and on
    // this store (a run resumed with another --hidden, --lr, --window or position filter trains
    // again; so does a run on another store with the same work folder, which promoted a net
    // trained and gated on the other store's games).
    let store_at = std::fs::canonicalize(&opts.store).unwrap_or_else(|_| opts.store.clone());
    let trained = format!(
        "hidden {}{} epochs {} batch {} lr {} lr_decay {} wdl {} val_fraction {} fine_tune {} window {} trainer {} parent {} positions {:?}",
        t.hidden,
        // (Written only when there are buckets: a candidate trained before they existed
        // still counts as trained with one.)
        if t.buckets == 1 {
            String::new()
        } else {
            format!(" buckets {}", t.buckets)
        },
        t.epochs,
        t.batch,
        t.lr,
        t.lr_decay,
        t.wdl,
        t.val_fraction,
        t.fine_tune,
        opts.window,
        match t.trainer {
            super::torch::Trainer::Cpu => "cpu",
            super::torch::Trainer::Torch { .. } => "torch",
        },
        parent.generation,
        t.positions,
    );
    let settings = format!(
        "store {} {trained}",
        crate::experience::store::shown(&store_at)
    );
    if let Ok(f) = NetFile::load(&path, Some(Kind::Learned))
        && f.meta.get("epochs") == Some(&t.epochs.to_string())
        // A candidate of a Deep Red before 2026-11-27 has no settings: kept, as it was then
        // (its gate may be hours of games).
        && f.meta.get("loop_settings").is_none_or(|s| {
            // Of a Deep Red before 2026-11-28, without the store: kept too.
            *s == settings || *s == trained
        })
    {
        status(&format!("train: candidate {} is trained", path.display()));
        return Ok(Candidate {
            generation,
            attempt,
            positions: f.meta_or("positions").parse().unwrap_or(0),
            path,
        });
    }
    let filter = PositionFilter {
        window: Some(opts.window),
        seed: opts.seed ^ generation as u64,
        ..t.positions.clone()
    };
    // A gate begun for an earlier candidate of this name (a lost work folder's) is not this
    // candidate's: the gate resumes from its PGN, so it goes.
    for stale in [&gate_pgn, &gate_result] {
        let _ = std::fs::remove_file(stale);
    }
    let (boards, sum) = training_boards(store, &filter, |_| {})?;
    if boards.is_empty() {
        // Said before the trainer's bare "no training positions", with what to change.
        return Err(Error::Other(format!(
            "train: generation {generation}: no position of the latest {} games ({} taken) passes the filters (--skip-plies {}, --min-depth {}{}): nothing to train on",
            sum.games,
            sum.taken,
            filter.skip_plies,
            filter.min_depth,
            if filter.weights.is_empty() {
                ""
            } else {
                ", --source-weight"
            }
        )));
    }
    status(&format!(
        "train: generation {generation} (attempt {attempt}) on {} positions of the latest {} games; {} epochs",
        sum.positions, sum.games, t.epochs
    ));
    let mut meta = vec![
        ("parent".to_string(), parent.generation.to_string()),
        (
            "data".to_string(),
            format!(
                "the latest {} games of the experience store ({} taken), their {} positions evaluated by Deep Red's searches (a share of {} held out for validation; `positions` counts the rest)",
                sum.games, sum.taken, sum.positions, t.val_fraction
            ),
        ),
        ("loop_attempt".to_string(), attempt.to_string()),
        ("loop_settings".to_string(), settings),
    ];
    let init = t.fine_tune.then(|| parent.path.clone());
    if let Some(p) = &init {
        meta.push(("fine_tuned_from".to_string(), p.display().to_string()));
    }
    let seed = opts.seed ^ generation as u64;
    if let super::torch::Trainer::Torch { python } = &t.trainer {
        let settings = [
            ("--hidden", t.hidden.to_string()),
            ("--buckets", t.buckets.to_string()),
            ("--epochs", t.epochs.to_string()),
            ("--batch", t.batch.to_string()),
            ("--lr", t.lr.to_string()),
            ("--lr-decay", t.lr_decay.to_string()),
            ("--wdl", t.wdl.to_string()),
            ("--val-fraction", t.val_fraction.to_string()),
        ]
        .into_iter()
        .chain(init.iter().map(|p| ("--init", p.display().to_string())))
        .flat_map(|(k, v)| [k.to_string(), v])
        .collect::<Vec<_>>();
        super::torch::train(
            python,
            &opts.dir,
            &boards,
            &settings,
            (&path, generation, seed),
            &meta,
            status,
        )?;
    } else {
        train_on_cpu(opts, boards, (&path, generation, seed, init), meta, status)?;
    }
    Ok(Candidate {
        generation,
        attempt,
        path,
        positions: sum.positions,
    })
}

/// The candidate trained by `train::value` on every core.
fn train_on_cpu(
    opts: &LearnOptions,
    boards: Vec<crate::chess::bullet::ChessBoard>,
    (path, generation, seed, init): (&Path, i64, u64, Option<PathBuf>),
    meta: Vec<(String, String)>,
    status: &(dyn Fn(&str) + Sync),
) -> Result<(), Error> {
    let t = &opts.train;
    let train = ValueTrainOptions {
        hidden: t.hidden,
        buckets: t.buckets,
        epochs: t.epochs,
        batch: t.batch,
        lr: t.lr,
        lr_decay: t.lr_decay,
        wdl: t.wdl,
        val_fraction: t.val_fraction,
        init,
        threads: opts.threads,
        seed,
        out: path.to_path_buf(),
        generation: generation.to_string(),
        meta,
    };
    let bar = super::play::progress(t.epochs as u64, "train");
    let log = train_value(&train, boards, |_, _| bar.inc(1))?;
    bar.finish_and_clear();
    if let Some(last) = log.last() {
        status(&format!(
            "train: validation loss {:.6} after {} epochs ({:.0} s)",
            last.val_loss,
            last.epoch,
            log.iter().map(|e| e.seconds).sum::<f64>()
        ));
    }
    Ok(())
}

/// Openings of the gate: the loop's book, else positions a few random plies from the start.
fn gate_openings(opts: &LearnOptions) -> Vec<Chess> {
    use rand::SeedableRng;
    if !opts.openings.is_empty() {
        return opts.openings.clone();
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(opts.seed ^ 0x6a7e);
    (0..opts.gate.max_games.div_ceil(2).max(1))
        .map(|_| crate::games::selfplay::opening(&[], opts.random_plies.max(4), &mut rng))
        .collect()
}

/// This Deep Red with the learned net `path`, for a match.
pub fn learned_engine(path: &Path) -> EngineSpec {
    EngineSpec {
        cmd: None,
        options: vec![
            ("Evaluator".into(), "learned".into()),
            ("EvalFile".into(), path.display().to_string()),
        ],
    }
}

/// How a gate is played: at the gate's nodes while the net keeps its width (the match then
/// measures the evaluation, not its speed), on the gate's clock when its hidden units change
/// (a wider net evaluates more slowly). Output buckets cost no speed (a position reads one
/// row of the output layer whatever their number), so a net grown into buckets is gated at
/// fixed nodes.
pub fn gate_limit(
    opts: &LearnOptions,
    candidate: &Path,
    parent: &Path,
) -> Result<MoveLimit, Error> {
    let width = |p: &Path| crate::nn::value::ValueNet::load(p).map(|n| n.hidden);
    Ok(if width(candidate)? == width(parent)? {
        MoveLimit::Nodes(opts.gate.nodes)
    } else {
        MoveLimit::Clock(opts.gate.tc)
    })
}

/// A match of the loop: `engine` against `opponent` (the pair) under `limit`. With `resume`,
/// the finished games already in `pgn` count and only the others are played (a gate stopped
/// part-way goes on); without, the file starts afresh.
pub fn loop_match(
    opts: &LearnOptions,
    (engine, opponent): (EngineSpec, EngineSpec),
    limit: MoveLimit,
    (games, sprt): (usize, Option<Sprt>),
    pgn: &Path,
    resume: bool,
) -> Result<MatchReport, Error> {
    if !resume {
        let _ = std::fs::remove_file(pgn);
    }
    let m = MatchOptions {
        engine,
        opponent,
        limit,
        opponent_limit: None,
        openings: gate_openings(opts),
        games,
        sprt,
        concurrency: opts.threads.max(1),
        seed: opts.seed,
        pgn: Some(pgn.to_path_buf()),
        learn: None,
        adjudication: Adjudication::default(),
        time_margin_ms: 100,
        resume,
        move_timeout_ms: 60_000,
        chess960: false,
        event: "deepred learn".to_string(),
    };
    let bar = super::play::progress(games as u64, "match");
    let report =
        crate::games::matchrun::run(&m, |r, _| bar.set_position(u64::from(r.tally.games())))?;
    bar.finish_and_clear();
    if let Some(why) = &report.stopped {
        // Not a result: a gate or a record of part of its games would be wrong.
        return Err(Error::Other(format!(
            "the match of {} stopped after {} games: {why}; run the loop again",
            pgn.display(),
            report.tally.games()
        )));
    }
    Ok(report)
}

/// Gates `candidate` against `parent` (a gate already run keeps its result).
pub fn gate(
    opts: &LearnOptions,
    parent: &Net,
    candidate: &Candidate,
    attempt: usize,
    status: &(dyn Fn(&str) + Sync),
) -> Result<GateResult, Error> {
    let (_, pgn, result_file) = files(&opts.dir, parent.generation, attempt);
    if let Some(r) = std::fs::read_to_string(&result_file)
        .ok()
        .and_then(|t| GateResult::from_text(&t))
    {
        status(&format!("gate: {}", r.describe()));
        return Ok(r);
    }
    let dir = gates_dir(&opts.dir);
    std::fs::create_dir_all(&dir).map_err(Error::io("cannot create", &dir))?;
    let limit = gate_limit(opts, &candidate.path, &parent.path)?;
    status(&format!(
        "gate: generation {} against {} at {}, SPRT [{}, {}] (at most {} games)",
        candidate.generation,
        parent.generation,
        match limit {
            MoveLimit::Nodes(n) => format!("{n} nodes"),
            other => format!("{} (the net's width changes)", other.pgn()),
        },
        opts.gate.sprt.elo0,
        opts.gate.sprt.elo1,
        opts.gate.max_games
    ));
    let pair = || {
        (
            learned_engine(&candidate.path),
            learned_engine(&parent.path),
        )
    };
    let games = (opts.gate.max_games, Some(opts.gate.sprt));
    // A gate stopped part-way (Ctrl-C, a kill) goes on from the games in its PGN; a PGN this
    // gate cannot resume (other settings, say) is played again from the start.
    let r = match loop_match(opts, pair(), limit, games, &pgn, true) {
        Err(Error::Games(crate::games::Error::Resume { why, .. })) => {
            // Its games are kept beside it, not written over (a changed --gate-games changes
            // the gate's openings: a rerun with the old value can still use them by hand).
            // A fresh name: an earlier change of settings kept its games too.
            let old = (1..)
                .map(|n| match n {
                    1 => pgn.with_extension("pgn.old"),
                    n => pgn.with_extension(format!("pgn.old{n}")),
                })
                .find(|p| !p.exists())
                .unwrap_or_else(|| pgn.with_extension("pgn.old"));
            let kept = match std::fs::rename(&pgn, &old) {
                Ok(()) => format!("; its games are kept in {}", old.display()),
                Err(_) => String::new(),
            };
            status(&format!(
                "gate: {} is played again: {why} (a gate resumes with the same --gate-games, --gate-nodes or --gate-tc, --book and --seed){kept}",
                pgn.display()
            ));
            loop_match(opts, pair(), limit, games, &pgn, false)?
        }
        other => other?,
    };
    if r.resumed > 0 {
        status(&format!(
            "gate: {} of its {} games were played before it was stopped (resumed from {})",
            r.resumed,
            r.tally.games(),
            pgn.display()
        ));
    }
    let verdict = r.sprt.map_or(Verdict::Continue, |s| s.verdict);
    if verdict == Verdict::Continue && (r.tally.games() as usize) < opts.gate.max_games {
        // The match ended early on an error: not a verdict. Run again to go on.
        return Err(Error::Other(format!(
            "gate: stopped after {} of at most {} games ({}); run again to go on from {}",
            r.tally.games(),
            opts.gate.max_games,
            r.warnings.join("; "),
            pgn.display()
        )));
    }
    let (elo, error) = r.pentanomial.elo();
    let p = &r.pentanomial;
    let result = GateResult {
        verdict,
        games: r.tally.games(),
        score: r.tally.score(),
        elo,
        error,
        llr: r.sprt.map_or(0.0, |s| s.llr),
        pentanomial: p.counts,
    };
    std::fs::write(&result_file, result.to_text())
        .map_err(Error::io("cannot write", &result_file))?;
    status(&format!("gate: {}", result.describe()));
    Ok(result)
}

/// Promotes a candidate that passed its gate: the net file with its gate result in its
/// metadata, kept in the store as the new generation and installed in the data folder.
pub fn promote(
    opts: &LearnOptions,
    store: &mut Store,
    parent: &Net,
    candidate: &Candidate,
    gate: &GateResult,
    status: &(dyn Fn(&str) + Sync),
) -> Result<Net, Error> {
    let file = NetFile::load(&candidate.path, Some(Kind::Learned))?;
    let mut meta: HashMap<String, String> = file.meta.clone();
    meta.insert(
        "gate".into(),
        format!(
            "against generation {}: {}",
            parent.generation,
            gate.describe()
        ),
    );
    meta.insert("generation".into(), candidate.generation.to_string());
    let bytes = crate::nn::random::serialize(&file.tensors(), meta)?;
    let created_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    store.publish_net(&StoredNet {
        generation: candidate.generation,
        kind: Kind::Learned.name().to_string(),
        parent: Some(parent.generation),
        created_at,
        bytes: bytes.clone(),
    })?;
    let kind = Kind::Learned.name();
    let installed = crate::experience::location::install_net(
        &opts.nets_dir,
        kind,
        candidate.generation,
        &bytes,
    )
    .map_err(Error::io("cannot install the net in", &opts.nets_dir))?;
    // The loop's own copy, which the next round plays with.
    let work = opts.dir.join("nets");
    let path = crate::experience::location::install_net(&work, kind, candidate.generation, &bytes)
        .map_err(Error::io("cannot write", &work))?;
    status(&format!(
        "promote: generation {} is the current net (installed as {})",
        candidate.generation,
        installed.display()
    ));
    Ok(Net {
        generation: candidate.generation,
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_results_round_trip() {
        let r = GateResult {
            verdict: Verdict::H1,
            games: 212,
            score: 0.5731,
            elo: 51.2,
            error: 20.5,
            llr: 2.97,
            pentanomial: [3, 10, 40, 30, 23],
        };
        assert_eq!(GateResult::from_text(&r.to_text()), Some(r.clone()));
        assert!(r.promoted());
        let h0 = GateResult {
            verdict: Verdict::H0,
            ..r
        };
        assert!(!h0.promoted());
        assert_eq!(GateResult::from_text("verdict H1\n"), None);
    }
}

//! `deepred learn`: the learning loop, its settings from the command line.

use std::process::ExitCode;

use deepred::games::matchrun::{EngineSpec, Sprt};
use deepred::learn::{LearnOptions, Mode, gate, record};

use super::{fail, parse_options};
use crate::cli::{LEARN_WINDOW, LearnArgs};

pub fn learn(a: LearnArgs) -> ExitCode {
    let opts = match options(&a) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let status = |line: &str| eprintln!("learn: {line}");
    match deepred::learn::run(&opts, &status) {
        Ok(r) => {
            println!(
                "learn: {} games played, {} candidates trained, generations promoted: {}",
                r.games_played,
                r.candidates,
                if r.promoted.is_empty() {
                    "none".to_string()
                } else {
                    r.promoted
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// The loop's settings from the arguments.
fn options(a: &LearnArgs) -> Result<LearnOptions, String> {
    use deepred::experience::location;
    let data = location::data_dir();
    let dir = match (&a.dir, &data) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) => d.join("learn"),
        (None, None) => return Err("no data folder: give --dir".into()),
    };
    let nets_dir = location::nets_dir().unwrap_or_else(|| dir.join("promoted"));
    let openings = match &a.book {
        Some(b) => deepred::games::selfplay::load_openings(b).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    // Fixed nodes on one thread a game: one start and no random plies would play one game
    // again and again.
    if !a.train_only && a.random_plies == 0 && openings.len() <= 1 {
        return Err(
            "--random-plies 0 with one opening or none: every self-play game would be the same one; \
             give a --book of several openings or random plies"
                .into(),
        );
    }
    let sprt = Sprt::parse(&a.sprt).map_err(|e| format!("--sprt: {e}"))?;
    // Found now, not after the games: settings under which no position of the loop's games
    // would be trained on.
    let max_plies = super::ply_limit(a.max_plies);
    if max_plies <= a.positions.skip_plies {
        return Err(format!(
            "--max-plies {} is not above --skip-plies {}: no position of a self-play game would be trained on",
            a.max_plies, a.positions.skip_plies
        ));
    }
    let mut positions = super::experience::position_filter(&a.positions)?;
    positions.seed = a.seed;
    let own = deepred::experience::source::LEARN;
    if positions.weights.iter().any(|(s, w)| s == own && *w == 0.0) {
        return Err(format!(
            "--source-weight {own}=0 leaves out the loop's own games: nothing to train on"
        ));
    }
    let mut references = vec![record::Reference::pst()];
    for (name, cmd) in parse_options(&a.references)? {
        // The name becomes a file name (gates/genG-vs-NAME.pgn) and a CSV field, and must not
        // take the place of another reference's rows.
        let bad = name.is_empty()
            || name.contains(['/', '\\', ',', '"', '\n'])
            || name.starts_with('.')
            || name.eq_ignore_ascii_case("pst")
            || name.starts_with("generation")
            || references.iter().any(|r| r.name == name);
        if bad {
            return Err(format!(
                "--reference '{name}': the name must be new (not pst, not 'generation...', not twice), \
                 not start with '.', and hold no '/', '\\', ',' or '\"'"
            ));
        }
        references.push(record::Reference {
            name,
            engine: EngineSpec {
                cmd: Some(cmd),
                options: Vec::new(),
            },
        });
    }
    let threads = a.threads.unwrap_or_else(super::games::cores).max(1);
    Ok(LearnOptions {
        mode: if a.play_only {
            Mode::PlayOnly
        } else if a.train_only {
            Mode::TrainOnly
        } else {
            Mode::Full
        },
        store: a.db.clone(),
        dir,
        nets_dir,
        generations: a.generations,
        rounds: a.rounds,
        from: a.from.clone(),
        games: a.games.max(1),
        nodes: a.nodes.max(1),
        openings,
        random_plies: a.random_plies,
        max_plies,
        tree_plies: Some(a.tree_plies),
        // A candidate trains on the latest this many games (`--window`).
        window: a.positions.window.unwrap_or(LEARN_WINDOW).max(1),
        train: gate::TrainSettings {
            hidden: a.value.hidden,
            buckets: a.value.buckets,
            epochs: a.value.epochs.max(1),
            batch: a.value.batch.max(1),
            lr: a.value.lr,
            lr_decay: a.value.lr_decay,
            wdl: a.value.wdl.clamp(0.0, 1.0),
            val_fraction: a.value.val_fraction.clamp(0.0, 0.5),
            fine_tune: a.fine_tune,
            positions,
            trainer: match a.trainer {
                crate::cli::TrainerArg::Cpu => deepred::learn::torch::Trainer::Cpu,
                crate::cli::TrainerArg::Torch => deepred::learn::torch::Trainer::Torch {
                    python: a.python.clone(),
                },
            },
        },
        gate: gate::GateSettings {
            nodes: a.gate_nodes.max(1),
            max_games: a.gate_games.max(2),
            sprt,
            tc: deepred::games::matchrun::TimeControl::parse(&a.gate_tc)
                .map_err(|e| format!("--gate-tc {}: {e}", a.gate_tc))?,
        },
        references,
        reference_games: a.reference_games,
        threads,
        seed: a.seed,
        max_games: a.max_games,
        max_wait: a.max_wait.map(std::time::Duration::from_secs),
    })
}

//! Watching Deep Red learn: the store's growth over time, the generations of the learned net
//! that `deepred learn` promoted into it (with each one's gate result and data), and what a
//! running loop said last; read from the store (read-only).

use serde::Serialize;

use super::Error;
use crate::experience::store::Store;
use crate::nn::net::NetFile;

/// Points a growth curve is cut down to.
const MAX_POINTS: usize = 400;

/// The store's growth: games learned and tree rows touched against hours since its first game.
#[derive(Serialize, Debug)]
pub struct Growth {
    pub games: u64,
    /// `[hours, games, rows]`, at most [`MAX_POINTS`] evenly spaced by game, the last one kept.
    pub points: Vec<[f64; 3]>,
}

pub fn growth(store: &Store) -> Result<Growth, Error> {
    let all = store.growth()?;
    let n = all.len();
    let step = n.div_ceil(MAX_POINTS).max(1);
    let mut points: Vec<[f64; 3]> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || i + 1 == n)
        .map(|(_, &(t, g, r))| [t / 3600.0, g as f64, r as f64])
        .collect();
    points.dedup_by(|a, b| a[1] == b[1]);
    Ok(Growth {
        games: n as u64,
        points,
    })
}

/// A promoted generation of the learned net.
#[derive(Serialize, Debug)]
pub struct Generation {
    pub generation: i64,
    pub parent: Option<i64>,
    /// Unix seconds.
    pub created_at: i64,
    /// What its metadata says: the gate's result, its data, its positions, its trainer.
    pub gate: Option<String>,
    pub data: Option<String>,
    pub positions: Option<String>,
    pub trainer: Option<String>,
}

/// The generations the store holds, oldest first.
pub fn generations(store: &Store) -> Result<Vec<Generation>, Error> {
    let Some(latest) = store.latest_net_generation("learned")? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for g in 1..=latest {
        let Some(net) = store.net(g)? else { continue };
        let meta = NetFile::metadata_of(&net.bytes).unwrap_or_default();
        let get = |k: &str| meta.get(k).cloned();
        out.push(Generation {
            generation: net.generation,
            parent: net.parent,
            created_at: net.created_at,
            gate: get("gate"),
            data: get("data"),
            positions: get("positions"),
            trainer: get("trainer"),
        });
    }
    Ok(out)
}

/// What a `deepred learn` on this store said last.
#[derive(Serialize, Debug)]
pub struct LoopStatus {
    pub line: String,
    /// Unix seconds.
    pub at: i64,
    /// Seconds since (a loop silent for long may have stopped).
    pub age_s: i64,
}

pub fn loop_status(store: &Store) -> Result<Option<LoopStatus>, Error> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    Ok(store.loop_status()?.map(|(at, line)| LoopStatus {
        line,
        at,
        age_s: (now - at).max(0),
    }))
}

/// A CSV of matches the learning page draws: the loop's `generations.csv` (each generation
/// against its parent and the references) or a learning curve (`scripts/learn-curve.sh`).
#[derive(Serialize, Debug)]
pub struct Curve {
    pub name: String,
    /// The file's text (columns `elo`, `elo_95`, and `generation` or `games_learned`).
    pub csv: Option<String>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// The largest CSV served.
const MAX_CSV: u64 = 1 << 20;

/// The loop's `generations.csv` in `learn_dir` when there is one, then each of `files` (paths
/// the server was started with; a request names none).
pub fn curves(learn_dir: Option<&std::path::Path>, files: &[std::path::PathBuf]) -> Vec<Curve> {
    let generations = learn_dir
        .map(|d| d.join("generations.csv"))
        .filter(|p| p.is_file());
    generations
        .iter()
        .chain(files)
        .map(|p| {
            let name = p.display().to_string();
            let read = std::fs::metadata(p)
                .map_err(|e| e.to_string())
                .and_then(|m| {
                    if m.len() > MAX_CSV {
                        Err(format!("{} bytes, more than {MAX_CSV}", m.len()))
                    } else {
                        std::fs::read_to_string(p).map_err(|e| e.to_string())
                    }
                });
            match read {
                Ok(csv) => Curve {
                    name,
                    csv: Some(csv),
                    error: None,
                },
                Err(e) => Curve {
                    name,
                    csv: None,
                    error: Some(e),
                },
            }
        })
        .collect()
}

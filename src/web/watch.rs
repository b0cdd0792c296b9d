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

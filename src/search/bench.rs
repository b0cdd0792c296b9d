//! `deepred bench [depth]`: a fixed-depth search over the positions of `bench-positions/`,
//! single-threaded and with a cleared hash table per position, so the node count is
//! deterministic (OpenBench uses it as the engine's signature).

use std::time::Instant;

use shakmaty::Chess;

use super::tt::TranspositionTable;
use super::types::{Limits, SearchParams, Shared};
use crate::chess::fen::parse_fen;
use crate::chess::notation::uci_move;
use crate::eval::Evaluator;

pub const DEFAULT_DEPTH: u32 = 11;
pub const POSITIONS: &str = include_str!("../../bench-positions/bench.epd");

pub struct BenchResult {
    pub nodes: u64,
    pub millis: u64,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        self.nodes * 1000 / self.millis.max(1)
    }
}

/// The bench positions (FEN lines; blank lines and `#` comments skipped).
pub fn positions() -> Vec<Chess> {
    POSITIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| parse_fen(l, false).expect("bench position is valid"))
        .collect()
}

/// Runs the bench; `progress` receives one line per position.
/// With `threads > 1` the node count is no longer deterministic (Lazy SMP), but nps measures
/// thread scaling.
pub fn run(
    depth: u32,
    threads: usize,
    evaluator: &Evaluator,
    mut progress: impl FnMut(&str),
) -> BenchResult {
    let tt = TranspositionTable::new(16);
    let shared = Shared::default();
    let mut nodes = 0;
    let mut millis = 0;
    let all = positions();
    for (i, pos) in all.iter().enumerate() {
        tt.clear();
        let mut params = SearchParams::new(pos.clone(), Limits::depth(depth));
        params.evaluator = evaluator.clone();
        params.threads = threads.max(1);
        shared
            .stop
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let start = Instant::now();
        let r = super::search(&params, &shared, &tt);
        millis += start.elapsed().as_micros() as u64;
        nodes += r.nodes;
        progress(&format!(
            "position {}/{}: {} nodes, best {}",
            i + 1,
            all.len(),
            r.nodes,
            r.best.map_or("0000".to_string(), |m| uci_move(m, false))
        ));
    }
    // Only the searches are timed (not clearing the hash table between positions).
    BenchResult {
        nodes,
        millis: millis / 1000,
    }
}

//! The search: iterative-deepening principal-variation alpha-beta with quiescence, a shared
//! lock-free transposition table and Lazy SMP threads for scalar evaluators; the DeepChess
//! paper's alpha_pos/beta_pos search for comparators. It reports through a callback
//! ([`Reporter`]) and knows no protocol.
//!
//! Files: `types` (what a search is asked, shares and returns), `control` (node counting and
//! limits), `worker` (a search thread), `ordering`, `params` (every tuning constant), `tt`,
//! `time`, `comparator`, `bench`.

pub mod bench;
pub mod comparator;
mod control;
mod ordering;
pub mod params;
mod pv;
pub mod skill;
pub mod time;
pub mod tt;
mod types;
mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::{Move, Position};

use crate::chess::zobrist::{hash_of, play};
use crate::eval::{Evaluator, ScalarEvaluator};
use tt::{TranspositionTable, encode_move};
pub use types::{Event, Limits, Line, Reporter, SearchParams, SearchResult, Shared};
use worker::Worker;

/// Searches `params.root` under its limits and returns the best move. Stops early when
/// `shared.stop` is set. The caller sets up `shared` (clock, pondering) before calling. With a
/// [`skill::Skill`], the search is limited in nodes, looks at several lines and plays one of
/// them as that skill would.
pub fn search(params: &SearchParams, shared: &Shared, tt: &TranspositionTable) -> SearchResult {
    let Some(skill) = params.skill else {
        return search_full(params, shared, tt);
    };
    let mut weak = params.clone();
    weak.skill = None;
    weak.multipv = params.multipv.max(skill::MULTIPV);
    weak.limits.nodes = Some(
        params
            .limits
            .nodes
            .map_or(skill.node_cap(), |n| n.min(skill.node_cap())),
    );
    let mut result = search_full(&weak, shared, tt);
    if result.lines.len() > 1 {
        let i = skill.pick(&result.lines);
        let (best, ponder) = skill::Skill::chosen(&result.lines, i);
        if best.is_some() {
            result.best = best;
            result.ponder = ponder;
            result.score = result.lines[i].score;
        }
    }
    result
}

fn search_full(params: &SearchParams, shared: &Shared, tt: &TranspositionTable) -> SearchResult {
    shared.nodes.store(0, Ordering::SeqCst);
    tt.new_search();
    let root = &params.root;
    let mut root_moves: Vec<Move> = root.legal_moves().into_iter().collect();
    if !params.limits.searchmoves.is_empty() {
        let allowed: Vec<Move> = root_moves
            .iter()
            .copied()
            .filter(|m| params.limits.searchmoves.contains(m))
            .collect();
        if !allowed.is_empty() {
            root_moves = allowed;
        }
    }
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            lines: Vec::new(),
        };
    }
    let budget = time::budget(
        &params.limits.clock(root.turn()),
        params.move_overhead,
        &params.tunables,
    );
    let budget = if params.limits.infinite { None } else { budget };
    let scalar: Arc<dyn ScalarEvaluator> = match &params.evaluator {
        Evaluator::Scalar(e) => e.clone(),
        Evaluator::Comparator(c) => {
            return comparator::search(params, c.as_ref(), shared, root_moves, budget);
        }
    };
    let threads = params.threads.max(1);
    let helpers_stop = AtomicBool::new(false);
    let helpers_stop = &helpers_stop;
    let run_worker = |id: usize| {
        let mut w = Worker::new(id, shared, helpers_stop, tt, &*scalar, params, budget);
        w.root_allowed = root_moves.clone();
        w.iterate(params, &root_moves)
    };
    let mut result = std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .map(|id| s.spawn(move || run_worker(id)))
            .collect();
        let r = run_worker(0);
        helpers_stop.store(true, Ordering::SeqCst);
        for h in handles {
            let _ = h.join();
        }
        r
    });
    result.nodes = shared.nodes.load(Ordering::SeqCst);
    if result.ponder.is_none()
        && let Some(best) = result.best
    {
        let (child, h) = play(root, hash_of(root), best);
        if let Some(e) = tt.probe(h)
            && e.mv != 0
        {
            result.ponder = child
                .legal_moves()
                .into_iter()
                .find(|m| encode_move(m) == e.mv);
        }
    }
    result
}

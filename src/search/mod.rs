//! The search: iterative-deepening principal-variation alpha-beta with quiescence, a shared
//! lock-free transposition table and Lazy SMP threads for scalar evaluators; the DeepChess
//! paper's alpha_pos/beta_pos search for comparators. It reports through a callback
//! ([`Reporter`]) and knows no protocol.
//!
//! Files: `types` (what a search is asked, shares and returns), `control` (node counting and
//! limits), `correction` (correction history), `kept` (what a thread's searches keep from move to move), `worker` (a search thread), `ordering`, `params` (every tuning constant), `tt`,
//! `time`, `comparator`, `bench`.

pub mod bench;
pub mod comparator;
mod control;
mod correction;
mod endgame;
mod kept;
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

use shakmaty::{Chess, Move, Position};

use crate::chess::notation::decode_move;
use crate::chess::score::MATE;
use crate::chess::syzygy::{Wdl, score_of};
use crate::chess::zobrist::{hash_of, play};
use crate::eval::{Evaluator, ScalarEvaluator};
use tt::TranspositionTable;
pub use types::{
    Event, Limits, Line, Reporter, SearchParams, SearchResult, Shared, SyzygySettings,
};
use worker::{TbProbe, Worker};

/// Searches `params.root` under its limits and returns the best move. Stops early when
/// `shared.stop` is set. The caller sets up `shared` (clock, pondering) before calling. With a
/// [`skill::Skill`], the search also stops at that skill's node cap, on one thread.
pub fn search(params: &SearchParams, shared: &Shared, tt: &TranspositionTable) -> SearchResult {
    let Some(skill) = params.skill else {
        return search_full(params, shared, tt);
    };
    let mut weak = params.clone();
    weak.skill = None;
    // One thread: the cap counts every thread's nodes, and the helpers' share of so few would
    // leave the main thread's search at depth 1 (a 1800 played as a depth-1 engine at 8
    // threads).
    weak.threads = 1;
    weak.limits.nodes = Some(
        params
            .limits
            .nodes
            .map_or(skill.node_cap(), |n| n.min(skill.node_cap())),
    );
    search_full(&weak, shared, tt)
}

fn search_full(params: &SearchParams, shared: &Shared, tt: &TranspositionTable) -> SearchResult {
    shared.nodes.store(0, Ordering::SeqCst);
    shared.tbhits.store(0, Ordering::SeqCst);
    let _ = shared.take_tb_error();
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
            tbhits: 0,
            lines: Vec::new(),
        };
    }
    let (tb, root_tb) = probe_root(params, shared, &mut root_moves);
    let budget = time::budget(
        &params.limits.clock(root.turn()),
        params.move_overhead,
        &params.tunables,
    );
    let budget = if params.limits.infinite { None } else { budget };
    let scalar: Arc<dyn ScalarEvaluator> = match &params.evaluator {
        Evaluator::Scalar(e) => e.clone(),
        Evaluator::Comparator(c) => {
            let mut r = comparator::search(params, c.as_ref(), shared, root_moves, budget);
            r.tbhits = shared.tbhits.load(Ordering::SeqCst);
            return r;
        }
    };
    let threads = params.threads.max(1);
    let helpers_stop = AtomicBool::new(false);
    let helpers_stop = &helpers_stop;
    let limited = |started: usize, why: String| {
        if let Some(report) = &params.reporter {
            report(&Event::ThreadsLimited {
                asked: threads,
                started,
                why,
            });
        }
    };
    // Each worker's tables are made on this thread before its own starts (a failed allocation
    // is an error there, not an abort inside the thread).
    let worker = |id: usize| {
        let mut w = Worker::try_new(id, shared, helpers_stop, tt, &*scalar, params, budget)?;
        w.root_allowed = root_moves.clone();
        w.tb = tb;
        w.root_tb = root_tb.clone();
        Ok::<_, std::collections::TryReserveError>(w)
    };
    let run = |mut w: Worker| {
        let r = w.iterate(params, &root_moves);
        w.finish();
        r
    };
    let main = match worker(0) {
        Ok(w) => w,
        Err(e) => {
            limited(0, e.to_string());
            return without_tables(root, &root_moves, &*scalar);
        }
    };
    let mut result = std::thread::scope(|s| {
        // Helpers the system cannot start or give memory to (a thread or memory limit) are
        // left out: the search goes on with those that started, and says so.
        let mut handles = Vec::with_capacity(threads - 1);
        for id in 1..threads {
            let started = worker(id).map_err(|e| e.to_string()).and_then(|w| {
                headroom_for_a_thread()?;
                std::thread::Builder::new()
                    .spawn_scoped(s, move || run(w))
                    .map_err(|e| e.to_string())
            });
            match started {
                Ok(h) => handles.push(h),
                Err(why) => {
                    limited(id, why);
                    break;
                }
            }
        }
        let r = run(main);
        helpers_stop.store(true, Ordering::SeqCst);
        for h in handles {
            let _ = h.join();
        }
        r
    });
    result.nodes = shared.nodes.load(Ordering::SeqCst);
    result.tbhits = shared.tbhits.load(Ordering::SeqCst);
    if let Some(e) = shared.take_tb_error()
        && let Some(report) = &params.reporter
    {
        report(&Event::TablebaseError(e));
    }
    if result.ponder.is_none()
        && let Some(best) = result.best
    {
        let (child, h) = play(root, hash_of(root), best);
        if let Some(e) = tt.probe(h)
            && e.mv != 0
        {
            result.ponder = decode_move(&child, e.mv);
        }
    }
    result
}

/// Address space a helper needs beyond its tables: its stack, the signal stack the standard
/// library maps inside the new thread (where a failed map aborts the process), and room for
/// the running threads' small allocations.
const THREAD_HEADROOM: usize = 16 << 20;

/// Whether `THREAD_HEADROOM` can still be allocated (it is allocated and freed at once): under
/// a memory limit (`ulimit -v`, `Threads 256`), a helper started with no room left aborted the
/// process (about one search in thirty) instead of being left out.
fn headroom_for_a_thread() -> Result<(), String> {
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(THREAD_HEADROOM)
        .map_err(|e| e.to_string())?;
    // Kept opaque, so that the allocation is made and not optimised away.
    std::hint::black_box(&mut probe);
    Ok(())
}

/// The move of a search that could not have even one thread's tables (a memory limit): the
/// root move whose position the evaluator likes best for the mover, a mate first and a draw
/// at 0, with no allocation.
fn without_tables(root: &Chess, root_moves: &[Move], eval: &dyn ScalarEvaluator) -> SearchResult {
    let h = hash_of(root);
    let scored = root_moves.iter().map(|&m| {
        let (child, ch) = play(root, h, m);
        let score = if child.is_checkmate() {
            MATE - 1
        } else if child.is_stalemate() || child.is_insufficient_material() {
            0
        } else {
            -eval.evaluate(&child, ch)
        };
        (m, score)
    });
    let best = scored.max_by_key(|&(_, s)| s);
    SearchResult {
        best: best.map(|(m, _)| m),
        ponder: None,
        score: best.map_or(0, |(_, s)| s),
        depth: 1,
        nodes: root_moves.len() as u64,
        tbhits: 0,
        lines: Vec::new(),
    }
}

/// The tablebases at the root. When the root is in the tables, `root_moves` keeps only the
/// moves that keep its result (see `chess::syzygy::RootProbe::keep`) and each root move's
/// tablebase score comes back; the search then probes no further when DTZ ranked the moves
/// (the choice is made) or the root is not won (Stockfish's rule). Otherwise the search probes
/// WDL at up to `probe_limit` pieces.
fn probe_root<'a>(
    params: &'a SearchParams,
    shared: &Shared,
    root_moves: &mut Vec<Move>,
) -> (TbProbe<'a>, Vec<(Move, i32)>) {
    let Some(tables) = params.tablebases.as_deref() else {
        return (TbProbe::default(), Vec::new());
    };
    let settings = params.syzygy;
    let mut tb = TbProbe {
        tables: Some(tables),
        cardinality: settings.probe_limit.min(tables.max_pieces()),
        probe_depth: settings.probe_depth as i32,
        rule50: settings.rule50,
    };
    let root = &params.root;
    if root.board().occupied().count() > tb.cardinality {
        return (tb, Vec::new());
    }
    let mut keys = params.history.clone();
    keys.push(hash_of(root));
    let probe = match tables.rank_root(root, &keys, settings.rule50) {
        Ok(Some(p)) => p,
        Ok(None) => return (tb, Vec::new()),
        Err(e) => {
            if let Some(report) = &params.reporter {
                report(&Event::TablebaseError(e));
            }
            return (tb, Vec::new());
        }
    };
    if let Some(e) = probe.dtz_problem.clone()
        && let Some(report) = &params.reporter
    {
        report(&Event::TablebaseError(e));
    }
    shared.tbhits.fetch_add(probe.probes, Ordering::SeqCst);
    let kept: Vec<Move> = root_moves
        .iter()
        .copied()
        .filter(|m| probe.keep.contains(m))
        .collect();
    if !kept.is_empty() {
        *root_moves = kept;
    }
    if probe.by_dtz || probe.wdl != Wdl::Win {
        tb.cardinality = 0;
    }
    let scores = probe
        .moves
        .iter()
        .map(|r| (r.mv, score_of(r.wdl, 0)))
        .collect();
    (tb, scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pst::Pst;

    fn fen(f: &str) -> Chess {
        crate::chess::fen::parse_fen(f, false).unwrap()
    }

    /// Without tables the search still mates in one and takes a free queen.
    #[test]
    fn a_search_without_tables_plays_the_best_move_one_ply_deep() {
        for (f, best) in [
            // Qxf7#, as in the UCI tests.
            (
                "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                "h5f7",
            ),
            // A queen left en prise to a pawn.
            (
                "rnb1kbnr/pppp1ppp/8/4p3/3q4/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 3",
                "e3d4",
            ),
        ] {
            let pos = fen(f);
            let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
            let r = without_tables(&pos, &moves, &Pst);
            let uci = r
                .best
                .unwrap()
                .to_uci(shakmaty::CastlingMode::Standard)
                .to_string();
            assert_eq!(uci, best, "{f}");
            assert_eq!(r.nodes, moves.len() as u64);
        }
    }
}

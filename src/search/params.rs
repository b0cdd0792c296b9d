//! Every number the search decides by, named in one place: pruning margins and depths,
//! reductions, aspiration windows, move-ordering tiers, history updates, how often node counts
//! are flushed and limits checked. Depths are in plies, margins in centipawns.

use std::sync::LazyLock;

// Aspiration windows.
/// Iterations from this depth on start with a window around the previous score.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;
/// Half-width of the first window.
pub const ASPIRATION_DELTA: i32 = 20;
/// After a fail the window grows by `delta / ASPIRATION_GROWTH_DIV` (here: by half).
pub const ASPIRATION_GROWTH_DIV: i32 = 2;
/// Past this half-width the window opens fully.
pub const ASPIRATION_MAX_DELTA: i32 = 1000;

// Reverse futility pruning (static null move).
/// Deepest remaining depth it applies to.
pub const RFP_MAX_DEPTH: i32 = 8;
/// Margin per ply of remaining depth (one ply less when the evaluation is improving).
pub const RFP_MARGIN: i32 = 75;

// Null-move pruning.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Reduction: `NMP_BASE + depth / NMP_DEPTH_DIV + min((eval - beta) / NMP_EVAL_DIV, NMP_EVAL_MAX)`.
pub const NMP_BASE: i32 = 3;
pub const NMP_DEPTH_DIV: i32 = 4;
pub const NMP_EVAL_DIV: i32 = 200;
pub const NMP_EVAL_MAX: i32 = 3;

/// Internal iterative reduction: a PV or cut node without a hash move from this depth on is
/// searched one ply shallower.
pub const IIR_MIN_DEPTH: i32 = 4;

// Shallow-depth pruning of later moves (never the first, never when mated, never a check).
/// Deepest remaining depth where late move, futility and SEE pruning apply.
pub const PRUNE_MAX_DEPTH: i32 = 6;
/// Late move pruning: quiet moves tried at most `(LMP_BASE + depth^2) / (improving ? 1 : 2)`.
pub const LMP_BASE: i32 = 3;
/// Futility pruning of a quiet move: `eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * depth <= alpha`.
pub const FUTILITY_BASE: i32 = 100;
pub const FUTILITY_PER_DEPTH: i32 = 90;
/// SEE pruning of a losing capture: it must not lose more than this per ply of depth.
pub const SEE_MARGIN_PER_DEPTH: i32 = 90;

// Late move reductions.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Moves searched at full depth before reductions start.
pub const LMR_MIN_MOVES: usize = 2;
/// Base reduction: `LMR_BASE + ln(depth) * ln(move number) / LMR_DIVISOR`.
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
/// History score worth one ply less (or more) of reduction.
pub const LMR_HISTORY_DIV: i32 = 6000;

/// The base reduction by depth and move number, both capped at 63.
pub static LMR: LazyLock<[[u8; 64]; 64]> = LazyLock::new(|| {
    let mut t = [[0u8; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR) as u8;
        }
    }
    t
});

/// Quiescence delta pruning: a capture that cannot lift the standing score within this of alpha
/// is skipped.
pub const QS_DELTA_MARGIN: i32 = 200;

// Move ordering: tiers of the ordering score (history scores lie between the counter move and
// the bad captures).
pub const ORDER_TT: i32 = 4_000_000;
pub const ORDER_GOOD_CAPTURE: i32 = 2_000_000;
pub const ORDER_KILLER: i32 = 1_000_000;
pub const ORDER_COUNTER: i32 = 900_000;
pub const ORDER_BAD_CAPTURE: i32 = -2_000_000;
/// Captures by MVV-LVA: `victim * MVV_VICTIM_MUL - attacker / MVV_ATTACKER_DIV`.
pub const MVV_VICTIM_MUL: i32 = 8;
pub const MVV_ATTACKER_DIV: i32 = 16;

// History heuristic.
/// History scores stay within ±HISTORY_MAX (gravity).
pub const HISTORY_MAX: i32 = 16384;
/// Bonus of a cutoff: `min(depth^2 * HISTORY_BONUS_MUL, HISTORY_BONUS_MAX)`.
pub const HISTORY_BONUS_MUL: i32 = 8;
pub const HISTORY_BONUS_MAX: i32 = 1600;

// Tablebases.
/// Depth added to a tablebase result stored in the hash table (Stockfish's 6): it is exact
/// knowledge, worth more than any search of that depth.
pub const TB_DEPTH_BONUS: i32 = 6;

// Checking the limits.
/// Nodes a search thread counts before it adds them to the shared count and checks the limits.
pub const NODE_FLUSH: u64 = 256;
/// The same for the comparator search, whose nodes are far slower.
pub const COMPARATOR_NODE_FLUSH: u64 = 16;

// The comparator (DeepChess) search.
/// Quiescence plies at most.
pub const COMPARATOR_QDEPTH: u32 = 4;
/// Entries of its best-move table.
pub const COMPARATOR_MOVE_TABLE: usize = 1 << 18;
/// Entries of its comparison cache.
pub const COMPARATOR_CMP_CACHE: usize = 1 << 16;
/// Ordering scores of the comparator search: table move, captures (plus MVV-LVA), promotions,
/// killers.
pub const COMPARATOR_ORDER_TABLE: i32 = 1_000_000;
pub const COMPARATOR_ORDER_CAPTURE: i32 = 100_000;
pub const COMPARATOR_ORDER_PROMOTION: i32 = 90_000;
pub const COMPARATOR_ORDER_KILLER: i32 = 50_000;

// Time management (see `time`): shares of the clock, as numerator / denominator.
/// Moves still to play when `go` does not say (`movestogo`), and the most ever planned for.
pub const TIME_MOVES_TO_GO: u32 = 25;
pub const TIME_MAX_MOVES_TO_GO: u32 = 50;
/// Never plan to use more than this share of what is left: (3/4, or 9/10 before a time control).
pub const TIME_CAP: (u64, u64) = (3, 4);
pub const TIME_CAP_LAST_MOVE: (u64, u64) = (9, 10);
/// Share of the increment added to a move's target.
pub const TIME_INC_SHARE: (u64, u64) = (3, 4);
/// Hard limit: this many times the target (within the cap).
pub const TIME_HARD_FACTOR: u64 = 4;
/// Soft limit (no new iteration after it): this share of the target.
pub const TIME_SOFT_SHARE: (u64, u64) = (6, 10);

//! Every number the search decides by, named in one place and tunable: pruning margins and
//! depths, reductions, aspiration windows, move-ordering tiers, history updates, time shares,
//! how often node counts are flushed. Each is a UCI option of the same name (a `spin`) and a line
//! of an OpenBench SPSA input (`name, int, default, min, max, c_end, r_end`, see
//! [`spsa_input`]). Depths are in plies, margins in centipawns, shares in percent; the defaults
//! are the values the engine was tuned with, and with them the search is the same to the node.

/// One tunable: its option name, default, bounds and the SPSA step at the end of a tuning run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// SPSA's `c_end`: the perturbation size at the end of the run.
    pub c_end: i32,
}

/// SPSA's `r_end` (the learning rate at the end of the run) for every tunable.
pub const R_END: f64 = 0.002;

macro_rules! tunables {
    ($( $(#[doc = $doc:literal])* $field:ident: $name:literal = $default:literal,
        $min:literal..=$max:literal, $c_end:literal; )*) => {
        /// The values of the tunables a search runs with.
        #[derive(Clone, Debug)]
        pub struct Tunables {
            $( $(#[doc = $doc])* pub $field: i32, )*
            /// Base late move reductions by depth and move number (from `lmr_base`/`lmr_divisor`).
            lmr: [[u8; 64]; 64],
        }

        impl Default for Tunables {
            fn default() -> Self {
                let mut t = Tunables {
                    $( $field: $default, )*
                    lmr: [[0; 64]; 64],
                };
                t.build_lmr();
                t
            }
        }

        /// Every tunable, in the order of the `uci` answer.
        pub const SPECS: &[Spec] = &[
            $( Spec { name: $name, default: $default, min: $min, max: $max, c_end: $c_end }, )*
        ];

        impl Tunables {
            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                $( if name.eq_ignore_ascii_case($name) { return Some(&mut self.$field); } )*
                None
            }

            /// The value of the tunable called `name` (case-insensitive).
            pub fn get(&self, name: &str) -> Option<i32> {
                $( if name.eq_ignore_ascii_case($name) { return Some(self.$field); } )*
                None
            }
        }
    };
}

tunables! {
    // Aspiration windows.
    /// Iterations from this depth on start with a window around the previous score.
    aspiration_min_depth: "AspirationMinDepth" = 5, 1..=20, 1;
    /// Half-width of the first window.
    aspiration_delta: "AspirationDelta" = 20, 1..=200, 3;
    /// After a fail the window grows by `delta / aspiration_growth_div`.
    aspiration_growth_div: "AspirationGrowthDiv" = 2, 1..=8, 1;
    /// Past this half-width the window opens fully.
    aspiration_max_delta: "AspirationMaxDelta" = 1000, 100..=5000, 100;

    // Reverse futility pruning (static null move).
    /// Deepest remaining depth it applies to.
    rfp_max_depth: "RfpMaxDepth" = 8, 1..=16, 1;
    /// Margin per ply of remaining depth (one ply less when the evaluation is improving).
    rfp_margin: "RfpMargin" = 75, 20..=200, 8;

    // Razoring: at most `razor_max_depth`, a static evaluation below alpha by
    // `razor_base + razor_mul * depth^2` drops into the quiescence search, whose score ends the
    // node when it stays below alpha. 0 turns it off.
    razor_max_depth: "RazorMaxDepth" = 3, 0..=8, 1;
    razor_base: "RazorBase" = 250, 0..=1000, 25;
    razor_mul: "RazorMul" = 150, 0..=600, 15;

    // Null-move pruning: reduction `base + depth / depth_div + min((eval - beta) / eval_div, eval_max)`.
    nmp_min_depth: "NmpMinDepth" = 3, 1..=8, 1;
    nmp_base: "NmpBase" = 3, 1..=6, 1;
    nmp_depth_div: "NmpDepthDiv" = 4, 1..=12, 1;
    nmp_eval_div: "NmpEvalDiv" = 200, 50..=600, 20;
    nmp_eval_max: "NmpEvalMax" = 3, 0..=6, 1;

    // Singular extensions (see `negamax`'s step 7b).
    /// Least remaining depth of a singular extension search.
    se_min_depth: "SeMinDepth" = 8, 4..=16, 1;
    /// The others must stay below the hash move's score less `se_beta_mul / 16` per ply.
    se_beta_mul: "SeBetaMul" = 24, 4..=128, 4;
    /// A double extension: the others stay this far below that bound, at non-PV nodes.
    se_double_margin: "SeDoubleMargin" = 20, 0..=200, 5;
    /// Double extensions allowed on a path.
    se_double_max: "SeDoubleMax" = 6, 0..=20, 1;

    // ProbCut: from `probcut_min_depth`, a capture whose reduced search (4 plies less) beats
    // beta by `probcut_margin` ends the node. 1000 turns it off (no search is that deep): what
    // ProbCut is worth, measured by taking it out of the search.
    probcut_min_depth: "ProbCutMinDepth" = 5, 3..=1000, 1;
    probcut_margin: "ProbCutMargin" = 200, 50..=600, 15;

    /// Internal iterative reduction: a PV or cut node without a hash move from this depth on is
    /// searched one ply shallower.
    iir_min_depth: "IirMinDepth" = 4, 2..=12, 1;

    // Shallow-depth pruning of later moves (never the first, never when mated, never a check).
    /// Deepest remaining depth where late move, futility and SEE pruning apply.
    prune_max_depth: "PruneMaxDepth" = 6, 1..=12, 1;
    /// Late move pruning: quiet moves tried at most `(lmp_base + depth^2) / (improving ? 1 : 2)`.
    lmp_base: "LmpBase" = 3, 0..=12, 1;
    /// Futility pruning of a quiet move: `eval + futility_base + futility_per_depth * depth <= alpha`.
    futility_base: "FutilityBase" = 100, 0..=400, 15;
    futility_per_depth: "FutilityPerDepth" = 90, 20..=250, 10;
    /// SEE pruning of a losing capture: it must not lose more than this per ply of depth.
    see_margin_per_depth: "SeeMarginPerDepth" = 90, 20..=250, 10;

    // Late move reductions.
    lmr_min_depth: "LmrMinDepth" = 3, 1..=8, 1;
    /// Moves searched at full depth before reductions start.
    lmr_min_moves: "LmrMinMoves" = 2, 1..=8, 1;
    /// Base reduction `lmr_base / 100 + ln(depth) * ln(move number) / (lmr_divisor / 100)`.
    lmr_base: "LmrBase" = 75, 0..=200, 8;
    lmr_divisor: "LmrDivisor" = 225, 100..=500, 15;
    /// History score worth one ply less (or more) of reduction.
    lmr_history_div: "LmrHistoryDiv" = 8000, 1000..=30000, 500;

    /// Quiescence delta pruning: a capture that cannot lift the standing score within this of
    /// alpha is skipped.
    qs_delta_margin: "QsDeltaMargin" = 200, 0..=600, 20;

    // Move ordering: tiers of the ordering score (history scores lie between the counter move
    // and the bad captures).
    order_tt: "OrderTt" = 4_000_000, 3_000_001..=8_000_000, 100_000;
    order_good_capture: "OrderGoodCapture" = 2_000_000, 1_000_001..=3_000_000, 50_000;
    order_killer: "OrderKiller" = 1_000_000, 900_001..=1_999_999, 25_000;
    order_counter: "OrderCounter" = 900_000, 16_385..=999_999, 25_000;
    order_bad_capture: "OrderBadCapture" = -2_000_000, -4_000_000..=-16_385, 50_000;
    /// Captures by MVV-LVA: `victim * mvv_victim_mul - attacker / mvv_attacker_div`.
    mvv_victim_mul: "MvvVictimMul" = 8, 1..=32, 1;
    mvv_attacker_div: "MvvAttackerDiv" = 16, 1..=64, 2;

    // History heuristic.
    /// History scores stay within ±history_max (gravity).
    history_max: "HistoryMax" = 16384, 1024..=65536, 1024;
    /// Bonus of a cutoff: `min(depth^2 * history_bonus_mul, history_bonus_max)`.
    history_bonus_mul: "HistoryBonusMul" = 8, 1..=64, 1;
    history_bonus_max: "HistoryBonusMax" = 1600, 100..=8000, 100;
    /// A capture's history counts `1 / capture_history_div` in its ordering (MVV-LVA units).
    capture_history_div: "CaptureHistoryDiv" = 8, 1..=64, 1;
    /// History pruning: at most this remaining depth, a quiet move whose histories (main and
    /// continuation, summed) are below `-history_prune_margin * depth` is skipped.
    history_prune_depth: "HistoryPruneDepth" = 4, 0..=12, 1;
    history_prune_margin: "HistoryPruneMargin" = 3000, 500..=20000, 250;
    /// A node failing low from this remaining depth rewards the continuation histories of the
    /// quiet move that led to it (it was good for the side that played it).
    prior_bonus_min_depth: "PriorBonusMinDepth" = 3, 1..=64, 1;
    /// The opponent's quiet move judged by the static evaluation's change: its main history
    /// moves by `-eval_history_mul * depth * (evaluation before + evaluation after)`,
    /// each from its own side to move's view, within `±eval_history_max` (0: off). Stockfish
    /// 14's 4 per internal unit and 1,000, scaled to this engine's cutoff bonuses (a third of
    /// Stockfish's at depth 10) and centipawns (about two internal units).
    eval_history_mul: "EvalHistoryMul" = 2, 0..=40, 1;
    eval_history_max: "EvalHistoryMax" = 500, 100..=4000, 50;

    // Correction history (see `correction`): weights of the pawn table and of the two non-pawn
    // tables (percent).
    corr_pawn_weight: "CorrPawnWeight" = 100, 0..=300, 10;
    corr_non_pawn_weight: "CorrNonPawnWeight" = 50, 0..=300, 10;

    // The static evaluation.
    /// Fifty-move damping: the static evaluation loses this many percent at 100 half-moves
    /// without a capture or pawn move, in proportion before (at 50, a score is halved at 100
    /// half-moves), so that a position drifts towards the draw the clock brings. 0: off, the
    /// default until an SPRT accepts it (`--engine-option EvalFiftyDamp=50` against the same
    /// binary).
    eval_fifty_damp: "EvalFiftyDamp" = 0, 0..=100, 5;
    /// Material scaling: the static evaluation grows by this many percent with the starting
    /// material on the board (39 pawns' worth a side, pawn 1, knight and bishop 3, rook 5,
    /// queen 9), is unchanged at half of it and shrinks by as much with none, in proportion
    /// between: what a net's scores may need across the game's phases (Stockfish scales its
    /// net by material). Negative: larger scores in the endings. 0: off, the default until an
    /// SPRT accepts a value (`--engine-option EvalMaterialScale=N` against the same binary).
    eval_material_scale: "EvalMaterialScale" = 0, -50..=50, 5;

    // Tablebases.
    /// Depth added to a tablebase result stored in the hash table (Stockfish's 6): it is exact
    /// knowledge, worth more than any search of that depth.
    tb_depth_bonus: "TbDepthBonus" = 6, 0..=20, 1;

    // Search memory (with `Learning`).
    /// Least remaining depth at which a node looks up the search memory: the remembered
    /// positions are searched deep, and shallow nodes, most of the tree, skip the lookup.
    memory_min_depth: "MemoryMinDepth" = 5, 1..=20, 1;

    // Time management (see `time`).
    /// Moves still to play when `go` does not say (`movestogo`), and the most ever planned for.
    time_moves_to_go: "TimeMovesToGo" = 25, 5..=80, 2;
    time_max_moves_to_go: "TimeMaxMovesToGo" = 50, 5..=200, 5;
    /// Never plan to use more than this share of what is left (percent), before the last move of
    /// a time control.
    time_cap_percent: "TimeCapPercent" = 75, 10..=95, 3;
    time_cap_last_percent: "TimeCapLastPercent" = 90, 10..=99, 3;
    /// Share of the increment added to a move's target (percent).
    time_inc_percent: "TimeIncPercent" = 75, 0..=100, 5;
    /// Hard limit: this many times the target (within the cap).
    time_hard_factor: "TimeHardFactor" = 4, 1..=10, 1;
    /// Soft limit (no new iteration after it): this share of the target (percent).
    time_soft_percent: "TimeSoftPercent" = 80, 10..=100, 5;

    // Stretching the soft limit by how settled the search is (see `time::TimeManager`): the
    // product of three percentages, from this depth on.
    tm_min_depth: "TmMinDepth" = 5, 1..=20, 1;
    /// Best-move stability: `max(base - step * iterations unchanged, min)` percent.
    tm_stability_base: "TmStabilityBase" = 160, 50..=400, 10;
    tm_stability_step: "TmStabilityStep" = 17, 0..=60, 2;
    tm_stability_min: "TmStabilityMin" = 75, 20..=150, 5;
    /// The best move's share of the nodes: `(base - share%) * mul / 100` percent.
    tm_node_base: "TmNodeBase" = 150, 100..=250, 5;
    tm_node_mul: "TmNodeMul" = 135, 50..=300, 10;
    /// A falling score: `100 + clamp(previous - score, -rise_max, fall_max)` percent.
    tm_score_fall_max: "TmScoreFallMax" = 40, 0..=200, 5;
    tm_score_rise_max: "TmScoreRiseMax" = 20, 0..=90, 5;

    // Checking the limits.
    /// Nodes a search thread counts before it adds them to the shared count and checks the limits.
    node_flush: "NodeFlush" = 256, 1..=65536, 16;
    /// The same for the comparator search, whose nodes are far slower.
    comparator_node_flush: "ComparatorNodeFlush" = 16, 1..=4096, 2;

    // The comparator (DeepChess) search.
    /// Quiescence plies at most.
    comparator_qdepth: "ComparatorQDepth" = 4, 0..=16, 1;
    /// Material kept outside the net: two leaves whose SEE-resolved material balances differ by
    /// at least this many centipawns are ordered by material alone (0: the net decides always).
    /// Balances are multiples of 100, so 1..=100 all mean "the net judges equal material only";
    /// 100 beat 200 by +127 ± 114 Elo (40 games at 20,000 nodes, BENCHMARKS.md).
    comparator_material_margin: "ComparatorMaterialMargin" = 100, 0..=2_000, 50;
    /// A move that gives check is searched one ply deeper (1) or not (0).
    comparator_check_extension: "ComparatorCheckExtension" = 1, 0..=1, 1;
    /// Null-move pruning from this remaining depth on (0: never): the side to move passes, and
    /// if a search `2 + depth / 4` plies shallower still reaches beta, the node is cut.
    comparator_nmp_depth: "ComparatorNullMoveDepth" = 3, 0..=16, 1;
    /// Late move reductions of quiet moves from this move number on (0: never), by the main
    /// search's table (`LmrBase`, `LmrDivisor`, `LmrMinDepth`); a reduced move that raises the
    /// bound is searched again at full depth.
    comparator_lmr_moves: "ComparatorLmrMoves" = 3, 0..=64, 1;
    /// Ordering scores of the comparator search: table move, captures (plus MVV-LVA),
    /// promotions, killers (the second killer 1,000 less).
    comparator_order_table: "ComparatorOrderTable" = 1_000_000, 500_000..=2_000_000, 25_000;
    comparator_order_capture: "ComparatorOrderCapture" = 100_000, 60_000..=400_000, 5_000;
    comparator_order_promotion: "ComparatorOrderPromotion" = 90_000, 51_001..=99_999, 2_000;
    comparator_order_killer: "ComparatorOrderKiller" = 50_000, 1_001..=59_999, 2_000;
}

/// Entries of the comparator search's best-move table (a size, not a tuning parameter).
pub const COMPARATOR_MOVE_TABLE: usize = 1 << 18;
/// Entries of the comparator search's comparison cache.
pub const COMPARATOR_CMP_CACHE: usize = 1 << 16;

/// Why a tunable was not set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuneError {
    Unknown,
    /// Outside `min..=max` of its spec.
    OutOfRange(Spec),
}

impl Tunables {
    /// Sets the tunable called `name` (case-insensitive) to `value` within its bounds.
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), TuneError> {
        let spec = *SPECS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or(TuneError::Unknown)?;
        if !(spec.min..=spec.max).contains(&value) {
            return Err(TuneError::OutOfRange(spec));
        }
        *self.slot(name).ok_or(TuneError::Unknown)? = value;
        if spec.name.starts_with("Lmr") {
            self.build_lmr();
        }
        Ok(())
    }

    /// The base reduction of move number `moves` at `depth` (both capped at 63).
    #[inline]
    pub fn lmr(&self, depth: i32, moves: usize) -> i32 {
        i32::from(self.lmr[depth.clamp(0, 63) as usize][moves.min(63)])
    }

    fn build_lmr(&mut self) {
        let base = f64::from(self.lmr_base) / 100.0;
        let divisor = f64::from(self.lmr_divisor) / 100.0;
        for (d, row) in self.lmr.iter_mut().enumerate() {
            for (m, r) in row.iter_mut().enumerate() {
                *r = if d == 0 || m == 0 {
                    0
                } else {
                    (base + (d as f64).ln() * (m as f64).ln() / divisor) as u8
                };
            }
        }
    }
}

/// The tunables as an OpenBench SPSA input, one `name, int, default, min, max, c_end, r_end`
/// line each.
pub fn spsa_input() -> String {
    SPECS
        .iter()
        .map(|s| {
            format!(
                "{}, int, {}, {}, {}, {}, {}\n",
                s.name, s.default, s.min, s.max, s.c_end, R_END
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_within_their_bounds_and_names_are_unique() {
        let t = Tunables::default();
        for s in SPECS {
            assert!(s.min <= s.default && s.default <= s.max, "{s:?}");
            assert!(s.c_end > 0, "{s:?}");
            assert_eq!(t.get(s.name), Some(s.default), "{}", s.name);
            assert_eq!(
                SPECS
                    .iter()
                    .filter(|o| o.name.eq_ignore_ascii_case(s.name))
                    .count(),
                1
            );
        }
        assert_eq!(spsa_input().lines().count(), SPECS.len());
        assert_eq!(
            spsa_input().lines().next(),
            Some("AspirationMinDepth, int, 5, 1, 20, 1, 0.002")
        );
    }

    #[test]
    fn setting_checks_bounds_and_rebuilds_reductions() {
        let mut t = Tunables::default();
        // The table the search was tuned with: (0.75 + ln d ln m / 2.25) truncated.
        assert_eq!(
            t.lmr(10, 10),
            (0.75 + 10f64.ln() * 10f64.ln() / 2.25) as i32
        );
        assert_eq!(t.lmr(1, 30), 0);
        assert_eq!(t.lmr(200, 200), t.lmr(63, 63));
        assert_eq!(t.set("rfpmargin", 90), Ok(()));
        assert_eq!(t.rfp_margin, 90);
        assert_eq!(
            t.set("RfpMargin", 1000),
            Err(TuneError::OutOfRange(SPECS[5]))
        );
        assert_eq!(t.rfp_margin, 90);
        assert_eq!(t.set("NoSuchThing", 1), Err(TuneError::Unknown));
        t.set("LmrDivisor", 100).unwrap();
        assert_eq!(t.lmr(10, 10), (0.75 + 10f64.ln() * 10f64.ln()) as i32);
    }
}

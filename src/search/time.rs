//! Time management: how long to think, and when to stop.

use super::params::Tunables;

/// What `go` said about time (milliseconds).
#[derive(Clone, Debug, Default)]
pub struct Clock {
    pub time: Option<u64>,
    pub inc: u64,
    pub movestogo: Option<u32>,
    pub movetime: Option<u64>,
}

/// Soft limit: do not start another iteration after it. Hard limit: stop the search at once.
/// First limit: the hard limit of a search that has not finished its first iteration (the
/// latest a move may come without losing on time; see [`budget`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft_ms: u64,
    pub hard_ms: u64,
    pub first_ms: u64,
}

/// Budget for one move, or `None` when the search is not limited by time.
///
/// `overhead` is the `Move Overhead` option: time lost between the GUI's clock and ours.
/// The hard limit never exceeds what is left on the clock minus the overhead, so a search that
/// obeys it never loses on time.
/// A move time with a clock beside it (`go wtime 100 movetime 1000`, as python-chess sends a
/// time limit with the clocks) takes no more than the clock's hard limit.
///
/// The first iteration (one ply and the quiescence search, about a millisecond) is not cut by
/// the hard limit, only by the first limit: what is left on the clock minus the overhead, or
/// the whole move time. Cut, it answered the first root move it tried (`go movetime 10` with
/// the default overhead of 20 ms gave a hard limit of 1 ms, and the first search of a process
/// or a game, a few milliseconds slower to start, answered 1... Nh6 to 1. e4, or 2. Ke2).
pub fn budget(clock: &Clock, overhead: u64, t: &Tunables) -> Option<TimeBudget> {
    let by_clock = clock
        .time
        .map(|time| clock_budget(clock, time, overhead, t));
    let Some(mt) = clock.movetime else {
        return by_clock;
    };
    let ms = mt.saturating_sub(overhead).max(1);
    Some(match by_clock {
        Some(b) => TimeBudget {
            soft_ms: ms.min(b.soft_ms),
            hard_ms: ms.min(b.hard_ms),
            first_ms: mt.max(1).min(b.first_ms),
        },
        None => TimeBudget {
            soft_ms: ms,
            hard_ms: ms,
            first_ms: mt.max(1),
        },
    })
}

/// The budget of `time` left on the clock (see [`budget`]).
fn clock_budget(clock: &Clock, time: u64, overhead: u64, t: &Tunables) -> TimeBudget {
    let avail = time.saturating_sub(overhead).max(1);
    let mtg = u64::from(
        clock
            .movestogo
            .unwrap_or(t.time_moves_to_go.max(1) as u32)
            .clamp(1, t.time_max_moves_to_go.max(1) as u32),
    );
    // In u128: a clock of i64::MAX milliseconds (a GUI's "no limit") would wrap.
    let share = |x: u64, percent: i32| (u128::from(x) * percent.max(0) as u128 / 100) as u64;
    // Never plan to use more than this share of what is left.
    let cap = if mtg == 1 {
        share(avail, t.time_cap_last_percent)
    } else {
        share(avail, t.time_cap_percent)
    }
    .max(1);
    let target = (avail / mtg)
        .saturating_add(share(clock.inc, t.time_inc_percent))
        .min(cap);
    let hard = target
        .saturating_mul(t.time_hard_factor.max(1) as u64)
        .min(cap)
        .max(1);
    let soft = share(target, t.time_soft_percent).clamp(1, hard);
    TimeBudget {
        soft_ms: soft,
        hard_ms: hard,
        first_ms: avail,
    }
}

/// How settled the iterative deepening is, iteration after iteration, and what share of the
/// soft time limit it should therefore take: more when the best move just changed, when the
/// best move took a small share of the nodes (its rivals were hard to refute), and when the
/// score is falling; less when the same move has led for many iterations.
#[derive(Clone, Debug, Default)]
pub struct TimeManager {
    best: Option<shakmaty::Move>,
    /// Iterations in a row with the same best move.
    stable: i32,
    prev_score: Option<i32>,
}

impl TimeManager {
    /// Notes an iteration at `depth` ending with `best` and `score`, the best move having taken
    /// `best_nodes` of the `nodes` searched at the root so far; returns the percentage of the
    /// soft limit to use (100 below `tm_min_depth`).
    pub fn update(
        &mut self,
        t: &Tunables,
        depth: i32,
        best: shakmaty::Move,
        score: i32,
        best_nodes: u64,
        nodes: u64,
    ) -> u64 {
        if self.best == Some(best) {
            self.stable += 1;
        } else {
            self.stable = 0;
            self.best = Some(best);
        }
        let drop = self.prev_score.map_or(0, |p| p - score);
        self.prev_score = Some(score);
        if depth < t.tm_min_depth {
            return 100;
        }
        let stability = i64::from(
            (t.tm_stability_base - t.tm_stability_step * self.stable).max(t.tm_stability_min),
        );
        let share = (best_nodes * 100 / nodes.max(1)) as i64;
        let node = (i64::from(t.tm_node_base) - share) * i64::from(t.tm_node_mul) / 100;
        let falling = 100 + i64::from(drop.clamp(-t.tm_score_rise_max, t.tm_score_fall_max));
        (stability * node.max(10) * falling / 10_000).clamp(10, 1000) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetime_respects_overhead() {
        let c = Clock {
            movetime: Some(1000),
            ..Default::default()
        };
        assert_eq!(
            budget(&c, 50, &Tunables::default()),
            Some(TimeBudget {
                soft_ms: 950,
                hard_ms: 950,
                first_ms: 1000,
            })
        );
    }

    #[test]
    fn never_more_than_left_on_the_clock() {
        // (The largest clocks a GUI sends, u64's and i64's most: the shares must not wrap to a
        // budget of a few milliseconds.)
        for time in [1u64, 5, 20, 100, 1000, 60_000, i64::MAX as u64, u64::MAX] {
            for inc in [0u64, 100, 1000, 5000, u64::MAX] {
                for (mtg, movetime) in [
                    (None, None),
                    (Some(1), None),
                    (Some(2), None),
                    (Some(40), None),
                    // A move time beside the clock: the clock still bounds it (it did not).
                    (None, Some(1000)),
                    (None, Some(u64::MAX)),
                ] {
                    let c = Clock {
                        time: Some(time),
                        inc,
                        movestogo: mtg,
                        movetime,
                    };
                    let b = budget(&c, 10, &Tunables::default()).unwrap();
                    assert!(b.soft_ms <= b.hard_ms && b.hard_ms <= b.first_ms);
                    assert!(
                        b.first_ms <= time.saturating_sub(10).max(1),
                        "{time} {inc} {mtg:?} {movetime:?} {b:?}"
                    );
                    if time > 1 << 60 && movetime != Some(1000) {
                        assert!(b.soft_ms > 1 << 50, "{time} {inc} {mtg:?} {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(budget(&Clock::default(), 10, &Tunables::default()), None);
    }

    #[test]
    fn a_settled_search_stops_early_and_an_unsettled_one_late() {
        let t = Tunables::default();
        let (e4, d4) = (
            shakmaty::uci::UciMove::from_ascii(b"e2e4").unwrap(),
            shakmaty::uci::UciMove::from_ascii(b"d2d4").unwrap(),
        );
        let pos = shakmaty::Chess::default();
        let (e4, d4) = (e4.to_move(&pos).unwrap(), d4.to_move(&pos).unwrap());
        // The same move for ten iterations with 95% of the nodes and a steady score.
        let mut settled = TimeManager::default();
        let mut last = 0;
        for depth in 1..=10 {
            last = settled.update(&t, depth, e4, 30, 95, 100);
        }
        assert!(last < 100, "{last}");
        // The best move changes at the last iteration, took 40% of the nodes, the score fell.
        let mut unsettled = TimeManager::default();
        for depth in 1..=9 {
            unsettled.update(&t, depth, e4, 30, 60, 100);
        }
        let scale = unsettled.update(&t, 10, d4, -20, 40, 100);
        assert!(scale > 150, "{scale}");
        // Below the least depth the soft limit stands.
        assert_eq!(TimeManager::default().update(&t, 1, e4, 0, 1, 100), 100);
    }
}

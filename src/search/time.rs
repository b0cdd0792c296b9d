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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft_ms: u64,
    pub hard_ms: u64,
}

/// Budget for one move, or `None` when the search is not limited by time.
///
/// `overhead` is the `Move Overhead` option: time lost between the GUI's clock and ours.
/// The hard limit never exceeds what is left on the clock minus the overhead, so a search that
/// obeys it never loses on time.
pub fn budget(clock: &Clock, overhead: u64, t: &Tunables) -> Option<TimeBudget> {
    if let Some(mt) = clock.movetime {
        let t = mt.saturating_sub(overhead).max(1);
        return Some(TimeBudget {
            soft_ms: t,
            hard_ms: t,
        });
    }
    let time = clock.time?;
    let avail = time.saturating_sub(overhead).max(1);
    let mtg = u64::from(
        clock
            .movestogo
            .unwrap_or(t.time_moves_to_go.max(1) as u32)
            .clamp(1, t.time_max_moves_to_go.max(1) as u32),
    );
    let share = |x: u64, percent: i32| x * percent.max(0) as u64 / 100;
    // Never plan to use more than this share of what is left.
    let cap = if mtg == 1 {
        share(avail, t.time_cap_last_percent)
    } else {
        share(avail, t.time_cap_percent)
    }
    .max(1);
    let target = (avail / mtg + share(clock.inc, t.time_inc_percent)).min(cap);
    let hard = (target * t.time_hard_factor.max(1) as u64).min(cap).max(1);
    let soft = share(target, t.time_soft_percent).clamp(1, hard);
    Some(TimeBudget {
        soft_ms: soft,
        hard_ms: hard,
    })
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
                hard_ms: 950
            })
        );
    }

    #[test]
    fn never_more_than_left_on_the_clock() {
        for time in [1u64, 5, 20, 100, 1000, 60_000] {
            for inc in [0u64, 100, 1000, 5000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let c = Clock {
                        time: Some(time),
                        inc,
                        movestogo: mtg,
                        movetime: None,
                    };
                    let b = budget(&c, 10, &Tunables::default()).unwrap();
                    assert!(b.soft_ms <= b.hard_ms);
                    assert!(
                        b.hard_ms <= time.saturating_sub(10).max(1),
                        "{time} {inc} {mtg:?} {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(budget(&Clock::default(), 10, &Tunables::default()), None);
    }
}

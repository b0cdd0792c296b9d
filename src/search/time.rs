//! Time management: how long to think, and when to stop.

use super::params::{
    TIME_CAP, TIME_CAP_LAST_MOVE, TIME_HARD_FACTOR, TIME_INC_SHARE, TIME_MAX_MOVES_TO_GO,
    TIME_MOVES_TO_GO, TIME_SOFT_SHARE,
};

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
pub fn budget(clock: &Clock, overhead: u64) -> Option<TimeBudget> {
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
            .unwrap_or(TIME_MOVES_TO_GO)
            .clamp(1, TIME_MAX_MOVES_TO_GO),
    );
    let share = |x: u64, (num, den): (u64, u64)| x * num / den;
    // Never plan to use more than this share of what is left.
    let cap = if mtg == 1 {
        share(avail, TIME_CAP_LAST_MOVE)
    } else {
        share(avail, TIME_CAP)
    }
    .max(1);
    let target = (avail / mtg + share(clock.inc, TIME_INC_SHARE)).min(cap);
    let hard = (target * TIME_HARD_FACTOR).min(cap).max(1);
    let soft = share(target, TIME_SOFT_SHARE).clamp(1, hard);
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
            budget(&c, 50),
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
                    let b = budget(&c, 10).unwrap();
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
        assert_eq!(budget(&Clock::default(), 10), None);
    }
}

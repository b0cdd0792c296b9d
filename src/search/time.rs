//! Time management: how long to think, and when to stop.

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
    let mtg = u64::from(clock.movestogo.unwrap_or(25).clamp(1, 50));
    // Never plan to use more than this share of what is left.
    let cap = if mtg == 1 {
        avail * 9 / 10
    } else {
        avail * 3 / 4
    }
    .max(1);
    let target = (avail / mtg + clock.inc * 3 / 4).min(cap);
    let hard = (target * 4).min(cap).max(1);
    let soft = (target * 6 / 10).clamp(1, hard);
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

//! Time controls and per-move limits of a match, and the two clocks of a game.

use shakmaty::Color;

use crate::games::Error;

/// A clock: base time plus increment per move; with `moves`, the base time is for that many
/// moves and is added again after each side's `moves`-th, 2·`moves`-th... move (`40/60`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: Option<u32>,
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl TimeControl {
    /// Parses `SECONDS[+INCREMENT]` (`10+0.1`, `60`, `0.5+0.01`), `MIN:SEC+INC` (`1:30+1`), each
    /// optionally after `MOVES/` (`40/60`, `40/60+0.5`: 40 moves in 60 s, as cutechess `tc=`).
    pub fn parse(text: &str) -> Result<TimeControl, Error> {
        let why = |why: &'static str| Error::TimeControl {
            text: text.to_string(),
            why,
        };
        let bad =
            || why("not [MOVES/]SECONDS[+INCREMENT], e.g. 10+0.1 or 40/60 (40 moves in 60 s)");
        let (moves, rest) = match text.trim().split_once('/') {
            Some((m, r)) => {
                let m: u32 = m.trim().parse().map_err(|_| bad())?;
                if m == 0 || m > 1000 {
                    return Err(why("the moves of a period are 1 to 1000"));
                }
                (Some(m), r.trim())
            }
            None => (None, text.trim()),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (rest, None),
        };
        let secs = |s: &str| -> Result<f64, Error> {
            let v: f64 = s.trim().parse().map_err(|_| bad())?;
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(bad())
            }
        };
        let base_s = match base.split_once(':') {
            Some((m, s)) => secs(m)? * 60.0 + secs(s)?,
            None => secs(base)?,
        };
        let inc_s = inc.map(secs).transpose()?.unwrap_or(0.0);
        // At least a millisecond on the clock (`0.0001` would be a clock of 0 ms).
        if base_s < 0.001 {
            return Err(why("the clock must start above 0 s (at least 0.001)"));
        }
        if base_s > 86_400.0 {
            return Err(why("a clock of more than a day (86400 s)"));
        }
        if inc_s > 3_600.0 {
            return Err(why("an increment of more than an hour (3600 s)"));
        }
        Ok(TimeControl {
            moves,
            base_ms: (base_s * 1000.0).round() as u64,
            inc_ms: (inc_s * 1000.0).round() as u64,
        })
    }

    /// The PGN `TimeControl` tag: seconds, `+` increment, after `moves/` for a repeating control.
    pub fn pgn(&self) -> String {
        let s = |ms: u64| {
            if ms.is_multiple_of(1000) {
                (ms / 1000).to_string()
            } else {
                format!("{}", ms as f64 / 1000.0)
            }
        };
        let moves = self.moves.map(|m| format!("{m}/")).unwrap_or_default();
        if self.inc_ms == 0 {
            format!("{moves}{}", s(self.base_ms))
        } else {
            format!("{moves}{}+{}", s(self.base_ms), s(self.inc_ms))
        }
    }
}

/// How long each move may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    Clock(TimeControl),
    Nodes(u64),
    Depth(u32),
    MoveTime(u64),
}

impl MoveLimit {
    pub fn pgn(&self) -> String {
        match self {
            MoveLimit::Clock(tc) => tc.pgn(),
            MoveLimit::Nodes(n) => format!("nodes={n}"),
            MoveLimit::Depth(d) => format!("depth={d}"),
            MoveLimit::MoveTime(ms) => format!("movetime={ms}ms"),
        }
    }
}

/// Both clocks of a game, in milliseconds (sides without a clock have none): what `go` tells the
/// side to move, and the bookkeeping after each move.
#[derive(Clone, Debug)]
pub struct GameClock {
    /// White's and Black's controls (index `Color as usize ^ 1`: White 0, Black 1).
    tcs: [Option<TimeControl>; 2],
    left_ms: [i64; 2],
    moves_made: [u32; 2],
}

fn idx(c: Color) -> usize {
    c as usize ^ 1
}

impl GameClock {
    pub fn new(white: MoveLimit, black: MoveLimit) -> GameClock {
        let tc = |l: MoveLimit| match l {
            MoveLimit::Clock(tc) => Some(tc),
            _ => None,
        };
        let tcs = [tc(white), tc(black)];
        GameClock {
            tcs,
            left_ms: tcs.map(|t| t.map_or(0, |t| t.base_ms as i64)),
            moves_made: [0, 0],
        }
    }

    /// Time left on `side`'s clock (0 without a clock).
    pub fn left_ms(&self, side: Color) -> i64 {
        self.left_ms[idx(side)]
    }

    /// Moves `side` must still make in the current period of a `moves/time` control.
    pub fn moves_to_go(&self, side: Color) -> Option<u32> {
        let i = idx(side);
        let m = self.tcs[i]?.moves?;
        Some(m - self.moves_made[i] % m)
    }

    /// The `go` command for `side` to move: both clocks and increments, and `movestogo` under a
    /// `moves/time` control.
    pub fn go_command(&self, side: Color) -> String {
        let inc = |i: usize| self.tcs[i].map_or(0, |t| t.inc_ms);
        let mut go = format!(
            "go wtime {} btime {} winc {} binc {}",
            self.left_ms[0].max(1),
            self.left_ms[1].max(1),
            inc(0),
            inc(1)
        );
        if let Some(n) = self.moves_to_go(side) {
            go.push_str(&format!(" movestogo {n}"));
        }
        go
    }

    /// Charges a move that took `used_ms` to `side`: false (lost on time) when it used more
    /// than its clock plus `margin_ms`; otherwise the time is taken off (down to 0), the
    /// increment added, and at the end of a `moves/time` period the base time added again.
    pub fn charge(&mut self, side: Color, used_ms: i64, margin_ms: u64) -> bool {
        let i = idx(side);
        let Some(tc) = self.tcs[i] else {
            return true;
        };
        if used_ms > self.left_ms[i] + margin_ms as i64 {
            return false;
        }
        self.moves_made[i] += 1;
        let mut left = (self.left_ms[i] - used_ms).max(0) + tc.inc_ms as i64;
        if let Some(m) = tc.moves
            && self.moves_made[i].is_multiple_of(m)
        {
            left += tc.base_ms as i64;
        }
        self.left_ms[i] = left;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        let tc = |s| TimeControl::parse(s).map_err(|e| e.to_string());
        assert_eq!(
            tc("10+0.1"),
            Ok(TimeControl {
                moves: None,
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(tc("60").map(|t| (t.base_ms, t.inc_ms)), Ok((60_000, 0)));
        assert_eq!(
            tc("1:30+1").map(|t| (t.base_ms, t.inc_ms)),
            Ok((90_000, 1000))
        );
        assert_eq!(tc("0.5+0.01").unwrap().pgn(), "0.5+0.01");
        assert_eq!(tc("10+0.1").unwrap().pgn(), "10+0.1");
        for bad in ["", "abc", "-5+1", "10+x", "0", "nan", "1e9"] {
            assert!(tc(bad).is_err(), "{bad}");
        }
        // Numbers out of range say which (they said "not [MOVES/]SECONDS[+INCREMENT]").
        for (bad, why) in [
            ("0+0", "above 0 s"),
            ("0.0001+1", "above 0 s"),
            ("86401", "more than a day"),
            ("10+3601", "more than an hour"),
            ("0/60", "1 to 1000"),
            ("1001/60", "1 to 1000"),
        ] {
            let e = tc(bad).unwrap_err();
            assert!(e.contains(&format!("'{bad}'")) && e.contains(why), "{e}");
        }
    }

    #[test]
    fn moves_per_period_parse() {
        let tc = |s| TimeControl::parse(s).map_err(|e| e.to_string());
        assert_eq!(
            tc("40/60"),
            Ok(TimeControl {
                moves: Some(40),
                base_ms: 60_000,
                inc_ms: 0
            })
        );
        assert_eq!(
            tc(" 40/60+0.5").map(|t| (t.moves, t.base_ms, t.inc_ms)),
            Ok((Some(40), 60_000, 500))
        );
        assert_eq!(
            tc("20/1:30").map(|t| (t.moves, t.base_ms)),
            Ok((Some(20), 90_000))
        );
        assert_eq!(tc("40/60").unwrap().pgn(), "40/60");
        assert_eq!(tc("40/60+0.5").unwrap().pgn(), "40/60+0.5");
        assert_eq!(tc("40/0.5").unwrap().pgn(), "40/0.5");
        for bad in [
            "40/", "/60", "40/-1", "-40/60", "4.5/60", "x/60", "40/60/10", "40/60+",
        ] {
            let e = tc(bad).expect_err(bad);
            assert!(
                e.contains(&format!("'{bad}'")) && e.contains("40/60"),
                "{e}"
            );
        }
    }

    fn clock(text: &str) -> MoveLimit {
        MoveLimit::Clock(TimeControl::parse(text).unwrap())
    }

    #[test]
    fn clock_bookkeeping_with_increment() {
        let mut c = GameClock::new(clock("10+0.1"), clock("10+0.1"));
        assert_eq!(
            c.go_command(Color::White),
            "go wtime 10000 btime 10000 winc 100 binc 100"
        );
        assert!(c.charge(Color::White, 400, 100));
        assert_eq!(c.left_ms(Color::White), 9_700);
        assert_eq!(c.left_ms(Color::Black), 10_000);
        // Over the clock but within the margin: kept at 0, plus the increment.
        let mut c = GameClock::new(clock("1"), MoveLimit::Nodes(100));
        assert!(c.charge(Color::White, 1_050, 100));
        assert_eq!(c.left_ms(Color::White), 0);
        assert_eq!(
            c.go_command(Color::White),
            "go wtime 1 btime 1 winc 0 binc 0"
        );
        assert!(!c.charge(Color::White, 102, 100), "lost on time");
        // A side without a clock is never charged.
        assert!(c.charge(Color::Black, 1_000_000, 0));
    }

    #[test]
    fn a_moves_per_period_clock_refills() {
        // 3 moves in 1 s with 10 ms increment for White, 2 moves in 2 s for Black.
        let mut c = GameClock::new(clock("3/1+0.01"), clock("2/2"));
        assert_eq!(
            c.go_command(Color::White),
            "go wtime 1000 btime 2000 winc 10 binc 0 movestogo 3"
        );
        assert_eq!(
            c.go_command(Color::Black),
            "go wtime 1000 btime 2000 winc 10 binc 0 movestogo 2"
        );
        // White: 1000 -> 810 -> 620 -> 430 + 1000 (refill after the 3rd move) -> ...
        let mut white = Vec::new();
        for _ in 0..7 {
            white.push((c.moves_to_go(Color::White), c.left_ms(Color::White)));
            assert!(c.charge(Color::White, 200, 0));
        }
        assert_eq!(
            white,
            [
                (Some(3), 1000),
                (Some(2), 810),
                (Some(1), 620),
                (Some(3), 1430),
                (Some(2), 1240),
                (Some(1), 1050),
                (Some(3), 1860),
            ]
        );
        assert_eq!(c.left_ms(Color::White), 1670);
        // Black: 2000 -> 500 -> 0 + 2000 (used more than it had, within the margin) -> 1900.
        assert!(c.charge(Color::Black, 1_500, 0));
        assert_eq!(
            (c.moves_to_go(Color::Black), c.left_ms(Color::Black)),
            (Some(1), 500)
        );
        assert!(c.charge(Color::Black, 550, 100));
        assert_eq!(
            (c.moves_to_go(Color::Black), c.left_ms(Color::Black)),
            (Some(2), 2000)
        );
        assert!(c.charge(Color::Black, 100, 0));
        assert_eq!(
            c.go_command(Color::Black),
            "go wtime 1670 btime 1900 winc 10 binc 0 movestogo 1"
        );
        // Sudden death has no movestogo.
        let c = GameClock::new(clock("60"), clock("40/60"));
        assert_eq!(c.moves_to_go(Color::White), None);
        assert!(!c.go_command(Color::White).contains("movestogo"));
        assert!(c.go_command(Color::Black).ends_with(" movestogo 40"));
    }
}

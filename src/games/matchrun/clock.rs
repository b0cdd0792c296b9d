//! Time controls and per-move limits of a match.

use crate::games::Error;

/// A clock: base time plus increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl TimeControl {
    /// Parses `SECONDS[+INCREMENT]` (`10+0.1`, `60`, `0.5+0.01`) or `MIN:SEC+INC` (`1:30+1`).
    pub fn parse(text: &str) -> Result<TimeControl, Error> {
        let bad = || Error::TimeControl(text.to_string());
        let (base, inc) = match text.trim().split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (text.trim(), None),
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
        if base_s <= 0.0 || base_s > 86_400.0 || inc_s > 3_600.0 {
            return Err(bad());
        }
        Ok(TimeControl {
            base_ms: (base_s * 1000.0).round() as u64,
            inc_ms: (inc_s * 1000.0).round() as u64,
        })
    }

    /// The PGN `TimeControl` tag: seconds, `+` increment.
    pub fn pgn(&self) -> String {
        let s = |ms: u64| {
            if ms.is_multiple_of(1000) {
                (ms / 1000).to_string()
            } else {
                format!("{}", ms as f64 / 1000.0)
            }
        };
        if self.inc_ms == 0 {
            s(self.base_ms)
        } else {
            format!("{}+{}", s(self.base_ms), s(self.inc_ms))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        let tc = |s| TimeControl::parse(s).map_err(|e| e.to_string());
        assert_eq!(
            tc("10+0.1"),
            Ok(TimeControl {
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
    }
}

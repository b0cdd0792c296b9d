//! Match statistics: wins, losses and draws, Elo with its 95% error bar (the trinomial model of
//! cutechess-cli and fastchess), likelihood of superiority, and game pairs counted by their score
//! (the pentanomial model of fastchess and OpenBench) with their Elo and normalised Elo.

/// The 97.5% quantile of the standard normal distribution: a 95% two-sided interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Wins, losses and draws from the engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Tally {
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games())
    }

    /// Elo difference and the half-width of its 95% confidence interval (trinomial model, as
    /// cutechess-cli and fastchess compute it). Infinite when the score is 0% or 100%.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games());
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let s = self.score();
        let var = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n;
        let se = (var / n).sqrt();
        let lo = elo_of(s - Z95 * se);
        let hi = elo_of(s + Z95 * se);
        (elo_of(s), (hi - lo) / 2.0)
    }

    /// Likelihood of superiority: the chance that the engine is stronger, from wins and losses.
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
}

/// Game pairs (one opening played twice, colours swapped) counted by the engine's points in the
/// pair: 0, 0.5, 1, 1.5, 2 (LL, LD, DD or WL, WD, WW), as fastchess prints `Ptnml(0-2)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Counts a pair worth `points` (0 to 2) to the engine.
    pub fn add(&mut self, points: f64) {
        let i = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[i] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// The mean and variance of the pair score scaled to 0..1 (pair points / 2).
    pub fn mean_variance(&self) -> (f64, f64) {
        mean_variance(&self.counts.map(f64::from))
    }

    /// Elo difference and the half-width of its 95% interval from the variance of pair scores
    /// (fastchess, OpenBench). Infinite when every pair was won or every pair lost.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.pairs());
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let (s, var) = self.mean_variance();
        let half = Z95 * (var / n).sqrt();
        let (lo, hi) = (elo_of(s - half), elo_of(s + half));
        (elo_of(s), (hi - lo) / 2.0)
    }

    /// Normalised Elo (fastchess `nElo`: the score's distance from 0.5 in standard deviations of
    /// a game pair, scaled to Elo near 0) and its 95% half-width. `None` without spread.
    pub fn normalized_elo(&self) -> Option<(f64, f64)> {
        let n = f64::from(self.pairs());
        let (s, var) = self.mean_variance();
        if n == 0.0 || var <= 0.0 {
            return None;
        }
        let k = 800.0 / std::f64::consts::LN_10 / (2.0 * var).sqrt();
        Some(((s - 0.5) * k, Z95 * (var / n).sqrt() * k))
    }
}

/// Mean and variance of the five pair scores 0, 0.25, 0.5, 0.75, 1 weighted by `counts`.
pub(super) fn mean_variance(counts: &[f64; 5]) -> (f64, f64) {
    let n: f64 = counts.iter().sum();
    if n <= 0.0 {
        return (0.5, 0.0);
    }
    let score = |i: usize| i as f64 / 4.0;
    let mu = (0..5).map(|i| score(i) * counts[i]).sum::<f64>() / n;
    let var = (0..5)
        .map(|i| counts[i] * (score(i) - mu).powi(2))
        .sum::<f64>()
        / n;
    (mu, var)
}

/// The logistic Elo difference of an expected score.
pub(super) fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// Formats an Elo value with its error: `+210 ± 56`, `+3.5 ± 2.1` (a decimal under ±10),
/// `+inf` at 100%.
pub fn format_elo(elo: f64, err: f64) -> String {
    if !elo.is_finite() {
        return if elo > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        };
    }
    let decimals = usize::from(err.is_finite() && err < 10.0);
    // No "-0": a value that rounds to zero is shown as +0.
    let scale = 10f64.powi(decimals as i32);
    let elo = if (elo * scale).round() == 0.0 {
        0.0
    } else {
        elo
    };
    let err = if err.is_finite() {
        format!("{err:.decimals$}")
    } else {
        "inf".into()
    };
    format!("{elo:+.decimals$} ± {err}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_matches_the_usual_trinomial_formula() {
        // 147/39/14: score 0.77, Elo 209.9, 95% half-width 55.2 by the trinomial formula
        // (computed by hand; fastchess printed ± 56 from game pairs, a pentanomial model).
        let t = Tally {
            wins: 147,
            losses: 39,
            draws: 14,
        };
        let (elo, err) = t.elo();
        assert_eq!(format_elo(elo, err), "+210 ± 55");
        assert!((elo - 209.905).abs() < 0.01 && (err - 55.168).abs() < 0.01);
        let even = Tally {
            wins: 10,
            losses: 10,
            draws: 5,
        };
        assert!(even.elo().0.abs() < 1e-9);
        assert!((even.los() - 0.5).abs() < 1e-9);
        // 10/10/5: half-width 127.2 (the trinomial formula in python by hand).
        assert_eq!(format_elo(even.elo().0, even.elo().1), "+0 ± 127");
        assert_eq!(format_elo(-0.0, 0.0), "+0.0 ± 0.0");
        assert_eq!(format_elo(-0.04, 3.0), "+0.0 ± 3.0");
        assert_eq!(format_elo(-0.06, 3.04), "-0.1 ± 3.0");
        assert_eq!(format_elo(-5.2, f64::INFINITY), "-5 ± inf");
        let all = Tally {
            wins: 4,
            losses: 0,
            draws: 0,
        };
        assert_eq!(format_elo(all.elo().0, all.elo().1), "+inf");
        assert!((all.los() - 0.977_25).abs() < 1e-4, "{}", all.los());
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    }

    #[test]
    fn pairs_are_counted_by_their_points() {
        let mut p = Pentanomial::default();
        for points in [0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.0] {
            p.add(points);
        }
        assert_eq!(p.counts, [1, 1, 2, 1, 3]);
        assert_eq!(p.pairs(), 8);
        // Pair scores 0, .25, .5, .5, .75, 1, 1, 1: mean 5/8, variance
        // (0.625² + 0.375² + 2·0.125² + 0.125² + 3·0.375²) / 8 = 1/8.
        let (mu, var) = p.mean_variance();
        assert!((mu - 0.625).abs() < 1e-12 && (var - 0.125).abs() < 1e-12);
    }

    #[test]
    fn pentanomial_elo_matches_an_independent_computation() {
        // python3 scripts/match_stats_reference.py 25 180 410 230 35
        //   elo 13.8257540467024 error 9.84016550681191
        //   nelo 22.8363934468038 error 16.2317765472696
        let p = Pentanomial {
            counts: [25, 180, 410, 230, 35],
        };
        let (elo, err) = p.elo();
        assert!((elo - 13.825_754_046_702_4).abs() < 1e-9, "{elo}");
        assert!((err - 9.840_165_506_811_91).abs() < 1e-9, "{err}");
        assert_eq!(format_elo(elo, err), "+13.8 ± 9.8");
        let (nelo, nerr) = p.normalized_elo().unwrap();
        assert!((nelo - 22.836_393_446_803_8).abs() < 1e-9, "{nelo}");
        assert!((nerr - 16.231_776_547_269_6).abs() < 1e-9, "{nerr}");
        // python3 scripts/match_stats_reference.py 39 8843 26675 9240 44
        //   elo 1.57676294139968 error 1.03031404171501
        let big = Pentanomial {
            counts: [39, 8843, 26675, 9240, 44],
        };
        let (elo, err) = big.elo();
        assert!((elo - 1.576_762_941_399_68).abs() < 1e-9, "{elo}");
        assert!((err - 1.030_314_041_715_01).abs() < 1e-9, "{err}");
        // No spread: no normalised Elo; all pairs won: +inf.
        let dd = Pentanomial {
            counts: [0, 0, 3, 0, 0],
        };
        assert_eq!(dd.elo(), (0.0, 0.0));
        assert_eq!(dd.normalized_elo(), None);
        let ww = Pentanomial {
            counts: [0, 0, 0, 0, 2],
        };
        assert_eq!(ww.elo().0, f64::INFINITY);
        assert_eq!(Pentanomial::default().elo(), (0.0, 0.0));
    }
}

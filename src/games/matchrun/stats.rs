//! Match statistics: wins, losses and draws, Elo with its 95% error bar (the trinomial model of
//! cutechess-cli and fastchess), likelihood of superiority.

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
        let lo = elo_of(s - 1.959_964 * se);
        let hi = elo_of(s + 1.959_964 * se);
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

fn elo_of(score: f64) -> f64 {
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

/// Formats an Elo value with its error: `+210 ± 56`, `+inf` at 100%.
pub fn format_elo(elo: f64, err: f64) -> String {
    if !elo.is_finite() {
        return if elo > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        };
    }
    if err.is_finite() {
        format!("{elo:+.0} ± {err:.0}")
    } else {
        format!("{elo:+.0} ± inf")
    }
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
        let all = Tally {
            wins: 4,
            losses: 0,
            draws: 0,
        };
        assert_eq!(format_elo(all.elo().0, all.elo().1), "+inf");
        assert!((all.los() - 0.977_25).abs() < 1e-4, "{}", all.los());
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    }
}

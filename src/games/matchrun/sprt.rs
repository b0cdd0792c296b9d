//! The sequential probability ratio test of a match (`--sprt elo0,elo1,alpha,beta`): the
//! log-likelihood ratio of the pentanomial results under two logistic Elo hypotheses, computed
//! as fastchess and OpenBench/Fishtest do (the maximum-likelihood pentanomial distribution with a
//! given expected score, Van den Bergh's "Comments on Normalized Elo", proposition 1.1).

use super::stats::Pentanomial;
use crate::games::Error;

/// SPRT parameters: H0 is `elo <= elo0`, H1 is `elo >= elo1`; `alpha` and `beta` are the
/// chances of accepting H1 when H0 holds and H0 when H1 holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// The LLR fell to the lower bound: the engine is not `elo1` better.
    H0,
    /// The LLR reached the upper bound.
    H1,
}

impl Verdict {
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Continue => "continue",
            Verdict::H0 => "H0 accepted",
            Verdict::H1 => "H1 accepted",
        }
    }
}

impl Sprt {
    /// Parses `ELO0,ELO1,ALPHA,BETA`, e.g. `0,5,0.05,0.05`.
    pub fn parse(text: &str) -> Result<Sprt, Error> {
        let bad = |why: &'static str| Error::Sprt {
            text: text.to_string(),
            why,
        };
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 4 {
            return Err(bad(
                "four numbers ELO0,ELO1,ALPHA,BETA expected, e.g. 0,5,0.05,0.05",
            ));
        }
        let mut v = [0.0; 4];
        for (x, p) in v.iter_mut().zip(&parts) {
            *x = p
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or(bad("not a number"))?;
        }
        let [elo0, elo1, alpha, beta] = v;
        if elo0 >= elo1 {
            return Err(bad("elo0 must be less than elo1"));
        }
        if elo0.abs() > 2000.0 || elo1.abs() > 2000.0 {
            return Err(bad("Elo bounds beyond ±2000"));
        }
        if !(alpha > 0.0 && alpha < 1.0 && beta > 0.0 && beta < 1.0) {
            return Err(bad("alpha and beta must lie between 0 and 1"));
        }
        if alpha + beta > 1.0 {
            return Err(bad("alpha + beta must not exceed 1"));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The LLR bounds: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }

    /// The log-likelihood ratio of H1 against H0 given the game pairs so far (0 before any pair).
    /// Empty classes count as 0.001 pairs, as in fastchess and OpenBench.
    pub fn llr(&self, p: &Pentanomial) -> f64 {
        if p.pairs() == 0 {
            return 0.0;
        }
        let counts = p.counts.map(|c| if c == 0 { 1e-3 } else { f64::from(c) });
        let n: f64 = counts.iter().sum();
        let phat = counts.map(|c| c / n);
        let p0 = mle(&phat, score_of(self.elo0));
        let p1 = mle(&phat, score_of(self.elo1));
        n * (0..5)
            .map(|i| phat[i] * (p1[i].ln() - p0[i].ln()))
            .sum::<f64>()
    }
}

/// The expected score of a logistic Elo difference.
fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The distribution on pair scores a_i = i/4 closest (maximum likelihood) to `phat` with mean
/// `s`: p_i = phat_i / (1 + theta (a_i - s)), theta the root of sum phat_i (a_i - s) / (1 +
/// theta (a_i - s)) = 0, which decreases from +inf to -inf over the interval where every p_i > 0;
/// found by bisection.
fn mle(phat: &[f64; 5], s: f64) -> [f64; 5] {
    let d: [f64; 5] = std::array::from_fn(|i| i as f64 / 4.0 - s);
    let f = |theta: f64| -> f64 { (0..5).map(|i| phat[i] * d[i] / (1.0 + theta * d[i])).sum() };
    let (mut lo, mut hi) = (-1.0 / d[4], -1.0 / d[0]);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    std::array::from_fn(|i| phat[i] / (1.0 + theta * d[i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::matchrun::stats::mean_variance;

    /// The usual normal approximation of the same LLR: N (s1 - s0) (2 x - s0 - s1) / (2 var), with x
    /// and var the mean and variance of the pair scores (used by the tests as a sanity check).
    fn llr_approx(sprt: &Sprt, p: &Pentanomial) -> f64 {
        let counts = p.counts.map(|c| if c == 0 { 1e-3 } else { f64::from(c) });
        let n: f64 = counts.iter().sum();
        let (x, var) = mean_variance(&counts);
        let (s0, s1) = (score_of(sprt.elo0), score_of(sprt.elo1));
        n * (s1 - s0) * (2.0 * x - s0 - s1) / (2.0 * var)
    }

    fn sprt(text: &str) -> Sprt {
        Sprt::parse(text).unwrap()
    }

    #[test]
    fn parse_and_bounds() {
        let s = sprt("0,5,0.05,0.05");
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.05));
        // ln(0.05 / 0.95) = -2.944438979...
        let (lo, hi) = s.bounds();
        assert!(
            (lo + 2.944_438_979_166_44).abs() < 1e-12 && (hi - 2.944_438_979_166_44).abs() < 1e-12
        );
        assert_eq!(sprt(" -1.5, 0.5 ,0.1,0.2").elo0, -1.5);
        let (lo, hi) = sprt("-1000,1000,0.5,0.5").bounds();
        assert_eq!((lo, hi), (0.0, 0.0));
        for bad in [
            "",
            "0,5",
            "0,5,0.05",
            "0,5,0.05,0.05,1",
            "5,0,0.05,0.05",
            "0,0,0.05,0.05",
            "0,5,0,0.05",
            "0,5,0.05,1",
            "0,5,0.6,0.6",
            "a,5,0.05,0.05",
            "0,inf,0.05,0.05",
            "0,nan,0.05,0.05",
            "0,5000,0.05,0.05",
        ] {
            let e = Sprt::parse(bad).expect_err(bad).to_string();
            assert!(e.contains("--sprt"), "{bad}: {e}");
        }
    }

    #[test]
    fn verdicts_at_the_bounds() {
        let s = sprt("0,5,0.05,0.05");
        assert_eq!(s.verdict(0.0), Verdict::Continue);
        assert_eq!(s.verdict(2.95), Verdict::H1);
        assert_eq!(s.verdict(-2.95), Verdict::H0);
        // Bounds [0, 0]: any LLR decides at once.
        let s = sprt("-1000,1000,0.5,0.5");
        assert_ne!(s.verdict(1e-18), Verdict::Continue);
        assert_ne!(s.verdict(-1e-18), Verdict::Continue);
        assert_eq!(s.verdict(-1e-18), Verdict::H0);
    }

    #[test]
    fn llr_matches_an_independent_computation() {
        // Reference values from scripts/match_stats_reference.py (60-digit mpmath bisection):
        // python3 scripts/match_stats_reference.py LL LD DD WD WW ELO0 ELO1
        let cases: [([u32; 5], &str, f64, f64); 4] = [
            // llr 2.23390326195385 (approximation 2.25337660144034)
            (
                [25, 180, 410, 230, 35],
                "0,5,0.05,0.05",
                2.233_903_261_953_85,
                2.253_376_601_440_34,
            ),
            // llr 0.555517068723533 (approximation 0.555662988100875)
            (
                [39, 8843, 26675, 9240, 44],
                "0.5,2.5,0.05,0.05",
                0.555_517_068_723_533,
                0.555_662_988_100_875,
            ),
            // A zero count, regularised to 0.001: llr 0.628995764721365 (approximation 0.591303754711931)
            (
                [0, 3, 10, 4, 1],
                "-10,10,0.05,0.05",
                0.628_995_764_721_365,
                0.591_303_754_711_931,
            ),
            // One drawn pair, symmetric hypotheses: llr -1.04530418487577e-59
            (
                [0, 0, 1, 0, 0],
                "-1000,1000,0.5,0.5",
                0.0,
                -1.246_670_146_856_29e-58,
            ),
        ];
        for (counts, text, want, approx) in cases {
            let s = sprt(text);
            let p = Pentanomial { counts };
            let llr = s.llr(&p);
            assert!(
                (llr - want).abs() < 1e-9,
                "{counts:?} {text}: {llr} vs {want}"
            );
            let a = llr_approx(&s, &p);
            assert!(
                (a - approx).abs() < 1e-9,
                "{counts:?} {text}: {a} vs {approx}"
            );
        }
        assert_eq!(sprt("0,5,0.05,0.05").llr(&Pentanomial::default()), 0.0);
        // More wins raise the LLR, more losses lower it.
        let s = sprt("0,5,0.05,0.05");
        let base = s.llr(&Pentanomial {
            counts: [25, 180, 410, 230, 35],
        });
        let better = s.llr(&Pentanomial {
            counts: [25, 180, 410, 230, 45],
        });
        let worse = s.llr(&Pentanomial {
            counts: [35, 180, 410, 230, 35],
        });
        assert!(worse < base && base < better, "{worse} {base} {better}");
    }
}

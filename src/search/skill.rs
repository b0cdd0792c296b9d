//! Playing weaker on purpose, for people (`Skill Level`, `UCI_LimitStrength` with `UCI_Elo`):
//! the search looks at fewer nodes, and the move is drawn among the best four lines with a
//! random push that favours worse moves the lower the level (the rule of Stockfish's `Skill`),
//! so the engine errs as a weaker player does instead of blundering at random.
//!
//! `UCI_Elo` is mapped to a level by a fit of matches against Stockfish 15.1's own `UCI_Elo`
//! levels (BENCHMARKS.md, "Strength limiting").

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Lines searched to choose among.
pub const MULTIPV: usize = 4;
/// The `Skill Level` of full strength (no limit).
pub const MAX_LEVEL: f64 = 20.0;
/// The `UCI_Elo` range (Stockfish 15.1's scale, which the calibration measured against).
pub const ELO_MIN: i64 = 1350;
pub const ELO_MAX: i64 = 2600;

/// `UCI_Elo` to level: `level = (elo - ELO_AT_0) / ELO_PER_LEVEL`, fitted to the matches.
const ELO_AT_0: f64 = 1200.0;
const ELO_PER_LEVEL: f64 = 70.0;

/// A strength below full.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skill {
    /// 0 (weakest) ..= 20 (full strength), fractions allowed.
    pub level: f64,
    /// Seed of the random choice (the engine takes a fresh one per move).
    pub seed: u64,
}

impl Skill {
    /// The skill of `Skill Level` `level`, `None` at full strength.
    pub fn from_level(level: f64, seed: u64) -> Option<Skill> {
        (level < MAX_LEVEL).then_some(Skill {
            level: level.clamp(0.0, MAX_LEVEL),
            seed,
        })
    }

    /// The skill that plays about `elo` on Stockfish 15.1's `UCI_Elo` scale.
    pub fn from_elo(elo: i64, seed: u64) -> Option<Skill> {
        let elo = elo.clamp(ELO_MIN, ELO_MAX) as f64;
        Skill::from_level((elo - ELO_AT_0) / ELO_PER_LEVEL, seed)
    }

    /// Nodes a move may search at most: 100 at level 0, doubling every two levels.
    pub fn node_cap(&self) -> u64 {
        (100.0 * 2f64.powf(self.level / 2.0)) as u64
    }

    /// Chooses among lines by their `scores` (best first, from the side to move's view): each
    /// line's score gets a push, larger for worse lines and at lower levels, part of it random;
    /// the line with the best pushed score is played. Returns its index.
    pub fn pick(&self, scores: &[i32]) -> usize {
        let Some(&top) = scores.first() else {
            return 0;
        };
        let last = scores.last().copied().unwrap_or(top);
        let delta = f64::from((top - last).min(100));
        let weakness = 120.0 - 2.0 * self.level;
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, &score) in scores.iter().enumerate() {
            let push = (weakness * f64::from(top - score)
                + delta * rng.random_range(0.0..weakness.max(1.0)))
                / 128.0;
            let pushed = f64::from(score) + push;
            if pushed >= best.0 {
                best = (pushed, i);
            }
        }
        best.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(scores: &[i32]) -> Vec<i32> {
        scores.to_vec()
    }

    #[test]
    fn levels_and_elo() {
        assert!(Skill::from_level(20.0, 1).is_none());
        assert_eq!(
            Skill::from_elo(ELO_MAX + 500, 1),
            Skill::from_elo(ELO_MAX, 1)
        );
        let low = Skill::from_elo(ELO_MIN, 1).unwrap();
        let high = Skill::from_elo(ELO_MAX - 300, 1).unwrap();
        assert!(low.level < high.level);
        assert_eq!(Skill::from_level(0.0, 1).unwrap().node_cap(), 100);
        assert_eq!(Skill::from_level(10.0, 1).unwrap().node_cap(), 3200);
    }

    #[test]
    fn weak_players_pick_worse_moves_more_often() {
        let ls = lines(&[50, 20, -40, -150]);
        let share_of_best = |level: f64| {
            (0..2000u64)
                .filter(|&seed| Skill::from_level(level, seed).unwrap().pick(&ls) == 0)
                .count()
        };
        let (weak, strong) = (share_of_best(0.0), share_of_best(19.0));
        assert!(weak < strong, "{weak} {strong}");
        assert!(
            strong > 1000,
            "a strong level mostly plays the best line: {strong}"
        );
        // A lost position (mate scores below) never makes a weak player pick it over the best
        // line by more than the push allows.
        let mates = lines(&[0, -30000]);
        assert!((0..500u64).all(|s| Skill::from_level(0.0, s).unwrap().pick(&mates) == 0));
    }
}

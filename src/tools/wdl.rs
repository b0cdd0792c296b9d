//! `deepred wdl-fit`: fits the win/draw/loss model of `UCI_ShowWDL` ([`WdlModel`]) to finished
//! games: positions are drawn from the games (not from the opening, one in a few plies), each is
//! searched at a fixed depth, and the model's two parameters are chosen to make the games'
//! results most likely (maximum likelihood, over a grid refined around its best point).

use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use shakmaty::{Chess, Color, Position};

use crate::chess::pgn::read_games;
use crate::chess::rules::GameResult;
use crate::chess::score::{MATE_BOUND, WdlModel};
use crate::chess::zobrist::hash_of;
use crate::games::Error;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchParams, Shared, search};

#[derive(Clone, Debug)]
pub struct FitOptions {
    pub pgns: Vec<PathBuf>,
    /// Positions sampled at most.
    pub positions: usize,
    /// Search depth of each position.
    pub depth: u32,
    pub seed: u64,
}

/// A scored position: the search score and the game's result, both for the side to move.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub cp: i32,
    /// 1 won, 0.5 drawn, 0 lost.
    pub outcome: f64,
}

/// The result of a fit.
#[derive(Clone, Debug)]
pub struct Fit {
    pub model: WdlModel,
    pub samples: usize,
    /// Mean log-likelihood per position of the fitted model, and of "always the observed
    /// frequencies" (no information from the score), for comparison.
    pub log_likelihood: f64,
    pub baseline: f64,
}

/// Draws positions from the games of `o.pgns` and scores them.
pub fn samples(o: &FitOptions) -> Result<Vec<Sample>, Error> {
    let mut positions: Vec<(Chess, Vec<u64>, f64)> = Vec::new();
    let mut rng = StdRng::seed_from_u64(o.seed);
    for p in &o.pgns {
        let f = std::fs::File::open(p).map_err(|source| Error::Read {
            path: p.clone(),
            source,
        })?;
        let (mut read, mut first_error) = (0usize, None);
        for g in read_games(std::io::BufReader::new(f)) {
            let g = match g {
                Ok(g) => g,
                Err(e) => {
                    first_error.get_or_insert(e.to_string());
                    continue;
                }
            };
            read += 1;
            let Some(result) = g.result else { continue };
            let mut pos = g.start.clone();
            let mut history = Vec::new();
            for (ply, &m) in g.moves.iter().enumerate() {
                if ply >= 16 && rng.random_bool(0.2) && !pos.is_check() {
                    let white = match result {
                        GameResult::WhiteWins => 1.0,
                        GameResult::BlackWins => 0.0,
                        GameResult::Draw => 0.5,
                    };
                    let outcome = if pos.turn() == Color::White {
                        white
                    } else {
                        1.0 - white
                    };
                    positions.push((pos.clone(), history.clone(), outcome));
                }
                history.push(hash_of(&pos));
                pos.play_unchecked(m);
            }
        }
        // A file of no game at all (a folder, a binary file) is an error, not an empty input.
        if let (0, Some(why)) = (read, first_error) {
            return Err(Error::NoGames {
                path: p.clone(),
                why,
            });
        }
    }
    let chosen: Vec<&(Chess, Vec<u64>, f64)> = positions
        .choose_multiple(&mut rng, o.positions.min(positions.len()))
        .collect();
    Ok(chosen
        .par_iter()
        .map(|(pos, history, outcome)| {
            let tt = TranspositionTable::new(4);
            let mut params = SearchParams::new(pos.clone(), Limits::depth(o.depth));
            params.history = history.clone();
            let r = search(&params, &Shared::default(), &tt);
            Sample {
                cp: r.score,
                outcome: *outcome,
            }
        })
        .collect())
}

/// Mean log-likelihood of `samples` under `m` (mate scores left out).
fn log_likelihood(m: &WdlModel, samples: &[Sample]) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0f64;
    for s in samples.iter().filter(|s| s.cp.abs() < MATE_BOUND) {
        let (w, l) = m.probabilities(f64::from(s.cp));
        let d = (1.0 - w - l).max(1e-9);
        let p = if s.outcome > 0.75 {
            w
        } else if s.outcome < 0.25 {
            l
        } else {
            d
        };
        sum += p.max(1e-9).ln();
        n += 1.0;
    }
    sum / n.max(1.0)
}

/// The maximum-likelihood model of `samples`.
pub fn fit(samples: &[Sample]) -> Fit {
    let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (0.0f64, 1500.0f64, 10.0f64, 1000.0f64);
    let mut best = (f64::NEG_INFINITY, WdlModel { a: 0.0, b: 1.0 });
    for _ in 0..6 {
        for i in 0..=20 {
            for j in 0..=20 {
                let m = WdlModel {
                    a: a_lo + (a_hi - a_lo) * f64::from(i) / 20.0,
                    b: b_lo + (b_hi - b_lo) * f64::from(j) / 20.0,
                };
                let ll = log_likelihood(&m, samples);
                if ll > best.0 {
                    best = (ll, m);
                }
            }
        }
        let (da, db) = ((a_hi - a_lo) / 10.0, (b_hi - b_lo) / 10.0);
        (a_lo, a_hi) = ((best.1.a - da).max(0.0), best.1.a + da);
        (b_lo, b_hi) = ((best.1.b - db).max(1.0), best.1.b + db);
    }
    let n = samples.len().max(1) as f64;
    let freq = |f: &dyn Fn(f64) -> bool| samples.iter().filter(|s| f(s.outcome)).count() as f64 / n;
    let (w, l) = (freq(&|o| o > 0.75), freq(&|o| o < 0.25));
    let d = 1.0 - w - l;
    let baseline = [(w, w), (l, l), (d, d)]
        .iter()
        .map(|&(share, p)| share * p.max(1e-9).ln())
        .sum();
    Fit {
        model: best.1,
        samples: samples.len(),
        log_likelihood: best.0,
        baseline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples drawn from a known model come back to it.
    #[test]
    fn recovers_a_known_model() {
        let truth = WdlModel { a: 250.0, b: 90.0 };
        let mut rng = StdRng::seed_from_u64(3);
        let samples: Vec<Sample> = (0..10_000)
            .map(|_| {
                let cp = rng.random_range(-900..=900);
                let (w, l) = truth.probabilities(f64::from(cp));
                let u: f64 = rng.random();
                let outcome = if u < w {
                    1.0
                } else if u < w + l {
                    0.0
                } else {
                    0.5
                };
                Sample { cp, outcome }
            })
            .collect();
        let f = fit(&samples);
        assert!((f.model.a - 250.0).abs() < 25.0, "{:?}", f.model);
        assert!((f.model.b - 90.0).abs() < 15.0, "{:?}", f.model);
        assert!(f.log_likelihood > f.baseline);
    }
}

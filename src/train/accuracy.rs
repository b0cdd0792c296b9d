//! `deepred nn accuracy`: how often a net is right on positions drawn from PGN games by the data
//! set rules, and how fast it runs on one core.
//!
//! - DeepChess: pairs (a position from a game White won, one from a game Black won, in random
//!   order); right when the comparator prefers the one from the game White won.
//! - Deep Pink: triplets (p, q, r); right when f(q) < f(r), i.e. the position after the move
//!   played is worse for the opponent (who moves in q and r) than after a random other move.
//!
//! Speeds are measured single-threaded on those positions, without any cache: Pos2Vec (or Deep
//! Pink's f) from scratch, and from a ready first-layer accumulator (what the incremental first
//! layer leaves to do), and comparator calls on ready vectors.

use std::path::PathBuf;
use std::time::Instant;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use shakmaty::Chess;

use super::Error;
use super::data::{deepchess_positions, deeppink_triplets, game_rng, is_validation};
use crate::chess::pgn::{PgnGame, read_games};
use crate::chess::rules::GameResult;
use crate::nn::features;
use crate::nn::net::{Kind, NetFile};
use crate::nn::{DeepChess, DeepPink};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    All,
    Train,
    Validation,
}

#[derive(Clone, Debug)]
pub struct AccuracyOptions {
    pub net: PathBuf,
    pub pgns: Vec<PathBuf>,
    /// A `deepred dataset` file instead of `pgns`.
    pub dataset: Option<PathBuf>,
    /// Pairs (DeepChess) or triplets (Deep Pink) to score.
    pub samples: usize,
    pub seed: u64,
    pub split: Split,
    pub val_fraction: f64,
    pub per_game: usize,
    /// Score only games from files whose path contains this text (all files still count for
    /// the split's numbering and the skipping of repeats).
    pub only: Option<String>,
    /// Cross-game pairs are also scored as the comparator search decides them: by material
    /// when the SEE-resolved balances differ by at least this much, else by the net.
    pub material_margin: i32,
}

/// Reads the games with their global index (as `deepred dataset` numbers them), keeping those
/// of the requested split.
fn load_games(o: &AccuracyOptions) -> Result<Vec<(u64, PgnGame)>, Error> {
    let mut out = Vec::new();
    let mut index = 0u64;
    // Repeats of a game are skipped, as `deepred dataset` skips them.
    let mut seen = std::collections::HashSet::new();
    for p in &o.pgns {
        let scored = o
            .only
            .as_ref()
            .is_none_or(|t| p.to_string_lossy().contains(t.as_str()));
        let f = std::fs::File::open(p).map_err(|source| Error::Read {
            path: p.clone(),
            source,
        })?;
        let (mut read, mut first_error) = (0usize, None);
        for g in read_games(std::io::BufReader::new(f)) {
            let i = index;
            index += 1;
            let g = match g {
                Ok(g) => g,
                Err(e) => {
                    first_error.get_or_insert(e.reason);
                    continue;
                }
            };
            read += 1;
            if !seen.insert(super::data::game_key(&g)) {
                continue;
            }
            let val = is_validation(o.seed, i, o.val_fraction);
            let keep = match o.split {
                Split::All => true,
                Split::Train => !val,
                Split::Validation => val,
            };
            if keep && scored {
                out.push((i, g));
            }
        }
        // A file of no game at all (a folder, a binary file) is an error, not an empty input.
        if let (0, Some(why)) = (read, first_error) {
            return Err(Error::NoData(format!(
                "'{}': no game could be read ({why})",
                p.display()
            )));
        }
    }
    Ok(out)
}

/// Seconds this thread has run on a CPU (Linux `schedstat`), else wall-clock seconds since the
/// first call: rates stay right on a machine busy with other work.
pub fn thread_seconds() -> f64 {
    static EPOCH: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);
    #[cfg(target_os = "linux")]
    let cpu_ns = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .filter(|&ns| ns > 0);
    #[cfg(not(target_os = "linux"))]
    let cpu_ns: Option<u64> = None;
    cpu_ns.map_or_else(|| EPOCH.elapsed().as_secs_f64(), |ns| ns as f64 / 1e9)
}

/// Runs `f` over `items` repeatedly until this thread has run at least 0.3 s; returns items per
/// second of this thread's time.
pub fn rate<T>(items: &[T], mut f: impl FnMut(&T)) -> f64 {
    let start = thread_seconds();
    let mut n = 0u64;
    loop {
        for x in items {
            f(x);
        }
        n += items.len() as u64;
        if thread_seconds() - start >= 0.3 || items.is_empty() {
            break;
        }
    }
    n as f64 / (thread_seconds() - start).max(1e-9)
}

/// Scores the net; returns the report's lines.
pub fn run(o: &AccuracyOptions) -> Result<String, Error> {
    let file = NetFile::load(&o.net, None)?;
    if let Some(path) = &o.dataset {
        return from_dataset(&file, path, o);
    }
    let games = load_games(o)?;
    if games.is_empty() {
        return Err(Error::NoData(match &o.only {
            Some(t) => {
                format!("no games to score: none of the chosen split in files matching '{t}'")
            }
            None => "no games to score in the chosen split".into(),
        }));
    }
    match file.kind {
        Kind::DeepChess => deepchess(&DeepChess::from_file(&file)?, &games, o),
        Kind::DeepPink => deeppink(&DeepPink::from_file(&file)?, &games, o),
        Kind::Learned => Err(Error::NoData(
            "accuracy scores DeepChess pairs and Deep Pink triplets; the learned net's held-out loss is in its training log".into(),
        )),
    }
}

fn deepchess(
    net: &DeepChess,
    games: &[(u64, PgnGame)],
    o: &AccuracyOptions,
) -> Result<String, Error> {
    let per_game: Vec<(bool, Vec<Chess>)> = games
        .par_iter()
        .map(|(i, g)| {
            let white = g.result == Some(GameResult::WhiteWins);
            let ps = deepchess_positions(g, &mut game_rng(o.seed, *i));
            (white, ps.into_iter().map(|(_, p)| p).collect())
        })
        .collect();
    let mut white_pool = Vec::new();
    let mut black_pool = Vec::new();
    for (white, ps) in per_game {
        if white {
            white_pool.extend(ps);
        } else {
            black_pool.extend(ps);
        }
    }
    let head = format!(
        "games: {} ({:?} split), positions: {} from games White won, {} from games Black won",
        games.len(),
        o.split,
        white_pool.len(),
        black_pool.len()
    );
    cross_pairs(net, &white_pool, &black_pool, o, &head)
}

/// Pair accuracy of `net` and of the pst evaluation on pairs (a position of a game White won,
/// one of a game Black won, in random order), and the net's speeds.
fn cross_pairs(
    net: &DeepChess,
    white_pool: &[Chess],
    black_pool: &[Chess],
    o: &AccuracyOptions,
    head: &str,
) -> Result<String, Error> {
    if white_pool.is_empty() || black_pool.is_empty() {
        return Err(Error::NoData(format!(
            "need positions from games won by each side ({} from White wins, {} from Black wins)",
            white_pool.len(),
            black_pool.len()
        )));
    }
    let feats: Vec<features::Features> = white_pool
        .iter()
        .chain(black_pool)
        .map(features::deepchess)
        .collect();
    let vecs: Vec<Vec<f32>> = feats.par_iter().map(|f| net.pos2vec_features(f)).collect();
    let (wv, bv) = vecs.split_at(white_pool.len());
    let mut rng = rand::rngs::StdRng::seed_from_u64(o.seed ^ 0xACC);
    // Pairs of indices: (into white_pool, into black_pool, whether the White-win one is first).
    let mut index_pairs = Vec::with_capacity(o.samples);
    for _ in 0..o.samples {
        let w = rng.random_range(0..wv.len());
        let b = rng.random_range(0..bv.len());
        index_pairs.push((w, b, rng.random_bool(0.5)));
    }
    let pairs: Vec<(&Vec<f32>, &Vec<f32>, bool)> = index_pairs
        .iter()
        .map(|&(w, b, first)| {
            if first {
                (&wv[w], &bv[b], true)
            } else {
                (&bv[b], &wv[w], false)
            }
        })
        .collect();
    // Per pair: is the net right, and the White-win position's material minus the other's.
    let mat_w: Vec<i32> = white_pool.par_iter().map(material).collect();
    let mat_b: Vec<i32> = black_pool.par_iter().map(material).collect();
    let judged: Vec<(bool, i32)> = pairs
        .par_iter()
        .zip(&index_pairs)
        .map(|((a, b, first_white), &(w, bi, _))| {
            (
                (net.compare(a, b) > 0.5) == *first_white,
                mat_w[w] - mat_b[bi],
            )
        })
        .collect();
    let right = judged.iter().filter(|j| j.0).count();
    // As the comparator search decides: material when it differs enough, else the net.
    let searched = judged
        .iter()
        .filter(|&&(net_right, diff)| {
            if diff.abs() >= o.material_margin {
                diff > 0
            } else {
                net_right
            }
        })
        .count();
    // The same pairs judged by the pst evaluation (from White's side): the reference a net
    // should beat. A tie counts as half right.
    let pst_w: Vec<i32> = white_pool.par_iter().map(white_pst).collect();
    let pst_b: Vec<i32> = black_pool.par_iter().map(white_pst).collect();
    let pst_of: Vec<f64> = index_pairs
        .iter()
        .map(|&(w, b, _)| match pst_w[w].cmp(&pst_b[b]) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        })
        .collect();
    let pst_right: f64 = pst_of.iter().sum();
    // Pairs of equal material, where material says nothing: the net against pst.
    let equal: Vec<usize> = (0..judged.len()).filter(|&i| judged[i].1 == 0).collect();
    let eq_net = equal.iter().filter(|&&i| judged[i].0).count();
    let eq_pst: f64 = equal.iter().map(|&i| pst_of[i]).sum();
    // Speed, one thread, no cache.
    let scratch_rate = rate(&feats, |f| {
        std::hint::black_box(net.pos2vec_features(f));
    });
    let accs: Vec<crate::nn::layers::AVec> = feats
        .iter()
        .take(20_000)
        .map(|f| {
            let mut a = crate::nn::layers::AVec::zeros(net.acc_len());
            net.refresh(f, &mut a);
            a
        })
        .collect();
    let mut out = vec![0.0; net.embed_len()];
    let acc_rate = rate(&accs, |a| {
        net.pos2vec_from_acc(a, &mut out);
        std::hint::black_box(&out);
    });
    let cmp_rate = rate(&pairs, |(a, b, _)| {
        std::hint::black_box(net.compare(a, b));
    });
    Ok(format!(
        "net: {}\n\
         {head}\n\
         pair accuracy: {:.2}% ({right} of {} pairs)\n\
         pst evaluation on the same pairs: {:.2}%\n\
         as the comparator search decides (material when the SEE-resolved balances differ by at least {} cp, else the net): {:.2}%\n\
         pairs of equal SEE-resolved material: {}, net {:.2}%, pst evaluation {:.2}%\n\
         Pos2Vec from scratch: {:.0} positions/s (one thread's CPU time, no cache)\n\
         Pos2Vec from a first-layer accumulator: {:.0} positions/s\n\
         comparisons: {:.0}/s\n\
         kernels: {}\n",
        net.description,
        100.0 * right as f64 / pairs.len().max(1) as f64,
        pairs.len(),
        100.0 * pst_right / pairs.len().max(1) as f64,
        o.material_margin,
        100.0 * searched as f64 / pairs.len().max(1) as f64,
        equal.len(),
        100.0 * eq_net as f64 / equal.len().max(1) as f64,
        100.0 * eq_pst / equal.len().max(1) as f64,
        scratch_rate,
        acc_rate,
        cmp_rate,
        crate::nn::layers::kernel_name(net.simd)
    ))
}

fn deeppink(
    net: &DeepPink,
    games: &[(u64, PgnGame)],
    o: &AccuracyOptions,
) -> Result<String, Error> {
    let triplets: Vec<[Chess; 3]> = games
        .par_iter()
        .flat_map_iter(|(i, g)| {
            deeppink_triplets(g, o.per_game, &mut game_rng(o.seed, *i))
                .into_iter()
                .map(|t| [t.p, t.q, t.r])
        })
        .collect();
    let head = format!("games: {} ({:?} split)", games.len(), o.split);
    triplet_accuracy(net, triplets, o, &head)
}

/// Triplet accuracy of `net` (f(q) < f(r)) and its speeds.
fn triplet_accuracy(
    net: &DeepPink,
    mut triplets: Vec<[Chess; 3]>,
    o: &AccuracyOptions,
    head: &str,
) -> Result<String, Error> {
    if triplets.is_empty() {
        return Err(Error::NoData(
            "no triplets: the games are too short or missing".into(),
        ));
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(o.seed ^ 0xACC);
    if triplets.len() > o.samples {
        triplets = triplets
            .choose_multiple(&mut rng, o.samples)
            .cloned()
            .collect();
    }
    let scores: Vec<(f32, f32)> = triplets
        .par_iter()
        .map(|[_, q, r]| (net.forward(q), net.forward(r)))
        .collect();
    let right = scores.iter().filter(|(q, r)| q < r).count();
    let ties = scores.iter().filter(|(q, r)| q == r).count();
    let positions: Vec<features::Features> = triplets
        .iter()
        .flat_map(|t| {
            t.iter()
                .map(|p| features::deeppink(p, shakmaty::Position::turn(p)))
        })
        .collect();
    let scratch_rate = rate(&positions, |f| {
        let mut a = crate::nn::layers::AVec::zeros(net.acc_len());
        net.first.refresh(f, &mut a, net.simd);
        std::hint::black_box(net.forward_from_acc(&a));
    });
    let accs: Vec<crate::nn::layers::AVec> = positions
        .iter()
        .take(20_000)
        .map(|f| {
            let mut a = crate::nn::layers::AVec::zeros(net.acc_len());
            net.first.refresh(f, &mut a, net.simd);
            a
        })
        .collect();
    let acc_rate = rate(&accs, |a| {
        std::hint::black_box(net.forward_from_acc(a));
    });
    Ok(format!(
        "net: {}\n\
         {head}\n\
         triplet accuracy (f(q) < f(r)): {:.2}% ({right} of {}; {ties} ties)\n\
         evaluations from scratch: {:.0} positions/s (one thread's CPU time)\n\
         evaluations from a first-layer accumulator: {:.0} positions/s\n\
         kernels: {}\n",
        net.description,
        100.0 * right as f64 / scores.len() as f64,
        scores.len(),
        scratch_rate,
        acc_rate,
        crate::nn::layers::kernel_name(net.simd)
    ))
}

/// The pst evaluation of `p` from White's side.
fn white_pst(p: &Chess) -> i32 {
    let e = crate::eval::pst::evaluate(p);
    if shakmaty::Position::turn(p) == shakmaty::Color::White {
        e
    } else {
        -e
    }
}

/// White's SEE-resolved material balance, as the comparator search's leaves carry it.
fn material(p: &Chess) -> i32 {
    crate::chess::see::resolved_material(p, &shakmaty::Position::legal_moves(p))
}

/// Accuracy on the records of a `deepred dataset` file of the chosen split (its split byte).
fn from_dataset(
    file: &NetFile,
    path: &std::path::Path,
    o: &AccuracyOptions,
) -> Result<String, Error> {
    use super::data::{self, BOARD_LEN};
    let set = data::read(path)?;
    let split_at = match set.kind {
        Kind::DeepChess => BOARD_LEN + 1,
        _ => 3 * BOARD_LEN,
    };
    let keep = |r: &Vec<u8>| match o.split {
        Split::All => true,
        Split::Train => r[split_at] == 0,
        Split::Validation => r[split_at] == 1,
    };
    let records: Vec<&Vec<u8>> = set.records.iter().filter(|r| keep(r)).collect();
    let board = |r: &[u8], k: usize| data::decode(&data::board_at(r, k * BOARD_LEN));
    let head = format!(
        "data set: {} ({:?} split, {} records)",
        path.display(),
        o.split,
        records.len()
    );
    match (file.kind, set.kind) {
        (Kind::DeepChess, Kind::DeepChess) => {
            let (mut w, mut b) = (Vec::new(), Vec::new());
            for r in &records {
                let pos = board(r, 0)?;
                if r[BOARD_LEN] == 1 {
                    w.push(pos)
                } else {
                    b.push(pos)
                }
            }
            let head = format!(
                "{head}, positions: {} from games White won, {} from games Black won",
                w.len(),
                b.len()
            );
            cross_pairs(&DeepChess::from_file(file)?, &w, &b, o, &head)
        }
        (Kind::DeepChess, Kind::DeepPink) => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(o.seed ^ 0x51B);
            let chosen: Vec<&&Vec<u8>> = if records.len() > o.samples {
                records.choose_multiple(&mut rng, o.samples).collect()
            } else {
                records.iter().collect()
            };
            let mut pairs = Vec::with_capacity(chosen.len());
            for r in chosen {
                // q (after the best move) is the better for White when White moves at p.
                pairs.push((board(r, 1)?, board(r, 2)?, r[64] == 0));
            }
            sibling_pairs(&DeepChess::from_file(file)?, &pairs, &head)
        }
        (Kind::DeepPink, Kind::DeepPink) => {
            let mut triplets = Vec::with_capacity(records.len());
            for r in &records {
                triplets.push([board(r, 0)?, board(r, 1)?, board(r, 2)?]);
            }
            triplet_accuracy(&DeepPink::from_file(file)?, triplets, o, &head)
        }
        (net, set_kind) => Err(Error::NoData(format!(
            "a {} net is not scored on a {} data set (DeepChess: deepchess or deeppink data sets; Deep Pink: deeppink)",
            net.name(),
            set_kind.name()
        ))),
    }
}

/// Sibling-pair accuracy: (q, r, q better for White); the net is right when it prefers the
/// better child for White, whichever order the pair comes in; the pst evaluation (static,
/// White's side) on the same pairs, a tie half right.
fn sibling_pairs(
    net: &DeepChess,
    pairs: &[(Chess, Chess, bool)],
    head: &str,
) -> Result<String, Error> {
    if pairs.is_empty() {
        return Err(Error::NoData("no sibling pairs in the chosen split".into()));
    }
    let scored: Vec<(bool, f64, bool)> = pairs
        .par_iter()
        .enumerate()
        .map(|(i, (q, r, q_white))| {
            let vq = net.pos2vec_features(&features::deepchess(q));
            let vr = net.pos2vec_features(&features::deepchess(r));
            // Alternate the order, so that a bias for the first or second slot cannot help.
            let q_first = i % 2 == 0;
            let p = if q_first {
                net.compare(&vq, &vr)
            } else {
                net.compare(&vr, &vq)
            };
            let first_better = p > 0.5;
            let right = first_better == (q_first == *q_white);
            let (sq, sr) = (white_pst(q), white_pst(r));
            let pst = match sq.cmp(&sr) {
                std::cmp::Ordering::Equal => 0.5,
                o => f64::from(u8::from((o == std::cmp::Ordering::Greater) == *q_white)),
            };
            (right, pst, material(q) == material(r))
        })
        .collect();
    let right = scored.iter().filter(|s| s.0).count();
    let pst: f64 = scored.iter().map(|s| s.1).sum();
    let equal: Vec<&(bool, f64, bool)> = scored.iter().filter(|s| s.2).collect();
    let eq_right = equal.iter().filter(|s| s.0).count();
    let eq_pst: f64 = equal.iter().map(|s| s.1).sum();
    Ok(format!(
        "net: {}\n\
         {head}\n\
         sibling pair accuracy (the child after the searched best move against the child after a random other move): {:.2}% ({right} of {} pairs)\n\
         pst evaluation on the same pairs: {:.2}%\n\
         pairs whose children have equal SEE-resolved material (what the comparator search asks the net): {:.2}% ({eq_right} of {}), pst evaluation {:.2}%\n",
        net.description,
        100.0 * right as f64 / pairs.len() as f64,
        pairs.len(),
        100.0 * pst / pairs.len() as f64,
        100.0 * eq_right as f64 / equal.len().max(1) as f64,
        equal.len(),
        100.0 * eq_pst / equal.len().max(1) as f64
    ))
}

//! The learned value net (`Evaluator=learned`): an NNUE-style perspective net trained on Deep
//! Red's own games (`deepred datagen`, `deepred train learned`).
//!
//! Architecture `(768 -> H) x 2 -> 1` (`x B` output buckets): one feature transformer
//! (deeppink768 features, the same weights for both views) gives an accumulator for the side to
//! move and one for the opponent; the output is `w . [screlu(us), screlu(them)] + b` with
//! `screlu(x) = clamp(x, 0, 1)^2`, and centipawns are `output * 400` (the trainer fits
//! `sigmoid(output)` to the game's expected score). With `B` output buckets the output layer
//! has `B` rows and a position uses the row of its material ([`output_bucket`], bullet's
//! `MaterialCount<B>`): the same accumulators, a different last layer for the opening, the
//! middlegame and the endings. The file holds the trainer's f32 weights (`ft.weight [H, 768]`,
//! `ft.bias [H]`, `out.weight [B, 2H]`, `out.bias [B]`; `B` is 1, 2, 4 or 8); they are quantised
//! when loaded:
//! feature transformer `round(w * 255)` (i16), output weights `round(w * 64)` clamped to ±127 (so
//! that a clamped activation times a weight fits an i16, the AVX2 kernel's `madd` trick), output
//! bias `round(b * 255 * 64)` (i32). The accumulators are i16, updated move by move (add and
//! subtract the pieces a move changes). The AVX2 kernel and the portable one compute exactly the
//! same integers.

use std::path::Path;

use shakmaty::{Chess, Color, Move, Position};

use super::features::{self, DEEPPINK_INPUTS, MoveDelta};
use super::layers::SIMD;
use super::net::{Kind, NetFile};
use super::{Error, Problem};

/// Quantisation of the feature transformer: 1.0 = 255.
pub const QA: i32 = 255;
/// Quantisation of the output weights: 1.0 = 64.
pub const QB: i32 = 64;
/// Centipawns of an output of 1.0.
pub const SCALE: i32 = 400;
/// The widest hidden layer the AVX2 kernel sums without overflow (see [`screlu_dot_avx2`]).
pub const MAX_HIDDEN: usize = 2048;
/// The numbers of output buckets a net may have.
pub const OUTPUT_BUCKETS: [usize; 4] = [1, 2, 4, 8];

/// The output bucket of a position with `pieces` pieces (kings included) in a net with
/// `buckets` of them: bullet's `MaterialCount<buckets>`, `(pieces - 2) / (32 / buckets)`, so that
/// a net trained there with the same count reads the same rows.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) / (32 / buckets)).min(buckets - 1)
}

/// The `architecture` metadata of a net: `(768-H)x2-1`, with `x B` for output buckets.
pub fn architecture(hidden: usize, buckets: usize) -> String {
    if buckets == 1 {
        format!("(768-{hidden})x2-1")
    } else {
        format!("(768-{hidden})x2-1x{buckets}")
    }
}

/// `Ok` when a learned net may have `buckets` output buckets; else the problem, which says the
/// numbers it may have.
pub fn check_buckets(buckets: usize) -> Result<(), Problem> {
    if OUTPUT_BUCKETS.contains(&buckets) {
        Ok(())
    } else {
        Err(Problem::Buckets {
            buckets,
            allowed: OUTPUT_BUCKETS.to_vec(),
        })
    }
}

/// Whether training a net of `buckets` output buckets can start from one of `from`: the same
/// number, or one bucket (it grows into `buckets` copies of its output row).
pub fn grows_into(from: usize, buckets: usize) -> bool {
    from == buckets || from == 1
}

#[derive(Debug)]
pub struct ValueNet {
    pub hidden: usize,
    /// Feature-major: feature `f`'s `hidden` weights at `f * hidden`.
    ft_w: Vec<i16>,
    ft_b: Vec<i16>,
    /// Output buckets ([`OUTPUT_BUCKETS`]).
    pub buckets: usize,
    /// By bucket, `2 * hidden` each: the side to move's half, then the opponent's.
    out_w: Vec<i16>,
    out_b: Vec<i32>,
    pub simd: bool,
    pub description: String,
}

fn quantise(v: f32, q: i32, limit: i32) -> i32 {
    ((v * q as f32).round() as i32).clamp(-limit, limit)
}

impl ValueNet {
    pub fn load(path: &Path) -> Result<ValueNet, Error> {
        let f = NetFile::load(path, Some(Kind::Learned))?;
        Self::from_file(&f)
    }

    pub fn from_file(f: &NetFile) -> Result<ValueNet, Error> {
        let (ins, hidden, w, b) = f.linear("ft", Some(DEEPPINK_INPUTS), None)?;
        debug_assert_eq!(ins, DEEPPINK_INPUTS);
        let (_, buckets, ow, ob) = f.linear("out", Some(2 * hidden), None)?;
        check_buckets(buckets).map_err(|p| Error::net(&f.path, p))?;
        // Weights far outside what training gives would overflow the integer kernels.
        let big = |name: &str, v: &[f32], limit: f32| {
            if v.iter().any(|x| x.abs() > limit) {
                Err(Error::net(
                    &f.path,
                    Problem::Range {
                        name: name.to_string(),
                        limit,
                    },
                ))
            } else {
                Ok(())
            }
        };
        if hidden > MAX_HIDDEN {
            return Err(Error::net(
                &f.path,
                Problem::TooWide {
                    hidden,
                    max: MAX_HIDDEN,
                },
            ));
        }
        big("ft.weight", w, 64.0)?;
        big("ft.bias", b, 64.0)?;
        big("out.bias", ob, 64.0)?;
        // A hidden unit's accumulator is its bias plus the weights of at most 32 pieces, in
        // i16 after quantisation by QA: its largest possible size must fit.
        let mut column = vec![0f32; DEEPPINK_INPUTS];
        for h in 0..hidden {
            for (i, c) in column.iter_mut().enumerate() {
                *c = w[h * DEEPPINK_INPUTS + i].abs();
            }
            column.select_nth_unstable_by(31, |a, b| b.total_cmp(a));
            let most = b[h].abs() + column[..32].iter().sum::<f32>();
            if most * QA as f32 > 32_767.0 {
                return Err(Error::net(
                    &f.path,
                    Problem::Range {
                        name: format!("ft (hidden unit {h}: bias and 32 pieces' weights)"),
                        limit: 32_767.0 / QA as f32,
                    },
                ));
            }
        }
        // `w` is [hidden, 768] (PyTorch layout): transpose to feature-major.
        let mut ft_w = vec![0i16; DEEPPINK_INPUTS * hidden];
        for h in 0..hidden {
            for i in 0..DEEPPINK_INPUTS {
                ft_w[i * hidden + h] = quantise(w[h * DEEPPINK_INPUTS + i], QA, 32_767) as i16;
            }
        }
        let ft_b = b.iter().map(|&v| quantise(v, QA, 32_767) as i16).collect();
        let out_w = ow.iter().map(|&v| quantise(v, QB, 127) as i16).collect();
        let out_b = ob
            .iter()
            .map(|&b| quantise(b, QA * QB, i32::MAX / 4))
            .collect();
        let outputs = if buckets == 1 {
            "1".to_string()
        } else {
            format!("1x{buckets}")
        };
        Ok(ValueNet {
            hidden,
            ft_w,
            ft_b,
            buckets,
            out_w,
            out_b,
            simd: *SIMD,
            description: format!("learned (768->{hidden})x2->{outputs}, {}", f.provenance()),
        })
    }

    /// The accumulator of `persp`'s view of `pos`, from scratch.
    pub fn refresh(&self, pos: &Chess, persp: Color, acc: &mut [i16]) {
        acc.copy_from_slice(&self.ft_b);
        for f in features::deeppink(pos, persp) {
            add(acc, self.row(f));
        }
    }

    #[inline]
    fn row(&self, f: u16) -> &[i16] {
        let i = usize::from(f) * self.hidden;
        &self.ft_w[i..i + self.hidden]
    }

    /// Centipawns for the side to move of a position with `pieces` pieces, from its
    /// accumulator `us` and the opponent's `them`.
    #[inline]
    pub fn output_cp(&self, us: &[i16], them: &[i16], pieces: usize) -> i32 {
        let h = self.hidden;
        let k = output_bucket(pieces, self.buckets);
        let w = &self.out_w[2 * h * k..2 * h * (k + 1)];
        let sum = if self.simd {
            screlu_dot(us, &w[..h], true) + screlu_dot(them, &w[h..], true)
        } else {
            screlu_dot(us, &w[..h], false) + screlu_dot(them, &w[h..], false)
        };
        // sum is in QA*QA*QB units; one QA goes before the bias is added.
        let out = sum / i64::from(QA) + i64::from(self.out_b[k]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// Centipawns for the side to move, from scratch.
    pub fn evaluate_cp(&self, pos: &Chess) -> i32 {
        let mut us = vec![0i16; self.hidden];
        let mut them = vec![0i16; self.hidden];
        self.refresh(pos, pos.turn(), &mut us);
        self.refresh(pos, !pos.turn(), &mut them);
        self.output_cp(&us, &them, pieces(pos))
    }
}

/// The pieces on the board, kings included (what [`output_bucket`] counts).
#[inline]
fn pieces(pos: &Chess) -> usize {
    pos.board().occupied().count()
}

#[inline]
fn add(acc: &mut [i16], row: &[i16]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*w);
    }
}

#[inline]
fn sub(acc: &mut [i16], row: &[i16]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*w);
    }
}

/// `sum(clamp(v, 0, QA)^2 * w)` over the accumulator, in i64.
#[inline]
fn screlu_dot(v: &[i16], w: &[i16], simd: bool) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if simd && v.len().is_multiple_of(16) {
        // SAFETY: `simd` is true only where AVX2 was detected at run time (`layers::SIMD`).
        return unsafe { screlu_dot_avx2(v, w) };
    }
    let _ = simd;
    screlu_dot_portable(v, w)
}

/// The portable kernel: the same integers as the AVX2 one.
pub fn screlu_dot_portable(v: &[i16], w: &[i16]) -> i64 {
    v.iter()
        .zip(w)
        .map(|(&x, &w)| {
            let c = i32::from(x).clamp(0, QA);
            // c * w fits an i16 (|w| <= 127), as in the AVX2 kernel.
            i64::from((c * i32::from(w)) * c)
        })
        .sum()
}

/// AVX2: `madd(c * w, c)` sums pairs of `c * w * c` into i32 lanes (each product is at most
/// 255 * 127 * 255, a pair 16.5 million; a lane sums `hidden / 16` pairs: 2.1 billion is
/// reached at 2,048 hidden units, [`MAX_HIDDEN`], which loading enforces; the lanes are summed in
/// i64).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn screlu_dot_avx2(v: &[i16], w: &[i16]) -> i64 {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let qa = _mm256_set1_epi16(QA as i16);
    let mut sum = _mm256_setzero_si256();
    let n = v.len();
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: i + 16 <= n = v.len() = w.len(); unaligned loads.
        let x = unsafe { _mm256_loadu_si256(v.as_ptr().add(i) as *const __m256i) };
        // SAFETY: as above, for `w`.
        let ww = unsafe { _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i) };
        let c = _mm256_min_epi16(_mm256_max_epi16(x, zero), qa);
        let cw = _mm256_mullo_epi16(c, ww);
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(cw, c));
        i += 16;
    }
    let mut lanes = [0i32; 8];
    // SAFETY: 8 i32 lanes into an array of 8 i32.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum) };
    lanes.iter().map(|&l| i64::from(l)).sum()
}

/// A stack of accumulator pairs (White's view, Black's view) by ply, updated move by move.
pub struct ValueAccumulators<'a> {
    net: &'a ValueNet,
    h: usize,
    stack: Vec<i16>,
}

impl<'a> ValueAccumulators<'a> {
    /// A stack `plies` deep, or the error of an allocation that failed (a memory limit) instead
    /// of the abort of an ordinary allocation.
    pub fn try_new(
        net: &'a ValueNet,
        plies: usize,
    ) -> Result<Self, std::collections::TryReserveError> {
        let n = plies * 2 * net.hidden;
        let mut stack = Vec::new();
        stack.try_reserve_exact(n)?;
        stack.resize(n, 0);
        Ok(ValueAccumulators {
            net,
            h: net.hidden,
            stack,
        })
    }

    #[inline]
    fn at(&self, ply: usize, persp: Color) -> usize {
        (2 * ply + usize::from(persp == Color::Black)) * self.h
    }

    /// The accumulator of `persp`'s view at `ply`.
    pub fn get(&self, ply: usize, persp: Color) -> &[i16] {
        let i = self.at(ply, persp);
        &self.stack[i..i + self.h]
    }

    /// Both views of `pos` at `ply`, from scratch.
    pub fn refresh(&mut self, ply: usize, pos: &Chess) {
        for persp in Color::ALL {
            let i = self.at(ply, persp);
            let h = self.h;
            self.net.refresh(pos, persp, &mut self.stack[i..i + h]);
        }
    }

    /// Ply `ply + 1` = ply `ply` after `m` (legal in `pos`, the position at `ply`).
    ///
    /// A quiet move and a capture, the usual cases, are one pass over each view (copy, add and
    /// subtract fused): `deepred bench` measured 5% more nodes a second than copying and then
    /// adding and subtracting row by row. Updating lazily, only when a ply is evaluated, was
    /// slower: nearly every node of this search evaluates.
    #[inline]
    pub fn push(&mut self, ply: usize, pos: &Chess, m: Move) {
        let d = MoveDelta::of(pos, m);
        let h = self.h;
        let (lo, hi) = self.stack.split_at_mut(2 * (ply + 1) * h);
        let src = &lo[2 * ply * h..];
        for persp in Color::ALL {
            let k = usize::from(persp == Color::Black);
            let dst = &mut hi[k * h..(k + 1) * h];
            let src = &src[k * h..(k + 1) * h];
            let (adds, subs) = features::deeppink_delta(&d, persp);
            let row = |f: u16| self.net.row(f);
            match (adds.as_slice(), subs.as_slice()) {
                ([a], [s]) => fused(dst, src, &[row(*a)], &[row(*s)]),
                ([a], [s1, s2]) => fused(dst, src, &[row(*a)], &[row(*s1), row(*s2)]),
                _ => {
                    dst.copy_from_slice(src);
                    for &f in &adds {
                        add(dst, row(f));
                    }
                    for &f in &subs {
                        sub(dst, row(f));
                    }
                }
            }
        }
    }

    /// Ply `ply + 1` = ply `ply` with the other side to move (null move).
    pub fn push_null(&mut self, ply: usize) {
        let h = self.h;
        self.stack
            .copy_within(2 * ply * h..2 * (ply + 1) * h, 2 * (ply + 1) * h);
    }

    /// Centipawns at `ply` for the side to move of `pos`, the position at `ply`.
    #[inline]
    pub fn evaluate_cp(&self, ply: usize, pos: &Chess) -> i32 {
        let turn = pos.turn();
        self.net
            .output_cp(self.get(ply, turn), self.get(ply, !turn), pieces(pos))
    }
}

/// `dst = src + sum(adds) - sum(subs)`, element by element in one pass.
#[inline]
fn fused<const A: usize, const S: usize>(
    dst: &mut [i16],
    src: &[i16],
    adds: &[&[i16]; A],
    subs: &[&[i16]; S],
) {
    let n = dst.len();
    let (src, adds, subs) = (&src[..n], adds.map(|a| &a[..n]), subs.map(|b| &b[..n]));
    for (i, (d, s)) in dst.iter_mut().zip(src).enumerate() {
        let mut v = *s;
        for a in &adds {
            v = v.wrapping_add(a[i]);
        }
        for b in &subs {
            v = v.wrapping_sub(b[i]);
        }
        *d = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_avx2_kernel_computes_the_portable_integers() {
        if !*SIMD {
            return;
        }
        let mut s = 7u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as i64
        };
        for n in [16, 64, 256] {
            let v: Vec<i16> = (0..n).map(|_| (next() % 700 - 200) as i16).collect();
            let w: Vec<i16> = (0..n).map(|_| (next() % 255 - 127) as i16).collect();
            #[cfg(target_arch = "x86_64")]
            if is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 was detected; `v` and `w` have the same length.
                let simd = unsafe { screlu_dot_avx2(&v, &w) };
                assert_eq!(simd, screlu_dot_portable(&v, &w));
            }
        }
    }
}

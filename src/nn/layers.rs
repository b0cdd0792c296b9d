//! Dense layers for inference on one position at a time.
//!
//! Every hidden layer's input is a ReLU output, so layers take their input as a sparse list
//! (indices and values of the positive entries) and add one weight row per nonzero input
//! ("column" form): zero inputs cost nothing. Weights are stored transposed (one row of outputs
//! per input), output widths padded to a multiple of 8 with zeros, and split into register blocks
//! of up to 96 outputs so that a block's running sums stay in AVX2 registers while its rows stream
//! through memory in order. The first layer of a net ([`FirstLayer`]) keeps one contiguous row
//! per input feature, for the incremental accumulator.
//!
//! Dense layers keep their weights at half precision: [`Dense::from_torch`] rounds every weight
//! to the nearest IEEE 754 binary16 value (relative error at most 2^-11), and the AVX2 kernel
//! reads the 16-bit values and widens them with F16C, so a position streams half as many bytes
//! through the caches (the 600x400 Pos2Vec layer: 480 KB instead of 960 KB; Pos2Vec's layers
//! after the first, 680 KB, fit in a 1 MB L2 cache). Sums and activations stay in f32. On the
//! shipped nets this moves DeepChess's held-out pair accuracy by one pair in 1,000,000 and Deep
//! Pink's triplet accuracy not at all (BENCHMARKS.md). The first layer (the accumulator) keeps
//! f32 weights.
//!
//! Kernels: AVX2+FMA+F16C (chosen at run time with `is_x86_feature_detected!`) and a portable
//! fallback that computes the same sums from an f32 copy of the rounded weights.

use std::sync::LazyLock;

/// Outputs are padded to a multiple of this many floats.
pub const LANES: usize = 8;
/// Register blocks hold at most this many groups of 8 outputs (12 accumulators, one broadcast
/// register, the rest for weights widened from binary16).
pub const MAX_GROUPS: usize = 12;

/// Splits `padded` outputs into as few register blocks as possible, of nearly equal widths
/// (multiples of 8): (first output, width) of each.
pub fn blocks(padded: usize) -> Vec<(usize, usize)> {
    let groups = padded / LANES;
    let n = groups.div_ceil(MAX_GROUPS).max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 0..n {
        let g = groups / n + usize::from(k < groups % n);
        out.push((start, g * LANES));
        start += g * LANES;
    }
    out
}

/// True where the AVX2+FMA+F16C kernels can run.
pub static SIMD: LazyLock<bool> = LazyLock::new(detect_simd);

fn detect_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Can AVX2 aligned loads and stores use this buffer?
#[inline]
pub fn aligned(x: &[f32]) -> bool {
    (x.as_ptr() as usize).is_multiple_of(32)
}

pub fn pad(n: usize) -> usize {
    n.div_ceil(LANES) * LANES
}

/// Element types of [`AVec`]: plain numbers for which every bit pattern, all zeros included, is
/// a value, with an alignment that divides 64.
pub trait Plain: Copy + sealed::Sealed {}
impl Plain for f32 {}
impl Plain for u16 {}
mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for u16 {}
}

/// A buffer of floats (or binary16 bit patterns, `AVec<u16>`) aligned to 64 bytes (whole cache
/// lines).
#[derive(Clone)]
pub struct AVec<T: Plain = f32> {
    lines: Vec<Line>,
    len: usize,
    _elem: std::marker::PhantomData<T>,
}

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

impl<T: Plain> AVec<T> {
    fn zeroed(len: usize) -> Self {
        AVec {
            lines: vec![Line([0; 64]); (len * std::mem::size_of::<T>()).div_ceil(64)],
            len,
            _elem: std::marker::PhantomData,
        }
    }
}

impl Default for AVec {
    fn default() -> Self {
        AVec::zeros(0)
    }
}

impl AVec {
    pub fn zeros(len: usize) -> Self {
        AVec::zeroed(len)
    }

    /// `len` zeros, or the error of an allocation that failed (a memory limit) instead of the
    /// abort of [`AVec::zeros`].
    pub fn try_zeros(len: usize) -> Result<Self, std::collections::TryReserveError> {
        let n = (len * std::mem::size_of::<f32>()).div_ceil(64);
        let mut lines = Vec::new();
        lines.try_reserve_exact(n)?;
        lines.resize(n, Line([0; 64]));
        Ok(AVec {
            lines,
            len,
            _elem: std::marker::PhantomData,
        })
    }
}

impl<T: Plain> std::ops::Deref for AVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `lines` holds at least `len * size_of::<T>()` contiguous bytes, aligned to 64
        // (a multiple of T's alignment), and any bit pattern is a T (`Plain`).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Plain> std::ops::DerefMut for AVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in Deref, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Plain> std::fmt::Debug for AVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AVec(len {})", self.len)
    }
}

/// The name of the kernels `simd` selects, for reports.
pub fn kernel_name(simd: bool) -> &'static str {
    if simd { "AVX2+FMA+F16C" } else { "portable" }
}

/// The largest finite binary16 value. [`Dense`] weights must not exceed it in magnitude (the
/// net loader refuses larger ones).
pub const F16_MAX: f32 = 65504.0;

/// IEEE 754 binary16 bits of the binary16 value nearest to `x` (ties to even; overflow gives
/// infinity, NaN stays NaN): what F16C's `vcvtps2ph` computes with round-to-nearest.
pub fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        let nan = if man != 0 {
            0x200 | (man >> 13) as u16
        } else {
            0
        };
        return sign | 0x7c00 | nan;
    }
    // Biased binary16 exponent.
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal (or zero): the value in units of 2^-24, rounded.
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let (q, rem, half) = (m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
        let q = q + u32::from(rem > half || (rem == half && q & 1 == 1));
        return sign | q as u16;
    }
    let h = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    // A carry out of the mantissa bumps the exponent, up to infinity: still correct.
    let h = h + u32::from(rem > 0x1000 || (rem == 0x1000 && h & 1 == 1));
    sign | h as u16
}

/// The value of IEEE 754 binary16 bits, exactly.
pub fn f32_from_f16_bits(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    match exp {
        0 => {
            let v = man as f32 * (1.0 / 16_777_216.0);
            if sign != 0 { -v } else { v }
        }
        0x1f => f32::from_bits(sign | 0x7f80_0000 | (man << 13)),
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
    }
}

/// `x` rounded to the nearest binary16 value, as an f32.
pub fn round_to_f16(x: f32) -> f32 {
    f32_from_f16_bits(f16_bits(x))
}

/// A hidden or output layer: `out = bias + W x`, input given sparsely.
#[derive(Clone, Debug)]
pub struct Dense {
    pub inputs: usize,
    pub outputs: usize,
    /// `outputs` rounded up to [`LANES`].
    pub padded: usize,
    /// Register blocks (first output, width), see [`blocks`].
    blocks: Vec<(usize, usize)>,
    /// The block of outputs `start .. start + width` is an `inputs x width` row-major array
    /// starting at `start * inputs`. The weights rounded to binary16, as f32 (portable kernel).
    w: AVec,
    /// The same weights as binary16 bits, same layout (AVX2 kernel).
    half: AVec<u16>,
    bias: AVec,
}

impl Dense {
    /// From PyTorch's layout: `weight[o * inputs + i]`, `bias[o]`. Weights are rounded to the
    /// nearest binary16 value (see the module notes); biases stay f32.
    pub fn from_torch(inputs: usize, outputs: usize, weight: &[f32], bias: &[f32]) -> Self {
        assert_eq!(weight.len(), inputs * outputs);
        assert_eq!(bias.len(), outputs);
        let padded = pad(outputs);
        let mut w = AVec::zeros(inputs * padded);
        let mut b = AVec::zeros(padded);
        b[..outputs].copy_from_slice(bias);
        for (start, width) in blocks(padded) {
            let base = start * inputs;
            for i in 0..inputs {
                for j in 0..width {
                    let o = start + j;
                    if o < outputs {
                        w[base + i * width + j] = round_to_f16(weight[o * inputs + i]);
                    }
                }
            }
        }
        Dense {
            inputs,
            outputs,
            padded,
            blocks: blocks(padded),
            half: {
                let mut h = AVec::<u16>::zeroed(w.len());
                for (h, &v) in h.iter_mut().zip(w.iter()) {
                    *h = f16_bits(v);
                }
                h
            },
            w,
            bias: b,
        }
    }

    /// `out[..padded] = bias + sum_k vals[k] * W[:, idx[k]]` (padding outputs are 0).
    pub fn forward(&self, idx: &[u16], vals: &[f32], out: &mut [f32], simd: bool) {
        assert!(out.len() >= self.padded && idx.len() == vals.len());
        // The kernels read rows by these indices without bounds checks.
        assert!(idx.iter().all(|&i| usize::from(i) < self.inputs));
        for &(start, width) in &self.blocks {
            let range = start * self.inputs..start * self.inputs + self.inputs * width;
            let w = &self.w[range.clone()];
            let bias = &self.bias[start..start + width];
            let o = &mut out[start..start + width];
            #[cfg(target_arch = "x86_64")]
            if simd && aligned(o) {
                let h = &self.half[range];
                // SAFETY: `simd` is only true where AVX2, FMA and F16C were detected; every
                // index is below `inputs` (asserted above), so each row lies in `h`; half rows
                // are 16-byte aligned (AVec, widths multiples of 8), biases and `o` 32-byte.
                unsafe { x86::block(h, width, bias.as_ptr(), idx, vals, o.as_mut_ptr()) };
                continue;
            }
            let _ = simd;
            block_portable(w, width, bias, idx, vals, o);
        }
    }
}

/// `out += sum_k vals[k] * row(idx[k])`.
fn accumulate_portable(w: &[f32], width: usize, idx: &[u16], vals: &[f32], out: &mut [f32]) {
    for (&i, &v) in idx.iter().zip(vals) {
        let i = usize::from(i);
        let row = &w[i * width..(i + 1) * width];
        for (o, &x) in out.iter_mut().zip(row) {
            *o += x * v;
        }
    }
}

fn block_portable(
    w: &[f32],
    width: usize,
    bias: &[f32],
    idx: &[u16],
    vals: &[f32],
    out: &mut [f32],
) {
    out.copy_from_slice(bias);
    accumulate_portable(w, width, idx, vals, out);
}

/// The positive entries of `x` as (index, value) lists; returns how many. `idx` and `vals` must
/// be at least as long as `x`.
#[inline]
pub fn nonzero(x: &[f32], idx: &mut [u16], vals: &mut [f32]) -> usize {
    assert!(idx.len() >= x.len() && vals.len() >= x.len() && x.len() <= 1 << 16);
    #[cfg(target_arch = "x86_64")]
    if *SIMD {
        // SAFETY: AVX2 detected; the lengths are checked above.
        return unsafe { x86::nonzero(x, idx, vals) };
    }
    nonzero_portable(x, idx, vals, 0, 0)
}

/// Branch-free scalar [`nonzero`] of `x[from..]`, appending after `n` entries.
fn nonzero_portable(
    x: &[f32],
    idx: &mut [u16],
    vals: &mut [f32],
    from: usize,
    mut n: usize,
) -> usize {
    for (i, &v) in x.iter().enumerate().skip(from) {
        idx[n] = i as u16;
        vals[n] = v;
        n += usize::from(v > 0.0);
    }
    n
}

/// For each 8-bit mask, the lanes whose bit is set, first, as a permutation.
#[cfg(target_arch = "x86_64")]
static COMPRESS: LazyLock<Vec<[i32; 8]>> = LazyLock::new(|| {
    (0..256)
        .map(|m: i32| {
            let mut p = [0i32; 8];
            let mut k = 0;
            for lane in 0..8 {
                if m & (1 << lane) != 0 {
                    p[k] = lane;
                    k += 1;
                }
            }
            p
        })
        .collect()
});

/// The first layer of a net, one contiguous row of `padded` floats per input feature, so that
/// an accumulator (its pre-activations) can add or remove single features.
#[derive(Clone, Debug)]
pub struct FirstLayer {
    pub inputs: usize,
    pub outputs: usize,
    pub padded: usize,
    rows: AVec,
    bias: AVec,
}

impl FirstLayer {
    pub fn from_torch(inputs: usize, outputs: usize, weight: &[f32], bias: &[f32]) -> Self {
        assert_eq!(weight.len(), inputs * outputs);
        let padded = pad(outputs);
        let mut rows = AVec::zeros(inputs * padded);
        for o in 0..outputs {
            for i in 0..inputs {
                rows[i * padded + o] = weight[o * inputs + i];
            }
        }
        let mut b = AVec::zeros(padded);
        b[..outputs].copy_from_slice(bias);
        FirstLayer {
            inputs,
            outputs,
            padded,
            rows,
            bias: b,
        }
    }

    #[inline]
    pub fn row(&self, feature: usize) -> &[f32] {
        &self.rows[feature * self.padded..(feature + 1) * self.padded]
    }

    /// From scratch: `acc = bias + sum of the rows of the active features`.
    pub fn refresh(&self, features: &[u16], acc: &mut [f32], simd: bool) {
        self.update(&self.bias, features, &[], acc, simd);
    }

    /// `dst = src + rows(add) - rows(sub)` over the padded width.
    #[inline]
    pub fn update(&self, src: &[f32], add: &[u16], sub: &[u16], dst: &mut [f32], simd: bool) {
        let n = self.padded;
        let (src, dst) = (&src[..n], &mut dst[..n]);
        assert!(add.iter().chain(sub).all(|&f| usize::from(f) < self.inputs));
        #[cfg(target_arch = "x86_64")]
        if simd && aligned(src) && aligned(dst) {
            // SAFETY: AVX2 detected (see `SIMD`); all rows are in bounds (asserted above); rows,
            // `src` and `dst` are 32-byte aligned.
            unsafe { x86::update(&self.rows, n, src, add, sub, dst) };
            return;
        }
        let _ = simd;
        dst.copy_from_slice(src);
        for &f in add {
            for (d, &w) in dst.iter_mut().zip(self.row(usize::from(f))) {
                *d += w;
            }
        }
        for &f in sub {
            for (d, &w) in dst.iter_mut().zip(self.row(usize::from(f))) {
                *d -= w;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// One output block of [`super::Dense::forward`] with `width / 8` register accumulators:
    /// `out[..width] = bias[..width] + sum_k vals[k] * row(idx[k])`, rows of binary16 weights
    /// (16-byte aligned) widened to f32 by F16C; `bias` and `out` are 32-byte aligned, `width`
    /// floats.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub unsafe fn block(
        w: &[u16],
        width: usize,
        bias: *const f32,
        idx: &[u16],
        vals: &[f32],
        out: *mut f32,
    ) {
        // SAFETY: every arm is `block_n` with `N * 8 == width` (`Dense` widths are whole
        // multiples of 8 up to 96); the caller guarantees the features and the bounds.
        unsafe {
            match width / 8 {
                12 => block_n::<12>(w, width, bias, idx, vals, out),
                11 => block_n::<11>(w, width, bias, idx, vals, out),
                10 => block_n::<10>(w, width, bias, idx, vals, out),
                9 => block_n::<9>(w, width, bias, idx, vals, out),
                8 => block_n::<8>(w, width, bias, idx, vals, out),
                7 => block_n::<7>(w, width, bias, idx, vals, out),
                6 => block_n::<6>(w, width, bias, idx, vals, out),
                5 => block_n::<5>(w, width, bias, idx, vals, out),
                4 => block_n::<4>(w, width, bias, idx, vals, out),
                3 => block_n::<3>(w, width, bias, idx, vals, out),
                2 => block_n::<2>(w, width, bias, idx, vals, out),
                _ => block_n::<1>(w, width, bias, idx, vals, out),
            }
        }
    }

    #[target_feature(enable = "avx2,fma,f16c")]
    #[inline]
    unsafe fn block_n<const N: usize>(
        w: &[u16],
        width: usize,
        bias: *const f32,
        idx: &[u16],
        vals: &[f32],
        out: *mut f32,
    ) {
        debug_assert!(width == N * 8 && idx.len() == vals.len());
        // SAFETY: the caller (`block`, from `Dense::forward`) guarantees the CPU features, a
        // 32-byte aligned `bias` and `out` of `width` floats, and rows of `width` binary16
        // weights at 16-byte aligned offsets for every index in `idx` (each below the layer's
        // inputs); `vals` is as long as `idx`.
        unsafe {
            let mut acc = [_mm256_setzero_ps(); N];
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_load_ps(bias.add(8 * j));
            }
            let wp = w.as_ptr();
            for k in 0..idx.len() {
                let v = _mm256_set1_ps(*vals.get_unchecked(k));
                let row = wp.add(usize::from(*idx.get_unchecked(k)) * width);
                for (j, a) in acc.iter_mut().enumerate() {
                    let h = _mm_load_si128(row.add(8 * j).cast());
                    *a = _mm256_fmadd_ps(_mm256_cvtph_ps(h), v, *a);
                }
            }
            for (j, a) in acc.iter().enumerate() {
                _mm256_store_ps(out.add(8 * j), *a);
            }
        }
    }

    /// [`super::nonzero`] eight lanes at a time: compare, mask, compress with a permutation.
    /// `idx` and `vals` are at least as long as `x` (whole groups of 8 are stored, but never
    /// beyond the number of lanes read so far).
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn nonzero(x: &[f32], idx: &mut [u16], vals: &mut [f32]) -> usize {
        let table = &*super::COMPRESS;
        let groups = x.len() / 8;
        let mut n = 0;
        // SAFETY: the caller guarantees AVX2; loads read whole groups of 8 within `x`
        // (`8 * g + 8 <= x.len()`); stores write 8 lanes at `n <= 8 * g`, within `idx` and
        // `vals`, which are at least as long as `x`.
        unsafe {
            let zero = _mm256_setzero_ps();
            let eight = _mm256_set1_epi32(8);
            let mut lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            for g in 0..groups {
                let v = _mm256_loadu_ps(x.as_ptr().add(8 * g));
                let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(v, zero)) as usize;
                if m != 0 {
                    let perm = _mm256_loadu_si256(table[m].as_ptr().cast());
                    _mm256_storeu_ps(vals.as_mut_ptr().add(n), _mm256_permutevar8x32_ps(v, perm));
                    let i32s = _mm256_permutevar8x32_epi32(lanes, perm);
                    // 8 x i32 -> 8 x u16 (values < 65536).
                    let packed = _mm256_packus_epi32(i32s, i32s);
                    let ordered = _mm256_permute4x64_epi64::<0b1000>(packed);
                    _mm_storeu_si128(
                        idx.as_mut_ptr().add(n).cast(),
                        _mm256_castsi256_si128(ordered),
                    );
                    n += m.count_ones() as usize;
                }
                lanes = _mm256_add_epi32(lanes, eight);
            }
        }
        super::nonzero_portable(x, idx, vals, groups * 8, n)
    }

    /// `dst = src + rows(add) - rows(sub)`, `n` a multiple of 8.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn update(
        rows: &[f32],
        n: usize,
        src: &[f32],
        add: &[u16],
        sub: &[u16],
        dst: &mut [f32],
    ) {
        // SAFETY: the caller guarantees AVX2, `n` a multiple of 8, 32-byte aligned `src`,
        // `dst` and rows of `n` floats (the `Aligned` buffers), and every feature index in
        // `add` and `sub` below the number of rows; every load and store stays within `n`.
        unsafe {
            let rp = rows.as_ptr();
            let mut j = 0;
            // 32 floats at a time (four registers), then 8.
            while j + 32 <= n {
                let mut a = [
                    _mm256_load_ps(src.as_ptr().add(j)),
                    _mm256_load_ps(src.as_ptr().add(j + 8)),
                    _mm256_load_ps(src.as_ptr().add(j + 16)),
                    _mm256_load_ps(src.as_ptr().add(j + 24)),
                ];
                for &f in add {
                    let r = rp.add(usize::from(f) * n + j);
                    for (q, x) in a.iter_mut().enumerate() {
                        *x = _mm256_add_ps(*x, _mm256_load_ps(r.add(8 * q)));
                    }
                }
                for &f in sub {
                    let r = rp.add(usize::from(f) * n + j);
                    for (q, x) in a.iter_mut().enumerate() {
                        *x = _mm256_sub_ps(*x, _mm256_load_ps(r.add(8 * q)));
                    }
                }
                for (q, x) in a.iter().enumerate() {
                    _mm256_store_ps(dst.as_mut_ptr().add(j + 8 * q), *x);
                }
                j += 32;
            }
            while j < n {
                let mut x = _mm256_load_ps(src.as_ptr().add(j));
                for &f in add {
                    x = _mm256_add_ps(x, _mm256_load_ps(rp.add(usize::from(f) * n + j)));
                }
                for &f in sub {
                    x = _mm256_sub_ps(x, _mm256_load_ps(rp.add(usize::from(f) * n + j)));
                }
                _mm256_store_ps(dst.as_mut_ptr().add(j), x);
                j += 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn reference(inputs: usize, outputs: usize, w: &[f32], b: &[f32], x: &[f32]) -> Vec<f32> {
        (0..outputs)
            .map(|o| {
                let mut s = b[o];
                for i in 0..inputs {
                    s += w[o * inputs + i] * x[i];
                }
                s
            })
            .collect()
    }

    #[test]
    fn dense_matches_nested_loops_on_every_kernel() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for (inputs, outputs) in [(600, 400), (200, 100), (100, 2), (37, 1), (16, 72)] {
            let w: Vec<f32> = (0..inputs * outputs)
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            let b: Vec<f32> = (0..outputs).map(|_| rng.random_range(-1.0..1.0)).collect();
            let x: Vec<f32> = (0..inputs)
                .map(|_| rng.random_range(-1.0f32..1.0).max(0.0))
                .collect();
            // The layer computes with the weights rounded to binary16.
            let rounded: Vec<f32> = w.iter().map(|&v| round_to_f16(v)).collect();
            let want = reference(inputs, outputs, &rounded, &b, &x);
            // Rounding to nearest moves each weight by at most 2^-11 of itself.
            let exact = reference(inputs, outputs, &w, &b, &x);
            let bound: Vec<f32> = (0..outputs)
                .map(|o| {
                    (0..inputs)
                        .map(|i| (w[o * inputs + i] * x[i]).abs())
                        .sum::<f32>()
                })
                .map(|s| s / 2048.0 + 1e-4)
                .collect();
            let d = Dense::from_torch(inputs, outputs, &w, &b);
            let mut idx = vec![0u16; inputs];
            let mut vals = vec![0f32; inputs];
            let n = nonzero(&x, &mut idx, &mut vals);
            assert!(n > 0 && n < inputs);
            for simd in [false, *SIMD] {
                let mut out = AVec::zeros(d.padded);
                out.fill(f32::NAN);
                d.forward(&idx[..n], &vals[..n], &mut out, simd);
                for o in 0..outputs {
                    assert!((out[o] - want[o]).abs() < 1e-4, "{inputs}x{outputs} o={o}");
                    assert!(
                        (out[o] - exact[o]).abs() <= bound[o],
                        "{inputs}x{outputs} o={o}"
                    );
                }
                assert!(out[outputs..].iter().all(|&v| v == 0.0));
            }
        }
    }

    #[test]
    fn half_precision_conversions_match_the_hardware() {
        // Independent reference values.
        for (x, h) in [
            (0.0f32, 0x0000u16),
            (-0.0, 0x8000),
            (1.0, 0x3c00),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00),
            (f32::INFINITY, 0x7c00),
            (5.960_464_5e-8, 0x0001),
            (6.103_515_6e-5, 0x0400),
            (1.0 + 1.0 / 2048.0, 0x3c00),
            (1.0 + 3.0 / 2048.0, 0x3c02),
            (0.333_333_34, 0x3555),
        ] {
            assert_eq!(f16_bits(x), h, "{x}");
        }
        assert!(f32_from_f16_bits(f16_bits(f32::NAN)).is_nan());
        for h in 0..=u16::MAX {
            let x = f32_from_f16_bits(h);
            if !x.is_nan() {
                assert_eq!(f16_bits(x), h, "{h:#06x} round trip");
            }
        }
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("f16c") {
            use std::arch::x86_64::*;
            // SAFETY: F16C detected.
            let hw_to_f32 =
                |h: u16| unsafe { _mm_cvtss_f32(_mm_cvtph_ps(_mm_set1_epi16(h as i16))) };
            // SAFETY: F16C detected.
            let hw_to_f16 = |x: f32| unsafe {
                _mm_extract_epi16::<0>(_mm_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm_set1_ps(x)))
                    as u16
            };
            for h in 0..=u16::MAX {
                let (a, b) = (f32_from_f16_bits(h), hw_to_f32(h));
                assert!(
                    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                    "{h:#06x}"
                );
            }
            let mut rng = rand::rngs::StdRng::seed_from_u64(11);
            for k in 0..2_000_000u32 {
                // Random bit patterns, then values near the binary16 range and its ties.
                let x = match k % 3 {
                    0 => f32::from_bits(rng.random()),
                    1 => {
                        rng.random_range(-70000.0f32..70000.0) * 2f32.powi(-rng.random_range(0..30))
                    }
                    _ => f32_from_f16_bits(rng.random()) * (1.0 + 1.0 / 2048.0),
                };
                if !x.is_nan() {
                    assert_eq!(f16_bits(x), hw_to_f16(x), "{x:e} ({:#010x})", x.to_bits());
                }
            }
        }
    }

    #[test]
    fn first_layer_update_matches_refresh() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let (inputs, outputs) = (773, 600);
        let w: Vec<f32> = (0..inputs * outputs)
            .map(|_| rng.random_range(-0.1..0.1))
            .collect();
        let b: Vec<f32> = (0..outputs).map(|_| rng.random_range(-0.1..0.1)).collect();
        let l = FirstLayer::from_torch(inputs, outputs, &w, &b);
        for simd in [false, *SIMD] {
            let mut a = AVec::zeros(l.padded);
            l.refresh(&[3, 700, 12], &mut a, simd);
            let mut c = AVec::zeros(l.padded);
            l.update(&a, &[5], &[700], &mut c, simd);
            let mut want = AVec::zeros(l.padded);
            l.refresh(&[3, 5, 12], &mut want, simd);
            for o in 0..outputs {
                let direct = b[o] + w[o * inputs + 3] + w[o * inputs + 5] + w[o * inputs + 12];
                assert!((want[o] - direct).abs() < 1e-5);
                assert!((c[o] - want[o]).abs() < 1e-5);
            }
        }
    }
}

#[cfg(test)]
mod nonzero_tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn simd_and_portable_nonzero_agree() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for len in [0, 1, 7, 8, 9, 100, 600, 773] {
            for density in [0.0, 0.1, 0.5, 1.0] {
                let x: Vec<f32> = (0..len)
                    .map(|_| {
                        if rng.random_bool(density) {
                            rng.random_range(0.01..1.0)
                        } else {
                            -rng.random_range(0.0..1.0)
                        }
                    })
                    .collect();
                let (mut i1, mut v1) = (vec![0u16; len], vec![0f32; len]);
                let (mut i2, mut v2) = (vec![0u16; len], vec![0f32; len]);
                let n1 = nonzero(&x, &mut i1, &mut v1);
                let n2 = nonzero_portable(&x, &mut i2, &mut v2, 0, 0);
                assert_eq!(n1, n2);
                assert_eq!(i1[..n1], i2[..n2]);
                assert_eq!(v1[..n1], v2[..n2]);
                let want: Vec<u16> = (0..len as u16)
                    .filter(|&i| x[usize::from(i)] > 0.0)
                    .collect();
                assert_eq!(i1[..n1], want[..]);
            }
        }
    }
}

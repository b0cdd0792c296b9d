//! Deep Pink (Erik Bernhardsson 2014): a scalar evaluation f(p) of the position for the side to
//! move, 768-H1-...-1 (ReLU between layers), trained on (p, q, r) triplets.
//!
//! Its features are relative to the side to move, so the incremental first layer keeps two
//! accumulators per position, one from each colour's view; a move updates both and evaluation
//! reads the mover's.

use std::cell::RefCell;
use std::path::Path;

use shakmaty::{Chess, Color, Move, Position};

use super::features::{self, DEEPPINK_INPUTS, MoveDelta};
use super::layers::{Dense, FirstLayer, SIMD, nonzero};
use super::net::{Kind, NetFile};
use super::{Error, Problem};

#[derive(Debug)]
pub struct DeepPink {
    pub first: FirstLayer,
    /// Layers after the first (ReLU before each); the last has one output.
    pub layers: Vec<Dense>,
    pub cp_scale: f32,
    pub simd: bool,
    pub description: String,
    width: usize,
}

#[derive(Default)]
struct Scratch {
    buf: crate::nn::layers::AVec,
    idx: Vec<u16>,
    vals: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Evaluations are kept within this many centipawns (far from mate scores).
pub const CP_LIMIT: f32 = 20_000.0;

impl DeepPink {
    pub fn load(path: &Path) -> Result<DeepPink, Error> {
        let f = NetFile::load(path, Some(Kind::DeepPink))?;
        Self::from_file(&f)
    }

    pub fn from_file(f: &NetFile) -> Result<DeepPink, Error> {
        let first = f.first_layer("layers.0", DEEPPINK_INPUTS, None)?;
        let mut prev = first.outputs;
        let mut layers = Vec::new();
        let mut k = 1;
        while f.has(&format!("layers.{k}.weight")) || f.has(&format!("layers.{k}.bias")) {
            let d = f.dense(&format!("layers.{k}"), Some(prev), None)?;
            prev = d.outputs;
            layers.push(d);
            k += 1;
        }
        if prev != 1 {
            let last = k - 1;
            return Err(Error::net(
                &f.path,
                Problem::LastLayer {
                    layer: format!("layers.{last}"),
                    outputs: prev,
                    next: format!("layers.{k}"),
                },
            ));
        }
        let cp_scale = match f.meta.get("cp_scale") {
            None => 100.0,
            Some(s) => match s.trim().parse::<f32>() {
                // A positive scale of a sane size: a negative one turns every evaluation over.
                Ok(v) if v.is_finite() && v > 0.0 && v <= 100_000.0 => v,
                _ => {
                    return Err(Error::net(&f.path, Problem::CpScale(s.clone())));
                }
            },
        };
        let width = std::iter::once(first.padded)
            .chain(layers.iter().map(|d| d.padded.max(d.inputs)))
            .max()
            .unwrap_or(0);
        let architecture = std::iter::once(DEEPPINK_INPUTS)
            .chain(std::iter::once(first.outputs))
            .chain(layers.iter().map(|d| d.outputs))
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("-");
        Ok(DeepPink {
            description: format!(
                "deeppink {architecture}, cp_scale {cp_scale}, {}",
                f.provenance()
            ),
            first,
            layers,
            cp_scale,
            simd: *SIMD,
            width,
        })
    }

    pub fn acc_len(&self) -> usize {
        self.first.padded
    }

    /// f from a first-layer accumulator of the side to move's view.
    pub fn forward_from_acc(&self, acc: &[f32]) -> f32 {
        if self.layers.is_empty() {
            return acc[0];
        }
        SCRATCH.with_borrow_mut(|s| {
            if s.buf.len() < self.width {
                s.buf = crate::nn::layers::AVec::zeros(self.width);
                s.idx.resize(self.width, 0);
                s.vals.resize(self.width, 0.0);
            }
            let Scratch { buf, idx, vals } = s;
            let mut n = nonzero(&acc[..self.first.outputs], idx, vals);
            for (k, d) in self.layers.iter().enumerate() {
                d.forward(&idx[..n], &vals[..n], buf, self.simd);
                if k + 1 < self.layers.len() {
                    n = nonzero(&buf[..d.outputs], idx, vals);
                }
            }
            buf[0]
        })
    }

    /// f(pos) for the side to move, from scratch.
    pub fn forward(&self, pos: &Chess) -> f32 {
        let mut acc = crate::nn::layers::AVec::zeros(self.acc_len());
        self.first
            .refresh(&features::deeppink(pos, pos.turn()), &mut acc, self.simd);
        self.forward_from_acc(&acc)
    }

    /// Centipawns of a raw output.
    pub fn cp(&self, f: f32) -> i32 {
        (f * self.cp_scale).clamp(-CP_LIMIT, CP_LIMIT).round() as i32
    }

    /// Centipawns for the side to move, from scratch.
    pub fn evaluate_cp(&self, pos: &Chess) -> i32 {
        self.cp(self.forward(pos))
    }
}

/// A stack of first-layer accumulators, one pair (White's view, Black's view) per ply, updated
/// from the parent's pair with the pieces a move changes.
pub struct Accumulators<'a> {
    net: &'a DeepPink,
    n: usize,
    stack: crate::nn::layers::AVec,
}

impl<'a> Accumulators<'a> {
    /// A stack `plies` deep, or the error of an allocation that failed (a memory limit) instead
    /// of the abort of an ordinary allocation.
    pub fn try_new(
        net: &'a DeepPink,
        plies: usize,
    ) -> Result<Self, std::collections::TryReserveError> {
        let n = net.acc_len();
        Ok(Accumulators {
            net,
            n,
            stack: crate::nn::layers::AVec::try_zeros(plies * 2 * n)?,
        })
    }

    #[inline]
    fn at(&self, ply: usize, persp: Color) -> usize {
        (2 * ply + usize::from(persp == Color::Black)) * self.n
    }

    /// The accumulator of `persp`'s view at `ply`.
    pub fn get(&self, ply: usize, persp: Color) -> &[f32] {
        let i = self.at(ply, persp);
        &self.stack[i..i + self.n]
    }

    /// Both views of `pos` at `ply`, from scratch.
    pub fn refresh(&mut self, ply: usize, pos: &Chess) {
        for persp in Color::ALL {
            let i = self.at(ply, persp);
            let f = features::deeppink(pos, persp);
            self.net
                .first
                .refresh(&f, &mut self.stack[i..i + self.n], self.net.simd);
        }
    }

    /// Ply `ply + 1` = ply `ply` after `m` (legal in `pos`, the position at `ply`).
    #[inline]
    pub fn push(&mut self, ply: usize, pos: &Chess, m: Move) {
        let d = MoveDelta::of(pos, m);
        let n = self.n;
        let (lo, hi) = self.stack.split_at_mut(2 * (ply + 1) * n);
        let src = &lo[2 * ply * n..];
        for persp in Color::ALL {
            let k = usize::from(persp == Color::Black);
            let (add, sub) = features::deeppink_delta(&d, persp);
            self.net.first.update(
                &src[k * n..(k + 1) * n],
                &add,
                &sub,
                &mut hi[k * n..(k + 1) * n],
                self.net.simd,
            );
        }
    }

    /// Ply `ply + 1` = ply `ply` with the other side to move (null move).
    pub fn push_null(&mut self, ply: usize) {
        let n = self.n;
        self.stack
            .copy_within(2 * ply * n..2 * (ply + 1) * n, 2 * (ply + 1) * n);
    }

    /// f at `ply` for the side to move `turn`.
    #[inline]
    pub fn forward(&self, ply: usize, turn: Color) -> f32 {
        self.net.forward_from_acc(self.get(ply, turn))
    }

    /// Centipawns at `ply` for the side to move `turn`.
    #[inline]
    pub fn evaluate_cp(&self, ply: usize, turn: Color) -> i32 {
        self.net.cp(self.forward(ply, turn))
    }
}

//! DeepChess (David, Netanyahu, Wolf 2016): Pos2Vec (773-600-400-200-100, ReLU) embeds a
//! position; the comparator (200-400-200-100-2) takes two embeddings and says which position is
//! better for White.

use std::cell::RefCell;
use std::path::Path;

use shakmaty::Chess;

use super::Error;
use super::features::{self, DEEPCHESS_INPUTS};
use super::layers::{AVec, Dense, FirstLayer, SIMD, nonzero};
use super::net::{Kind, NetFile};

#[derive(Debug)]
pub struct DeepChess {
    pub first: FirstLayer,
    /// Pos2Vec layers after the first (ReLU after each).
    pub pos2vec: Vec<Dense>,
    /// Comparator layers (ReLU after all but the last, which gives 2 logits).
    pub cmp: Vec<Dense>,
    /// Use the AVX2 kernels.
    pub simd: bool,
    pub description: String,
    width: usize,
}

/// Work buffers for one forward pass.
#[derive(Default)]
pub struct Scratch {
    buf: AVec,
    idx: Vec<u16>,
    vals: Vec<f32>,
}

impl Scratch {
    fn ensure(&mut self, width: usize) {
        if self.buf.len() < width {
            self.buf = AVec::zeros(width);
            self.idx.resize(width, 0);
            self.vals.resize(width, 0.0);
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl DeepChess {
    pub fn load(path: &Path) -> Result<DeepChess, Error> {
        let f = NetFile::load(path, Some(Kind::DeepChess))?;
        Self::from_file(&f)
    }

    pub fn from_file(f: &NetFile) -> Result<DeepChess, Error> {
        let first = f.first_layer("pos2vec.0", DEEPCHESS_INPUTS, None)?;
        let mut prev = first.outputs;
        let mut pos2vec = Vec::new();
        for k in 1..4 {
            let d = f.dense(&format!("pos2vec.{k}"), Some(prev), None)?;
            prev = d.outputs;
            pos2vec.push(d);
        }
        let embed = prev;
        let mut cmp = Vec::new();
        prev = 2 * embed;
        for k in 0..4 {
            let d = f.dense(&format!("cmp.{k}"), Some(prev), (k == 3).then_some(2))?;
            prev = d.outputs;
            cmp.push(d);
        }
        let width = std::iter::once(first.padded)
            .chain(pos2vec.iter().chain(&cmp).map(|d| d.padded.max(d.inputs)))
            .max()
            .unwrap_or(0);
        let arch = |layers: &mut dyn Iterator<Item = usize>| {
            layers.map(|n| n.to_string()).collect::<Vec<_>>().join("-")
        };
        let architecture = format!(
            "{}/{}",
            arch(
                &mut std::iter::once(DEEPCHESS_INPUTS)
                    .chain(std::iter::once(first.outputs))
                    .chain(pos2vec.iter().map(|d| d.outputs))
            ),
            arch(&mut std::iter::once(2 * embed).chain(cmp.iter().map(|d| d.outputs)))
        );
        Ok(DeepChess {
            description: format!("deepchess {architecture}, {}", f.provenance()),
            first,
            pos2vec,
            cmp,
            simd: *SIMD,
            width,
        })
    }

    /// Length of a Pos2Vec vector.
    pub fn embed_len(&self) -> usize {
        self.pos2vec
            .last()
            .map_or(self.first.outputs, |d| d.outputs)
    }

    /// Size of a first-layer accumulator (padded).
    pub fn acc_len(&self) -> usize {
        self.first.padded
    }

    /// First layer from scratch.
    pub fn refresh(&self, features: &[u16], acc: &mut [f32]) {
        self.first.refresh(features, acc, self.simd);
    }

    /// Pos2Vec layers 2.. from a first-layer accumulator; writes the embedding to `out`.
    pub fn pos2vec_from_acc(&self, acc: &[f32], out: &mut [f32]) {
        SCRATCH.with_borrow_mut(|s| {
            s.ensure(self.width);
            let Scratch { buf, idx, vals } = s;
            let mut n = nonzero(&acc[..self.first.outputs], idx, vals);
            for (k, d) in self.pos2vec.iter().enumerate() {
                d.forward(&idx[..n], &vals[..n], buf, self.simd);
                if k + 1 < self.pos2vec.len() {
                    n = nonzero(&buf[..d.outputs], idx, vals);
                }
            }
            for (o, &v) in out.iter_mut().zip(&buf[..self.embed_len()]) {
                *o = v.max(0.0);
            }
        })
    }

    /// Pos2Vec of a feature list.
    pub fn pos2vec_features(&self, features: &[u16]) -> Vec<f32> {
        let mut acc = AVec::zeros(self.acc_len());
        self.refresh(features, &mut acc);
        let mut out = vec![0.0; self.embed_len()];
        self.pos2vec_from_acc(&acc, &mut out);
        out
    }

    pub fn pos2vec(&self, pos: &Chess) -> Vec<f32> {
        self.pos2vec_features(&features::deepchess(pos))
    }

    /// Pos2Vec of the colour-mirrored position.
    pub fn pos2vec_mirror(&self, pos: &Chess) -> Vec<f32> {
        self.pos2vec_features(&features::deepchess_mirror(&features::deepchess(pos)))
    }

    /// The comparator's two logits for (a, b).
    pub fn logits(&self, a: &[f32], b: &[f32]) -> [f32; 2] {
        SCRATCH.with_borrow_mut(|s| {
            s.ensure(self.width);
            let Scratch { buf, idx, vals } = s;
            assert_eq!(
                a.len() + b.len(),
                self.cmp[0].inputs,
                "comparator inputs must be two Pos2Vec vectors"
            );
            let na = nonzero(a, idx, vals);
            let nb = nonzero(b, &mut idx[na..], &mut vals[na..]);
            for i in &mut idx[na..na + nb] {
                *i += a.len() as u16;
            }
            let mut n = na + nb;
            for (k, d) in self.cmp.iter().enumerate() {
                d.forward(&idx[..n], &vals[..n], buf, self.simd);
                if k + 1 < self.cmp.len() {
                    n = nonzero(&buf[..d.outputs], idx, vals);
                }
            }
            [buf[0], buf[1]]
        })
    }

    /// Probability that the position embedded as `a` is better for White than `b`'s.
    pub fn compare(&self, a: &[f32], b: &[f32]) -> f32 {
        let [l0, l1] = self.logits(a, b);
        1.0 / (1.0 + (l1 - l0).exp())
    }

    /// Probability that `a` is better for White than `b` (no cache).
    pub fn prob_first_better(&self, a: &Chess, b: &Chess) -> f32 {
        self.compare(&self.pos2vec(a), &self.pos2vec(b))
    }
}

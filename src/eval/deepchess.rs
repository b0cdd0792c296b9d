//! `Evaluator=deepchess`: the DeepChess comparator, searched by
//! [`crate::search::comparator`]. Pos2Vec vectors are cached by Zobrist key (the colour-mirrored
//! position's under the key xor [`MIRROR_SALT`]), in one cache shared by all threads.

use std::path::Path;

use shakmaty::Chess;

use super::ComparatorEvaluator;
use crate::nn::DeepChess;
use crate::nn::cache::VecCache;
use crate::nn::net::{Kind, NetFile, NetSource};

/// Cache key of a position's mirror: its Zobrist key xor this.
pub const MIRROR_SALT: u64 = 0x9E37_79B9_7F4A_7C15;
/// Pos2Vec vectors cached (about 400 bytes each for 100-long vectors: 26 MB).
pub const CACHE_ENTRIES: usize = 1 << 16;

pub struct DeepChessEval {
    pub net: DeepChess,
    pub cache: VecCache,
}

impl DeepChessEval {
    pub fn load(path: &Path) -> Result<Self, crate::nn::Error> {
        Self::open(&NetSource::File(path.to_path_buf()))
    }

    /// The DeepChess evaluator with the net from `source`.
    pub fn open(source: &NetSource) -> Result<Self, crate::nn::Error> {
        Ok(Self::new(DeepChess::from_file(&NetFile::open(
            Kind::DeepChess,
            source,
        )?)?))
    }

    pub fn new(net: DeepChess) -> Self {
        let cache = VecCache::new(net.embed_len(), CACHE_ENTRIES);
        DeepChessEval { net, cache }
    }
}

impl ComparatorEvaluator for DeepChessEval {
    fn name(&self) -> &'static str {
        "deepchess"
    }
    fn description(&self) -> String {
        self.net.description.clone()
    }
    fn embed_len(&self) -> usize {
        self.net.embed_len()
    }
    fn embed(&self, pos: &Chess, hash: u64, out: &mut [f32]) {
        if !self.cache.get(hash, out) {
            let v = self.net.pos2vec(pos);
            out[..v.len()].copy_from_slice(&v);
            self.cache.put(hash, &v);
        }
    }
    fn embed_mirror(&self, pos: &Chess, hash: u64, out: &mut [f32]) {
        let key = hash ^ MIRROR_SALT;
        if !self.cache.get(key, out) {
            let v = self.net.pos2vec_mirror(pos);
            out[..v.len()].copy_from_slice(&v);
            self.cache.put(key, &v);
        }
    }
    fn compare(&self, a: &[f32], b: &[f32]) -> f32 {
        self.net.compare(a, b)
    }
}

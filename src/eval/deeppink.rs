//! `Evaluator=deeppink`: the Deep Pink net's f(p) in centipawns for the side to move. In the
//! search, leaves are evaluated from accumulators updated move by move
//! ([`crate::nn::deeppink::Accumulators`]); [`ScalarEvaluator::evaluate`] computes from scratch.

use std::collections::TryReserveError;
use std::path::Path;

use shakmaty::Chess;

use super::{Incremental, ScalarEvaluator};
use crate::nn::DeepPink;
/// The first-layer accumulators the search keeps move by move (re-exported: the search knows
/// evaluators, not nets).
pub use crate::nn::deeppink::Accumulators;
use crate::nn::net::{Kind, NetFile, NetSource};

#[derive(Debug)]
pub struct DeepPinkEval {
    pub net: DeepPink,
}

impl DeepPinkEval {
    pub fn load(path: &Path) -> Result<Self, crate::nn::Error> {
        Self::open(&NetSource::File(path.to_path_buf()))
    }

    /// The Deep Pink evaluator with the net from `source`.
    pub fn open(source: &NetSource) -> Result<Self, crate::nn::Error> {
        Ok(DeepPinkEval {
            net: DeepPink::from_file(&NetFile::open(Kind::DeepPink, source)?)?,
        })
    }
}

impl ScalarEvaluator for DeepPinkEval {
    fn name(&self) -> &'static str {
        "deeppink"
    }
    fn evaluate(&self, pos: &Chess, _hash: u64) -> i32 {
        self.net.evaluate_cp(pos)
    }
    fn description(&self) -> Option<String> {
        Some(self.net.description.clone())
    }
    fn incremental(
        &self,
        plies: usize,
    ) -> Result<Option<Box<dyn Incremental + '_>>, TryReserveError> {
        Ok(Some(Box::new(Accumulators::try_new(&self.net, plies)?)))
    }
}

impl Incremental for Accumulators<'_> {
    fn refresh(&mut self, ply: usize, pos: &Chess) {
        Accumulators::refresh(self, ply, pos);
    }
    fn push(&mut self, ply: usize, pos: &Chess, m: shakmaty::Move) {
        Accumulators::push(self, ply, pos, m);
    }
    fn push_null(&mut self, ply: usize) {
        Accumulators::push_null(self, ply);
    }
    fn evaluate_cp(&self, ply: usize, pos: &Chess) -> i32 {
        Accumulators::evaluate_cp(self, ply, shakmaty::Position::turn(pos))
    }
}

//! `Evaluator=learned`: the value net trained on Deep Red's own games ([`crate::nn::value`]),
//! centipawns for the side to move. In the search, leaves are evaluated from i16 accumulators
//! updated move by move; [`ScalarEvaluator::evaluate`] computes from scratch.

use std::collections::TryReserveError;
use std::path::Path;

use shakmaty::{Chess, Move};

use super::{Incremental, ScalarEvaluator};
use crate::nn::net::{Kind, NetFile, NetSource};
use crate::nn::value::{ValueAccumulators, ValueNet};

#[derive(Debug)]
pub struct LearnedEval {
    pub net: ValueNet,
}

impl LearnedEval {
    pub fn load(path: &Path) -> Result<Self, crate::nn::Error> {
        Self::open(&NetSource::File(path.to_path_buf()))
    }

    /// The learned evaluator with the net from `source`.
    pub fn open(source: &NetSource) -> Result<Self, crate::nn::Error> {
        Ok(LearnedEval {
            net: ValueNet::from_file(&NetFile::open(Kind::Learned, source)?)?,
        })
    }
}

impl ScalarEvaluator for LearnedEval {
    fn name(&self) -> &'static str {
        "learned"
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
        Ok(Some(Box::new(ValueAccumulators::try_new(
            &self.net, plies,
        )?)))
    }
}

impl Incremental for ValueAccumulators<'_> {
    fn refresh(&mut self, ply: usize, pos: &Chess) {
        ValueAccumulators::refresh(self, ply, pos);
    }
    fn push(&mut self, ply: usize, pos: &Chess, m: Move) {
        ValueAccumulators::push(self, ply, pos, m);
    }
    fn push_null(&mut self, ply: usize) {
        ValueAccumulators::push_null(self, ply);
    }
    fn evaluate_cp(&self, ply: usize, pos: &Chess) -> i32 {
        ValueAccumulators::evaluate_cp(self, ply, pos)
    }
}

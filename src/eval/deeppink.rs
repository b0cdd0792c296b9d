//! `Evaluator=deeppink`: the Deep Pink net's f(p) in centipawns for the side to move. In the
//! search, leaves are evaluated from accumulators updated move by move
//! ([`crate::nn::deeppink::Accumulators`]); [`ScalarEvaluator::evaluate`] computes from scratch.

use std::path::Path;

use shakmaty::Chess;

use super::ScalarEvaluator;
use crate::nn::DeepPink;
/// The first-layer accumulators the search keeps move by move (re-exported: the search knows
/// evaluators, not nets).
pub use crate::nn::deeppink::Accumulators;

#[derive(Debug)]
pub struct DeepPinkEval {
    pub net: DeepPink,
}

impl DeepPinkEval {
    pub fn load(path: &Path) -> Result<Self, crate::nn::Error> {
        Ok(DeepPinkEval {
            net: DeepPink::load(path)?,
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
    fn deep_pink(&self) -> Option<&DeepPink> {
        Some(&self.net)
    }
}

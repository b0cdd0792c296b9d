//! Evaluators: the pluggable leaf scorers of the search.
//!
//! Two shapes exist, so that every evaluator Deep Red plans fits the one search:
//! - [`ScalarEvaluator`]: a number for a position, from the side to move's view, in centipawns
//!   (pst, the experience win ratio, Deep Pink). Searched with negamax alpha-beta.
//! - [`ComparatorEvaluator`]: decides which of two positions is better for White (DeepChess).
//!   Searched with the alpha_pos/beta_pos alpha-beta of the DeepChess paper.
//!
//! The search receives an [`Evaluator`] and dispatches on its shape.

pub mod pst;

use std::sync::Arc;

use shakmaty::Chess;

/// A leaf scorer that returns a score in centipawns from the side to move's point of view.
pub trait ScalarEvaluator: Send + Sync {
    /// The name used by the `Evaluator` UCI option.
    fn name(&self) -> &'static str;
    /// Scores `pos` (not a terminal position) for the side to move. `hash` is the position's
    /// Zobrist key, for evaluators that cache by position.
    fn evaluate(&self, pos: &Chess, hash: u64) -> i32;
}

/// A leaf judge that compares two positions instead of scoring one.
pub trait ComparatorEvaluator: Send + Sync {
    /// The name used by the `Evaluator` UCI option.
    fn name(&self) -> &'static str;
    /// Probability in [0, 1] that `a` is better for White than `b`.
    fn prob_first_better(&self, a: &Chess, b: &Chess) -> f32;
}

/// The evaluator a search runs with.
#[derive(Clone)]
pub enum Evaluator {
    Scalar(Arc<dyn ScalarEvaluator>),
    Comparator(Arc<dyn ComparatorEvaluator>),
}

impl Evaluator {
    pub fn name(&self) -> &'static str {
        match self {
            Evaluator::Scalar(e) => e.name(),
            Evaluator::Comparator(e) => e.name(),
        }
    }
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Evaluator({})", self.name())
    }
}

/// Names accepted by the `Evaluator` option, in the order the UCI `combo` lists them.
pub const EVALUATOR_NAMES: &[&str] = &["pst"];

/// The evaluator called `name` (case-insensitive), or a message saying which names exist.
pub fn by_name(name: &str) -> Result<Evaluator, String> {
    match name.to_ascii_lowercase().as_str() {
        "pst" => Ok(Evaluator::Scalar(Arc::new(pst::Pst))),
        _ => Err(format!(
            "unknown evaluator '{name}' (available: {})",
            EVALUATOR_NAMES.join(", ")
        )),
    }
}

/// The default evaluator (pst).
pub fn default_evaluator() -> Evaluator {
    Evaluator::Scalar(Arc::new(pst::Pst))
}

//! Why an evaluator cannot be had: an unknown name, its net or its experience store.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unknown evaluator '{name}' (available: {})", super::EvalKind::ALL.map(|k| k.name()).join(", "))]
    Unknown { name: String },
    #[error(transparent)]
    Net(#[from] crate::nn::Error),
    #[error(transparent)]
    Experience(#[from] crate::experience::Error),
    /// A TorchScript module (feature `torch`) that cannot be loaded or does not fit.
    #[error("'{path}': {problem}")]
    TorchScript { path: String, problem: String },
}

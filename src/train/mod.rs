//! Learning the nets: training data sets from games, training with libtorch (feature `torch`:
//! DeepChess and Deep Pink, TorchScript export), held-out accuracy, and the training plots.

pub mod accuracy;
pub mod data;
mod error;
pub mod plot;

pub use error::Error;
#[cfg(feature = "torch")]
mod torch;

#[cfg(feature = "torch")]
pub use torch::*;

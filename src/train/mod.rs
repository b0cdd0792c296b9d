//! Learning the nets: training data sets from games, training with libtorch (feature `torch`:
//! DeepChess and Deep Pink, TorchScript export), the learned value net's own CPU trainer
//! (`value`), held-out accuracy, and the training plots.

pub mod accuracy;
pub mod average;
pub mod calibrate;
pub mod data;
#[cfg(feature = "torch")]
mod deepchess;
#[cfg(feature = "torch")]
mod deeppink;
mod error;
#[cfg(feature = "torch")]
mod export;
#[cfg(feature = "torch")]
mod fit;
pub mod plot;
#[cfg(feature = "torch")]
mod run;
pub mod value;

pub use error::Error;
#[cfg(feature = "torch")]
pub use export::{export_torchscript, tch_outputs};
#[cfg(feature = "torch")]
pub use fit::train;
#[cfg(feature = "torch")]
pub use run::{EpochLog, TrainOptions};

//! Tools around the engine: the EPD/STS test-suite runner (any UCI engine), the benchmark of
//! the neural nets' dense kernels, the win/draw/loss model fit and learning-curve plots.

pub mod curve;
mod error;
pub mod kernels;
pub mod sts;
pub mod wdl;

pub use error::Error;

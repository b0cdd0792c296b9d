//! Tools around the engine: the EPD/STS test-suite runner (any UCI engine) and the benchmark
//! of the neural nets' dense kernels.

mod error;
pub mod kernels;
pub mod sts;
pub mod wdl;

pub use error::Error;

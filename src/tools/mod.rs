//! Tools around the engine: the EPD/STS test-suite runner (any UCI engine) and the benchmark
//! of the neural nets' dense kernels.

pub mod kernels;
pub mod sts;

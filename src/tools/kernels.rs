//! `deepred nn kernel-bench`: the speed of one dense layer of the nets (DeepChess's 600x400 by
//! default) on random weights and sparse (post-ReLU) inputs, with the AVX2 and the portable
//! kernel, timed in this thread's CPU time so that other load on the machine does not count.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::nn::layers::{AVec, Dense, SIMD, kernel_name, nonzero};
use crate::train::accuracy::thread_seconds;

/// One measurement: microseconds per layer.
#[derive(Clone, Debug)]
pub struct KernelTiming {
    pub kernel: &'static str,
    /// `same input` (one input, hot in cache) or `N inputs` (a rotating set).
    pub inputs: String,
    pub micros: f64,
}

/// Times `inputs x outputs` layers for about `seconds` per measurement.
pub fn run(inputs: usize, outputs: usize, seconds: f64) -> Vec<KernelTiming> {
    let mut rng = StdRng::seed_from_u64(7);
    let w: Vec<f32> = (0..inputs * outputs)
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    let b: Vec<f32> = (0..outputs).map(|_| rng.random_range(-1.0..1.0)).collect();
    let d = Dense::from_torch(inputs, outputs, &w, &b);
    // About half the inputs positive, as after a ReLU.
    let xs: Vec<Vec<f32>> = (0..64)
        .map(|_| {
            (0..inputs)
                .map(|_| rng.random_range(-1.0f32..1.0).max(0.0))
                .collect()
        })
        .collect();
    let mut out = AVec::zeros(d.padded);
    let mut idx = vec![0u16; inputs];
    let mut vals = vec![0f32; inputs];
    let kernels: Vec<bool> = if *SIMD {
        vec![true, false]
    } else {
        vec![false]
    };
    let mut timings = Vec::new();
    for simd in kernels {
        for (label, set) in [("same input", &xs[..1]), ("64 inputs", &xs[..])] {
            let t = thread_seconds();
            let mut n = 0u64;
            while thread_seconds() - t < seconds {
                for _ in 0..(1000 / set.len()).max(1) {
                    for x in set {
                        let k = nonzero(x, &mut idx, &mut vals);
                        d.forward(&idx[..k], &vals[..k], &mut out, simd);
                        n += 1;
                    }
                }
            }
            let dt = thread_seconds() - t;
            timings.push(KernelTiming {
                kernel: kernel_name(simd),
                inputs: label.to_string(),
                micros: dt / n.max(1) as f64 * 1e6,
            });
        }
    }
    timings
}

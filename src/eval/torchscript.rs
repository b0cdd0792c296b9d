//! TorchScript nets (feature `torch`): `EvalFile` may name a TorchScript module exported from
//! PyTorch (`torch.jit.trace` or `torch.jit.script`, then `.save()`) instead of a safetensors
//! file. A TorchScript file is a zip archive, which is how it is told apart.
//!
//! Signatures (float32 tensors, batch first, features as in [`crate::nn`]):
//! - deeppink: `forward(x: [N, 768]) -> [N]` or `[N, 1]`, x = deeppink768 features of the
//!   positions (side to move's view), output f = score for the side to move; centipawns =
//!   100 * f.
//! - deepchess: `forward(a: [N, 773], b: [N, 773]) -> [N, 2]`, a and b = deepchess773 features,
//!   output = logits; softmax(logits)[0] is the probability that `a` is better for White.
//!
//! These run through libtorch one position (or one pair) at a time: much slower than the native
//! nets, which use incremental accumulators; they are for trying models trained elsewhere.

use std::path::Path;
use std::sync::Mutex;

use shakmaty::{Chess, Position};
use tch::{CModule, Device, Kind, Tensor};

use super::{ComparatorEvaluator, Error, ScalarEvaluator};
use crate::nn::features;

/// Whether `path` is a TorchScript archive (a zip file) rather than a safetensors file.
pub fn is_torchscript(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok()
        && magic == *b"PK\x03\x04"
}

fn load(path: &Path) -> Result<CModule, Error> {
    let mut m = CModule::load_on_device(path, Device::Cpu).map_err(|e| Error::TorchScript {
        path: path.display().to_string(),
        problem: format!("not a loadable TorchScript module: {e}"),
    })?;
    m.set_eval();
    Ok(m)
}

fn dense(f: &[u16], width: usize) -> Tensor {
    let mut v = vec![0f32; width];
    for &k in f {
        v[usize::from(k)] = 1.0;
    }
    Tensor::from_slice(&v).view([1, width as i64])
}

/// A Deep Pink style TorchScript module.
pub struct ScriptPink {
    module: Mutex<CModule>,
    path: String,
}

/// The error of a module at `path`.
fn problem(path: &str, problem: String) -> Error {
    Error::TorchScript {
        path: path.to_string(),
        problem,
    }
}

impl ScriptPink {
    /// Loads `path` and checks the signature on the start position.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let s = ScriptPink {
            module: Mutex::new(load(path)?),
            path: path.display().to_string(),
        };
        s.forward(&Chess::default())?;
        Ok(s)
    }

    fn problem(&self, what: String) -> Error {
        problem(&self.path, what)
    }

    /// f of `pos` for the side to move.
    pub fn forward(&self, pos: &Chess) -> Result<f32, Error> {
        let x = dense(&features::deeppink(pos, pos.turn()), 768);
        let m = self.module.lock().unwrap_or_else(|p| p.into_inner());
        let out = tch::no_grad(|| m.forward_ts(&[x]))
            .map_err(|e| self.problem(format!("forward failed: {e}")))?;
        if out.numel() != 1 {
            return Err(self.problem(format!(
                "a deeppink module must return one value per position, got shape {:?}",
                out.size()
            )));
        }
        let mut v = [0f32; 1];
        out.to_kind(Kind::Float)
            .contiguous()
            .view([-1])
            .copy_data(&mut v, 1);
        Ok(v[0])
    }
}

impl ScalarEvaluator for ScriptPink {
    fn name(&self) -> &'static str {
        "deeppink"
    }
    fn evaluate(&self, pos: &Chess, _hash: u64) -> i32 {
        let f = self.forward(pos).unwrap_or(0.0);
        (f * 100.0).round().clamp(-20_000.0, 20_000.0) as i32
    }
}

/// A DeepChess style TorchScript module. Its "vectors" are the 773 input features; every
/// comparison runs the whole module on the pair.
pub struct ScriptChess {
    module: Mutex<CModule>,
    path: String,
}

impl ScriptChess {
    /// Loads `path` and checks the signature on a pair of positions.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let s = ScriptChess {
            module: Mutex::new(load(path)?),
            path: path.display().to_string(),
        };
        let mut a = vec![0f32; 773];
        s.embed(&Chess::default(), 0, &mut a);
        s.logits(&a, &a)?;
        Ok(s)
    }

    fn problem(&self, what: String) -> Error {
        problem(&self.path, what)
    }

    fn logits(&self, a: &[f32], b: &[f32]) -> Result<[f32; 2], Error> {
        let ta = Tensor::from_slice(a).view([1, 773]);
        let tb = Tensor::from_slice(b).view([1, 773]);
        let m = self.module.lock().unwrap_or_else(|p| p.into_inner());
        let out = tch::no_grad(|| m.forward_ts(&[ta, tb]))
            .map_err(|e| self.problem(format!("forward failed: {e}")))?;
        if out.numel() != 2 {
            return Err(self.problem(format!(
                "a deepchess module must return 2 logits per pair, got shape {:?}",
                out.size()
            )));
        }
        let mut v = [0f32; 2];
        out.to_kind(Kind::Float).contiguous().copy_data(&mut v, 2);
        Ok(v)
    }
}

impl ComparatorEvaluator for ScriptChess {
    fn name(&self) -> &'static str {
        "deepchess"
    }
    fn description(&self) -> String {
        format!("TorchScript module {}", self.path)
    }
    fn embed_len(&self) -> usize {
        773
    }
    fn embed(&self, pos: &Chess, _hash: u64, out: &mut [f32]) {
        out[..773].fill(0.0);
        for k in features::deepchess(pos) {
            out[usize::from(k)] = 1.0;
        }
    }
    fn embed_mirror(&self, pos: &Chess, _hash: u64, out: &mut [f32]) {
        out[..773].fill(0.0);
        for k in features::deepchess_mirror(&features::deepchess(pos)) {
            out[usize::from(k)] = 1.0;
        }
    }
    fn compare(&self, a: &[f32], b: &[f32]) -> f32 {
        match self.logits(a, b) {
            Ok([x, y]) => 1.0 / (1.0 + (y - x).exp()),
            Err(_) => 0.5,
        }
    }
}

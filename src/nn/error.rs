//! What can go wrong with a net file: every problem names the file and what is wrong with it.

use std::path::PathBuf;

use super::layers::F16_MAX;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A net file that cannot be used.
    #[error("net '{}': {problem}", path.display())]
    Net { path: PathBuf, problem: Problem },
    /// A net could not be written (random nets, exports).
    #[error("cannot write '{}': {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Tensors that safetensors refuses to serialise.
    #[error("cannot serialise the net: {0}")]
    Serialize(String),
}

/// What is wrong with a net file.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("cannot read ({0})")]
    Read(std::io::Error),
    #[error("not a safetensors file ({0} bytes, truncated or empty)")]
    TooShort(usize),
    #[error(
        "this is a TorchScript module (a zip archive); this build reads safetensors nets only, TorchScript needs a build with --features torch"
    )]
    TorchScript,
    #[error("not a valid safetensors file (truncated or corrupt?): {0}")]
    Corrupt(String),
    #[error("metadata format is '{0}', not 'deepred-nn'")]
    Format(String),
    #[error("no 'format: deepred-nn' in the metadata")]
    NoFormat,
    #[error("no 'kind' in the metadata (deepchess, deeppink or learned)")]
    NoKind,
    #[error("unknown kind '{0}' (deepchess, deeppink or learned)")]
    UnknownKind(String),
    #[error("is a {found} net, not a {wanted} net")]
    WrongKind {
        found: &'static str,
        wanted: &'static str,
    },
    #[error("features '{found}' do not match kind {kind} (expected '{expected}')")]
    Features {
        found: String,
        kind: &'static str,
        expected: &'static str,
    },
    #[error("tensor '{name}' is {dtype}, expected F32")]
    Dtype { name: String, dtype: String },
    #[error("tensor '{0}' holds NaN or infinite values")]
    NotFinite(String),
    #[error("tensor '{name}' holds values beyond ±{limit} (the quantised kernels would overflow)")]
    Range { name: String, limit: f32 },
    #[error("missing tensor '{0}'")]
    MissingTensor(String),
    #[error("tensor '{name}' has shape {shape:?}, expected {expected}")]
    Shape {
        name: String,
        shape: Vec<usize>,
        expected: String,
    },
    #[error("hidden size {hidden} is more than the {max} the evaluation's kernels take")]
    TooWide { hidden: usize, max: usize },
    #[error("{buckets} output buckets: a learned net has {allowed:?}")]
    Buckets { buckets: usize, allowed: Vec<usize> },
    #[error("layer '{layer}' has too many inputs ({inputs})")]
    TooManyInputs { layer: String, inputs: usize },
    #[error(
        "tensor '{tensor}' holds {value}, beyond half precision (at most {F16_MAX} in magnitude)"
    )]
    BeyondHalf { tensor: String, value: f32 },
    #[error(
        "last layer '{layer}' has {outputs} outputs, expected 1 (or tensor '{next}.weight' is missing)"
    )]
    LastLayer {
        layer: String,
        outputs: usize,
        next: String,
    },
    #[error("metadata cp_scale '{0}' is not a number")]
    CpScale(String),
}

impl Error {
    pub(crate) fn net(path: &std::path::Path, problem: Problem) -> Error {
        Error::Net {
            path: path.to_path_buf(),
            problem,
        }
    }
}

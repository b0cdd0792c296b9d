//! Reading net files (safetensors with `deepred-nn` metadata) with validation: every problem is
//! an error naming the file and what is wrong, never a panic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::{Dtype, SafeTensors};

use super::layers::{Dense, FirstLayer};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    DeepChess,
    DeepPink,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::DeepChess => "deepchess",
            Kind::DeepPink => "deeppink",
        }
    }
    pub fn features(self) -> &'static str {
        match self {
            Kind::DeepChess => "deepchess773",
            Kind::DeepPink => "deeppink768",
        }
    }
    pub fn from_name(s: &str) -> Option<Kind> {
        match s {
            "deepchess" => Some(Kind::DeepChess),
            "deeppink" => Some(Kind::DeepPink),
            _ => None,
        }
    }
}

/// (inputs, outputs, weight, bias) of an `nn.Linear`.
pub type Linear<'a> = (usize, usize, &'a [f32], &'a [f32]);

/// A validated net file: metadata and f32 tensors.
#[derive(Debug)]
pub struct NetFile {
    pub path: PathBuf,
    pub kind: Kind,
    pub meta: HashMap<String, String>,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl NetFile {
    /// Reads `path` and checks the metadata (`format`, `kind`, `features`). With `expect`, a
    /// net of another kind is refused.
    pub fn load(path: &Path, expect: Option<Kind>) -> Result<NetFile, String> {
        let err = |what: String| format!("net '{}': {what}", path.display());
        let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read ({e})")))?;
        Self::parse(&bytes, path, expect).map_err(err)
    }

    fn parse(bytes: &[u8], path: &Path, expect: Option<Kind>) -> Result<NetFile, String> {
        if bytes.len() < 8 {
            return Err(format!(
                "not a safetensors file ({} bytes, truncated or empty)",
                bytes.len()
            ));
        }
        if bytes.starts_with(b"PK\x03\x04") {
            return Err(
                "this is a TorchScript module (a zip archive); this build reads safetensors nets only, TorchScript needs a build with --features torch".to_string(),
            );
        }
        let (_, metadata) = SafeTensors::read_metadata(bytes)
            .map_err(|e| format!("not a valid safetensors file (truncated or corrupt?): {e}"))?;
        let meta = metadata.metadata().clone().unwrap_or_default();
        match meta.get("format").map(String::as_str) {
            Some("deepred-nn") => {}
            Some(other) => return Err(format!("metadata format is '{other}', not 'deepred-nn'")),
            None => return Err("no 'format: deepred-nn' in the metadata".to_string()),
        }
        let kind_text = meta
            .get("kind")
            .ok_or("no 'kind' in the metadata (deepchess or deeppink)")?;
        let kind = Kind::from_name(kind_text)
            .ok_or_else(|| format!("unknown kind '{kind_text}' (deepchess or deeppink)"))?;
        if let Some(want) = expect
            && want != kind
        {
            return Err(format!(
                "is a {} net, not a {} net",
                kind.name(),
                want.name()
            ));
        }
        if let Some(f) = meta.get("features")
            && f != kind.features()
        {
            return Err(format!(
                "features '{f}' do not match kind {} (expected '{}')",
                kind.name(),
                kind.features()
            ));
        }
        let st = SafeTensors::deserialize(bytes)
            .map_err(|e| format!("not a valid safetensors file (truncated or corrupt?): {e}"))?;
        let mut tensors = HashMap::new();
        for (name, view) in st.iter() {
            if view.dtype() != Dtype::F32 {
                return Err(format!(
                    "tensor '{name}' is {:?}, expected F32",
                    view.dtype()
                ));
            }
            let data: Vec<f32> = view
                .data()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if data.iter().any(|v| !v.is_finite()) {
                return Err(format!("tensor '{name}' holds NaN or infinite values"));
            }
            tensors.insert(name.to_string(), (view.shape().to_vec(), data));
        }
        Ok(NetFile {
            path: path.to_path_buf(),
            kind,
            meta,
            tensors,
        })
    }

    pub fn has(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// The `nn.Linear` called `prefix` (`prefix.weight [out, in]`, `prefix.bias [out]`), with
    /// its sizes checked where given. Returns (inputs, outputs, weight, bias).
    pub fn linear(
        &self,
        prefix: &str,
        inputs: Option<usize>,
        outputs: Option<usize>,
    ) -> Result<Linear<'_>, String> {
        let err = |what: String| format!("net '{}': {what}", self.path.display());
        let get = |name: &str| {
            self.tensors
                .get(name)
                .ok_or_else(|| err(format!("missing tensor '{name}'")))
        };
        let wname = format!("{prefix}.weight");
        let bname = format!("{prefix}.bias");
        let (ws, w) = get(&wname)?;
        let (bs, b) = get(&bname)?;
        let expected = format!(
            "[{}, {}]",
            outputs.map_or("?".to_string(), |o| o.to_string()),
            inputs.map_or("?".to_string(), |i| i.to_string())
        );
        if ws.len() != 2
            || ws[0] == 0
            || ws[1] == 0
            || inputs.is_some_and(|i| ws[1] != i)
            || outputs.is_some_and(|o| ws[0] != o)
        {
            return Err(err(format!(
                "tensor '{wname}' has shape {ws:?}, expected {expected}"
            )));
        }
        if bs.len() != 1 || bs[0] != ws[0] {
            return Err(err(format!(
                "tensor '{bname}' has shape {bs:?}, expected [{}]",
                ws[0]
            )));
        }
        Ok((ws[1], ws[0], w, b))
    }

    pub fn dense(
        &self,
        prefix: &str,
        inputs: Option<usize>,
        outputs: Option<usize>,
    ) -> Result<Dense, String> {
        let (i, o, w, b) = self.linear(prefix, inputs, outputs)?;
        if i > usize::from(u16::MAX) {
            return Err(format!(
                "net '{}': layer '{prefix}' has too many inputs ({i})",
                self.path.display()
            ));
        }
        // Dense weights are kept as binary16 (see `layers`): larger ones would become infinite.
        if let Some(v) = w.iter().find(|v| v.abs() > crate::nn::layers::F16_MAX) {
            return Err(format!(
                "net '{}': tensor '{prefix}.weight' holds {v}, beyond half precision (at most {} in magnitude)",
                self.path.display(),
                crate::nn::layers::F16_MAX
            ));
        }
        Ok(Dense::from_torch(i, o, w, b))
    }

    pub fn first_layer(
        &self,
        prefix: &str,
        inputs: usize,
        outputs: Option<usize>,
    ) -> Result<FirstLayer, String> {
        let (i, o, w, b) = self.linear(prefix, Some(inputs), outputs)?;
        Ok(FirstLayer::from_torch(i, o, w, b))
    }

    /// A metadata value, or `?`.
    pub fn meta_or(&self, key: &str) -> String {
        self.meta.get(key).cloned().unwrap_or_else(|| "?".into())
    }
}

/// Where the net of evaluator `name` is looked for when `EvalFile` is not set:
/// `nets/<name>.safetensors` in the working directory, then beside the executable's
/// `../../nets/` (a cargo build in `target/release/`).
pub fn default_candidates(name: &str) -> Vec<PathBuf> {
    let file = format!("{name}.safetensors");
    let mut out = vec![Path::new("nets").join(&file)];
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        out.push(dir.join("../../nets").join(&file));
    }
    out
}

/// The net file to load for evaluator `name`: `explicit` if given, else the first existing
/// default candidate.
pub fn resolve(name: &str, explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    let candidates = default_candidates(name);
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "no {name} net: none of {} exists (set EvalFile)",
                candidates
                    .iter()
                    .map(|p| format!("'{}'", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

//! Reading net files (safetensors with `deepred-nn` metadata) with validation: every problem is
//! an error naming the file and what is wrong, never a panic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::{Dtype, SafeTensors};

use super::layers::{Dense, F16_MAX, FirstLayer};
use super::{Error, Problem};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    DeepChess,
    DeepPink,
    /// The learned value net (`nn::value`).
    Learned,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::DeepChess => "deepchess",
            Kind::DeepPink => "deeppink",
            Kind::Learned => "learned",
        }
    }
    pub fn features(self) -> &'static str {
        match self {
            Kind::DeepChess => "deepchess773",
            Kind::DeepPink | Kind::Learned => "deeppink768",
        }
    }
    pub fn from_name(s: &str) -> Option<Kind> {
        match s {
            "deepchess" => Some(Kind::DeepChess),
            "deeppink" => Some(Kind::DeepPink),
            "learned" => Some(Kind::Learned),
            _ => None,
        }
    }
}

/// (inputs, outputs, weight, bias) of an `nn.Linear`.
pub type Linear<'a> = (usize, usize, &'a [f32], &'a [f32]);

/// Where a net comes from: compiled into the binary, or a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetSource {
    /// The shipped net of its kind ([`super::embedded`]).
    Embedded,
    File(PathBuf),
}

/// A validated net file: metadata and f32 tensors.
#[derive(Debug)]
pub struct NetFile {
    /// The file read, or `<embedded KIND net>` (what messages name).
    pub path: PathBuf,
    /// Whether this is the net compiled into the binary.
    pub embedded: bool,
    pub kind: Kind,
    pub meta: HashMap<String, String>,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

/// The largest net file read (1 GiB: the widest learned net, 4096 hidden, is about 25 MB).
const MAX_NET_BYTES: u64 = 1 << 30;

impl NetFile {
    /// The net of `kind` from `source`.
    pub fn open(kind: Kind, source: &NetSource) -> Result<NetFile, Error> {
        match source {
            NetSource::Embedded => Self::embedded(kind),
            NetSource::File(p) => Self::load(p, Some(kind)),
        }
    }

    /// The shipped net of `kind`, compiled into the binary.
    pub fn embedded(kind: Kind) -> Result<NetFile, Error> {
        let label = PathBuf::from(format!("<embedded {} net>", kind.name()));
        let bytes = match kind {
            Kind::Learned => super::embedded::LEARNED,
            Kind::DeepPink => super::embedded::DEEPPINK,
            Kind::DeepChess => super::embedded::DEEPCHESS,
        };
        let mut f = Self::parse(bytes, &label, Some(kind)).map_err(|p| Error::net(&label, p))?;
        f.embedded = true;
        Ok(f)
    }

    /// The metadata of a net file's bytes, without its tensors (`None`: not a safetensors file).
    pub fn metadata_of(bytes: &[u8]) -> Option<HashMap<String, String>> {
        let (_, metadata) = SafeTensors::read_metadata(bytes).ok()?;
        Some(metadata.metadata().clone().unwrap_or_default())
    }

    /// Reads `path` and checks the metadata (`format`, `kind`, `features`). With `expect`, a
    /// net of another kind is refused.
    pub fn load(path: &Path, expect: Option<Kind>) -> Result<NetFile, Error> {
        let read = |e| Error::net(path, Problem::Read(e));
        // Only a regular file of a net's size: a FIFO would block the engine, /dev/zero fill
        // its memory.
        let meta = std::fs::metadata(path).map_err(read)?;
        if !meta.is_file() {
            return Err(read(std::io::Error::other("not a regular file")));
        }
        if meta.len() > MAX_NET_BYTES {
            return Err(read(std::io::Error::other(format!(
                "{} bytes, more than any net ({MAX_NET_BYTES} at most)",
                meta.len()
            ))));
        }
        let bytes = std::fs::read(path).map_err(read)?;
        Self::parse(&bytes, path, expect).map_err(|p| Error::net(path, p))
    }

    fn parse(bytes: &[u8], path: &Path, expect: Option<Kind>) -> Result<NetFile, Problem> {
        if bytes.len() < 8 {
            return Err(Problem::TooShort(bytes.len()));
        }
        if bytes.starts_with(b"PK\x03\x04") {
            return Err(Problem::TorchScript);
        }
        let corrupt = |e: safetensors::SafeTensorError| Problem::Corrupt(e.to_string());
        let (_, metadata) = SafeTensors::read_metadata(bytes).map_err(corrupt)?;
        let meta = metadata.metadata().clone().unwrap_or_default();
        match meta.get("format").map(String::as_str) {
            Some("deepred-nn") => {}
            Some(other) => return Err(Problem::Format(other.to_string())),
            None => return Err(Problem::NoFormat),
        }
        let kind_text = meta.get("kind").ok_or(Problem::NoKind)?;
        let kind =
            Kind::from_name(kind_text).ok_or_else(|| Problem::UnknownKind(kind_text.clone()))?;
        if let Some(want) = expect
            && want != kind
        {
            return Err(Problem::WrongKind {
                found: kind.name(),
                wanted: want.name(),
            });
        }
        if let Some(f) = meta.get("features")
            && f != kind.features()
        {
            return Err(Problem::Features {
                found: f.clone(),
                kind: kind.name(),
                expected: kind.features(),
            });
        }
        let st = SafeTensors::deserialize(bytes).map_err(corrupt)?;
        let mut tensors = HashMap::new();
        for (name, view) in st.iter() {
            if view.dtype() != Dtype::F32 {
                return Err(Problem::Dtype {
                    name: name.to_string(),
                    dtype: format!("{:?}", view.dtype()),
                });
            }
            let data: Vec<f32> = view
                .data()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if data.iter().any(|v| !v.is_finite()) {
                return Err(Problem::NotFinite(name.to_string()));
            }
            tensors.insert(name.to_string(), (view.shape().to_vec(), data));
        }
        Ok(NetFile {
            path: path.to_path_buf(),
            embedded: false,
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
    ) -> Result<Linear<'_>, Error> {
        let err = |problem| Error::net(&self.path, problem);
        let get = |name: &str| {
            self.tensors
                .get(name)
                .ok_or_else(|| err(Problem::MissingTensor(name.to_string())))
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
            return Err(err(Problem::Shape {
                name: wname,
                shape: ws.clone(),
                expected,
            }));
        }
        if bs.len() != 1 || bs[0] != ws[0] {
            return Err(err(Problem::Shape {
                name: bname,
                shape: bs.clone(),
                expected: format!("[{}]", ws[0]),
            }));
        }
        Ok((ws[1], ws[0], w, b))
    }

    pub fn dense(
        &self,
        prefix: &str,
        inputs: Option<usize>,
        outputs: Option<usize>,
    ) -> Result<Dense, Error> {
        let (i, o, w, b) = self.linear(prefix, inputs, outputs)?;
        if i > usize::from(u16::MAX) {
            return Err(Error::net(
                &self.path,
                Problem::TooManyInputs {
                    layer: prefix.to_string(),
                    inputs: i,
                },
            ));
        }
        // Dense weights are kept as binary16 (see `layers`): larger ones would become infinite.
        if let Some(&value) = w.iter().find(|v| v.abs() > F16_MAX) {
            return Err(Error::net(
                &self.path,
                Problem::BeyondHalf {
                    tensor: format!("{prefix}.weight"),
                    value,
                },
            ));
        }
        Ok(Dense::from_torch(i, o, w, b))
    }

    pub fn first_layer(
        &self,
        prefix: &str,
        inputs: usize,
        outputs: Option<usize>,
    ) -> Result<FirstLayer, Error> {
        let (i, o, w, b) = self.linear(prefix, Some(inputs), outputs)?;
        Ok(FirstLayer::from_torch(i, o, w, b))
    }

    /// Every tensor (name, shape, values), by name: what `nn::random::serialize` writes.
    pub fn tensors(&self) -> Vec<(String, Vec<usize>, Vec<f32>)> {
        let mut v: Vec<_> = self
            .tensors
            .iter()
            .map(|(n, (s, d))| (n.clone(), s.clone(), d.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// A metadata value, or `?`.
    pub fn meta_or(&self, key: &str) -> String {
        self.meta.get(key).cloned().unwrap_or_else(|| "?".into())
    }

    /// Where the net comes from and what it was trained on, for people: `embedded` or
    /// `file '<path>'`, then the generation and positions (or games) of its metadata.
    pub fn provenance(&self) -> String {
        let origin = if self.embedded {
            "embedded".to_string()
        } else {
            format!("file '{}'", self.path.display())
        };
        let mut facts = Vec::new();
        if let Some(g) = self.meta.get("generation") {
            facts.push(format!("generation {g}"));
        }
        if let Some(p) = self.meta.get("positions") {
            facts.push(format!("{p} positions"));
        }
        if facts.is_empty()
            && let Some(a) = self.meta.get("validation_accuracy")
        {
            facts.push(format!("validation accuracy {a}"));
        }
        if facts.is_empty() {
            origin
        } else {
            format!("{origin} ({})", facts.join(", "))
        }
    }
}

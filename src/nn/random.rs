//! Randomly initialised nets in the trainer's file format (PyTorch's default `nn.Linear` init,
//! uniform in ±1/sqrt(inputs)), for tests and for trying the engine before trained nets exist.

use std::collections::HashMap;
use std::path::Path;

use rand::{Rng, SeedableRng};
use safetensors::tensor::TensorView;

use super::Error;
use super::net::Kind;

/// A named tensor: name, shape, values.
pub type Tensor = (String, Vec<usize>, Vec<f32>);

/// Layer sizes of the default architectures: (prefix, inputs, outputs).
pub fn layout(kind: Kind) -> Vec<(String, usize, usize)> {
    match kind {
        Kind::DeepChess => {
            let mut v = Vec::new();
            for (k, (i, o)) in [(773, 600), (600, 400), (400, 200), (200, 100)]
                .into_iter()
                .enumerate()
            {
                v.push((format!("pos2vec.{k}"), i, o));
            }
            for (k, (i, o)) in [(200, 400), (400, 200), (200, 100), (100, 2)]
                .into_iter()
                .enumerate()
            {
                v.push((format!("cmp.{k}"), i, o));
            }
            v
        }
        Kind::DeepPink => [(768, 512), (512, 256), (256, 1)]
            .into_iter()
            .enumerate()
            .map(|(k, (i, o))| (format!("layers.{k}"), i, o))
            .collect(),
        Kind::Learned => learned_layout(256, 1),
    }
}

/// The layout of a learned net of `hidden` units a view and `buckets` output buckets.
pub fn learned_layout(hidden: usize, buckets: usize) -> Vec<(String, usize, usize)> {
    vec![
        ("ft".to_string(), 768, hidden),
        ("out".to_string(), 2 * hidden, buckets),
    ]
}

/// Random weights and biases for `layout`.
pub fn tensors(layout: &[(String, usize, usize)], seed: u64) -> Vec<Tensor> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for (prefix, i, o) in layout {
        let bound = 1.0 / (*i as f32).sqrt();
        let w = (0..i * o)
            .map(|_| rng.random_range(-bound..bound))
            .collect();
        let b = (0..*o).map(|_| rng.random_range(-bound..bound)).collect();
        out.push((format!("{prefix}.weight"), vec![*o, *i], w));
        out.push((format!("{prefix}.bias"), vec![*o], b));
    }
    out
}

/// The metadata the trainer writes.
pub fn metadata(kind: Kind, layout: &[(String, usize, usize)]) -> HashMap<String, String> {
    let arch = match kind {
        Kind::DeepChess => {
            let p: Vec<String> = std::iter::once(773)
                .chain(layout[..4].iter().map(|l| l.2))
                .map(|n| n.to_string())
                .collect();
            let c: Vec<String> = std::iter::once(layout[4].1)
                .chain(layout[4..].iter().map(|l| l.2))
                .map(|n| n.to_string())
                .collect();
            format!("{}/{}", p.join("-"), c.join("-"))
        }
        Kind::Learned => super::value::architecture(layout[0].2, layout[1].2),
        Kind::DeepPink => std::iter::once(768)
            .chain(layout.iter().map(|l| l.2))
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("-"),
    };
    HashMap::from([
        ("format".to_string(), "deepred-nn".to_string()),
        ("kind".to_string(), kind.name().to_string()),
        ("architecture".to_string(), arch),
        ("features".to_string(), kind.features().to_string()),
        ("games".to_string(), "0 (random initialisation)".to_string()),
        ("validation_accuracy".to_string(), "untrained".to_string()),
    ])
}

/// A safetensors file's bytes.
pub fn serialize(tensors: &[Tensor], meta: HashMap<String, String>) -> Result<Vec<u8>, Error> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(n, s, v)| {
            (
                n.clone(),
                s.clone(),
                v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            )
        })
        .collect();
    let views = bytes
        .iter()
        .map(|(n, s, b)| {
            TensorView::new(safetensors::Dtype::F32, s.clone(), b)
                .map(|v| (n.clone(), v))
                .map_err(|e| Error::Serialize(format!("tensor '{n}': {e}")))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    safetensors::serialize(views, Some(meta)).map_err(|e| Error::Serialize(e.to_string()))
}

/// Writes a random net of the default architecture of `kind`.
pub fn write(path: &Path, kind: Kind, seed: u64) -> Result<(), Error> {
    write_layout(path, kind, &layout(kind), seed)
}

/// Writes a random learned net of `hidden` units a view and `buckets` output buckets (tests,
/// and trying a size before training it).
pub fn write_learned(path: &Path, hidden: usize, buckets: usize, seed: u64) -> Result<(), Error> {
    write_layout(path, Kind::Learned, &learned_layout(hidden, buckets), seed)
}

fn write_layout(
    path: &Path,
    kind: Kind,
    l: &[(String, usize, usize)],
    seed: u64,
) -> Result<(), Error> {
    let bytes = serialize(&tensors(l, seed), metadata(kind, l))?;
    crate::chess::files::write_replacing(path, &bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

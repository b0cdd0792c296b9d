//! Trained nets back in tch (feature `torch`): TorchScript export for `EvalFile`, and the
//! outputs tch computes for a net file, which native inference must equal (tested).

use std::collections::HashMap;
use std::path::Path;

use tch::nn;
use tch::{Device, Kind as TKind, Tensor};

use super::deepchess::DeepChessNet;
use super::deeppink::DeepPinkNet;
use super::error::Error;
use super::run::terr;
use crate::nn::net::Kind;

/// The net of a safetensors file in tch modules (inference only).
pub(super) enum TchNet {
    Chess(nn::VarStore, DeepChessNet),
    Pink(nn::VarStore, DeepPinkNet),
}

/// Why the learned net has no libtorch form.
const LEARNED_NATIVE: &str =
    "the learned net runs natively (quantised); it has no libtorch or TorchScript form";

pub(super) fn load_tch(net_file: &Path, kind: Kind) -> Result<TchNet, Error> {
    // Checks the file the way the engine does, with the right message on a bad file.
    crate::nn::net::NetFile::load(net_file, Some(kind))?;
    let tensors = Tensor::read_safetensors(net_file).map_err(terr)?;
    let names: HashMap<String, Tensor> = tensors.into_iter().collect();
    let mut vs = nn::VarStore::new(Device::Cpu);
    Ok(match kind {
        Kind::DeepChess => {
            let net = DeepChessNet::new(&vs);
            copy_into(&mut vs, &names)?;
            TchNet::Chess(vs, net)
        }
        Kind::DeepPink => {
            let sizes: Vec<usize> = (0..)
                .map_while(|k| names.get(&format!("layers.{k}.weight")))
                .map(|t| t.size()[0] as usize)
                .collect();
            let hidden = &sizes[..sizes.len().saturating_sub(1)];
            let net = DeepPinkNet::new(&vs, hidden);
            copy_into(&mut vs, &names)?;
            TchNet::Pink(vs, net)
        }
        Kind::Learned => return Err(Error::Torch(LEARNED_NATIVE.into())),
    })
}

/// Writes the net of `net_file` as a TorchScript module (traced with tch) with the signature
/// that `EvalFile` accepts (see [`crate::eval::torchscript`]).
pub fn export_torchscript(net_file: &Path, out: &Path) -> Result<String, Error> {
    let kind = crate::nn::net::NetFile::load(net_file, None)?.kind;
    let module = match load_tch(net_file, kind)? {
        TchNet::Chess(mut vs, net) => {
            // Traced weights are constants: they must not require gradients.
            vs.freeze();
            let x = Tensor::zeros([1, 773], (TKind::Float, Device::Cpu));
            tch::CModule::create_by_tracing(
                "DeepChess",
                "forward",
                &[x.shallow_clone(), x],
                &mut |t: &[Tensor]| vec![net.logits(&t[0], &t[1])],
            )
        }
        TchNet::Pink(mut vs, net) => {
            vs.freeze();
            let x = Tensor::zeros([1, 768], (TKind::Float, Device::Cpu));
            tch::CModule::create_by_tracing("DeepPink", "forward", &[x], &mut |t: &[Tensor]| {
                vec![net.forward(&t[0])]
            })
        }
    }
    .map_err(terr)?;
    module
        .save(out)
        .map_err(|e| Error::Torch(format!("cannot write '{}': {e}", out.display())))?;
    Ok(format!(
        "{} TorchScript module written to {}",
        kind.name(),
        out.display()
    ))
}

/// Loads a net file into fresh tch modules and returns the output of each architecture on
/// feature rows (for the native-equals-tch test): DeepChess comparator logits of `(a, b)`
/// rows, Deep Pink f of rows.
pub fn tch_outputs(
    net_file: &Path,
    kind: Kind,
    a: &[Vec<u16>],
    b: &[Vec<u16>],
) -> Result<Vec<Vec<f32>>, Error> {
    let width = match kind {
        Kind::DeepChess => 773,
        Kind::DeepPink => 768,
        Kind::Learned => return Err(Error::Torch(LEARNED_NATIVE.into())),
    };
    let rows = |fs: &[Vec<u16>]| {
        let mut dense = vec![0f32; fs.len() * width];
        for (i, f) in fs.iter().enumerate() {
            for &k in f {
                dense[i * width + usize::from(k)] = 1.0;
            }
        }
        Tensor::from_slice(&dense).view([fs.len() as i64, width as i64])
    };
    let out = match load_tch(net_file, kind)? {
        TchNet::Chess(_vs, net) => tch::no_grad(|| net.logits(&rows(a), &rows(b))),
        TchNet::Pink(_vs, net) => tch::no_grad(|| net.forward(&rows(a))).unsqueeze(-1),
    };
    let (n, m) = (out.size()[0] as usize, out.size()[1] as usize);
    let mut flat = vec![0f32; n * m];
    out.contiguous().copy_data(&mut flat, n * m);
    Ok(flat.chunks(m).map(<[f32]>::to_vec).collect())
}

pub(super) fn copy_into(
    vs: &mut nn::VarStore,
    names: &HashMap<String, Tensor>,
) -> Result<(), Error> {
    let vars = vs.variables();
    tch::no_grad(|| {
        for (name, mut v) in vars {
            if name.starts_with("ae_decoder") {
                continue;
            }
            let src = names
                .get(&name)
                .ok_or_else(|| Error::Torch(format!("net file has no tensor {name}")))?;
            v.copy_(src);
        }
        Ok(())
    })
}

//! The shipped nets, compiled into the binary from `nets/` (the build script checks that they
//! are there), so that `EvalFile auto` works from any folder and in a copied binary. Read them
//! with [`super::net::NetFile::embedded`].

macro_rules! shipped {
    ($file:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/", $file))
    };
}

/// `nets/learned.safetensors`: the learned value net.
pub static LEARNED: &[u8] = shipped!("learned.safetensors");
/// `nets/deeppink.safetensors`.
pub static DEEPPINK: &[u8] = shipped!("deeppink.safetensors");
/// `nets/deepchess.safetensors`.
pub static DEEPCHESS: &[u8] = shipped!("deepchess.safetensors");

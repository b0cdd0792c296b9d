//! Build script: the shipped nets (`nets/*.safetensors`) are compiled into the binary
//! (`src/nn/embedded.rs`), so a copied binary plays with them from any folder. A checkout
//! without them fails here, with a message that says so, rather than deep in `include_bytes!`.

use std::path::Path;

/// The nets embedded in the binary (one per neural evaluator).
const NETS: [&str; 3] = ["learned", "deeppink", "deepchess"];

fn main() {
    let root = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| ".".into());
    let dir = Path::new(&root).join("nets");
    println!("cargo::rerun-if-changed=nets");
    for name in NETS {
        let file = dir.join(format!("{name}.safetensors"));
        println!("cargo::rerun-if-changed={}", file.display());
        match std::fs::read(&file) {
            Ok(b) if b.starts_with(b"version https://git-lfs") => {
                fail(&format!("{} is a Git LFS pointer", file.display()))
            }
            Ok(b) if b.len() > 8 => {}
            Ok(_) => fail(&format!("{} is empty or truncated", file.display())),
            Err(e) => fail(&format!("{} cannot be read ({e})", file.display())),
        }
    }
}

/// `cargo::error` fails the build once the script ends, with the message shown as an error.
fn fail(what: &str) {
    println!(
        "cargo::error=Deep Red embeds its nets in the binary, and {what}. The shipped nets live \
         in nets/ of the repository (a clone has them; a Git LFS pointer or a deleted file does \
         not): restore them with `git checkout -- nets/`."
    );
}

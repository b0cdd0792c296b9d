//! The scripts parse, and share one preamble (`scripts/lib.sh`) instead of copies of it.

use std::path::PathBuf;
use std::process::Command;

fn scripts() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_script_parses_and_sources_the_shared_preamble() {
    let all = scripts();
    assert!(all.len() >= 15, "{all:?}");
    for s in all {
        let out = Command::new("bash").arg("-n").arg(&s).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            s.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        if s.ends_with("lib.sh") {
            continue;
        }
        let text = std::fs::read_to_string(&s).unwrap();
        assert!(
            text.contains(r#". "$(dirname "${BASH_SOURCE[0]}")/lib.sh""#),
            "{} does not source scripts/lib.sh",
            s.display()
        );
        // The root is lib.sh's to find.
        for copy in ["REPO_ROOT=", "ROOT=\"$(cd", "cd \"$(dirname \"$0\")/..\""] {
            assert!(
                !text.contains(copy),
                "{} computes the root itself ({copy})",
                s.display()
            );
        }
    }
}

/// A missing binary stops a script at once, with one line naming it.
#[test]
fn a_missing_binary_is_one_clear_line() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let out = Command::new("bash")
        .arg(dir.join("bench-vs-stockfish.sh"))
        .env("DEEPRED", "/nonexistent/deepred")
        .env("STOCKFISH", "/bin/true")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("'/nonexistent/deepred' not found"), "{err}");
}

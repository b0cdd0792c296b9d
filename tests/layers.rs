//! The architecture holds: every file imports only its own layer and the layers below it
//! (DESIGN.md), and no files import each other in a circle. Read from the sources' own paths:
//! `use` declarations (braces expanded) and paths written inline in the code (`crate::a::b`,
//! `super::x`, and `deepred::a` in the binary), each resolved to the file that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each layer and the layers it may import (besides itself). The binary (`main.rs`, `cli/`,
/// `cmd/`) may import every layer.
const LAYERS: &[(&str, &[&str])] = &[
    ("chess", &[]),
    ("nn", &["chess"]),
    ("experience", &["chess"]),
    ("eval", &["chess", "nn", "experience"]),
    ("search", &["chess", "eval"]),
    ("player", &["chess", "nn", "experience", "eval", "search"]),
    (
        "uci",
        &["chess", "nn", "experience", "eval", "search", "player"],
    ),
    (
        "games",
        &["chess", "nn", "experience", "eval", "search", "player"],
    ),
    (
        "web",
        &["chess", "nn", "experience", "eval", "search", "player"],
    ),
    ("train", &["chess", "nn", "experience", "eval"]),
    ("tools", &["chess", "nn", "search", "games", "train"]),
    (
        "learn",
        &[
            "chess",
            "nn",
            "experience",
            "eval",
            "search",
            "player",
            "games",
            "train",
            "tools",
        ],
    ),
];

/// Files of the binary crate.
fn in_binary(rel: &str) -> bool {
    rel == "main.rs" || rel.starts_with("cli/") || rel.starts_with("cmd/")
}

/// The layer of a file (`src`-relative path): its top folder; `lib` for the crate root, `bin`
/// for the binary.
fn layer_of(rel: &str) -> &str {
    if in_binary(rel) {
        "bin"
    } else if rel == "lib.rs" {
        "lib"
    } else {
        rel.split('/').next().unwrap_or(rel)
    }
}

/// Module path of a file, from its crate root: `chess/fen.rs` -> [chess, fen];
/// `chess/mod.rs` -> [chess]; `cmd/engine.rs` -> [cmd, engine] (binary crate).
fn module_of(rel: &str) -> Vec<String> {
    let no_ext = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = no_ext.split('/').map(str::to_string).collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// The source text without comments and string literals (so that paths in docs or messages do
/// not count), keeping line structure.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A char literal such as '"' or '{'.
            i += 3;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into whole paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let prefix = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        parts
            .into_iter()
            .filter(|p| !p.trim().is_empty())
            .flat_map(expand)
            .map(|p| {
                if p == "self" {
                    prefix.to_string()
                } else {
                    format!("{prefix}::{p}")
                }
            })
            .collect()
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        vec![path.to_string()]
    }
}

/// Every path a file names, with the number of inline modules (`mod tests { .. }`) around it:
/// its `use` declarations and inline `crate::`, `super::`, `deepred::` paths.
fn paths_in(code: &str) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let word_start = |i: usize| i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    let mut out = Vec::new();
    let mut depth = 0usize;
    // Brace depths at which inline modules opened.
    let mut inline: Vec<usize> = Vec::new();
    let mut pending_mod = false;
    let mut i = 0;
    while i < b.len() {
        let rest = &code[i..];
        if b[i] == b'{' {
            depth += 1;
            if pending_mod {
                inline.push(depth);
                pending_mod = false;
            }
        } else if b[i] == b'}' {
            if inline.last() == Some(&depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
        } else if b[i] == b';' {
            pending_mod = false;
        } else if word_start(i) && rest.starts_with("mod ") {
            pending_mod = true;
        } else if word_start(i) && rest.starts_with("use ") {
            let end = rest.find(';').unwrap_or(rest.len());
            for p in expand(&rest[4..end]) {
                out.push((p, inline.len()));
            }
            i += end;
            continue;
        } else if word_start(i)
            && (i == 0 || b[i - 1] != b':')
            && ["crate::", "super::", "deepred::"]
                .iter()
                .any(|r| rest.starts_with(r))
        {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.push((rest[..end].trim_end_matches(':').to_string(), inline.len()));
            i += end;
            continue;
        }
        i += 1;
    }
    out
}

/// The file that defines the item a path names, or `None` for a path outside the crates.
fn resolve(src: &Path, from: &str, path: &str, inline: usize) -> Option<String> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let binary = in_binary(from);
    let mut module: Vec<String>;
    let rest: &[&str];
    match segs.first()? {
        &"crate" => {
            module = Vec::new();
            rest = &segs[1..];
            if binary {
                return resolve_in(src, &module, rest, true);
            }
        }
        &"deepred" => {
            module = Vec::new();
            rest = &segs[1..];
            return resolve_in(src, &module, rest, false);
        }
        &"super" | &"self" => {
            module = module_of(from);
            // `super` from a file is its parent module (a `mod.rs` is its folder's module);
            // inside an inline module it first leaves that module, staying in this file.
            let mut i = 0;
            while segs.get(i) == Some(&"super") {
                if i >= inline {
                    module.pop();
                }
                i += 1;
            }
            if segs.get(i) == Some(&"self") {
                i += 1;
            }
            rest = &segs[i..];
        }
        _ => return None,
    }
    resolve_in(src, &module, rest, binary)
}

fn resolve_in(src: &Path, module: &[String], rest: &[&str], binary: bool) -> Option<String> {
    let mut module = module.to_vec();
    for seg in rest {
        let dir: PathBuf = module.iter().collect();
        let file = src.join(&dir).join(format!("{seg}.rs"));
        let folder = src.join(&dir).join(seg).join("mod.rs");
        if file.is_file() || folder.is_file() {
            module.push(seg.to_string());
        } else {
            break;
        }
    }
    let dir: PathBuf = module.iter().collect();
    let candidates = if module.is_empty() {
        vec![PathBuf::from(if binary { "main.rs" } else { "lib.rs" })]
    } else {
        vec![dir.with_extension("rs"), dir.join("mod.rs")]
    };
    candidates
        .into_iter()
        .find(|c| src.join(c).is_file())
        .map(|c| c.to_string_lossy().replace('\\', "/"))
}

/// The import graph of the tree under `src`: file -> files it imports (itself excluded).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut g = BTreeMap::new();
    for f in files {
        let rel = f
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let code = strip(&std::fs::read_to_string(&f).unwrap());
        let targets: BTreeSet<String> = paths_in(&code)
            .iter()
            .filter_map(|(p, inline)| resolve(src, &rel, p, *inline))
            .filter(|t| *t != rel)
            .collect();
        g.insert(rel, targets);
    }
    g
}

/// Imports that break the layering: (from, to).
fn forbidden(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut bad = Vec::new();
    for (from, tos) in g {
        let lf = layer_of(from);
        for to in tos {
            let lt = layer_of(to);
            let ok = match lf {
                "bin" => true,
                _ if lt == lf => true,
                // Nothing imports the crate root: it only declares the layers.
                _ if lt == "lib" || lt == "bin" => false,
                _ => allowed.get(lf).is_some_and(|a| a.contains(&lt)),
            };
            if !ok {
                bad.push((from.clone(), to.clone()));
            }
        }
    }
    bad
}

/// A circle of files, if there is one.
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == m).unwrap_or(0);
                    let mut c = path[start..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0
            && let Some(c) = visit(n, g, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn every_file_imports_only_its_layer_and_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    let edges: usize = g.values().map(BTreeSet::len).sum();
    assert!(
        g.len() > 60 && edges > 150,
        "{} files, {edges} imports read",
        g.len()
    );
    for file in g.keys() {
        let l = layer_of(file);
        assert!(
            l == "bin" || l == "lib" || LAYERS.iter().any(|(n, _)| *n == l),
            "{file} is in no layer of DESIGN.md"
        );
    }
    // Spot checks of the reader itself on imports known to exist.
    assert!(g["search/worker/mod.rs"].contains("chess/zobrist.rs"));
    assert!(g["uci/engine.rs"].contains("search/mod.rs"));
    assert!(g["cmd/engine.rs"].contains("uci/mod.rs"));
    let bad = forbidden(&g);
    assert!(
        bad.is_empty(),
        "imports from a layer to one it may not use:\n{}",
        bad.iter()
            .map(|(a, b)| format!("  {a} -> {b}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if let Some(c) = circle(&graph(&src)) {
        panic!("files in a circle: {}", c.join(" -> "));
    }
}

/// The checks find what they look for: a tree with an upward import and a circle.
#[test]
fn the_checks_catch_an_upward_import_and_a_circle() {
    let dir = std::env::temp_dir().join(format!("deepred-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (file, text) in [
        ("lib.rs", "pub mod chess;\npub mod search;\n"),
        ("chess/mod.rs", "pub mod fen;\npub mod rules;\n"),
        (
            "chess/fen.rs",
            "use crate::search::Limits; // upward\nuse super::rules::GameResult;\n",
        ),
        (
            "chess/rules.rs",
            "/// crate::search::nothing in a comment\npub fn f() { super::fen::parse(\"crate::search\"); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::search::Limits;\n}\n",
        ),
        (
            "search/mod.rs",
            "use crate::chess::{fen::parse_fen, rules};\npub struct Limits;\n",
        ),
    ] {
        let p = dir.join(file);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let g = graph(&dir);
    assert_eq!(
        forbidden(&g),
        vec![("chess/fen.rs".to_string(), "search/mod.rs".to_string())]
    );
    assert!(g["search/mod.rs"].contains("chess/rules.rs"));
    let c = circle(&g).expect("fen and rules import each other");
    assert!(c.contains(&"chess/fen.rs".to_string()) && c.contains(&"chess/rules.rs".to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}

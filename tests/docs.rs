//! The documents stay true to the engine: every option the engine prints in answer to `uci` is
//! on the options page, and every relative link of README.md and docs/ (files and `#anchors`)
//! leads somewhere; the node counts they give for `deepred bench` are the ones it prints.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The names of the options the engine lists in its `uci` answer.
fn uci_options() -> Vec<String> {
    let mut e = common::Uci::start();
    e.send("uci");
    let lines = e.until(common::SECS(10), |l| l == "uciok");
    e.quit();
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("option name "))
        .map(|rest| rest[..rest.find(" type ").expect("option type")].to_string())
        .collect()
}

#[test]
fn every_uci_option_is_on_the_options_page() {
    let page = std::fs::read_to_string(root().join("docs/uci.md")).unwrap();
    // Options are named in the first column of a table row: "| `Name` |".
    let documented: BTreeSet<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |").map(|(name, _)| name))
        .collect();
    let options = uci_options();
    assert!(options.len() > 50, "{options:?}");
    let missing: Vec<&String> = options
        .iter()
        .filter(|o| !documented.contains(o.as_str()))
        .collect();
    assert!(missing.is_empty(), "not in docs/uci.md: {missing:?}");
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The text outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .iter()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

/// The targets of the inline links and images of a Markdown text: `[text](target)`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The dead relative links of `file` (a Markdown file), as "target: why".
fn dead_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let mut dead = Vec::new();
    for target in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !resolved.exists() {
            dead.push(format!("{target}: no file {}", resolved.display()));
            continue;
        }
        if let Some(a) = anchor {
            let target_text = std::fs::read_to_string(&resolved).unwrap_or_default();
            if !anchors(&target_text).contains(a) {
                dead.push(format!("{target}: no heading #{a}"));
            }
        }
    }
    dead
}

/// README.md, BENCHMARKS.md and every page of docs/.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md"), root().join("BENCHMARKS.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 8, "{pages:?}");
    files.extend(pages);
    files
}

#[test]
fn no_relative_link_is_dead() {
    let mut dead = Vec::new();
    let mut count = 0;
    for f in documents() {
        count += links(&std::fs::read_to_string(&f).unwrap()).len();
        dead.extend(
            dead_links(&f)
                .into_iter()
                .map(|d| format!("{}: {d}", f.display())),
        );
    }
    assert!(count > 40, "only {count} links read");
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

/// The checks find what they look for: a dead file, a dead anchor, a live anchor, and a link
/// inside a code block (not a link).
#[test]
fn the_link_check_catches_dead_links() {
    let dir = std::env::temp_dir().join(format!("deepred-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("b.md"), "# Title\n\n## A section: (`x`)\n").unwrap();
    let a = dir.join("a.md");
    std::fs::write(
        &a,
        "[ok](b.md#a-section-x) [gone](c.md) [no anchor](b.md#nothing) [self](#top-here)\n\n# Top here\n\n```\n[not a link](d.md)\n```\n",
    )
    .unwrap();
    let dead = dead_links(&a);
    assert_eq!(dead.len(), 2, "{dead:?}");
    assert!(dead[0].starts_with("c.md: no file"), "{dead:?}");
    assert_eq!(dead[1], "b.md#nothing: no heading #nothing");
    assert_eq!(
        slug("A learned evaluation (`Evaluator=learned`)"),
        "a-learned-evaluation-evaluatorlearned"
    );
}

#[test]
fn the_readme_is_a_way_in() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines");
    for needed in [
        "cargo run --release",
        "cargo test --release",
        "## Strength today",
    ] {
        assert!(readme.contains(needed), "README.md lacks {needed}");
    }
}

/// `n` as the documents write it in prose: 2584058 -> "2,584,058".
fn with_commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The node count `deepred bench ARGS` prints on its last line, `<N> nodes <M> nps`, run with an
/// empty data folder of its own so that the embedded net, not a promoted one, is the default.
fn bench_nodes(args: &[&str]) -> u64 {
    let home = std::env::temp_dir().join(format!("deepred-docs-bench-{}", std::process::id()));
    let out = common::command()
        .env("DEEPRED_HOME", &home)
        .arg("bench")
        .args(args)
        .output()
        .expect("run deepred bench");
    let _ = std::fs::remove_dir_all(&home);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("a summary line");
    last.split_whitespace().next().unwrap().parse().expect(last)
}

#[test]
fn the_documented_bench_counts_are_the_engines() {
    assert_eq!(with_commas(2584058), "2,584,058");
    assert_eq!(with_commas(584058), "584,058");
    let (learned, pst) = (bench_nodes(&[]), bench_nodes(&["--evaluator", "pst"]));
    let read = |f: &str| std::fs::read_to_string(root().join(f)).unwrap();
    let readme = read("README.md");
    assert!(
        readme.contains(&format!("`{learned} nodes ... nps`")),
        "README.md must give bench's signature with the embedded net: {learned} nodes"
    );
    for doc in ["docs/uci.md", "docs/commands.md"] {
        // Prose wraps lines: compare with the line breaks made spaces.
        let text = read(doc).replace('\n', " ");
        for (count, with) in [(learned, "the embedded net"), (pst, "--evaluator pst")] {
            let n = with_commas(count);
            assert!(
                text.contains(&n),
                "{doc} must give {n} nodes for bench with {with}"
            );
        }
    }
}

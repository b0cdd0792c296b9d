//! `deepred web` in headless Chromium on a PostgreSQL store: `web/browser-check.mjs` (the
//! explorer's counts, walking, bad FEN and PGN, a game to a checkmate by a promotion, learned
//! and found in the explorer, the learning page) against a database on the test server.
//!
//! It needs Node.js, Debian's `chromium` and `web/node_modules` (`cd web && npm ci`); without
//! them it says so and passes, unless `DEEPRED_REQUIRE_BROWSER=1` (set by `.ci/run`, which
//! installs them) makes that a failure. `.ci/run` also runs the same check on an SQLite store.

mod common;

use std::path::Path;
use std::process::Command;

fn missing() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chromium = std::env::var("CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Some(format!("no {chromium} (apt-get install chromium)"));
    }
    if !root.join("web/node_modules/playwright-core").is_dir() {
        return Some("no web/node_modules (cd web && npm ci)".into());
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("no node (apt-get install nodejs)".into());
    }
    None
}

#[test]
fn the_web_application_in_a_browser_on_a_postgresql_store() {
    if let Some(why) = missing() {
        assert!(
            std::env::var("DEEPRED_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "the browser test cannot run: {why}"
        );
        eprintln!("browser test skipped: {why}");
        return;
    }
    let Some(server) = common::pg::server() else {
        return;
    };
    let url = server.new_db("browser");
    let out = Command::new("node")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("web/browser-check.mjs")
        .arg(env!("CARGO_BIN_EXE_deepred"))
        .args(["--db", &url])
        .env("DEEPRED_HOME", common::test_home())
        .output()
        .expect("run node");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("browser check: "), "{text}");
}

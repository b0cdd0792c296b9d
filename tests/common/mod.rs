//! Shared test helpers: a small UCI driver that runs the real `deepred` binary and talks to it
//! over pipes, `deepred ARGS` to the end, and the path of the tests' own data (`tests/data`).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

pub struct Uci {
    pub child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<String>,
    /// Every line received so far.
    pub log: Vec<String>,
}

impl Uci {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Self {
        let mut child = command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start deepred");
        let stdin = child.stdin.take();
        let rx = lines_of(child.stdout.take().unwrap());
        Uci {
            child,
            stdin,
            rx,
            log: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None after `timeout`.
    pub fn line(&mut self, timeout: Duration) -> Option<String> {
        match self.rx.recv_timeout(timeout) {
            Ok(l) => {
                self.log.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads until a line satisfies `pred`; returns every line read, the matching one last.
    /// Panics after `timeout`.
    pub fn until(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.line(left) {
                Some(l) => {
                    let done = pred(&l);
                    lines.push(l);
                    if done {
                        return lines;
                    }
                }
                None => panic!("timed out after {timeout:?}; got {lines:?}"),
            }
        }
    }

    pub fn bestmove(&mut self, timeout: Duration) -> (String, Vec<String>) {
        let lines = self.until(timeout, |l| l.starts_with("bestmove"));
        let best = lines.last().unwrap().clone();
        (best, lines)
    }

    pub fn isready(&mut self) {
        self.send("isready");
        self.until(Duration::from_secs(10), |l| l == "readyok");
    }

    /// Sends `quit` and waits for the process to end.
    pub fn quit(mut self) -> std::process::ExitStatus {
        self.send("quit");
        self.close_stdin();
        wait_exit(&mut self.child, Duration::from_secs(10)).expect("engine exits after quit")
    }
}

/// The lines `out` gives, read on a thread of their own, as they come.
pub fn lines_of(out: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    None
}

impl Drop for Uci {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub const SECS: fn(u64) -> Duration = Duration::from_secs;

/// The test process's own Deep Red data folder (`DEEPRED_HOME`): a store or net the engine
/// keeps by default goes there, never into the user's data folder.
pub fn test_home() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("deepred-test-home-{}", std::process::id()))
}

/// `deepred` as the tests run it: the built binary, with [`test_home`] as its data folder.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_deepred"));
    c.env("DEEPRED_HOME", test_home());
    c
}

/// Runs `deepred ARGS` to the end: (exit status success, stdout, stderr).
pub fn deepred(args: &[&str]) -> (bool, String, String) {
    let out = command().args(args).output().expect("run deepred");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file of the tests' own data, `tests/data/<rel>` (sources and licences in
/// tests/data/README.md). Tests never read the shared data folder beside the checkout.
pub fn data(rel: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel);
    assert!(p.exists(), "missing test data {}", p.display());
    p
}
pub mod pg;

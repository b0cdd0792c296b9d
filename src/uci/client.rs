//! A UCI client: drives another engine (or Deep Red itself) as a child process.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// `id name` of the engine, or the command when it gave none.
    pub name: String,
}

/// The answer to one `go`.
#[derive(Debug, Clone)]
pub struct GoAnswer {
    pub bestmove: String,
    pub ponder: Option<String>,
    /// The last `info` line with a score, if any.
    pub last_info: Option<String>,
}

impl EngineProcess {
    /// Starts `program args...` and performs the `uci` handshake.
    pub fn start(program: &str, args: &[&str]) -> Result<Self, String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start engine '{program}': {e}"))?;
        let stdin = child.stdin.take().ok_or("engine has no stdin")?;
        let stdout = child.stdout.take().ok_or("engine has no stdout")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProcess {
            child,
            stdin,
            lines: rx,
            name: program.to_string(),
        };
        e.send("uci")?;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let l = e.next_line(deadline)?;
            if let Some(n) = l.strip_prefix("id name ") {
                e.name = n.trim().to_string();
            }
            if l.trim() == "uciok" {
                break;
            }
        }
        Ok(e)
    }

    /// Starts a shell command line (`sh -c CMD`), so that CMD may carry arguments.
    pub fn start_shell(cmd: &str) -> Result<Self, String> {
        let mut e = Self::start("sh", &["-c", cmd])?;
        if e.name == "sh" {
            e.name = cmd.to_string();
        }
        Ok(e)
    }

    pub fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("engine '{}' closed its input: {e}", self.name))
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("engine '{}' did not answer in time", self.name))
            }
            Err(RecvTimeoutError::Disconnected) => Err(format!("engine '{}' exited", self.name)),
        }
    }

    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    pub fn is_ready(&mut self, timeout: Duration) -> Result<(), String> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.next_line(deadline)?.trim() != "readyok" {}
        Ok(())
    }

    /// Sends `position_cmd` then `go_cmd` and waits for `bestmove` (at most `timeout`).
    pub fn go(
        &mut self,
        position_cmd: &str,
        go_cmd: &str,
        timeout: Duration,
    ) -> Result<GoAnswer, String> {
        self.send(position_cmd)?;
        self.send(go_cmd)?;
        let deadline = Instant::now() + timeout;
        let mut last_info = None;
        loop {
            let l = self.next_line(deadline)?;
            let mut words = l.split_whitespace();
            match words.next() {
                Some("bestmove") => {
                    let bestmove = words.next().unwrap_or("0000").to_string();
                    let ponder = match (words.next(), words.next()) {
                        (Some("ponder"), Some(p)) => Some(p.to_string()),
                        _ => None,
                    };
                    return Ok(GoAnswer {
                        bestmove,
                        ponder,
                        last_info,
                    });
                }
                Some("info") if l.contains(" score ") => last_info = Some(l),
                _ => {}
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! A UCI client: drives another engine (or Deep Red itself) as a child process, and reads the
//! scores of its `info` lines.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use super::Error;

pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// `id name` of the engine, or the command when it gave none.
    pub name: String,
    /// The options it announced (`option name X type ...`).
    options: Vec<Announced>,
}

/// The answer to one `go`.
#[derive(Debug, Clone)]
pub struct GoAnswer {
    /// The move text of `bestmove`; None when the engine says it has no move (`bestmove
    /// (none)` as Stockfish answers a position without a legal move, the null move `0000`, or
    /// nothing after `bestmove`).
    pub bestmove: Option<String>,
    pub ponder: Option<String>,
    /// The last `info` line with a score, if any.
    pub last_info: Option<String>,
}

impl EngineProcess {
    /// Starts `program args...` and performs the `uci` handshake.
    pub fn start(program: &str, args: &[&str]) -> Result<Self, Error> {
        Self::start_as(program, args, program)
    }

    /// [`Self::start`], the engine called `label` (its command line) until it gives its name.
    fn start_as(program: &str, args: &[&str], label: &str) -> Result<Self, Error> {
        // A path (not a name `Command` looks up in PATH) that is a folder.
        if program.contains(std::path::MAIN_SEPARATOR) && std::path::Path::new(program).is_dir() {
            return Err(Error::Start {
                program: label.to_string(),
                source: std::io::Error::other("it is a folder, not a program"),
            });
        }
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().map_err(|source| Error::Start {
            program: label.to_string(),
            source,
        })?;
        let no_pipe = |pipe| Error::NoPipe {
            program: label.to_string(),
            pipe,
        };
        let stdin = child.stdin.take().ok_or_else(|| no_pipe("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| no_pipe("stdout"))?;
        // Bounded: an engine that prints without end while the runner is not reading it (the
        // other side's move) is held up by its pipe, not kept in the runner's memory.
        let (tx, rx) = sync_channel(LINES_QUEUED);
        std::thread::spawn(move || read_lines(BufReader::new(stdout), |l| tx.send(l).is_ok()));
        let mut e = EngineProcess {
            child,
            stdin,
            lines: rx,
            name: label.to_string(),
            options: Vec::new(),
        };
        e.send("uci")?;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let l = e.next_line(deadline, "uciok").map_err(|e| Error::NotUci {
                source: Box::new(e),
            })?;
            if let Some(n) = l.strip_prefix("id name ") {
                e.name = n.trim().to_string();
            }
            if let Some(rest) = l.strip_prefix("option name ") {
                e.options.push(Announced::parse(rest));
            }
            if l.trim() == "uciok" {
                break;
            }
        }
        Ok(e)
    }

    /// Starts an engine command line. A plain `program arg...` is started directly; a line with
    /// shell syntax (quotes, `$`, `;`, pipes...) through `sh -c`, with `exec` where possible so
    /// that the engine itself is our child and can be killed (`cmd /C` where there is no Unix
    /// shell).
    pub fn start_shell(cmd: &str) -> Result<Self, Error> {
        let plain = cmd
            .chars()
            .all(|c| c.is_alphanumeric() || " \t-_./:+=,@".contains(c));
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.split_first() {
            Some((program, args)) if plain => Self::start_as(program, args, cmd),
            None => Err(Error::EmptyCommand),
            _ => Self::start_in_shell(cmd),
        }
    }

    #[cfg(unix)]
    fn start_in_shell(cmd: &str) -> Result<Self, Error> {
        let line = if cmd.contains([';', '&', '|', '\n']) {
            cmd.to_string()
        } else {
            format!("exec {cmd}")
        };
        Self::start_as("sh", &["-c", &line], cmd)
    }

    #[cfg(not(unix))]
    fn start_in_shell(cmd: &str) -> Result<Self, Error> {
        Self::start_as("cmd", &["/C", cmd], cmd)
    }

    pub fn send(&mut self, line: &str) -> Result<(), Error> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| Error::Closed {
                name: self.name.clone(),
                source,
            })
    }

    /// The next line before `deadline`; a timeout is an error naming what was `awaited`.
    fn next_line(&mut self, deadline: Instant, awaited: &'static str) -> Result<String, Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(Error::NoAnswer {
                name: self.name.clone(),
                awaited,
            }),
            Err(RecvTimeoutError::Disconnected) => Err(Error::Exited {
                name: self.name.clone(),
            }),
        }
    }

    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), Error> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    /// Whether the engine announced option `name` (UCI option names ignore case).
    fn announced(&self, name: &str) -> Option<&Announced> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// `v` for the spin option `name` brought within the bounds the engine announced (a
    /// default of the caller's, not a value the user asked for, fits the engine).
    pub fn fit_spin(&self, name: &str, v: i64) -> i64 {
        self.announced(name).map_or(v, |o| o.fit(v))
    }

    pub fn has_option(&self, name: &str) -> bool {
        self.announced(name).is_some()
    }

    /// Sets `options` and waits for `readyok`. An option the engine did not announce, or one
    /// it answers with an error (`info string error ...` as Deep Red does, `No such option` as
    /// Stockfish does), is an error: a mistyped or out-of-range option must not leave a match or
    /// a tune playing at the defaults.
    pub fn set_options(
        &mut self,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<(), Error> {
        let refused = |name: &str, why: String| Error::OptionRefused {
            name: name.to_string(),
            why,
        };
        for (option, value) in options {
            if !self.options.is_empty() {
                let Some(o) = self.announced(option) else {
                    return Err(refused(&self.name, format!("it has no option '{option}'")));
                };
                // Most engines ignore a value outside what they announced (Stockfish keeps
                // its default), and the match would play at settings no one asked for.
                let value = o.check(value).map_err(|why| refused(&self.name, why))?;
                self.set_option(option, &value)?;
                continue;
            }
            self.set_option(option, value)?;
        }
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        let mut answer = None;
        loop {
            let line = self.next_line(deadline, "readyok")?;
            let line = line.trim();
            if line == "readyok" {
                break;
            }
            let error = line.starts_with("info string error") || line.starts_with("No such option");
            if error && answer.is_none() {
                answer = Some(line.to_string());
            }
        }
        match answer {
            Some(line) => Err(refused(&self.name, format!("it answered '{line}'"))),
            None => Ok(()),
        }
    }

    pub fn is_ready(&mut self, timeout: Duration) -> Result<(), Error> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.next_line(deadline, "readyok")?.trim() != "readyok" {}
        Ok(())
    }

    /// Sends `position_cmd` then `go_cmd` and waits for `bestmove` (at most `timeout`).
    pub fn go(
        &mut self,
        position_cmd: &str,
        go_cmd: &str,
        timeout: Duration,
    ) -> Result<GoAnswer, Error> {
        self.go_wait(position_cmd, go_cmd, timeout)
            .map_err(|f| match f {
                GoFailure::Timeout => Error::NoAnswer {
                    name: self.name.clone(),
                    awaited: "bestmove",
                },
                GoFailure::Exited(e) => e,
            })
    }

    /// Like [`EngineProcess::go`], telling a slow engine from a dead one.
    pub fn go_wait(
        &mut self,
        position_cmd: &str,
        go_cmd: &str,
        timeout: Duration,
    ) -> Result<GoAnswer, GoFailure> {
        self.send(position_cmd).map_err(GoFailure::Exited)?;
        self.send(go_cmd).map_err(GoFailure::Exited)?;
        let deadline = Instant::now() + timeout;
        let mut last_info = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let l = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => return Err(GoFailure::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(GoFailure::Exited(Error::Exited {
                        name: self.name.clone(),
                    }));
                }
            };
            let mut words = l.split_whitespace();
            match words.next() {
                Some("bestmove") => {
                    let bestmove = words
                        .next()
                        .filter(|m| !matches!(*m, "(none)" | "0000"))
                        .map(str::to_string);
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

    /// After a timed-out `go`: sends `stop` and waits up to `grace` for the late `bestmove`, so
    /// that the engine is in a known state again. False if it never answered.
    pub fn stop_and_drain(&mut self, grace: Duration) -> bool {
        if self.send("stop").is_err() {
            return false;
        }
        let deadline = Instant::now() + grace;
        while let Ok(l) = self.next_line(deadline, "bestmove") {
            if l.starts_with("bestmove") {
                return true;
            }
        }
        false
    }

    /// Whether the process has exited.
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }
}

/// Why a `go` brought no move.
#[derive(Debug, thiserror::Error)]
pub enum GoFailure {
    /// No `bestmove` before the deadline.
    #[error("engine did not answer in time")]
    Timeout,
    /// The engine's process closed its pipes (crashed or quit).
    #[error(transparent)]
    Exited(Error),
}

/// Reads `score cp N` / `score mate N` of an `info` line, in centipawns for the side that sent it;
/// a mate as `chess::score` counts it, in plies (mate in 3 moves: `MATE - 5`; mated in 2:
/// `-(MATE - 4)`), so that a PGN comment and the store say the same number of moves.
pub fn info_score(line: &str) -> Option<i32> {
    use crate::chess::score::MATE;
    let mut w = line.split_whitespace();
    while let Some(t) = w.next() {
        if t == "score" {
            let kind = w.next()?;
            let v: i32 = w.next()?.parse().ok()?;
            return match kind {
                "cp" => Some(v.clamp(-30_000, 30_000)),
                "mate" => {
                    let v = v.clamp(-1000, 1000);
                    Some(if v > 0 {
                        MATE - (2 * v - 1)
                    } else {
                        -MATE - 2 * v
                    })
                }
                _ => None,
            };
        }
    }
    None
}

/// The `depth` of an `info` line (at most 255).
pub fn info_depth(line: &str) -> Option<u8> {
    let mut w = line.split_whitespace();
    while let Some(t) = w.next() {
        if t == "depth" {
            return w.next()?.parse::<u32>().ok().map(|d| d.min(255) as u8);
        }
    }
    None
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
        // Still running: what it started goes too (an engine behind a shell line that did not
        // `exec` it, hung in a search the shell waits for). The engine stays in our process
        // group, so that Ctrl-C and a signal to the group still reach it when we cannot.
        // The deepest first, and all before the engine: a process's id stays its own until
        // its parent (alive until then) has waited for it.
        let mut below = descendants(self.child.id());
        below.reverse();
        kill_all(&below);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes below `pid` (children, their children...), read from `/proc` (Linux; none
/// elsewhere).
fn descendants(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    // (pid, parent pid) of every process: the fourth field of `/proc/PID/stat`, after the
    // command name in parentheses (which may hold spaces and parentheses itself).
    let parents: Vec<(u32, u32)> = dir
        .filter_map(|e| {
            let e = e.ok()?;
            let p: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let after = &stat[stat.rfind(')')? + 1..];
            let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    found.remove(0);
    found
}

fn kill_all(pids: &[u32]) {
    #[cfg(unix)]
    for &p in pids {
        if let Some(pid) = rustix::process::Pid::from_raw(p as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pids;
}

/// The longest line of an engine's output that is read; the rest of a longer line is skipped.
const MAX_LINE: usize = 1 << 20;
/// The most lines read ahead of the runner.
const LINES_QUEUED: usize = 256;

/// Hands each line of `out` to `take` (until it returns false or the output ends): as text, a
/// byte that is not UTF-8 (a Latin-1 author name, a stray byte in an `info string`) replaced,
/// not taken for the end of the engine's output; at most [`MAX_LINE`] bytes of it, the rest
/// skipped, so that an engine that writes without a line end cannot take all the memory.
fn read_lines(mut out: impl BufRead, mut take: impl FnMut(String) -> bool) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut out).take(MAX_LINE as u64).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if buf.len() == MAX_LINE && buf.last() != Some(&b'\n') && skip_line(&mut out).is_err() {
            return;
        }
        let line = String::from_utf8_lossy(&buf);
        if !take(line.trim_end_matches(['\n', '\r']).to_string()) {
            return;
        }
    }
}

/// Skips `r` to just after its next line end (or to its end), holding no more than its buffer.
fn skip_line(r: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                r.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                r.consume(n);
            }
        }
    }
}

/// An option as the engine announced it: `option name NAME type TYPE [default D] [min A]
/// [max B] [var V]...`.
#[derive(Clone, Debug, PartialEq)]
struct Announced {
    name: String,
    kind: String,
    min: Option<i64>,
    max: Option<i64>,
    vars: Vec<String>,
}

impl Announced {
    /// From the text after `option name `.
    fn parse(rest: &str) -> Announced {
        let (name, spec) = rest.split_once(" type ").unwrap_or((rest, ""));
        let words: Vec<&str> = spec.split_whitespace().collect();
        let mut a = Announced {
            name: name.trim().to_string(),
            kind: words
                .first()
                .map_or(String::new(), |k| k.to_ascii_lowercase()),
            min: None,
            max: None,
            vars: Vec::new(),
        };
        let keyword = |w: &str| matches!(w, "default" | "min" | "max" | "var");
        let mut i = 1;
        while i < words.len() {
            // A value runs to the next keyword (a combo's entries may hold spaces).
            let end = (i + 1..words.len())
                .find(|&j| keyword(words[j]))
                .unwrap_or(words.len());
            let value = words
                .get(i + 1..end)
                .map(|v| v.join(" "))
                .unwrap_or_default();
            match words[i] {
                "min" => a.min = value.parse().ok(),
                "max" => a.max = value.parse().ok(),
                "var" => a.vars.push(value),
                _ => {}
            }
            i = end;
        }
        a
    }

    /// The value to send for `value` if it is one the engine said it takes (an option of a type
    /// not known here takes anything): a check's `True` is sent as `true` (Stockfish reads
    /// only the lower case), a combo entry as the engine spelled it.
    fn check(&self, value: &str) -> Result<String, String> {
        let name = &self.name;
        let v = value.trim();
        match self.kind.as_str() {
            "spin" => {
                let (lo, hi) = (self.min.unwrap_or(i64::MIN), self.max.unwrap_or(i64::MAX));
                match v.parse::<i64>() {
                    Ok(n) if (lo..=hi).contains(&n) => Ok(n.to_string()),
                    _ => Err(format!(
                        "'{value}' is not a value of '{name}', a whole number from {lo} to {hi}"
                    )),
                }
            }
            "check" => match v.to_ascii_lowercase().as_str() {
                b @ ("true" | "false") => Ok(b.to_string()),
                _ => Err(format!(
                    "'{value}' is not a value of '{name}': true or false"
                )),
            },
            "combo" if !self.vars.is_empty() => self
                .vars
                .iter()
                .find(|e| e.eq_ignore_ascii_case(v))
                .cloned()
                .ok_or_else(|| {
                    format!(
                        "'{value}' is not a value of '{name}', one of: {}",
                        self.vars.join(", ")
                    )
                }),
            _ => Ok(value.to_string()),
        }
    }

    /// `v` brought within a spin's announced bounds (for values the user did not ask for).
    fn fit(&self, v: i64) -> i64 {
        let lo = self.min.unwrap_or(i64::MIN);
        v.clamp(lo, self.max.unwrap_or(i64::MAX).max(lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line far over the limit comes back cut to it, and the next line whole; odd bytes are
    /// replaced, line ends of both kinds taken off.
    #[test]
    fn lines_are_read_up_to_their_limit() {
        let mut input = vec![b'x'; 10 * MAX_LINE];
        input.extend_from_slice(b"\nbestmove e2e4\r\ncaf\xe9\n");
        let mut lines = Vec::new();
        read_lines(std::io::Cursor::new(input), |l| {
            lines.push(l);
            true
        });
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "bestmove e2e4");
        assert_eq!(lines[2], "caf\u{fffd}");
    }

    /// Values outside what an engine announced are refused (Stockfish ignores them and keeps
    /// its default: a match at settings no one asked for).
    #[test]
    fn option_values_are_checked_against_the_announcement() {
        let skill = Announced::parse("Skill Level type spin default 20 min 0 max 20");
        assert_eq!(
            (skill.name.as_str(), skill.min, skill.max),
            ("Skill Level", Some(0), Some(20))
        );
        assert!(skill.check("0").is_ok() && skill.check(" 20").as_deref() == Ok("20"));
        assert_eq!((skill.fit(30), skill.fit(-3), skill.fit(7)), (20, 0, 7));
        for bad in ["30", "-1", "abc", "", "2.5"] {
            let e = skill.check(bad).unwrap_err();
            assert!(e.contains("from 0 to 20"), "{bad}: {e}");
        }
        let limit = Announced::parse("UCI_LimitStrength type check default false");
        assert!(limit.check("true").is_ok() && limit.check("false").is_ok());
        assert_eq!(limit.check("True").as_deref(), Ok("true"));
        assert!(limit.check("maybe").unwrap_err().contains("true or false"));
        let combo = Announced::parse("Style type combo default Normal var Solid var Very Risky");
        assert_eq!(combo.vars, ["Solid", "Very Risky"]);
        assert_eq!(combo.check("very risky").as_deref(), Ok("Very Risky"));
        assert!(
            combo
                .check("Normal")
                .unwrap_err()
                .contains("Solid, Very Risky")
        );
        // A string, a button, a type not known here: anything.
        for line in [
            "Debug Log File type string default",
            "Clear Hash type button",
            "X type y",
        ] {
            assert!(
                Announced::parse(line).check("whatever 1 2").is_ok(),
                "{line}"
            );
        }
        // A spin that names no bounds: any whole number.
        assert!(
            Announced::parse("Hash type spin default 16")
                .check("-5")
                .is_ok()
        );
    }

    #[test]
    fn info_scores() {
        assert_eq!(info_score("info depth 5 score cp -34 nodes 10"), Some(-34));
        assert_eq!(
            info_score("info depth 9 score mate 3 pv e2e4"),
            Some(31_995)
        );
        assert_eq!(info_score("info depth 9 score mate -2"), Some(-31_996));
        assert_eq!(info_score("info depth 9 score mate 0"), Some(-32_000));
        assert_eq!(info_score("info string score cp"), None);
    }
}

//! Memory and thread limits (`ulimit`): a hash table, a search thread or a helper's tables the
//! system refuses are an error on the UCI channel, and the engine answers.

use crate::{assert_protocol_clean, common};

/// A `Hash` the process cannot allocate (a memory limit, here `ulimit -v`) is an error on the
/// UCI channel, not an abort: the engine keeps a table and searches on.
#[cfg(unix)]
#[test]
fn a_hash_table_beyond_the_memory_limit_is_an_error_not_an_abort() {
    use std::io::Write;
    let mut child = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 1000000 && exec \"$0\""])
        .arg(env!("CARGO_BIN_EXE_deepred"))
        .env("DEEPRED_HOME", common::test_home())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"setoption name Hash value 1024\nposition startpos\ngo depth 4\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}: {text}", out.status);
    assert!(
        text.contains(
            "info string error: option 'Hash': a hash table of 1024 MB cannot be allocated"
        ),
        "{text}"
    );
    assert!(text.contains("bestmove "), "{text}");
}

/// Search threads the system cannot start are an error on the UCI channel, not a panic. The
/// limit here: thread stacks of `RUST_MIN_STACK` bytes under `ulimit -v 1500000` (about 1.4
/// GiB of address space, of which the engine itself uses under 200 MiB). With stacks of 400
/// MiB, the search thread and a few helpers start, and the search goes on with them; with
/// stacks of 4 GiB not even the search thread starts, and a depth-1 search on the command
/// thread answers. Either way the engine finds the mate and keeps working.
#[cfg(unix)]
#[test]
fn threads_the_system_cannot_start_are_an_error_and_the_engine_answers() {
    use std::io::{BufRead, Write};
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    for (stack, expected) in [
        (
            "419430400",
            "info string error: 256 threads asked, the system started ",
        ),
        (
            "4294967296",
            "info string error: the search thread cannot start (",
        ),
    ] {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "ulimit -v 1500000 && exec \"$0\""])
            .arg(env!("CARGO_BIN_EXE_deepred"))
            .env("DEEPRED_HOME", common::test_home())
            .env("RUST_MIN_STACK", stack)
            .env("MALLOC_ARENA_MAX", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let go = format!("setoption name Threads value 256\nposition fen {fen}\ngo depth 6\n");
        stdin.write_all(go.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            if line.starts_with("bestmove") {
                writeln!(stdin, "isready").unwrap();
                stdin.flush().unwrap();
            }
            let ready = line == "readyok";
            lines.push(line);
            if ready {
                break;
            }
        }
        writeln!(stdin, "quit").unwrap();
        let out = child.wait_with_output().unwrap();
        let text = lines.join("\n");
        assert!(out.status.success(), "{:?}: {text}", out.status);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
        let error = lines
            .iter()
            .find(|l| l.starts_with(expected))
            .unwrap_or_else(|| panic!("no '{expected}': {text}"));
        if expected.ends_with("started ") {
            let started = &error[expected.len()..];
            let n: usize = started.split(' ').next().unwrap().parse().unwrap();
            assert!((1..256).contains(&n), "{error}");
        }
        assert!(text.contains("bestmove h5f7"), "Qxf7#: {text}");
        assert_protocol_clean(&lines);
    }
}

/// Search threads that start but whose tables the memory cannot hold (a memory limit, here
/// `ulimit -v` at 200 MB over what a one-thread search uses) are an error on the UCI channel,
/// not an abort: each thread's tables (about 2 MB) are made before it starts, and the search
/// goes on with the threads that have them. Before, a helper whose allocation failed aborted
/// the process ("memory allocation of 1179648 bytes failed"); and a helper started with no
/// room left for the signal stack the standard library maps in each thread aborted it too
/// ("failed to allocate an alternative stack", about one run in thirty), so a helper starts
/// only while 16 MB more can be allocated. A second search reuses the threads' kept
/// histories and meets the same limit.
#[cfg(target_os = "linux")]
#[test]
fn threads_beyond_the_memory_limit_are_an_error_and_the_engine_answers() {
    use std::io::{BufRead, Write};
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    let go = format!("position fen {fen}\ngo depth 6\n");
    let spawn = |limit: Option<u64>| {
        let mut c = std::process::Command::new("sh");
        match limit {
            Some(kb) => c.args(["-c", &format!("ulimit -v {kb} && exec \"$0\"")]),
            None => c.args(["-c", "exec \"$0\""]),
        };
        c.arg(env!("CARGO_BIN_EXE_deepred"))
            .env("DEEPRED_HOME", common::test_home())
            .env("MALLOC_ARENA_MAX", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Sends `text`, then reads until a line starting with `until` (the lines read, or all of
    // them if the output ends first).
    fn exchange(
        stdin: &mut std::process::ChildStdin,
        out: &mut impl BufRead,
        text: &str,
        until: &str,
    ) -> Vec<String> {
        // A process that died is reported by its exit status below, not by a broken pipe here.
        let _ = stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush());
        let mut lines = Vec::new();
        for line in out.lines().map_while(Result::ok) {
            let end = line.starts_with(until);
            lines.push(line);
            if end {
                break;
            }
        }
        lines
    }
    // What a one-thread search of the position uses.
    let mut child = spawn(None);
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    exchange(&mut stdin, &mut out, &go, "bestmove");
    exchange(&mut stdin, &mut out, "isready\n", "readyok");
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let used: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmPeak:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    exchange(&mut stdin, &mut out, "quit\n", "never");
    assert!(child.wait().unwrap().success());

    let mut child = spawn(Some(used + 200_000));
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let setup = format!("setoption name Threads value 256\n{go}");
    let mut lines = exchange(&mut stdin, &mut out, &setup, "bestmove");
    lines.extend(exchange(&mut stdin, &mut out, &go, "bestmove"));
    lines.extend(exchange(&mut stdin, &mut out, "isready\n", "readyok"));
    let _ = stdin.write_all(b"quit\n");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = lines.join("\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}\n{text}", out.status);
    let expected = "info string error: 256 threads asked, the system started ";
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with(expected)).collect();
    assert_eq!(errors.len(), 2, "{text}");
    for error in errors {
        let n: usize = error[expected.len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..256).contains(&n), "{error}");
    }
    let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 2, "{text}");
    assert!(
        best.iter().all(|l| l.starts_with("bestmove h5f7")),
        "Qxf7#: {text}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("readyok"), "{text}");
    assert_protocol_clean(&lines);
}

//! The one way to write protocol lines: whole lines, flushed, never interleaved between threads.

use std::io::Write;
use std::sync::Mutex;

static OUT: Mutex<()> = Mutex::new(());

/// Writes one line to stdout and flushes it. A closed stdout is ignored (the GUI went away).
pub fn send(line: &str) {
    let _guard = OUT.lock().unwrap_or_else(|e| e.into_inner());
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = writeln!(lock, "{line}");
    let _ = lock.flush();
}

/// `info string <text>`: the UCI way to tell the user something.
pub fn info_string(text: &str) {
    send(&format!("info string {text}"));
}

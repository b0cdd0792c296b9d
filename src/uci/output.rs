//! The one way to write protocol lines: whole lines, flushed, never interleaved between threads.

use std::io::Write;
use std::sync::Mutex;

use shakmaty::Move;

use crate::chess::notation::uci_move;
use crate::chess::score::{MATE, MATE_BOUND, WDL_MODEL};
use crate::search::{Event, Reporter};

static OUT: Mutex<()> = Mutex::new(());

/// Writes one line to stdout and flushes it. A closed stdout is ignored (the GUI went away).
pub fn send(line: &str) {
    let _guard = OUT.lock().unwrap_or_else(|e| e.into_inner());
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = writeln!(lock, "{line}");
    let _ = lock.flush();
}

/// `info string <text>`: the UCI way to tell the user something. The text is made one
/// printable line ([`printable`]): a message that quotes the input (an unknown command of NUL
/// bytes, a line of 200 KB) must not break the protocol or flood the GUI's log.
pub fn info_string(text: &str) {
    send(&format!("info string {}", printable(text)));
}

/// The most characters of an `info string`.
const MAX_INFO_CHARS: usize = 1000;

fn printable(text: &str) -> String {
    crate::chess::display::one_line(text, MAX_INFO_CHARS)
}

/// `score cp N` or `score mate N` as UCI prints it.
pub fn format_score(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {score}")
    }
}

/// Where the `wdl` of info lines comes from (`UCI_ShowWDL`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wdl {
    /// No `wdl` (the option is off).
    Off,
    /// From the score, by the fitted model.
    Model,
    /// The experience store's records of the root's moves: (win, draw, loss) per mille for the
    /// side to move, by move; a line whose first move has none gets the model's.
    Known(std::sync::Arc<[(Move, PerMille)]>),
}

/// Win, draw and loss per mille.
pub type PerMille = (u32, u32, u32);

/// How the info lines are written.
#[derive(Clone, Debug)]
pub struct Style {
    pub chess960: bool,
    pub wdl: Wdl,
}

/// The `info` line of a search event.
pub fn event_line(event: &Event, style: &Style) -> String {
    match event {
        Event::Line {
            depth,
            seldepth,
            multipv,
            score,
            nodes,
            nps,
            hashfull,
            tbhits,
            time_ms,
            pv,
        } => {
            let mut line = format!("info depth {depth} seldepth {seldepth}");
            if let Some(k) = multipv {
                line.push_str(&format!(" multipv {k}"));
            }
            line.push_str(&format!(" score {}", format_score(*score)));
            let known = |moves: &[(Move, PerMille)]| {
                let first = pv.first()?;
                moves.iter().find(|(m, _)| m == first).map(|(_, wdl)| *wdl)
            };
            let wdl = match &style.wdl {
                Wdl::Off => None,
                Wdl::Model => Some(WDL_MODEL.wdl(*score)),
                Wdl::Known(moves) => known(moves).or(Some(WDL_MODEL.wdl(*score))),
            };
            if let Some((w, d, l)) = wdl {
                line.push_str(&format!(" wdl {w} {d} {l}"));
            }
            line.push_str(&format!(" nodes {nodes} nps {nps}"));
            if let Some(h) = hashfull {
                line.push_str(&format!(" hashfull {h}"));
            }
            if let Some(t) = tbhits {
                line.push_str(&format!(" tbhits {t}"));
            }
            let pv: Vec<String> = pv.iter().map(|m| uci_move(*m, style.chess960)).collect();
            line.push_str(&format!(" time {time_ms} pv {}", pv.join(" ")));
            line
        }
        Event::ComparatorWork { nodes, comparisons } => {
            format!("info string deepchess search: {nodes} nodes, {comparisons} comparisons")
        }
        Event::TablebaseError(e) => format!("info string error: {e}"),
        Event::ThreadsLimited {
            started: 0, why, ..
        } => format!(
            "info string error: the search cannot have its tables ({why}); playing the move \
             the evaluation prefers, one ply deep"
        ),
        Event::ThreadsLimited {
            asked,
            started,
            why,
        } => format!(
            "info string error: {asked} threads asked, the system started {started} ({why}); \
             searching with {started}"
        ),
    }
}

/// A reporter that sends every search event to the GUI.
pub fn reporter(style: Style) -> Reporter {
    std::sync::Arc::new(move |e: &Event| send(&event_line(e, &style)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message quoting raw input stays one printable line of bounded length.
    #[test]
    fn info_strings_are_one_printable_line() {
        assert_eq!(printable("unknown command 'go'"), "unknown command 'go'");
        assert_eq!(printable("a\0b\nc\té"), "a\\u{0}b\\nc\\té");
        let long = printable(&"x".repeat(5000));
        assert!(
            long.len() < 1100 && long.ends_with("(4000 more characters)"),
            "{long}"
        );
    }
}

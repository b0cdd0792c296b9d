//! What a match is: its players and settings, and what follows from them alone (each round's
//! opening, the PGN's time control and `Match` tags), for the runner and for resuming.

use std::path::PathBuf;
use std::time::Duration;

use shakmaty::Chess;

use super::adjudication::Adjudication;
use super::clock::MoveLimit;
use super::sprt::Sprt;
use crate::games::Error;
use crate::games::client::EngineProcess;

/// One player: a UCI command line (`None`: this Deep Red) and the options to set.
#[derive(Clone, Debug, Default)]
pub struct EngineSpec {
    pub cmd: Option<String>,
    pub options: Vec<(String, String)>,
}

impl EngineSpec {
    pub fn start(&self) -> Result<EngineProcess, Error> {
        let mut e = match &self.cmd {
            Some(cmd) => EngineProcess::start_shell(cmd)?,
            None => {
                let exe = std::env::current_exe().map_err(Error::NoExecutable)?;
                EngineProcess::start(&exe.to_string_lossy(), &["uci"])?
            }
        };
        e.set_options(&self.options, Duration::from_secs(30))?;
        Ok(e)
    }
}

#[derive(Clone, Debug)]
pub struct MatchOptions {
    pub engine: EngineSpec,
    pub opponent: EngineSpec,
    pub limit: MoveLimit,
    /// The opponent's own limit (default: `limit`), e.g. a fixed node count against a clock.
    pub opponent_limit: Option<MoveLimit>,
    /// Openings (each played twice, colours swapped); empty: the start position.
    pub openings: Vec<Chess>,
    /// Games to play; with `sprt`, the most to play.
    pub games: usize,
    /// Stop once this test on the game pairs accepts a hypothesis.
    pub sprt: Option<Sprt>,
    pub concurrency: usize,
    pub seed: u64,
    pub pgn: Option<PathBuf>,
    /// Learn the games decided on the board into this store.
    pub learn: Option<PathBuf>,
    pub adjudication: Adjudication,
    /// Extra time an engine may use beyond its clock before it loses on time.
    pub time_margin_ms: u64,
    /// Count the games already in the `pgn` file and play only the others.
    pub resume: bool,
    /// Longest wait for a move under a node, depth or movetime limit.
    pub move_timeout_ms: u64,
    pub chess960: bool,
    pub event: String,
}

/// The opening of game `round` (1-based): the pair `(round - 1) / 2` takes the next opening of
/// the shuffled `order`.
pub(super) fn opening(opts: &MatchOptions, order: &[usize], round: usize) -> Chess {
    opts.openings
        .get(order[((round - 1) / 2) % order.len()])
        .cloned()
        .unwrap_or_default()
}

/// What identifies the players of a match beyond their names (two builds of Deep Red have the
/// same name): both commands and their options, and Chess960. The PGN's `Match` tag; a
/// resumed game must carry the same. FNV-1a of the text, in hex.
pub(super) fn match_id(opts: &MatchOptions) -> String {
    let mut text = String::new();
    for spec in [&opts.engine, &opts.opponent] {
        text.push_str(spec.cmd.as_deref().unwrap_or("(this deepred)"));
        for (name, value) in &spec.options {
            text.push_str(&format!("\n{name}={value}"));
        }
        text.push_str("\n--\n");
    }
    text.push_str(&format!("chess960={}", opts.chess960));
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The PGN `TimeControl`: the common limit, or `White/Black` limits when they differ.
pub(super) fn time_control_tag(opts: &MatchOptions, engine_white: bool) -> String {
    match opts.opponent_limit {
        Some(o) if o != opts.limit => {
            let (w, b) = if engine_white {
                (opts.limit, o)
            } else {
                (o, opts.limit)
            };
            format!("{}/{}", w.pgn(), b.pgn())
        }
        _ => opts.limit.pgn(),
    }
}

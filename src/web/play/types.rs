//! What a game in the browser is made of, as the page sends and reads it: who plays, the setup
//! form, what Deep Red's search has found so far, and the game as the page shows it.

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position};

use crate::chess::notation::san_of;
use crate::chess::score::{MATE, MATE_BOUND};
use crate::web::explore::MoveName;

/// Who plays a colour.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Human,
    Deepred,
}

/// A new game, as the setup form asks for it.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    pub white: Side,
    pub black: Side,
    /// The start position (default: the standard one).
    pub fen: Option<String>,
    /// Minutes on each clock (none: no clock; Deep Red then thinks `movetime_ms` a move).
    pub minutes: Option<f64>,
    /// Seconds added after each move.
    #[serde(default)]
    pub increment: f64,
    /// Deep Red's time a move without a clock (default 1000).
    pub movetime_ms: Option<u64>,
    /// Deep Red's strength on Stockfish 15.1's `UCI_Elo` scale (none: full strength).
    pub elo: Option<i64>,
    /// The evaluator Deep Red plays with (default: the learned net).
    pub evaluator: Option<String>,
}

/// What Deep Red's search has found so far.
#[derive(Serialize, Clone, Debug)]
pub struct Thinking {
    pub depth: u32,
    /// Centipawns for the side to move (`None` for a mate score).
    pub score: Option<i32>,
    /// Moves to mate, negative when mated.
    pub mate: Option<i32>,
    pub nodes: u64,
    pub pv: Vec<String>,
}

/// A game as the page shows it.
#[derive(Serialize, Debug)]
pub struct GameView {
    pub id: u64,
    pub fen: String,
    pub start_fen: String,
    pub moves: Vec<MoveName>,
    pub turn: &'static str,
    pub white: Side,
    pub black: Side,
    /// Legal moves by square while a human is to move.
    pub dests: std::collections::BTreeMap<String, Vec<String>>,
    /// Milliseconds left, White's and Black's (`None` without a clock).
    pub clock: Option<[i64; 2]>,
    pub result: Option<&'static str>,
    pub termination: Option<String>,
    pub searching: bool,
    pub thinking: Option<Thinking>,
    pub takebacks: u32,
    pub learned: Option<String>,
    pub message: Option<String>,
}

/// What the search reports, as the page shows it: its line in SAN (as far as it is legal).
pub(super) fn thinking_of(
    root: &Chess,
    depth: u32,
    score: i32,
    nodes: u64,
    pv: &[Move],
) -> Thinking {
    let mate = (score.abs() >= MATE_BOUND).then(|| (MATE - score.abs() + 1) / 2 * score.signum());
    let mut p = root.clone();
    let mut line = Vec::new();
    for &m in pv {
        if !p.is_legal(m) {
            break;
        }
        line.push(san_of(&p, m));
        p.play_unchecked(m);
    }
    Thinking {
        depth,
        score: mate.is_none().then_some(score),
        mate,
        nodes,
        pv: line,
    }
}

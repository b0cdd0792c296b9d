//! A web game's state: its moves, sides, clock and ending, with the rules of play on them.

use std::time::Instant;

use shakmaty::{Chess, Color, Move, Position};

use super::types::Side;
use crate::chess::rules::{GameResult, game_end};
use crate::player::ENGINE_NAME;

#[derive(Clone, Copy)]
pub(super) struct Clock {
    /// Milliseconds left, White's and Black's.
    pub(super) left: [i64; 2],
    pub(super) inc: i64,
    /// When the side to move's clock started.
    pub(super) since: Instant,
}

impl Clock {
    /// Milliseconds left now, the side to move's clock running.
    pub(super) fn left_now(&self, turn: Color) -> [i64; 2] {
        let mut left = self.left;
        left[index(turn)] -= self.since.elapsed().as_millis() as i64;
        left
    }
}

pub(super) struct State {
    pub(super) start: Chess,
    pub(super) moves: Vec<Move>,
    pub(super) sides: [Side; 2],
    pub(super) clock: Option<Clock>,
    pub(super) movetime_ms: u64,
    /// The result and how it came.
    pub(super) ending: Option<(GameResult, String)>,
    /// The take-backs so far. A search notes the count when it starts and plays its move only
    /// if it is unchanged: a search started before a take-back never plays, even when the
    /// moves made since bring the game back to its length.
    pub(super) takebacks: u32,
    /// What became of the game in the store, once it ended.
    pub(super) learned: Option<String>,
    /// The last thing to tell (a declined draw).
    pub(super) message: Option<String>,
    /// Deep Red is searching.
    pub(super) searching: bool,
    /// Deep Red's last score, its own view.
    pub(super) engine_score: Option<i32>,
    /// Dropped from the table to make room: Deep Red starts no search in it any more.
    pub(super) closed: bool,
}

impl State {
    pub(super) fn position(&self) -> Chess {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.play_unchecked(m);
        }
        p
    }

    pub(super) fn side(&self, c: Color) -> Side {
        self.sides[index(c)]
    }

    pub(super) fn engine_to_move(&self) -> bool {
        self.ending.is_none() && self.side(self.position().turn()) == Side::Deepred
    }

    /// Plays `m` for the side to move, its clock stopped; the game ends if the rules say so.
    pub(super) fn play(&mut self, m: Move) {
        let turn = self.position().turn();
        if let Some(c) = &mut self.clock {
            let i = index(turn);
            c.left[i] -= c.since.elapsed().as_millis() as i64;
            if c.left[i] < 0 {
                c.left[i] = 0;
                self.ending = Some((
                    GameResult::won_by(!turn),
                    format!("{} lost on time", color_name(turn)),
                ));
                return;
            }
            c.left[i] += c.inc;
            c.since = Instant::now();
        }
        self.moves.push(m);
        if let Some(end) = game_end(&self.start, &self.moves) {
            self.ending = Some((end.result, end.reason.text().to_string()));
        }
    }

    /// A flag that fell while no one moved.
    pub(super) fn check_flag(&mut self) {
        if self.ending.is_some() {
            return;
        }
        let turn = self.position().turn();
        if let Some(c) = &mut self.clock
            && c.left_now(turn)[index(turn)] <= 0
        {
            c.left[index(turn)] = 0;
            self.ending = Some((
                GameResult::won_by(!turn),
                format!("{} lost on time", color_name(turn)),
            ));
        }
    }

    pub(super) fn names(&self) -> [String; 2] {
        self.sides.map(|s| match s {
            Side::Human => "Human".to_string(),
            Side::Deepred => ENGINE_NAME.to_string(),
        })
    }
}

/// White's entries first, then Black's.
pub(super) fn index(c: Color) -> usize {
    if c == Color::White { 0 } else { 1 }
}

pub(super) fn color_name(c: Color) -> &'static str {
    if c == Color::White { "White" } else { "Black" }
}

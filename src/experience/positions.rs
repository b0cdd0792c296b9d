//! Training positions from the store's games: the store is the truth the value net learns
//! from. A game keeps its moves and, for the moves a search chose, what the search said
//! (`records::MoveEval`); each such position becomes a bulletformat record (`chess::bullet`)
//! with the search's score, the game's result and the move, under the filters `deepred datagen`
//! always applied: the side to move not in check, a quiet move (no capture, no promotion), past
//! the opening plies, and no mate or tablebase score.
//!
//! Games are read a page at a time, in the order learned: a window of the latest games, and a
//! weight per source (a game of weight 0.5 is taken half the time, of weight 2 twice), drawn by
//! seed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::{Chess, Color, Position};

use super::Error;
use super::records::{EvalSource, GameRecord};
use super::store::{Store, record_of};
use crate::chess::bullet::{ChessBoard, board_of};
use crate::chess::notation::encode_move;
use crate::chess::rules::GameResult;
use crate::chess::score::TB_WIN_BOUND;

/// Which positions of which games become training records.
#[derive(Clone, Debug)]
pub struct PositionFilter {
    /// Positions of a game's first plies are left out.
    pub skip_plies: usize,
    /// Searches shallower than this are left out (0: every depth).
    pub min_depth: u8,
    /// Whether evaluations of other engines and PGN annotations count, besides Deep Red's.
    pub other_evals: bool,
    /// Only the latest this many games (`None`: every game).
    pub window: Option<u64>,
    /// The weight of a game by its source: `selfplay`, `learn`, `match`, `play`, `uci`, `web`, a PGN
    /// file's name, or `import` for every imported file; a source not named weighs
    /// `default_weight`.
    pub weights: Vec<(String, f64)>,
    pub default_weight: f64,
    pub seed: u64,
}

impl Default for PositionFilter {
    fn default() -> Self {
        PositionFilter {
            skip_plies: 8,
            min_depth: 0,
            other_evals: false,
            window: None,
            weights: Vec::new(),
            default_weight: 1.0,
            seed: 1,
        }
    }
}

impl PositionFilter {
    fn weight(&self, source: &str) -> f64 {
        let imported = super::source::is_import(source);
        self.weights
            .iter()
            .find(|(s, _)| s == source)
            .or_else(|| self.weights.iter().find(|(s, _)| imported && s == "import"))
            .map_or(self.default_weight, |&(_, w)| w)
    }
}

/// What reading the store gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PositionSummary {
    /// Games read (in the window).
    pub games: u64,
    /// Games taken (by weight), counted once per copy.
    pub taken: u64,
    /// Games without their moves (learned before schema version 4).
    pub without_moves: u64,
    pub positions: u64,
}

/// The training records of one game (a copy per draw of its weight is the caller's).
pub fn game_boards(g: &GameRecord, f: &PositionFilter) -> Vec<ChessBoard> {
    let white_result = match g.result {
        GameResult::WhiteWins => 1.0,
        GameResult::BlackWins => 0.0,
        GameResult::Draw => 0.5,
    };
    let mut out = Vec::new();
    let mut pos: Chess = g.start.clone();
    for (ply, &m) in g.moves.iter().enumerate() {
        if let Some(Some(e)) = g.evals.get(ply)
            && ply >= f.skip_plies
            && (e.source == EvalSource::DeepRed || f.other_evals)
            && e.depth >= f.min_depth
            && i32::from(e.score).abs() < TB_WIN_BOUND
            && !pos.is_check()
            && !m.is_capture()
            && !m.is_promotion()
        {
            let white = if pos.turn() == Color::White {
                e.score
            } else {
                -e.score
            };
            out.push(board_of(&pos, white, white_result, encode_move(&m)));
        }
        pos.play_unchecked(m);
    }
    out
}

/// Every training record of the store's games under `f`, in the order learned; `progress`
/// after each page with the games read so far.
pub fn training_boards(
    store: &Store,
    f: &PositionFilter,
    progress: impl FnMut(u64),
) -> Result<(Vec<ChessBoard>, PositionSummary), Error> {
    let mut out = Vec::new();
    let sum = games_of(store, f, progress, |record, copies| {
        let boards = game_boards(record, f);
        for _ in 0..copies {
            out.extend_from_slice(&boards);
        }
        boards.len() as u64 * copies
    })?;
    Ok((out, sum))
}

/// The store's games in the window of `f`, in the order learned, each handed to `each` with
/// the copies its source's weight draws (games drawn no copy are not handed); `each` returns
/// the positions it took, summed in the summary. `progress` after each page with the games
/// read so far.
pub fn games_of(
    store: &Store,
    f: &PositionFilter,
    mut progress: impl FnMut(u64),
    mut each: impl FnMut(&GameRecord, u64) -> u64,
) -> Result<PositionSummary, Error> {
    let mut sum = PositionSummary::default();
    let mut rng = StdRng::seed_from_u64(f.seed);
    let mut after = match f.window {
        Some(n) => store.window_start(n)?,
        None => 0,
    };
    loop {
        let page = store.games_after(after, 2_000)?;
        let Some(&(last, _)) = page.last() else {
            break;
        };
        after = last;
        for (_, g) in &page {
            sum.games += 1;
            let w = f.weight(&g.source);
            let copies = w.floor() as u64 + u64::from(rng.random_bool(w.fract().clamp(0.0, 1.0)));
            if copies == 0 {
                continue;
            }
            let Some(record) = record_of(store.path(), g)? else {
                sum.without_moves += 1;
                continue;
            };
            sum.taken += copies;
            sum.positions += each(&record, copies);
        }
        progress(sum.games);
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::bullet::position;
    use crate::experience::records::{MoveEval, test_game};

    fn eval(score: i16, depth: u8, source: EvalSource) -> Option<MoveEval> {
        Some(MoveEval {
            score,
            depth,
            source,
        })
    }

    #[test]
    fn the_filters_of_datagen_hold() {
        // 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6: Black to move after 4. Bxc6, not in check.
        let mut g = test_game(
            &[
                "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6",
            ],
            GameResult::BlackWins,
        );
        let d = EvalSource::DeepRed;
        g.evals = vec![
            eval(30, 10, d),                // ply 0: within the skipped plies
            eval(-20, 10, d),               // ply 1: kept (skip 1)
            None,                           // ply 2: no evaluation
            eval(-15, 3, d),                // ply 3: too shallow (min depth 4)
            eval(25, 9, EvalSource::Other), // ply 4: another engine's
            eval(-32_000 + 10, 9, d),       // ply 5: a mate score
            eval(40, 9, d),                 // ply 6: a capture (Bxc6)
            eval(-45, 9, d),                // ply 7: a capture (dxc6)
        ];
        let f = PositionFilter {
            skip_plies: 1,
            min_depth: 4,
            ..Default::default()
        };
        let b = game_boards(&g, &f);
        assert_eq!(b.len(), 1);
        let (pos, best) = position(&b[0]).unwrap();
        assert_eq!(pos.turn(), Color::Black);
        assert_eq!(crate::chess::notation::uci_move(best, false), "e7e5");
        // Black's -20 is White's +20; the result is Black's win, for the side to move (Black).
        assert_eq!(b[0].score, -20);
        assert_eq!(b[0].result, 2);
        // Other engines' evaluations when asked for.
        let b = game_boards(
            &g,
            &PositionFilter {
                other_evals: true,
                ..f
            },
        );
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn a_source_weighs_by_its_name_then_as_an_import() {
        let f = PositionFilter {
            weights: vec![("import".into(), 0.25), ("uci".into(), 2.0)],
            default_weight: 0.5,
            ..Default::default()
        };
        assert_eq!(f.weight("uci"), 2.0);
        assert_eq!(f.weight("lichess-2024.pgn"), 0.25);
        // Games Deep Red played are never weighed as imports, the browser's among them.
        for played in ["web", "learn", "selfplay", "match", "play"] {
            assert_eq!(f.weight(played), 0.5, "{played}");
        }
    }
}

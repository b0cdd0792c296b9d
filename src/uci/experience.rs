//! The protocol's experience hooks: with `Learning` on, the game the GUI plays is followed
//! through `position` commands and learned once it has ended by the rules; with
//! `ExperienceBook` on, `go` first asks the store for a book move.

use shakmaty::{Chess, Move, Position};

use super::command::Game;
use super::options::Options;
use super::output::info_string;
use crate::chess::notation::uci_move;
use crate::experience::book::book_move;
use crate::experience::live::Tracked;
use crate::experience::store::{Learned, Store};

/// The engine's last `bestmove`: the key of the position searched and the move.
pub type LastMove = Option<(u64, Move)>;

/// Follows the game played over UCI to learn it.
#[derive(Default)]
pub struct Learner {
    tracked: Option<Tracked>,
}

impl Learner {
    /// After a `position` command (with `Learning` on): goes on with the game followed, or
    /// finishes it and starts following the new one; learns it once it is over.
    pub fn follow(&mut self, options: &Options, game: &Game, last: LastMove) {
        if !options.learning {
            return;
        }
        let continued = self
            .tracked
            .as_ref()
            .is_some_and(|t| t.continued_by(&game.start, &game.moves));
        if continued {
            if let Some(t) = self.tracked.as_mut() {
                t.moves = game.moves.clone();
            }
        } else {
            self.finish(options, last);
            self.tracked = Some(Tracked {
                start: game.start.clone(),
                moves: game.moves.clone(),
                learned: false,
            });
        }
        self.learn_if_over(options, None);
    }

    /// The game followed ends here (new game, unrelated position, another store, quit): it is
    /// learned if it is over, with the engine's last move when that ended it.
    pub fn finish(&mut self, options: &Options, last: LastMove) {
        if options.learning && self.tracked.is_some() {
            self.learn_if_over(options, last);
        }
        self.tracked = None;
    }

    /// Learns the game followed if it has ended by the rules (`our_move` counted as played).
    fn learn_if_over(&mut self, options: &Options, our_move: LastMove) {
        let Some(t) = self.tracked.as_mut() else {
            return;
        };
        if t.learned {
            return;
        }
        let Some(record) = t.ended(our_move) else {
            return;
        };
        t.learned = true;
        let (plies, result) = (record.moves.len(), record.result);
        match Store::open(&options.experience_file).and_then(|mut s| s.learn_game(record.clone())) {
            Ok(learned) => {
                if learned != Learned::AlreadyKnown
                    && let Some(e) = &options.experience_eval
                {
                    e.add_game(&record);
                }
                info_string(&format!(
                    "learned the game ({plies} plies, {}) into '{}'",
                    result.as_pgn(),
                    options.experience_file.display()
                ))
            }
            Err(e) => info_string(&format!("error: could not learn the game: {e}")),
        }
    }
}

/// The store's record of `pos` as (win, draw, loss) per mille for the side to move, when the
/// position has at least `ExperienceMinGames` games (`UCI_ShowWDL`).
pub fn known_wdl(options: &Options, pos: &Chess) -> Option<(u32, u32, u32)> {
    let store = Store::open_read_only(&options.experience_file).ok()?;
    let (white, black, draws) = store.position_record(pos).ok()?;
    let n = white + black + draws;
    if n == 0 || n < u64::from(options.experience_min_games) {
        return None;
    }
    let (won, lost) = match pos.turn() {
        shakmaty::Color::White => (white, black),
        shakmaty::Color::Black => (black, white),
    };
    let w = (1000 * won + n / 2) / n;
    let l = (1000 * lost + n / 2) / n;
    Some((w as u32, (1000 - w - l) as u32, l as u32))
}

/// `ExperienceBook`: the best known move by the confidence-aware score when the position has at
/// least `ExperienceMinGames` games, with a line saying why.
pub fn book(options: &Options, pos: &Chess) -> Option<(Move, String)> {
    let store = Store::open_read_only(&options.experience_file).ok()?;
    let b = book_move(&store, pos, options.experience_min_games)?;
    let turn = pos.turn();
    let note = format!(
        "experience book: {} ({} games, score {:.1}%, confidence {:.1}%; {} games in this position)",
        uci_move(b.mv, options.chess960),
        b.stats.games(),
        100.0 * b.stats.score_for(turn),
        100.0 * b.stats.confidence_score(turn),
        b.position_games
    );
    Some((b.mv, note))
}

//! The book: what the store knows of a position's moves, ranked by the confidence-aware score
//! (the lower bound of the 95% Wilson interval of the mover's score, so one win out of one game
//! does not beat 900 out of 1000). The one lookup behind `ExperienceBook`, `play --book`, the
//! exploration of self-play and `experience show`.

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::Error;
use super::records::MoveStats;
use super::store::Store;

/// A known move that is legal in the position, with its record.
#[derive(Clone, Debug)]
pub struct KnownMove {
    pub mv: Move,
    pub stats: MoveStats,
}

/// The known moves of `pos`, best first by the confidence-aware score for the side to move
/// (equal scores keep the store's order: most played first, then by move text).
pub fn ranked(store: &Store, pos: &Chess) -> Result<Vec<KnownMove>, Error> {
    let turn = pos.turn();
    let mut known: Vec<KnownMove> = store
        .moves_from(pos)?
        .into_iter()
        .filter_map(|stats| {
            let mv = stats.mv.parse::<UciMove>().ok()?.to_move(pos).ok()?;
            Some(KnownMove { mv, stats })
        })
        .collect();
    known.sort_by(|a, b| {
        b.stats
            .confidence_score(turn)
            .total_cmp(&a.stats.confidence_score(turn))
    });
    Ok(known)
}

/// The book's move in a position.
#[derive(Clone, Debug)]
pub struct BookMove {
    pub mv: Move,
    pub stats: MoveStats,
    /// Games of the position (all its known moves).
    pub position_games: u64,
}

/// The best known move of `pos`, when the position has at least `min_games` games (a store
/// that cannot be read knows nothing).
pub fn book_move(store: &Store, pos: &Chess, min_games: u32) -> Option<BookMove> {
    let known = ranked(store, pos).ok()?;
    let position_games: u64 = known.iter().map(|k| k.stats.games()).sum();
    if position_games < u64::from(min_games) {
        return None;
    }
    let best = known.into_iter().next()?;
    Some(BookMove {
        mv: best.mv,
        stats: best.stats,
        position_games,
    })
}

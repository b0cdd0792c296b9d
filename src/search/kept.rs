//! What a search thread keeps from one search of a game to the next.

use super::correction::Correction;
use std::collections::TryReserveError;

use super::ordering::History;

/// What a search thread learned of the game's moves that the next search of the game starts
/// from: the move histories and the correction history. The transposition table
/// ([`super::tt::TranspositionTable`]) keeps them between searches, by thread, and clears them
/// with itself (`ucinewgame`, `Clear Hash`).
pub(super) struct Kept {
    pub history: History,
    pub corr: Correction,
}

impl Kept {
    /// Empty histories, or the error of an allocation that failed (see [`super::types::try_filled`]).
    pub(super) fn try_new() -> Result<Self, TryReserveError> {
        Ok(Kept {
            history: History::try_new()?,
            corr: Correction::try_new()?,
        })
    }

    /// Whether the move histories, and the correction history, are as new.
    #[cfg(test)]
    pub(super) fn fresh(&self) -> (bool, bool) {
        (self.history.is_fresh(), self.corr.is_fresh())
    }
}

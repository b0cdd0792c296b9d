//! Score-based adjudication of a game, like cutechess-cli and fastchess: a draw when both
//! engines agree it is level, a resignation when they agree one side is far ahead.

use crate::chess::rules::GameResult;

/// Score-based adjudication, like cutechess-cli and fastchess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// Draw: from this move number on, when the last `draw_plies` scores are all within
    /// `draw_cp` of zero. 0 disables.
    pub draw_move: u32,
    pub draw_plies: usize,
    pub draw_cp: i32,
    /// Resignation: when the last `resign_plies` scores (both engines') all say the same side
    /// is at least `resign_cp` ahead. 0 disables.
    pub resign_plies: usize,
    pub resign_cp: i32,
    /// A game this long is drawn.
    pub max_plies: usize,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            draw_move: 40,
            draw_plies: 8,
            draw_cp: 10,
            resign_plies: 6,
            resign_cp: 1000,
            max_plies: 400,
        }
    }
}

/// Score-based adjudication over White-view scores, one per ply (None where an engine gave no
/// score). Returns the result if the game should end.
pub fn adjudicate(adj: &Adjudication, scores: &[Option<i32>], fullmove: u32) -> Option<GameResult> {
    let last = |n: usize| -> Option<Vec<i32>> {
        if n == 0 || scores.len() < n {
            return None;
        }
        scores[scores.len() - n..].iter().copied().collect()
    };
    if adj.resign_plies > 0
        && let Some(s) = last(adj.resign_plies)
    {
        if s.iter().all(|&v| v >= adj.resign_cp) {
            return Some(GameResult::WhiteWins);
        }
        if s.iter().all(|&v| v <= -adj.resign_cp) {
            return Some(GameResult::BlackWins);
        }
    }
    if adj.draw_move > 0
        && fullmove >= adj.draw_move
        && let Some(s) = last(adj.draw_plies)
        && s.iter().all(|&v| v.abs() <= adj.draw_cp)
    {
        return Some(GameResult::Draw);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjudication_by_scores() {
        let adj = Adjudication::default();
        let win = vec![Some(1200); 6];
        assert_eq!(adjudicate(&adj, &win, 20), Some(GameResult::WhiteWins));
        let mut mixed = vec![Some(-1500); 6];
        assert_eq!(adjudicate(&adj, &mixed, 20), Some(GameResult::BlackWins));
        mixed[2] = Some(-10);
        assert_eq!(adjudicate(&adj, &mixed, 20), None);
        mixed[3] = None;
        assert_eq!(adjudicate(&adj, &mixed, 20), None);
        let quiet = vec![
            Some(5),
            Some(-3),
            Some(0),
            Some(10),
            Some(-10),
            Some(2),
            Some(1),
            Some(0),
        ];
        assert_eq!(adjudicate(&adj, &quiet, 39), None, "too early");
        assert_eq!(adjudicate(&adj, &quiet, 40), Some(GameResult::Draw));
        assert_eq!(adjudicate(&adj, &quiet[1..], 40), None, "too few plies");
    }
}

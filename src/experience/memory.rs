//! Search memory: what the searches of learned games found, so that later searches start from
//! it. Each row is a position (its Zobrist key), the best move found there (its 16-bit move
//! code, `chess::notation::move_code`), the score for the side to move and the depth searched.
//! Rows come from the root of each search and from the first positions of its principal
//! variation (depth one less a ply). At the end of a game its result flows back through the
//! game's remembered positions by a Q-learning step ([`q_update`]) on their values (score plus
//! what was learned); what the results taught is kept apart from the score, as a correction
//! (`learned`) that a deeper search of the position does not wipe out.

use crate::chess::rules::GameResult;
use crate::chess::score::TB_WIN_BOUND;

/// One remembered position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remembered {
    pub key: u64,
    /// The best move's code (`chess::notation::move_code`).
    pub mv: u16,
    /// Score for the side to move, centipawns (mate and tablebase scores count from this
    /// position).
    pub score: i32,
    pub depth: i32,
    /// What game results added to the score (centipawns, side to move): the position's learned
    /// value is `score + learned`.
    pub learned: i32,
}

impl Remembered {
    /// The learned value: the search's score corrected by the results.
    pub fn value(&self) -> i32 {
        self.score.saturating_add(self.learned)
    }
}

/// The constants of the Q-learning step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QParams {
    /// α: how far a value moves toward its target (0: learning off, 1: replaced by it).
    pub rate: f64,
    /// γ: the discount of the value of the position after.
    pub discount: f64,
    /// The value of a won game in centipawns (a loss is its negative, a draw 0).
    pub reward: i32,
}

impl Default for QParams {
    fn default() -> Self {
        QParams {
            rate: 0.5,
            discount: 0.99,
            reward: 1000,
        }
    }
}

/// The Q-learning step over one game. `values` are the game's remembered positions in the
/// order they were played, each with its side to move (`true`: White) and its value for that
/// side. Working back from the end, with every value seen from White's side (`w`):
///
/// ```text
/// target(last) = R (the result: +reward, -reward or 0; with no result, the last value itself)
/// w_i ← (1 − α)·w_i + α·γ·target(i),   target(i − 1) = w_i (the new value)
/// ```
///
/// Decided scores (mates, tablebase wins) are known, not learned: they stay as they are and
/// pass on, capped at ±reward, as the target of the position before.
pub fn q_update(values: &mut [(bool, i32)], result: Option<GameResult>, q: &QParams) {
    let Some(last) = values.len().checked_sub(1) else {
        return;
    };
    let white = |(white_to_move, v): (bool, i32)| if white_to_move { v } else { -v };
    let (mut target, upto) = match result {
        Some(GameResult::WhiteWins) => (f64::from(q.reward), last + 1),
        Some(GameResult::BlackWins) => (-f64::from(q.reward), last + 1),
        Some(GameResult::Draw) => (0.0, last + 1),
        None => (f64::from(white(values[last])), last),
    };
    let cap = f64::from(q.reward.abs());
    for i in (0..upto).rev() {
        let (white_to_move, v) = values[i];
        if v.abs() >= TB_WIN_BOUND {
            target = f64::from(white(values[i])).clamp(-cap, cap);
            continue;
        }
        let w = f64::from(white(values[i]));
        let new = (1.0 - q.rate) * w + q.rate * q.discount * target;
        let new_v = new.round() as i32;
        let new_v = new_v.clamp(-(TB_WIN_BOUND - 1), TB_WIN_BOUND - 1);
        values[i].1 = if white_to_move { new_v } else { -new_v };
        target = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: QParams = QParams {
        rate: 0.5,
        discount: 0.9,
        reward: 1000,
    };

    #[test]
    fn a_loss_pulls_the_values_down_most_near_the_end() {
        // White to move at both; 100 and 50 for White; Black won.
        let mut v = [(true, 100), (false, -50), (true, 50)];
        q_update(&mut v, Some(GameResult::BlackWins), &Q);
        // w2 = 0.5·50 + 0.5·0.9·(−1000) = −425
        assert_eq!(v[2], (true, -425));
        // w1 = 0.5·50 + 0.45·(−425) = −166.25 → Black to move: +166
        assert_eq!(v[1], (false, 166));
        // w0 = 0.5·100 + 0.45·(−166.25) = −24.8 → −25
        assert_eq!(v[0], (true, -25));
    }

    #[test]
    fn draws_and_no_result() {
        let mut v = [(true, 200), (true, 200)];
        q_update(&mut v, Some(GameResult::Draw), &Q);
        assert_eq!(v, [(true, 145), (true, 100)]);
        // Without a result the last value is the target and stays.
        let mut v = [(true, 0), (false, -300)];
        q_update(&mut v, None, &Q);
        assert_eq!(v, [(true, 135), (false, -300)]);
        // Rate 0: nothing moves.
        let mut v = [(true, 10), (false, 20)];
        q_update(
            &mut v,
            Some(GameResult::WhiteWins),
            &QParams { rate: 0.0, ..Q },
        );
        assert_eq!(v, [(true, 10), (false, 20)]);
    }

    #[test]
    fn mates_stay_and_pass_on_capped() {
        let mate = crate::chess::score::MATE - 3;
        let mut v = [(true, 0), (true, mate)];
        q_update(&mut v, Some(GameResult::WhiteWins), &Q);
        assert_eq!(v[1], (true, mate));
        assert_eq!(v[0], (true, 450));
        q_update(&mut [], None, &Q);
    }
}

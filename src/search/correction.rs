//! Correction history: what the searches of a thread found about the static evaluation, kept
//! by pawn structure and by each side's non-pawn pieces, and added to the static evaluation of
//! later positions that share them. A net (or the tables) that misjudges a pawn structure
//! misjudges it everywhere; the search corrects it once and the correction carries over.
//!
//! Each entry (in 1/[`GRAIN`] centipawns) moves by a share of `search score - corrected static
//! evaluation`, a larger share for a deeper search, as Stockfish updates its correction
//! histories: the tables keep moving until the corrected evaluation meets the searches' scores.
//! (They were a moving average of that difference, which stops where each entry equals what is
//! left of it: two thirds of the way with the default weights. On `deepred bench`'s exact
//! nodes of depth 3 and more, the corrected evaluation then missed the score by 47.6
//! centipawns on average, the uncorrected one by 55.9; moving by shares, 36.9 against 52.3.)

use std::collections::TryReserveError;

use shakmaty::{Bitboard, Chess, Color, Position};

use super::ordering::gravity;
use super::params::Tunables;
use super::types::try_filled;

/// Entries per table and side to move.
const SIZE: usize = 16_384;
/// Fixed-point scale of an entry.
const GRAIN: i32 = 256;
/// An update moves each entry by `difference * min(depth + 1, 16) / UPDATE_DIV`: a quarter of
/// the difference at most, half of it over the three tables with the default weights.
const UPDATE_DIV: i32 = 64;
/// An entry stays within ±`MAX` (64 centipawns).
const MAX: i32 = GRAIN * 64;
const _: () = assert!(MAX <= i16::MAX as i32);

/// The keys of one position: pawn structure, White's and Black's non-pawn pieces.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Keys {
    pawn: usize,
    white: usize,
    black: usize,
}

/// A fast mix of bitboards into a table index (a multiply-xorshift, as in splitmix64).
#[inline]
fn mix(parts: &[Bitboard]) -> usize {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
    for b in parts {
        h = (h ^ b.0).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    (h.wrapping_mul(0x94D0_49BB_1331_11EB) >> 32) as usize % SIZE
}

impl Keys {
    pub fn of(pos: &Chess) -> Keys {
        let b = pos.board();
        let side = |c: Color| {
            let own = b.by_color(c);
            [
                b.knights() & own,
                b.bishops() & own,
                b.rooks() & own,
                b.queens() & own,
                b.kings() & own,
            ]
        };
        Keys {
            pawn: mix(&[b.pawns() & b.white(), b.pawns() & b.black()]),
            white: mix(&side(Color::White)),
            black: mix(&side(Color::Black)),
        }
    }
}

/// The correction tables of one search thread, by side to move. Entries are `i16` (they stay
/// within ±`MAX`): every node reads three of them at random, and half the bytes (192 KB for
/// the three tables instead of 384 KB) miss the cache less often.
pub(super) struct Correction {
    pawn: Vec<i16>,
    white: Vec<i16>,
    black: Vec<i16>,
}

impl Correction {
    /// Empty tables, or the error of an allocation that failed (see [`try_filled`]).
    pub fn try_new() -> Result<Self, TryReserveError> {
        Ok(Correction {
            pawn: try_filled(2 * SIZE, 0)?,
            white: try_filled(2 * SIZE, 0)?,
            black: try_filled(2 * SIZE, 0)?,
        })
    }

    #[cfg(test)]
    pub(super) fn is_fresh(&self) -> bool {
        [&self.pawn, &self.white, &self.black]
            .iter()
            .all(|t| t.iter().all(|&v| v == 0))
    }

    #[inline]
    fn slot(turn: Color, key: usize) -> usize {
        usize::from(turn == Color::Black) * SIZE + key
    }

    /// The correction (centipawns) for a position with `keys` and `turn` to move.
    #[inline]
    pub fn get(&self, t: &Tunables, turn: Color, k: &Keys) -> i32 {
        let pawn = i32::from(self.pawn[Self::slot(turn, k.pawn)]);
        let non_pawn = i32::from(self.white[Self::slot(turn, k.white)])
            + i32::from(self.black[Self::slot(turn, k.black)]);
        (pawn * t.corr_pawn_weight + non_pawn * t.corr_non_pawn_weight) / (100 * GRAIN)
    }

    /// A search of `depth` found `score` where the corrected static evaluation said `eval`.
    pub fn update(&mut self, turn: Color, k: &Keys, depth: i32, score: i32, eval: i32) {
        let diff = (score - eval).clamp(-MAX / GRAIN, MAX / GRAIN) * GRAIN;
        let bonus = (diff * (depth + 1).min(16) / UPDATE_DIV).clamp(-MAX / 4, MAX / 4);
        for (table, key) in [
            (&mut self.pawn, k.pawn),
            (&mut self.white, k.white),
            (&mut self.black, k.black),
        ] {
            // The histories' gravity: the nearer an entry is to ±MAX in the bonus's
            // direction, the less it moves, so it never passes MAX (which is within i16).
            gravity(&mut table[Self::slot(turn, key)], bonus, MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_correction_learned_in_one_position_carries_to_the_same_pawns() {
        let t = Tunables::default();
        let mut c = Correction::try_new().unwrap();
        let a = pos("4k3/pp3ppp/8/8/8/8/PP3PPP/R3K3 w - - 0 1");
        // Same pawns, a rook moved: the pawn table carries over, White's non-pawn one does not.
        let b = pos("4k3/pp3ppp/8/8/8/8/PP3PPP/3RK3 w - - 0 1");
        // Other pawns, other pieces.
        let other = pos("3k4/p4ppp/8/8/8/8/P4PPP/4K2N w - - 0 1");
        let (ka, kb, ko) = (Keys::of(&a), Keys::of(&b), Keys::of(&other));
        assert_eq!(ka.pawn, kb.pawn);
        assert_ne!(ka.white, kb.white);
        // The searches keep finding 90 where the evaluator says 50: the corrected evaluation
        // comes to meet them.
        for _ in 0..200 {
            let corrected = 50 + c.get(&t, Color::White, &ka);
            c.update(Color::White, &ka, 10, 90, corrected);
        }
        let on_a = c.get(&t, Color::White, &ka);
        let on_b = c.get(&t, Color::White, &kb);
        assert!((38..=40).contains(&on_a), "{on_a}");
        // Without White's non-pawn table: the pawn table and Black's.
        assert!(on_b > 20 && on_b < on_a, "{on_b}");
        assert_eq!(c.get(&t, Color::White, &ko), 0);
        // The other side to move has its own tables.
        assert_eq!(c.get(&t, Color::Black, &ka), 0);
        // A huge difference is bounded.
        for _ in 0..200 {
            c.update(Color::White, &ka, 20, 30_000, -30_000);
        }
        assert!(c.get(&t, Color::White, &ka) <= 2 * MAX / GRAIN);
    }
}

//! Move ordering: the hash move, good captures by MVV-LVA (SEE decides good and bad), killers,
//! the counter move, then quiet moves by their history score; and the lazy picker that hands
//! the moves out best first.

use std::collections::TryReserveError;

use shakmaty::{Chess, Color, Move, MoveList, Position, Role};

use super::params::Tunables;
use super::types::try_filled;
use crate::chess::movegen::Captures;
use crate::chess::notation::encode_move;
use crate::chess::score::value;
use crate::chess::see;

/// Ordering keys of one node: `(score << INDEX_BITS) | index in the move list`, as many as a
/// move list holds (shakmaty's `MoveList`: 270, more than the 218 of any reachable position,
/// for positions set up with too much material).
pub(super) type OrderKeys = [i64; MAX_MOVES];
pub(super) const MAX_MOVES: usize = 270;
const INDEX_BITS: u32 = 9;
const _: () = assert!(MAX_MOVES <= 1 << INDEX_BITS);

/// History tables are indexed by piece (0..6 White pawn..king, 6..12 Black).
#[inline]
pub(super) fn piece_index(color: Color, role: Role) -> usize {
    (role as usize - 1) + if color == Color::White { 0 } else { 6 }
}

/// MVV-LVA: the most valuable victim first, the least valuable attacker among equals.
#[inline]
pub(super) fn mvv_lva(t: &Tunables, victim: Role, attacker: Role) -> i32 {
    value(victim) * t.mvv_victim_mul - value(attacker) / t.mvv_attacker_div
}

/// Takes the next move in order from `keys[..n]`: the first few by selection (cut nodes rarely
/// need more), then the rest sorted at once. Returns (index in the move list, ordering score).
/// `keys[0]` must already be the largest key (see [`best_first`]).
#[inline]
pub(super) fn pick(keys: &mut OrderKeys, i: usize, n: usize) -> Option<(usize, i32)> {
    if i >= n {
        return None;
    }
    if i == 0 {
        // Already in place.
    } else if i < 3 {
        let mut bi = i;
        for j in i + 1..n {
            if keys[j] > keys[bi] {
                bi = j;
            }
        }
        keys.swap(i, bi);
    } else if i == 3 {
        keys[3..n].sort_unstable_by(|a, b| b.cmp(a));
    }
    let k = keys[i];
    Some((
        (k & ((1 << INDEX_BITS) - 1)) as usize,
        (k >> INDEX_BITS) as i32,
    ))
}

/// Moves the largest of `keys[..n]` to the front.
#[inline]
fn best_first(keys: &mut OrderKeys, n: usize) {
    let mut bi = 0;
    for j in 1..n {
        if keys[j] > keys[bi] {
            bi = j;
        }
    }
    keys.swap(0, bi);
}

/// Moves tried at a node, as codes (at most `N`; later ones are not kept).
pub(super) struct Tried<const N: usize> {
    list: [u16; N],
    pub len: usize,
}

impl<const N: usize> Tried<N> {
    pub fn new() -> Self {
        Tried {
            list: [0; N],
            len: 0,
        }
    }

    fn add(&mut self, code: u16) {
        if self.len < N {
            self.list[self.len] = code;
            self.len += 1;
        }
    }

    fn codes(&self) -> &[u16] {
        &self.list[..self.len]
    }
}

/// Quiet moves tried at a node, as `piece index << 6 | target square`.
pub(super) type Quiets = Tried<64>;

impl Quiets {
    pub fn push(&mut self, turn: Color, m: &Move) {
        self.add(quiet_code(turn, m));
    }
}

#[inline]
fn quiet_code(turn: Color, m: &Move) -> u16 {
    ((piece_index(turn, m.role()) as u16) << 6) | u16::from(m.to())
}

/// Captures tried at a node, as `piece index << 9 | victim index << 6 | target square`.
pub(super) type TriedCaptures = Tried<32>;

impl TriedCaptures {
    pub fn push(&mut self, turn: Color, m: &Move) {
        if let Some(code) = capture_code(turn, m) {
            self.add(code);
        }
    }
}

#[inline]
fn capture_code(turn: Color, m: &Move) -> Option<u16> {
    let victim = m.capture()? as u16 - 1;
    Some(((piece_index(turn, m.role()) as u16) << 9) | (victim << 6) | u16::from(m.to()))
}

/// The moves that led to a node, for its continuation histories: the (piece index, target
/// square) of the move 1, 2 and 4 plies before (`None` past the root or after a null move).
pub(super) type Continuations = [Option<(usize, usize)>; 3];

/// Entries of one continuation table: (piece, square) of the earlier move by (piece, square)
/// of this one.
const CONT: usize = 12 * 64;

/// The gravity update of a history entry: it moves by `bonus` and never past `±max`.
#[inline]
pub(super) fn gravity(h: &mut i16, bonus: i32, max: i32) {
    let v = i32::from(*h);
    *h = (v + bonus - v * bonus.abs() / max).clamp(-max, max) as i16;
}

/// What a search thread learns about moves: the history score of each quiet (piece, target
/// square), the continuation histories (the same by the moves 1, 2 and 4 plies before), the
/// capture history (piece, target square, victim), and the counter move that refuted each
/// (piece, target square).
pub(super) struct History {
    scores: Vec<[i32; 64]>,
    counters: Vec<[u16; 64]>,
    /// `cont[earlier piece * 64 + square][piece * 64 + square]`, flattened.
    cont: Vec<i16>,
    /// `captures[piece << 9 | victim << 6 | square]` (see [`capture_code`]).
    captures: Vec<i16>,
}

impl History {
    /// Empty histories, or the error of an allocation that failed (see [`try_filled`]).
    pub fn try_new() -> Result<Self, TryReserveError> {
        Ok(History {
            scores: try_filled(12, [0; 64])?,
            counters: try_filled(12, [0; 64])?,
            cont: try_filled(CONT * CONT, 0)?,
            captures: try_filled(12 << 9, 0)?,
        })
    }

    #[cfg(test)]
    pub(super) fn is_fresh(&self) -> bool {
        self.scores.iter().flatten().all(|&v| v == 0)
            && self.cont.iter().all(|&v| v == 0)
            && self.captures.iter().all(|&v| v == 0)
    }

    /// The history of a quiet move (`piece index << 6 | square`) after `conts`.
    #[inline]
    fn quiet_score(&self, code: u16, conts: &Continuations) -> i32 {
        let (p, to) = (usize::from(code >> 6), usize::from(code & 63));
        let mut h = self.scores[p][to];
        for (pp, pto) in conts.iter().flatten() {
            h += i32::from(self.cont[(pp * 64 + pto) * CONT + usize::from(code)]);
        }
        h
    }

    /// The capture history of a capture `m` by `turn` (0 for a non-capture).
    #[inline]
    pub fn capture_score(&self, turn: Color, m: &Move) -> i32 {
        capture_code(turn, m).map_or(0, |c| i32::from(self.captures[usize::from(c)]))
    }

    /// Scores `moves` into `keys` and returns how many there are. `killers` are this ply's,
    /// `conts` the moves that led here (the first one's counter move is ordered early).
    #[allow(clippy::too_many_arguments)]
    pub fn score_moves(
        &self,
        t: &Tunables,
        pos: &Chess,
        moves: &MoveList,
        tt_move: u16,
        killers: [u16; 2],
        conts: &Continuations,
        keys: &mut OrderKeys,
    ) -> usize {
        let turn = pos.turn();
        let counter = conts[0].map_or(0, |(p, to)| self.counters[p][to]);
        for (i, m) in moves.iter().enumerate() {
            let code = encode_move(m);
            let score = if code == tt_move {
                t.order_tt
            } else if let Some(victim) = m.capture() {
                let mvv = mvv_lva(t, victim, m.role());
                let promo = m.promotion().map_or(0, value);
                let hist = self.capture_score(turn, m) / t.capture_history_div;
                if see::see_ge(pos.board(), turn, m, 0) {
                    t.order_good_capture + mvv + promo + hist
                } else {
                    t.order_bad_capture + mvv + hist
                }
            } else if let Some(p) = m.promotion() {
                if p == Role::Queen {
                    t.order_good_capture + value(p)
                } else {
                    t.order_bad_capture + value(p)
                }
            } else if code == killers[0] {
                t.order_killer + 1
            } else if code == killers[1] {
                t.order_killer
            } else if code == counter {
                t.order_counter
            } else {
                self.quiet_score(quiet_code(turn, m), conts)
            };
            keys[i] = (i64::from(score) << INDEX_BITS) | i as i64;
        }
        best_first(keys, moves.len());
        moves.len()
    }

    /// The bonus of a cutoff at `depth`.
    #[inline]
    fn bonus(t: &Tunables, depth: i32) -> i32 {
        (depth * depth * t.history_bonus_mul).min(t.history_bonus_max)
    }

    /// A quiet move `best` caused a cutoff at `depth`: it becomes a killer and the counter move
    /// of the move before; its histories (main and continuation) rise and those of the other
    /// quiet moves tried fall, as do the capture histories of the captures tried.
    #[allow(clippy::too_many_arguments)]
    pub fn reward(
        &mut self,
        t: &Tunables,
        turn: Color,
        best: Move,
        quiets: &Quiets,
        captures: &TriedCaptures,
        depth: i32,
        killers: &mut [u16; 2],
        conts: &Continuations,
    ) {
        let code = encode_move(&best);
        if killers[0] != code {
            killers[1] = killers[0];
            killers[0] = code;
        }
        if let Some((p, to)) = conts[0] {
            self.counters[p][to] = code;
        }
        let bonus = Self::bonus(t, depth);
        let best_code = quiet_code(turn, &best);
        for &q in quiets.codes() {
            let b = if q == best_code { bonus } else { -bonus };
            self.adjust_main(t, (usize::from(q >> 6), usize::from(q & 63)), b);
            for (pp, pto) in conts.iter().flatten() {
                let e = &mut self.cont[(pp * 64 + pto) * CONT + usize::from(q)];
                gravity(e, b, t.history_max.min(i32::from(i16::MAX)));
            }
        }
        self.punish_captures(t, captures, None, bonus);
    }

    /// A capture `best` caused a cutoff at `depth`: its capture history rises and those of the
    /// other captures tried fall.
    pub fn reward_capture(
        &mut self,
        t: &Tunables,
        turn: Color,
        best: &Move,
        captures: &TriedCaptures,
        depth: i32,
    ) {
        let bonus = Self::bonus(t, depth);
        if let Some(c) = capture_code(turn, best) {
            gravity(
                &mut self.captures[usize::from(c)],
                bonus,
                t.history_max.min(i32::from(i16::MAX)),
            );
        }
        self.punish_captures(t, captures, capture_code(turn, best), bonus);
    }

    /// A node failed low at `depth` after the quiet move `prior` (piece index, target square)
    /// of the other side: the move was good, and its continuation histories after `conts` (the
    /// moves before it) rise by the bonus of a cutoff at that depth (Stockfish's bonus of the
    /// prior counter move).
    pub fn reward_prior(
        &mut self,
        t: &Tunables,
        prior: (usize, usize),
        conts: &Continuations,
        depth: i32,
    ) {
        let code = prior.0 * 64 + prior.1;
        let bonus = Self::bonus(t, depth);
        for (pp, pto) in conts.iter().flatten() {
            gravity(
                &mut self.cont[(pp * 64 + pto) * CONT + code],
                bonus,
                t.history_max.min(i32::from(i16::MAX)),
            );
        }
    }

    /// Moves the main history of the quiet move `prior` (piece index, target square) by
    /// `bonus` (gravity as at a cutoff).
    pub fn adjust_main(&mut self, t: &Tunables, prior: (usize, usize), bonus: i32) {
        let h = &mut self.scores[prior.0][prior.1];
        *h = (*h + bonus - *h * bonus.abs() / t.history_max).clamp(-t.history_max, t.history_max);
    }

    fn punish_captures(
        &mut self,
        t: &Tunables,
        captures: &TriedCaptures,
        best: Option<u16>,
        bonus: i32,
    ) {
        for &c in captures.codes() {
            if Some(c) != best {
                gravity(
                    &mut self.captures[usize::from(c)],
                    -bonus,
                    t.history_max.min(i32::from(i16::MAX)),
                );
            }
        }
    }
}

/// Orders the captures and promotions of a quiescence node into `keys`.
pub(super) fn score_captures(t: &Tunables, moves: &Captures, keys: &mut OrderKeys) {
    for (i, m) in moves.iter().enumerate() {
        let victim = m.capture().map_or(0, value);
        let promo = m.promotion().map_or(0, value);
        let score = victim * t.mvv_victim_mul + promo - value(m.role()) / t.mvv_attacker_div;
        keys[i] = (i64::from(score) << INDEX_BITS) | i as i64;
    }
    best_first(keys, moves.len());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fail_low_raises_the_prior_moves_continuation_histories_only() {
        let t = Tunables::default();
        let mut h = History::try_new().unwrap();
        // White's Nf3 (knight 1, f3 21), after Black's e5 (pawn 6, e5 36) and White's e4.
        let (knight, f3) = (piece_index(Color::White, Role::Knight), 21);
        let conts: Continuations = [Some((6, 36)), Some((0, 28)), None];
        let code = (knight as u16) << 6 | f3 as u16;
        assert_eq!(h.quiet_score(code, &conts), 0);
        h.reward_prior(&t, (knight, f3), &conts, 5);
        // Both continuation tables rise by the bonus of a cutoff at depth 5; the main history
        // and the move after other moves stay as they were.
        let bonus = History::bonus(&t, 5);
        assert!(bonus > 0);
        assert_eq!(h.quiet_score(code, &conts), 2 * bonus);
        assert_eq!(h.quiet_score(code, &[None, None, None]), 0);
        assert_eq!(h.quiet_score(code, &[Some((6, 35)), None, None]), 0);
        // Gravity: repeated bonuses never pass the table's bound.
        for _ in 0..1000 {
            h.reward_prior(&t, (knight, f3), &conts, 20);
        }
        let max = t.history_max.min(i32::from(i16::MAX));
        assert!(h.quiet_score(code, &conts) <= 2 * max);
        assert!(h.quiet_score(code, &conts) > max);
    }

    #[test]
    fn the_evaluations_change_moves_the_main_history_within_its_bound() {
        let t = Tunables::default();
        let mut h = History::try_new().unwrap();
        let prior = (piece_index(Color::Black, Role::Bishop), 18);
        let code = (prior.0 as u16) << 6 | prior.1 as u16;
        let none: Continuations = [None, None, None];
        h.adjust_main(&t, prior, 300);
        assert_eq!(h.quiet_score(code, &none), 300);
        h.adjust_main(&t, prior, -500);
        // 300 - 500 - 300 * 500 / 16384 (gravity), truncated towards zero.
        assert_eq!(
            h.quiet_score(code, &none),
            300 - 500 - 300 * 500 / t.history_max
        );
        for _ in 0..10_000 {
            h.adjust_main(&t, prior, -4000);
        }
        assert!(h.quiet_score(code, &none) >= -t.history_max);
        assert!(h.quiet_score(code, &none) < -t.history_max / 2);
        // Another piece on the square, or the same piece elsewhere, is untouched.
        assert_eq!(h.quiet_score(code ^ 1, &none), 0);
        assert_eq!(h.quiet_score(code + 64, &none), 0);
    }
}

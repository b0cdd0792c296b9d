//! The triangular table of principal variations: the best line found from every ply.

use std::collections::TryReserveError;

use shakmaty::Move;

use crate::chess::score::MAX_PLY;

pub(super) struct PvTable {
    lines: Vec<Vec<Move>>,
}

impl PvTable {
    /// An empty table, or the error of an allocation that failed (a memory limit) instead of
    /// the abort of an ordinary allocation.
    pub fn try_new() -> Result<Self, TryReserveError> {
        let mut lines = Vec::new();
        lines.try_reserve_exact(MAX_PLY + 1)?;
        for _ in 0..=MAX_PLY {
            let mut line = Vec::new();
            line.try_reserve_exact(MAX_PLY)?;
            lines.push(line);
        }
        Ok(PvTable { lines })
    }

    /// A node at `ply` starts with no line.
    #[inline]
    pub fn clear(&mut self, ply: usize) {
        self.lines[ply].clear();
    }

    /// `m` is the best move at `ply`: its line is `m` and then the line of the next ply.
    #[inline]
    pub fn update(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.lines.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// The line found from `ply`.
    pub fn line(&self, ply: usize) -> &[Move] {
        &self.lines[ply]
    }
}

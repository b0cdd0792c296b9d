//! What the store records: a finished game to learn and the (position, move) rows it touches,
//! and the counts of a known move with the confidence-aware score that ranks moves.

use shakmaty::{Chess, Color, Move, Position};

use super::codec::compact_key;
use crate::chess::fen::fen_of;
use crate::chess::notation::move_text;
use crate::chess::rules::GameResult;

/// (white wins, black wins, draws) of the games through a position.
pub type Record = (u32, u32, u32);

/// A finished game to learn.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub source: String,
    pub white: String,
    pub black: String,
    pub date: String,
    pub result: GameResult,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// What was known of each move's position when it was played: empty, or one entry per
    /// move (`None` where nothing was). Kept with the game; not part of its identity.
    pub evals: Vec<Option<MoveEval>>,
}

/// Where a move's evaluation comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalSource {
    /// Deep Red's own search chose the move.
    DeepRed = 1,
    /// Another engine's search, or an annotation of the PGN (`[%eval ...]`, `{+0.35/12 ...}`).
    Other = 2,
}

/// The evaluation of the position a move was played from: the score of the search that chose
/// it (or of the PGN's annotation), for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveEval {
    /// Centipawns for the side to move; mates and tablebase results as the search scores them
    /// (`chess::score`: mate in n plies is `MATE - n`).
    pub score: i16,
    /// Plies searched (0: unknown).
    pub depth: u8,
    pub source: EvalSource,
}

/// Bytes a move's evaluation takes in a stored game: score (i16, little-endian), depth, source
/// (0: no evaluation).
pub const EVAL_BYTES: usize = 4;

/// The evaluations of a game as stored: [`EVAL_BYTES`] a move, `None` when no move has one.
pub fn encode_evals(evals: &[Option<MoveEval>]) -> Option<Vec<u8>> {
    if evals.iter().all(Option::is_none) {
        return None;
    }
    let mut out = Vec::with_capacity(evals.len() * EVAL_BYTES);
    for e in evals {
        match e {
            Some(e) => {
                out.extend(e.score.to_le_bytes());
                out.push(e.depth);
                out.push(e.source as u8);
            }
            None => out.extend([0; EVAL_BYTES]),
        }
    }
    Some(out)
}

/// The evaluations of a stored game (`bytes` as [`encode_evals`] wrote them), one per move;
/// anything unreadable reads as no evaluation.
pub fn decode_evals(bytes: Option<&[u8]>, moves: usize) -> Vec<Option<MoveEval>> {
    let mut out = vec![None; moves];
    let Some(bytes) = bytes else {
        return out;
    };
    for (slot, c) in out.iter_mut().zip(bytes.chunks_exact(EVAL_BYTES)) {
        let source = match c[3] {
            1 => EvalSource::DeepRed,
            2 => EvalSource::Other,
            _ => continue,
        };
        *slot = Some(MoveEval {
            score: i16::from_le_bytes([c[0], c[1]]),
            depth: c[2],
            source,
        });
    }
    out
}

/// One move row ready to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    pub mover: Color,
    pub parent: Vec<u8>,
    pub mv: String,
    pub child: Vec<u8>,
}

impl GameRecord {
    /// The distinct (position, move) pairs of the game, in order: a pair that comes back (a
    /// repetition) is learned once per game.
    pub fn rows(&self) -> Vec<MoveRow> {
        self.rows_first(self.moves.len())
    }

    /// [`Self::rows`] of the game's first `plies` plies only: what the win/draw/loss tree learns
    /// of a game whose later moves it need not count (the learning loop's own games).
    pub fn rows_first(&self, plies: usize) -> Vec<MoveRow> {
        let mut rows: Vec<MoveRow> = Vec::with_capacity(self.moves.len().min(plies));
        let mut seen = std::collections::HashSet::with_capacity(self.moves.len());
        let mut pos = self.start.clone();
        let mut parent = compact_key(&pos);
        for &m in self.moves.iter().take(plies) {
            let mover = pos.turn();
            let mv = move_text(&pos, m);
            pos.play_unchecked(m);
            let child = compact_key(&pos);
            if seen.insert((parent.clone(), mv.clone())) {
                rows.push(MoveRow {
                    mover,
                    parent: parent.clone(),
                    mv,
                    child: child.clone(),
                });
            }
            parent = child;
        }
        rows
    }

    /// Content hash: the same game (start, moves, result) always hashes the same, whatever
    /// its tags say. 128 bits (two FNV-1a 64 streams).
    pub fn content_hash(&self) -> [u8; 16] {
        let mut text = fen_of(&self.start);
        for &m in &self.moves {
            text.push(' ');
            text.push_str(&m.to_uci(shakmaty::CastlingMode::Chess960).to_string());
        }
        text.push(' ');
        text.push_str(self.result.as_pgn());
        let fnv = |seed: u64| {
            let mut h = seed;
            for b in text.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01B3);
            }
            h
        };
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&fnv(0xcbf2_9ce4_8422_2325).to_le_bytes());
        out[8..].copy_from_slice(&fnv(0x6c62_272e_07bb_0142).to_le_bytes());
        out
    }
}

/// Counts of a known move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveStats {
    pub mv: String,
    pub child: Vec<u8>,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
}

impl MoveStats {
    pub fn games(&self) -> u64 {
        self.white_wins + self.black_wins + self.draws
    }

    /// The mover's score (wins + half the draws) over games.
    pub fn score_for(&self, mover: Color) -> f64 {
        let wins = if mover == Color::White {
            self.white_wins
        } else {
            self.black_wins
        };
        (wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }

    /// Confidence-aware score: the lower bound of the Wilson interval (95%) of the mover's
    /// score, so 1 win out of 1 (0.21) ranks below 900 out of 1000 (0.88).
    pub fn confidence_score(&self, mover: Color) -> f64 {
        wilson_lower_bound(self.score_for(mover), self.games())
    }
}

pub fn wilson_lower_bound(p: f64, n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    let z = 1.96f64;
    let z2 = z * z;
    (p + z2 / (2.0 * n) - z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt()) / (1.0 + z2 / n)
}

/// A game from the start position, for tests.
#[cfg(test)]
pub(crate) fn test_game(moves: &[&str], result: GameResult) -> GameRecord {
    GameRecord {
        source: "test".into(),
        white: "w".into(),
        black: "b".into(),
        date: "2026.11.21".into(),
        result,
        start: Chess::default(),
        moves: crate::chess::notation::uci_line(&Chess::default(), &moves.join(" ")),
        evals: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_position_counts_once_per_game() {
        let g = test_game(
            &["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"],
            GameResult::Draw,
        );
        let rows = g.rows();
        assert_eq!(rows.len(), 4);
    }

    #[test]
    fn evaluations_round_trip() {
        let evals = vec![
            Some(MoveEval {
                score: -31_990,
                depth: 12,
                source: EvalSource::DeepRed,
            }),
            None,
            Some(MoveEval {
                score: 35,
                depth: 0,
                source: EvalSource::Other,
            }),
        ];
        let bytes = encode_evals(&evals).unwrap();
        assert_eq!(bytes.len(), 3 * EVAL_BYTES);
        assert_eq!(decode_evals(Some(&bytes), 3), evals);
        // Fewer bytes than moves: the rest unknown; none at all: nothing stored.
        assert_eq!(decode_evals(Some(&bytes[..4]), 3)[1..], [None, None]);
        assert_eq!(encode_evals(&[None, None]), None);
        assert_eq!(decode_evals(None, 2), vec![None, None]);
    }

    #[test]
    fn wilson_ranks_sample_size() {
        let one = MoveStats {
            mv: String::new(),
            child: vec![],
            white_wins: 1,
            black_wins: 0,
            draws: 0,
        };
        let many = MoveStats {
            mv: String::new(),
            child: vec![],
            white_wins: 900,
            black_wins: 100,
            draws: 0,
        };
        assert!(one.confidence_score(Color::White) < many.confidence_score(Color::White));
        assert!((many.confidence_score(Color::White) - 0.88).abs() < 0.01);
    }
}

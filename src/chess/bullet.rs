//! Training positions in bulletformat's `ChessBoard` records (32 bytes each, the format the
//! bullet trainer reads; `deepred datagen` writes it, `deepred train learned` reads it).
//!
//! A record holds the board from the side to move's view (ranks mirrored and colours swapped
//! when Black is to move), the score in centipawns and the game's result (0 loss, 1 draw, 2 win)
//! for the side to move, and both kings' squares. Deep Red puts the best move's 16-bit code
//! (`notation::encode_move`, little-endian, squares of the real board) in the first two of the
//! three `extra` bytes.

use std::path::Path;

use arrayvec::ArrayVec;
pub use bulletformat::ChessBoard;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Move, Piece, Position, PositionError,
    Role, Setup, Square,
};

use super::notation::decode_move;

use super::Error;

/// Bytes of a record.
pub const RECORD: usize = 32;

/// The record of `pos` with the search's score (centipawns, White's view), the result
/// (1 White won, 0.5 draw, 0 Black won) and the best move's code.
pub fn board_of(pos: &Chess, white_score: i16, white_result: f32, best: u16) -> ChessBoard {
    let b = pos.board();
    let bbs = [
        b.white().0,
        b.black().0,
        b.by_role(Role::Pawn).0,
        b.by_role(Role::Knight).0,
        b.by_role(Role::Bishop).0,
        b.by_role(Role::Rook).0,
        b.by_role(Role::Queen).0,
        b.by_role(Role::King).0,
    ];
    let stm = usize::from(pos.turn() == Color::Black);
    // from_raw fails only for a square with a colour and no piece: never for a legal board.
    let mut rec = ChessBoard::from_raw(bbs, stm, white_score, white_result).unwrap_or_default();
    rec.extra = [best as u8, (best >> 8) as u8, 0];
    rec
}

/// The 32 bytes of a record (bulletformat's `repr(C)` layout, little-endian).
pub fn to_bytes(b: &ChessBoard) -> [u8; RECORD] {
    let mut raw = [0u8; RECORD];
    raw[..8].copy_from_slice(&b.occ.to_le_bytes());
    raw[8..24].copy_from_slice(&b.pcs);
    raw[24..26].copy_from_slice(&b.score.to_le_bytes());
    raw[26] = b.result;
    raw[27] = b.ksq;
    raw[28] = b.opp_ksq;
    raw[29..32].copy_from_slice(&b.extra);
    raw
}

/// The record in 32 bytes.
pub fn from_bytes(raw: &[u8; RECORD]) -> ChessBoard {
    let mut pcs = [0u8; 16];
    pcs.copy_from_slice(&raw[8..24]);
    let mut occ = [0u8; 8];
    occ.copy_from_slice(&raw[..8]);
    ChessBoard {
        occ: u64::from_le_bytes(occ),
        pcs,
        score: i16::from_le_bytes([raw[24], raw[25]]),
        result: raw[26],
        ksq: raw[27],
        opp_ksq: raw[28],
        extra: [raw[29], raw[30], raw[31]],
    }
}

/// Every record of a file.
pub fn read_file(path: &Path) -> Result<Vec<ChessBoard>, Error> {
    let bad = |reason: String| Error::TrainingData {
        file: path.display().to_string(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    if bytes.len() % RECORD != 0 {
        return Err(bad(format!(
            "{} bytes, not a whole number of {RECORD}-byte records (not bulletformat, or cut short)",
            bytes.len()
        )));
    }
    let mut out = Vec::with_capacity(bytes.len() / RECORD);
    for (i, raw) in bytes.chunks_exact(RECORD).enumerate() {
        let mut r = [0u8; RECORD];
        r.copy_from_slice(raw);
        let b = from_bytes(&r);
        if !is_position(&b) {
            return Err(bad(format!("record {i} is not a chess position")));
        }
        out.push(b);
    }
    Ok(out)
}

/// Whether a record can be a chess position: at most 32 pieces, each a pawn to a king, one king
/// a side, a result of 0, 1 or 2 (a file of zeros, or of another format, is not).
fn is_position(b: &ChessBoard) -> bool {
    // The count first: the pieces of more than 32 squares are not in the record.
    if b.occ.count_ones() > 32 || b.result > 2 {
        return false;
    }
    let mut kings = [0; 2];
    for (piece, _) in *b {
        match piece & 7 {
            5 => kings[usize::from(piece >> 3)] += 1,
            0..=4 => {}
            _ => return false,
        }
    }
    kings == [1, 1]
}

/// The deeppink768 features of a record (`nn::features`): the side to move's view and the
/// opponent's.
pub fn features(b: &ChessBoard) -> (ArrayVec<u16, 32>, ArrayVec<u16, 32>) {
    let mut us = ArrayVec::new();
    let mut them = ArrayVec::new();
    for (piece, sq) in *b {
        let colour = u16::from(piece >> 3);
        let kind = u16::from(piece & 7).min(5);
        let sq = u16::from(sq);
        us.push(colour * 384 + kind * 64 + sq);
        them.push((1 - colour.min(1)) * 384 + kind * 64 + (sq ^ 56));
    }
    (us, them)
}

/// The real position of a record and its best move. A record keeps the board from the side to
/// move's view but not which side that is: the best move (real squares) tells, as the one side
/// for which it is legal. Castling rights are not stored either: a king and rook on their
/// starting squares are taken to keep theirs. No en passant square, move counters reset.
/// None when the record has no best move, or the move is legal for neither side or for both.
pub fn position(b: &ChessBoard) -> Option<(Chess, Move)> {
    let code = best_move(b);
    if code == 0 {
        return None;
    }
    let mut found = None;
    for turn in [Color::White, Color::Black] {
        let mut board = Board::empty();
        for (piece, sq) in *b {
            let own = piece >> 3 == 0;
            let role = Role::ALL.get(usize::from(piece & 7))?;
            let (color, sq) = if turn == Color::White {
                (if own { Color::White } else { Color::Black }, sq)
            } else {
                (if own { Color::Black } else { Color::White }, sq ^ 56)
            };
            board.set_piece_at(Square::new(u32::from(sq)), Piece { color, role: *role });
        }
        let mut rooks = Bitboard::EMPTY;
        for (color, king, corners) in [
            (Color::White, Square::E1, [Square::A1, Square::H1]),
            (Color::Black, Square::E8, [Square::A8, Square::H8]),
        ] {
            if board.piece_at(king) == Some(color.king()) {
                for c in corners {
                    if board.piece_at(c) == Some(color.rook()) {
                        rooks.add(c);
                    }
                }
            }
        }
        let setup = Setup {
            board,
            turn,
            castling_rights: rooks,
            ..Setup::empty()
        };
        let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard)
            .or_else(PositionError::ignore_invalid_castling_rights)
        else {
            continue;
        };
        if let Some(m) = decode_move(&pos, code) {
            if found.is_some() {
                return None;
            }
            found = Some((pos, m));
        }
    }
    found
}

/// The record's best move code (0: none).
pub fn best_move(b: &ChessBoard) -> u16 {
    u16::from_le_bytes([b.extra[0], b.extra[1]])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records that are no chess position are refused (a file of zeros trained a net to a loss
    /// of 0, and a piece code past the king was read as a king).
    #[test]
    fn a_file_of_records_that_are_no_positions_is_refused() {
        let dir = std::env::temp_dir().join(format!("deepred-bullet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let start = to_bytes(&board_of(&Chess::default(), 20, 0.5, 0));
        let good = dir.join("good.bin");
        std::fs::write(&good, start).unwrap();
        assert_eq!(read_file(&good).unwrap().len(), 1);
        // The nibble of the `i`th piece set to `code`.
        let with = |i: usize, code: u8| {
            let mut r = start;
            let byte = &mut r[8 + i / 2];
            let shift = 4 * (i & 1);
            *byte = (*byte & !(0xf << shift)) | (code << shift);
            r
        };
        let king = from_bytes(&start)
            .into_iter()
            .position(|(p, _)| p == 5)
            .unwrap();
        for (what, record) in [
            ("zeros", [0u8; RECORD]),
            ("a piece code past the king", with(0, 6)),
            ("a king made a queen", with(king, 4)),
            ("a pawn made a second king", with(0, 5)),
        ] {
            let path = dir.join("bad.bin");
            std::fs::write(&path, [start, record].concat()).unwrap();
            let e = read_file(&path).unwrap_err().to_string();
            assert!(
                e.contains("record 1 is not a chess position"),
                "{what}: {e}"
            );
        }
    }
}

//! Board codecs of the experience store.
//!
//! - [`board_string`] / [`parse_board_string`]: the seed's 64-character board string, rank 8
//!   first: `0` empty, `1`-`6` White pawn, knight, bishop, rook, queen, king, `a`-`f` the same
//!   for Black. Pieces only: for display and interchange.
//! - [`compact_key`] / [`decode_key`]: a lossless binary key of the position as the rules see it
//!   (pieces, side to move, castling rights, legal en passant; not the move counters). Layout:
//!   8 bytes of occupancy (bit i = square i, a1 = 0, little-endian), then one 4-bit code per
//!   occupied square in square order, two per byte, low nibble first:
//!   `0`-`5` White P N B R Q K, `6`-`11` Black p n b r q k, `12` a pawn that can be taken en
//!   passant (its colour follows from its rank), `13` a White rook with castling rights, `14` a
//!   Black rook with castling rights, `15` the Black king with Black to move.
//!   So the start position takes 8 + 16 = 24 bytes, and every capture makes keys shorter.

use shakmaty::{
    Bitboard, Board, ByColor, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece,
    Position, Rank, Role, Setup, Square,
};

use super::Error;

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

fn piece_char(p: Piece) -> char {
    let i = p.role as u8 - 1; // Pawn = 1 in shakmaty
    match p.color {
        Color::White => (b'1' + i) as char,
        Color::Black => (b'a' + i) as char,
    }
}

/// The 64-character board string (rank 8 first).
pub fn board_string(board: &Board) -> String {
    let mut s = String::with_capacity(64);
    for rank in (0..8).rev() {
        for file in 0..8 {
            let sq = Square::from_coords(shakmaty::File::new(file), Rank::new(rank));
            s.push(board.piece_at(sq).map_or('0', piece_char));
        }
    }
    s
}

/// Parses a 64-character board string.
pub fn parse_board_string(s: &str) -> Result<Board, Error> {
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return Err(Error::BoardStringLength {
            len: s.chars().count(),
        });
    }
    let mut board = Board::empty();
    for (i, &c) in bytes.iter().enumerate() {
        let rank = 7 - (i / 8) as u32;
        let file = (i % 8) as u32;
        let sq = Square::from_coords(shakmaty::File::new(file), Rank::new(rank));
        let piece = match c {
            b'0' => continue,
            b'1'..=b'6' => ROLES[usize::from(c - b'1')].of(Color::White),
            b'a'..=b'f' => ROLES[usize::from(c - b'a')].of(Color::Black),
            _ => {
                return Err(Error::BoardStringChar {
                    ch: c as char,
                    index: i,
                });
            }
        };
        board.set_piece_at(sq, piece);
    }
    Ok(board)
}

/// The compact lossless key of `pos` (see the module documentation).
pub fn compact_key(pos: &Chess) -> Vec<u8> {
    let board = pos.board();
    let occupied = board.occupied();
    let mut out = Vec::with_capacity(8 + 16);
    out.extend_from_slice(&occupied.0.to_le_bytes());
    let castling = pos.castles().castling_rights();
    let ep_pawn = pos.ep_square(EnPassantMode::Legal).map(|ep| {
        // The pawn that just moved two squares stands behind the en passant square.
        match pos.turn() {
            Color::White => ep.offset(-8),
            Color::Black => ep.offset(8),
        }
        .expect("en passant square is on rank 3 or 6")
    });
    let mut half: Option<u8> = None;
    for sq in occupied {
        let piece = board.piece_at(sq).expect("occupied square");
        let code = if Some(sq) == ep_pawn {
            12
        } else if piece.role == Role::Rook && castling.contains(sq) {
            if piece.color == Color::White { 13 } else { 14 }
        } else if piece.role == Role::King
            && piece.color == Color::Black
            && pos.turn() == Color::Black
        {
            15
        } else {
            (piece.role as u8 - 1) + if piece.color == Color::White { 0 } else { 6 }
        };
        match half.take() {
            None => half = Some(code),
            Some(low) => out.push(low | (code << 4)),
        }
    }
    if let Some(low) = half {
        out.push(low);
    }
    out
}

/// Rebuilds the position of a compact key. Move counters are not in the key: the halfmove clock
/// is 0 and the move number 1.
pub fn decode_key(key: &[u8]) -> Result<Chess, Error> {
    if key.len() < 8 {
        return Err(Error::KeyTooShort { len: key.len() });
    }
    let occupied = Bitboard(u64::from_le_bytes(key[..8].try_into().expect("8 bytes")));
    let n = occupied.count();
    if key.len() != 8 + n.div_ceil(2) {
        return Err(Error::KeyLength {
            len: key.len(),
            occupied: n,
        });
    }
    let mut board = Board::empty();
    let mut turn = Color::White;
    let mut castling = Bitboard::EMPTY;
    let mut ep_square = None;
    for (i, sq) in occupied.into_iter().enumerate() {
        let byte = key[8 + i / 2];
        let code = if i % 2 == 0 { byte & 15 } else { byte >> 4 };
        let piece = match code {
            0..=5 => ROLES[usize::from(code)].of(Color::White),
            6..=11 => ROLES[usize::from(code - 6)].of(Color::Black),
            12 => {
                // A pawn on rank 4 just moved from rank 2 (White's), on rank 5 from rank 7.
                match sq.rank() {
                    Rank::Fourth => {
                        ep_square = sq.offset(-8);
                        turn = Color::Black;
                        Role::Pawn.of(Color::White)
                    }
                    Rank::Fifth => {
                        ep_square = sq.offset(8);
                        Role::Pawn.of(Color::Black)
                    }
                    _ => return Err(Error::KeyEnPassant { square: sq }),
                }
            }
            13 => {
                castling |= Bitboard::from(sq);
                Role::Rook.of(Color::White)
            }
            14 => {
                castling |= Bitboard::from(sq);
                Role::Rook.of(Color::Black)
            }
            _ => {
                turn = Color::Black;
                Role::King.of(Color::Black)
            }
        };
        board.set_piece_at(sq, piece);
    }
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights: castling,
        ep_square,
        remaining_checks: None::<ByColor<_>>,
        halfmoves: 0,
        fullmoves: std::num::NonZeroU32::MIN,
    };
    Chess::from_setup(setup, CastlingMode::Chess960)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .map_err(|e| Error::KeyIllegal {
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    const START: &str = "dbcefcbdaaaaaaaa000000000000000000000000000000001111111142356324";

    #[test]
    fn start_position_string() {
        assert_eq!(board_string(Chess::default().board()), START);
        assert_eq!(
            &parse_board_string(START).unwrap(),
            Chess::default().board()
        );
        assert!(parse_board_string(&START[1..]).is_err());
        assert!(parse_board_string(&START.replace('6', "7")).is_err());
    }

    #[test]
    fn start_position_key_is_24_bytes_and_round_trips() {
        let k = compact_key(&Chess::default());
        assert_eq!(k.len(), 24);
        assert_eq!(decode_key(&k).unwrap(), Chess::default());
    }

    #[test]
    fn keys_keep_side_castling_and_en_passant() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
        ] {
            let pos = parse_fen(fen, false).unwrap();
            let back = decode_key(&compact_key(&pos)).unwrap();
            assert_eq!(back, pos, "{fen}");
            assert_eq!(back.turn(), pos.turn());
            assert_eq!(
                back.castles().castling_rights(),
                pos.castles().castling_rights()
            );
            assert_eq!(
                back.ep_square(EnPassantMode::Legal),
                pos.ep_square(EnPassantMode::Legal)
            );
        }
        // Same pieces, different side to move or rights: different keys.
        let a = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
        let b = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", false).unwrap();
        let c = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1", false).unwrap();
        assert_ne!(compact_key(&a), compact_key(&b));
        assert_ne!(compact_key(&a), compact_key(&c));
    }

    #[test]
    fn bad_keys_are_errors() {
        assert!(decode_key(&[]).is_err());
        let mut k = compact_key(&Chess::default());
        k.pop();
        assert!(decode_key(&k).is_err());
        // Three White kings and no Black one.
        let mut k = compact_key(&Chess::default());
        k[8 + 14] = 0x55; // e8 and f8 become White kings
        assert!(decode_key(&k).is_err());
    }
}

//! Training data sets (`deepred dataset`): positions drawn from PGN games and written in the
//! binary format below.
//!
//! - DeepChess: up to 10 random positions per decisive game, never from the first 5 moves
//!   (plies < 10) and never right after a capture; drawn games are skipped.
//! - Deep Pink: triplets (p, q, r) for random positions p of the game after the first 5 moves
//!   with at least two legal moves: q after the move played, r after a random other legal move;
//!   up to `per_game` per game, any result.
//!
//! Games are split into train and validation by game (a hash of the seed and the game's index
//! over all input files), and each game draws from its own random generator seeded the same
//! way, so the output does not depend on thread scheduling.
//!
//! # Data set files (`deepred dataset`, little-endian)
//! 16-byte header: `b"DRDSET01"`, kind u8 (1 deepchess, 2 deeppink), 3 zero bytes, record count
//! u32. A board block is 66 bytes: 64 squares a1..h8 (0 empty, 1-6 white P N B R Q K, 7-12 black
//! p n b r q k), side to move (0 white, 1 black), castling bits (1 WK, 2 WQ, 4 BK, 8 BQ).
//! - DeepChess record, 72 bytes: board, result u8 (1 White won, 2 Black won), split u8 (0 train,
//!   1 validation), game index u32.
//! - Deep Pink record, 204 bytes: p, q, r boards (q = after the move played, r = after a random
//!   other legal move), split u8, 0 u8, game index u32.

use std::io::Read;
use std::path::Path;

use shakmaty::{CastlingSide, Chess, Color, Position, Role, Square};

use super::Error;
use crate::nn::features::{self, Features};
use crate::nn::net::Kind;

mod build;

pub use build::*;

pub const MAGIC: &[u8; 8] = b"DRDSET01";
pub const HEADER_LEN: usize = 16;
pub const BOARD_LEN: usize = 66;
pub const DEEPCHESS_RECORD: usize = 72;
pub const DEEPPINK_RECORD: usize = 204;
/// Positions per decisive game (DeepChess).
pub const DEEPCHESS_PER_GAME: usize = 10;
/// The first plies of a game are never sampled (5 moves).
pub const SKIP_PLIES: usize = 10;

pub type Board = [u8; BOARD_LEN];

pub fn kind_byte(kind: Kind) -> u8 {
    match kind {
        Kind::DeepChess => 1,
        Kind::DeepPink => 2,
        // No data set of this format: the learned net trains on `deepred datagen` files.
        Kind::Learned => 0,
    }
}

pub fn record_len(kind: Kind) -> usize {
    match kind {
        Kind::DeepChess => DEEPCHESS_RECORD,
        Kind::DeepPink => DEEPPINK_RECORD,
        Kind::Learned => 0,
    }
}

/// The board block of `pos`.
pub fn encode(pos: &Chess) -> Board {
    let mut b = [0u8; BOARD_LEN];
    for (sq, piece) in pos.board().iter() {
        b[sq as usize] = (piece.role as u8) + if piece.color == Color::Black { 6 } else { 0 };
    }
    b[64] = u8::from(pos.turn() == Color::Black);
    let c = pos.castles();
    let mut bits = 0;
    for (i, (color, side)) in [
        (Color::White, CastlingSide::KingSide),
        (Color::White, CastlingSide::QueenSide),
        (Color::Black, CastlingSide::KingSide),
        (Color::Black, CastlingSide::QueenSide),
    ]
    .into_iter()
    .enumerate()
    {
        if c.has(color, side) {
            bits |= 1 << i;
        }
    }
    b[65] = bits;
    b
}

/// The position of a board block (standard castling, no en passant square, move counters
/// reset), or why it is not one.
pub fn decode(b: &Board) -> Result<Chess, Error> {
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let v = b[rank * 8 + file];
            if v == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
                empty = 0;
            }
            let ch = *b"PNBRQKpnbrqk"
                .get(usize::from(v) - 1)
                .ok_or_else(|| Error::Board(format!("square byte {v} is not 0..12")))?;
            fen.push(ch as char);
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push_str(match b[64] {
        0 => " w ",
        1 => " b ",
        v => {
            return Err(Error::Board(format!("side-to-move byte {v} is not 0 or 1")));
        }
    });
    let castling: String = "KQkq"
        .chars()
        .enumerate()
        .filter(|(i, _)| b[65] & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect();
    fen.push_str(if castling.is_empty() { "-" } else { &castling });
    fen.push_str(" - 0 1");
    Ok(crate::chess::fen::parse_fen(&fen, false)?)
}

/// deepchess773 features of a board block.
pub fn deepchess_features(b: &Board) -> Features {
    let mut f = Features::new();
    for (sq, &v) in b[..64].iter().enumerate() {
        if (1..=12).contains(&v) {
            f.push(u16::from(v - 1) / 6 * 384 + u16::from(v - 1) % 6 * 64 + sq as u16);
        }
    }
    if b[64] == 0 {
        f.push(features::WHITE_TO_MOVE);
    }
    for i in 0..4 {
        if b[65] & (1 << i) != 0 {
            f.push(769 + i);
        }
    }
    f
}

/// deeppink768 features of a board block (from the side to move's view).
pub fn deeppink_features(b: &Board) -> Features {
    let persp = if b[64] == 0 {
        Color::White
    } else {
        Color::Black
    };
    let mut f = Features::new();
    for (sq, &v) in b[..64].iter().enumerate() {
        if (1..=12).contains(&v) {
            let color = if v > 6 { Color::Black } else { Color::White };
            let role = Role::ALL[usize::from((v - 1) % 6)];
            f.push(features::deeppink_piece(
                persp,
                color,
                role,
                Square::new(sq as u32),
            ));
        }
    }
    f
}

/// Do two boards have the same SEE-resolved material (`chess::see::resolved_material`)?
pub fn equal_material(a: &Board, b: &Board) -> bool {
    let material = |b: &Board| {
        decode(b).ok().map(|p| {
            let moves = shakmaty::Position::legal_moves(&p);
            crate::chess::see::resolved_material(&p, &moves)
        })
    };
    matches!((material(a), material(b)), (Some(x), Some(y)) if x == y)
}

/// A data set file: its kind and records (each `record_len(kind)` bytes).
pub struct Dataset {
    pub kind: Kind,
    pub records: Vec<Vec<u8>>,
}

/// Reads and checks a data set file.
pub fn read(path: &Path) -> Result<Dataset, Error> {
    let err = |problem: String| Error::Dataset {
        path: path.to_path_buf(),
        problem,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| err(format!("cannot read ({e})")))?;
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(err("not a DRDSET01 file".into()));
    }
    let kind = match bytes[8] {
        1 => Kind::DeepChess,
        2 => Kind::DeepPink,
        k => return Err(err(format!("unknown kind byte {k}"))),
    };
    let count = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let len = record_len(kind);
    if bytes.len() != HEADER_LEN + count * len {
        return Err(err(format!(
            "{} bytes, expected {} for {count} records",
            bytes.len(),
            HEADER_LEN + count * len
        )));
    }
    Ok(Dataset {
        kind,
        records: bytes[HEADER_LEN..]
            .chunks_exact(len)
            .map(<[u8]>::to_vec)
            .collect(),
    })
}

/// The board block at `offset` of a record.
pub fn board_at(record: &[u8], offset: usize) -> Board {
    let mut b = [0u8; BOARD_LEN];
    b.copy_from_slice(&record[offset..offset + BOARD_LEN]);
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;
    use crate::chess::pgn::{PgnGame, read_games};

    fn games() -> Vec<PgnGame> {
        let pgn = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 \
            7. Nxd4 c5 8. Nb3 Qxd1 9. Rxd1 Bd6 10. Nc3 Ne7 11. Be3 b6 12. a4 Bd7 13. Nd2 O-O-O \
            14. Nc4 Bc6 15. f3 Ng6 16. Nxd6+ cxd6 17. Rd2 Ne5 18. b3 g5 19. Rad1 Kc7 1-0\n\n\
            [Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
            [Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 1/2-1/2\n";
        read_games(pgn.as_bytes())
            .into_iter()
            .map(|g| g.unwrap())
            .collect()
    }

    #[test]
    fn board_blocks_round_trip() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = parse_fen(fen, false).unwrap();
            let b = encode(&pos);
            let back = decode(&b).unwrap();
            assert_eq!(encode(&back), b);
            assert_eq!(crate::chess::fen::fen_of(&back), fen);
            let mut a: Vec<u16> = deepchess_features(&b).to_vec();
            let mut want: Vec<u16> = features::deepchess(&pos).to_vec();
            a.sort();
            want.sort();
            assert_eq!(a, want);
            let mut a: Vec<u16> = deeppink_features(&b).to_vec();
            let mut want: Vec<u16> = features::deeppink(&pos, pos.turn()).to_vec();
            a.sort();
            want.sort();
            assert_eq!(a, want);
        }
        let start = encode(&Chess::default());
        assert_eq!(start[0], 4); // white rook on a1
        assert_eq!(start[60], 12); // black king on e8
        assert_eq!((start[64], start[65]), (0, 15));
        let mut bad = start;
        bad[3] = 13;
        assert!(decode(&bad).is_err());
    }

    #[test]
    fn deepchess_positions_follow_the_rules() {
        let g = games();
        for seed in 0..50 {
            let mut rng = game_rng(seed, 0);
            let ps = deepchess_positions(&g[0], &mut rng);
            // 38 plies: plies 10..=38 not right after a capture.
            let allowed = (10..=38)
                .filter(|&k| !g[0].moves[k - 1].is_capture())
                .count();
            assert_eq!(ps.len(), DEEPCHESS_PER_GAME.min(allowed));
            let mut plies: Vec<usize> = ps.iter().map(|p| p.0).collect();
            plies.dedup();
            assert_eq!(plies.len(), ps.len(), "distinct positions");
            for (k, pos) in &ps {
                assert!(*k >= SKIP_PLIES);
                assert!(!g[0].moves[k - 1].is_capture(), "ply {k} follows a capture");
                assert_eq!(pos, &g[0].positions()[*k]);
            }
            // Too short (4 plies) and drawn games give nothing.
            assert!(deepchess_positions(&g[1], &mut rng).is_empty());
            assert!(deepchess_positions(&g[2], &mut rng).is_empty());
        }
    }

    #[test]
    fn deeppink_triplets_follow_the_rules() {
        let g = games();
        let mut rng = game_rng(1, 0);
        let ts = deeppink_triplets(&g[0], 20, &mut rng);
        assert_eq!(ts.len(), 20);
        for t in &ts {
            assert!(t.ply >= SKIP_PLIES);
            assert_ne!(t.played, t.other);
            assert!(t.p.is_legal(t.other));
            assert_eq!(t.played, g[0].moves[t.ply]);
            let mut q = t.p.clone();
            q.play_unchecked(t.played);
            assert_eq!(q, t.q);
        }
        let all = deeppink_triplets(&g[0], 1000, &mut rng);
        assert_eq!(all.len(), 38 - SKIP_PLIES);
        // The drawn game counts too (12 plies: 2 positions).
        assert_eq!(deeppink_triplets(&g[2], 20, &mut rng).len(), 2);
    }

    #[test]
    fn build_writes_the_format_and_splits_by_game() {
        let dir = std::env::temp_dir().join(format!("deepred-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("g.pgn");
        // 40 different games with the same moves: each starts without a different subset of
        // pawns the moves never touch (g7, h7, a2, b2, g2, h2); then the same 40 again, which
        // are skipped as repeats.
        let mut text = String::new();
        for i in 0..40u32 {
            let mut board: Vec<Vec<char>> = [
                "rnbqkbnr", "pppppppp", "8", "8", "8", "8", "PPPPPPPP", "RNBQKBNR",
            ]
            .iter()
            .map(|r| {
                r.chars()
                    .flat_map(|c| match c.to_digit(10) {
                        Some(n) => vec!['1'; n as usize],
                        None => vec![c],
                    })
                    .collect()
            })
            .collect();
            for (bit, (rank, file)) in [(1, 6), (1, 7), (6, 0), (6, 1), (6, 6), (6, 7)]
                .iter()
                .enumerate()
            {
                if i & (1 << bit) != 0 {
                    board[*rank][*file] = '1';
                }
            }
            let placement: Vec<String> = board
                .iter()
                .map(|r| {
                    let mut out = String::new();
                    let mut empty = 0;
                    for &c in r {
                        if c == '1' {
                            empty += 1;
                        } else {
                            if empty > 0 {
                                out.push_str(&empty.to_string());
                                empty = 0;
                            }
                            out.push(c);
                        }
                    }
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                    }
                    out
                })
                .collect();
            text.push_str(&format!(
                "[SetUp \"1\"]\n[FEN \"{} w KQkq - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 \
                 7. Nxd4 c5 8. Nb3 Qxd1 9. Rxd1 Bd6 10. Nc3 Ne7 11. Be3 b6 1-0\n\n",
                placement.join("/")
            ));
        }
        let text = text.repeat(2);
        std::fs::write(&pgn, text).unwrap();
        let bar = indicatif::ProgressBar::hidden();
        for kind in [Kind::DeepChess, Kind::DeepPink] {
            let out = dir.join(format!("{}.bin", kind.name()));
            let opts = DatasetOptions {
                kind,
                val_fraction: 0.25,
                seed: 9,
                per_game: 5,
                sample: 1.0,
                equal_material: false,
            };
            let s = build(std::slice::from_ref(&pgn), &out, &opts, &bar).unwrap();
            let d = read(&out).unwrap();
            assert_eq!(d.kind, kind);
            assert_eq!(d.records.len() as u64, s.total());
            assert_eq!(s.games, 80);
            assert_eq!(s.duplicates, 40);
            assert!(s.games_used[1] > 0 && s.games_used[0] > s.games_used[1]);
            // 22 plies: plies 10..=22 less the 4 right after captures = 9 DeepChess positions.
            let per = if kind == Kind::DeepChess { 9 } else { 5 };
            assert_eq!(s.total(), 40 * per);
            for r in &d.records {
                let n = r.len();
                let game = u32::from_le_bytes([r[n - 4], r[n - 3], r[n - 2], r[n - 1]]);
                let split = if kind == Kind::DeepChess {
                    r[67]
                } else {
                    r[198]
                };
                assert_eq!(split, u8::from(is_validation(9, u64::from(game), 0.25)));
                let p = decode(&board_at(r, 0)).unwrap();
                if kind == Kind::DeepChess {
                    assert_eq!(r[66], 1);
                } else {
                    assert_eq!(r[199], 0);
                    // q is a legal successor of p.
                    let q = board_at(r, 66);
                    assert!(p.legal_moves().iter().any(|&m| {
                        let mut c = p.clone();
                        c.play_unchecked(m);
                        encode(&c) == q
                    }));
                }
            }
            // Same seed, same bytes.
            let again = dir.join("again.bin");
            build(std::slice::from_ref(&pgn), &again, &opts, &bar).unwrap();
            assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Move text: UCI notation (as the protocol and the store write moves), SAN for people, and
//! the forgiving parser of moves typed by a human (SAN or UCI, with the usual slips forgiven).

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role, Square};

/// 16-bit move code: from (6 bits), to (6 bits; the rook square for castling), promotion (3 bits).
/// 0 means no move (a1a1 is never a move).
#[inline]
pub fn encode_move(m: &Move) -> u16 {
    let from = m.from().map_or(0, u16::from);
    let to = u16::from(m.to());
    let promo = m.promotion().map_or(0, |r| r as u16);
    from | (to << 6) | (promo << 12)
}

/// The legal move of `pos` with code `code` (`encode_move`), if there is one.
///
/// Builds the move from the board and asks whether it is legal, which generates only the moves
/// of one piece type to one square, not every legal move.
pub fn decode_move(pos: &Chess, code: u16) -> Option<Move> {
    let (from, to) = (
        Square::new(u32::from(code & 63)),
        Square::new(u32::from((code >> 6) & 63)),
    );
    let promotion = match code >> 12 {
        0 => None,
        2 => Some(Role::Knight),
        3 => Some(Role::Bishop),
        4 => Some(Role::Rook),
        5 => Some(Role::Queen),
        _ => return None,
    };
    let board = pos.board();
    let piece = board.piece_at(from)?;
    if piece.color != pos.turn() || from == to {
        return None;
    }
    let target = board.piece_at(to);
    let m = if piece.role == Role::King
        && target.is_some_and(|t| t.color == piece.color && t.role == Role::Rook)
    {
        Move::Castle {
            king: from,
            rook: to,
        }
    } else if piece.role == Role::Pawn && from.file() != to.file() && target.is_none() {
        Move::EnPassant { from, to }
    } else {
        Move::Normal {
            role: piece.role,
            from,
            capture: target.map(|t| t.role),
            to,
            promotion,
        }
    };
    (encode_move(&m) == code && pos.is_legal(m)).then_some(m)
}

/// UCI text of a move (`e1g1` style castling unless Chess960).
pub fn uci_move(m: Move, chess960: bool) -> String {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    m.to_uci(mode).to_string()
}

/// The UCI text of `m` as the experience store keeps it: standard castling notation unless the
/// position is Chess960.
pub fn move_text(pos: &Chess, m: Move) -> String {
    m.to_uci(pos.castles().mode()).to_string()
}

/// The SAN of `m` in `pos`, with `+`/`#`.
pub fn san_of(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// Why a typed move was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not SAN or UCI at all.
    NotAMove,
    /// A move, but not a legal one here.
    Illegal,
    /// SAN that fits several legal moves (their SAN).
    Ambiguous(Vec<String>),
    /// A pawn move to the last rank without the piece (the SAN of the queen promotion).
    NeedsPromotion(String),
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveError::NotAMove => write!(f, "not a move (SAN or UCI)"),
            MoveError::Illegal => write!(f, "not legal in this position"),
            MoveError::Ambiguous(sans) => write!(f, "ambiguous: {}", sans.join(", ")),
            MoveError::NeedsPromotion(san) => write!(f, "say the piece to promote to, e.g. {san}"),
        }
    }
}

/// Does `t` look like a UCI move (`g1f3`, `e7e8q`)?
fn looks_uci(t: &str) -> bool {
    let b = t.as_bytes();
    (b.len() == 4 || b.len() == 5)
        && (b'a'..=b'h').contains(&b[0].to_ascii_lowercase())
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2].to_ascii_lowercase())
        && (b'1'..=b'8').contains(&b[3])
        && (b.len() == 4 || b"qrbnQRBN".contains(&b[4]))
}

/// Resolves parsed SAN against `pos`. Lenient about a missing or extra `x` on piece moves.
fn resolve_san(pos: &Chess, san: San) -> Result<Move, MoveError> {
    match san.to_move(pos) {
        Ok(m) => Ok(m),
        Err(SanError::AmbiguousSan) => {
            let mut c: Vec<String> = pos
                .legal_moves()
                .iter()
                .filter(|m| san.matches(**m))
                .map(|m| san_of(pos, *m))
                .collect();
            c.sort();
            Err(MoveError::Ambiguous(c))
        }
        Err(SanError::IllegalSan) => {
            if let San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } = san
            {
                if role != Role::Pawn {
                    let flipped = San::Normal {
                        role,
                        file,
                        rank,
                        capture: !capture,
                        to,
                        promotion,
                    };
                    if let Ok(m) = flipped.to_move(pos) {
                        return Ok(m);
                    }
                }
                if role == Role::Pawn && promotion.is_none() {
                    let queen = San::Normal {
                        role,
                        file,
                        rank,
                        capture,
                        to,
                        promotion: Some(Role::Queen),
                    };
                    if let Ok(m) = queen.to_move(pos) {
                        return Err(MoveError::NeedsPromotion(san_of(pos, m)));
                    }
                }
            }
            Err(MoveError::Illegal)
        }
    }
}

/// `t` without a move number before the move (`1. e4`, `12...Nf6`, `3.d4`), as copied from a
/// score sheet, and the side the number gives the move to (one dot White, more Black).
fn without_move_number(t: &str) -> (&str, Option<Color>) {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let dots = t[digits..].bytes().take_while(|&b| b == b'.').count();
    if digits == 0 || dots == 0 {
        return (t, None);
    }
    let mover = if dots == 1 {
        Color::White
    } else {
        Color::Black
    };
    (t[digits + dots..].trim_start(), Some(mover))
}

/// A move in long algebraic notation (`e2-e4`, `Ng1-f3`, `e4xd5`, `e7-e8=Q`, `Ke1-g1`), or
/// `None` if `t` is not written so. The squares are read as UCI; a piece letter must be the
/// moving piece's.
fn long_algebraic(pos: &Chess, t: &str) -> Option<Result<Move, MoveError>> {
    let body = t.trim_end_matches(['+', '#']);
    let (role, rest) = match body.chars().next() {
        Some(c @ ('P' | 'N' | 'B' | 'R' | 'Q' | 'K')) => (Role::from_char(c), &body[1..]),
        _ => (None, body),
    };
    let b = rest.as_bytes();
    if b.len() < 5 || !matches!(b[2], b'-' | b'x') {
        return None;
    }
    let uci = format!(
        "{}{}{}",
        &rest[..2],
        &rest[3..5],
        rest[5..].trim_start_matches('=')
    );
    if !looks_uci(&uci) {
        return None;
    }
    Some(parse_move(pos, &uci).and_then(|m| match role {
        Some(r) if r != m.role() => Err(MoveError::Illegal),
        _ => Ok(m),
    }))
}

/// Parses a move typed by a human: UCI (`g1f3`, `e7e8q`, `e1g1`) or SAN (`Nf3`, `exd5`, `O-O`,
/// `0-0-0`, `e8=Q`, `e8Q`, `Nf3+`, `Qh4#`, `nf3`) or long algebraic (`e2-e4`, `Ng1xf3`), after a
/// move number or not (`1. e4`, `5...Nf6`), annotations `!`/`?` ignored.
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, MoveError> {
    let (t, mover) = without_move_number(text.trim());
    let t = t.trim_end_matches(['!', '?']);
    if t.is_empty() || !t.is_ascii() {
        return Err(MoveError::NotAMove);
    }
    // `5. Nf6` is White's move, `5... Nf6` Black's.
    if mover.is_some_and(|c| c != pos.turn()) {
        return Err(MoveError::Illegal);
    }
    if let Some(r) = long_algebraic(pos, t) {
        return r;
    }
    if looks_uci(t) {
        let lower = t.to_ascii_lowercase();
        let Ok(uci) = lower.parse::<UciMove>() else {
            return Err(MoveError::NotAMove);
        };
        return match uci.to_move(pos) {
            Ok(m) => Ok(m),
            Err(_) => {
                if lower.len() == 4
                    && let Ok(m) = format!("{lower}q")
                        .parse::<UciMove>()
                        .map_err(|_| ())
                        .and_then(|u| u.to_move(pos).map_err(|_| ()))
                {
                    return Err(MoveError::NeedsPromotion(san_of(pos, m)));
                }
                Err(MoveError::Illegal)
            }
        };
    }
    let body = t.trim_end_matches(['+', '#']);
    // Castling with zeros or lowercase letters.
    let mut norm = if !body.is_empty() && body.chars().all(|c| matches!(c, '0' | 'o' | 'O' | '-')) {
        body.replace(['0', 'o'], "O")
    } else {
        body.to_string()
    };
    // A promotion without `=`: `e8Q`, `exd1n`.
    let nb = norm.as_bytes();
    if nb.len() >= 3
        && (b'a'..=b'h').contains(&nb[0])
        && b"QRBNqrbn".contains(&nb[nb.len() - 1])
        && matches!(nb[nb.len() - 2], b'1' | b'8')
    {
        let piece = char::from(nb[nb.len() - 1]).to_ascii_uppercase();
        norm.truncate(norm.len() - 1);
        norm.push('=');
        norm.push(piece);
    }
    // As typed, then with the piece letter in uppercase (`nf3`; `bc4` is tried as a pawn first).
    let mut tries = vec![norm.clone()];
    if let Some(first) = norm.chars().next()
        && "nbrqk".contains(first)
    {
        tries.push(format!("{}{}", first.to_ascii_uppercase(), &norm[1..]));
    }
    let mut best_err = MoveError::NotAMove;
    for cand in tries {
        let Ok(san) = San::from_ascii(cand.as_bytes()) else {
            continue;
        };
        match resolve_san(pos, san) {
            Ok(m) => return Ok(m),
            Err(e) => {
                let rank = |e: &MoveError| match e {
                    MoveError::NotAMove => 0,
                    MoveError::Illegal => 1,
                    MoveError::NeedsPromotion(_) => 2,
                    MoveError::Ambiguous(_) => 3,
                };
                if rank(&e) > rank(&best_err) {
                    best_err = e;
                }
            }
        }
    }
    Err(best_err)
}

/// The legal moves of `pos` in SAN, sorted.
pub fn legal_sans(pos: &Chess) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|m| san_of(pos, *m)).collect();
    v.sort();
    v
}

/// `12. e4` or `12... e5`: the move number, dots and SAN of `m` played from `pos`.
pub fn numbered_san(pos: &Chess, m: Move) -> String {
    let dots = if pos.turn() == Color::White {
        "."
    } else {
        "..."
    };
    format!("{}{dots} {}", pos.fullmoves(), san_of(pos, m))
}

/// The moves of a line of UCI moves from `start` (tests of every layer use it).
#[cfg(test)]
pub(crate) fn uci_line(start: &Chess, moves: &str) -> Vec<Move> {
    let mut pos = start.clone();
    moves
        .split_whitespace()
        .map(|t| {
            let m = t
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("'{t}' is no legal move here"));
            pos.play_unchecked(m);
            m
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    /// Every 16-bit code decodes as the legal move with that code, found by scanning the legal
    /// moves, or as none: castling both ways (and Chess960 castling), en passant, promotions
    /// with and without capture, checks, pins, a1a1.
    #[test]
    fn decoding_a_move_code_agrees_with_scanning_the_legal_moves() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "4k3/8/8/2KpP2r/8/8/8/8 w - d6 0 1",
        ];
        let mut positions: Vec<Chess> = fens.iter().map(|f| parse_fen(f, false).unwrap()).collect();
        positions.push(parse_fen("1r1k2r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", true).unwrap());
        for pos in &positions {
            let legal = pos.legal_moves();
            let mut found = 0;
            for code in 0..=u16::MAX {
                let want = legal.iter().find(|m| encode_move(m) == code).copied();
                assert_eq!(decode_move(pos, code), want, "code {code:#06x} in {pos:?}");
                found += usize::from(want.is_some());
            }
            assert_eq!(found, legal.len());
        }
    }

    fn pos(fen: &str) -> Chess {
        parse_fen(fen, false).unwrap()
    }

    fn uci_of(p: &Chess, text: &str) -> String {
        uci_move(parse_move(p, text).unwrap(), false)
    }

    #[test]
    fn san_and_uci() {
        let p = Chess::default();
        assert_eq!(uci_of(&p, "Nf3"), "g1f3");
        assert_eq!(uci_of(&p, "g1f3"), "g1f3");
        assert_eq!(uci_of(&p, "G1F3"), "g1f3");
        assert_eq!(uci_of(&p, "nf3"), "g1f3");
        assert_eq!(uci_of(&p, "e4"), "e2e4");
        assert_eq!(uci_of(&p, "e4!?"), "e2e4");
        assert_eq!(uci_of(&p, " d4 "), "d2d4");
        assert_eq!(uci_of(&p, "Nc3+"), "b1c3", "a wrong suffix is ignored");
        assert_eq!(parse_move(&p, "e5"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "e2e5"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "Ke2"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "xyzzy"), Err(MoveError::NotAMove));
        assert_eq!(parse_move(&p, ""), Err(MoveError::NotAMove));
        assert_eq!(parse_move(&p, "é4"), Err(MoveError::NotAMove));
        assert_eq!(parse_move(&p, "--"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "N@f3"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "0000"), Err(MoveError::NotAMove));
        // Long algebraic and move numbers, as copied from a book or a score sheet.
        assert_eq!(uci_of(&p, "e2-e4"), "e2e4");
        assert_eq!(uci_of(&p, "Ng1-f3"), "g1f3");
        assert_eq!(uci_of(&p, "g1-f3"), "g1f3");
        assert_eq!(uci_of(&p, "1. e4"), "e2e4");
        assert_eq!(uci_of(&p, "1.Nf3"), "g1f3");
        assert_eq!(uci_of(&p, "1. e2-e4!"), "e2e4");
        assert_eq!(parse_move(&p, "Bg1-f3"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "e2-e5"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "1."), Err(MoveError::NotAMove));
        assert_eq!(
            parse_move(&p, "1... Nf3"),
            Err(MoveError::Illegal),
            "Black's number"
        );
        let black = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(uci_of(&black, "1... e5"), "e7e5");
        let promote = pos("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1");
        assert_eq!(uci_of(&promote, "e7-e8=N"), "e7e8n");
        assert_eq!(
            parse_move(&promote, "e7-e8"),
            Err(MoveError::NeedsPromotion("e8=Q".into()))
        );
        let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(uci_of(&castle, "Ke1-g1"), "e1g1");
        assert_eq!(uci_of(&castle, "0-0"), "e1g1", "castling is no move number");
    }

    #[test]
    fn captures() {
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert_eq!(uci_of(&p, "exd5"), "e4d5");
        assert_eq!(uci_of(&p, "e4d5"), "e4d5");
        let p = pos("rnbqkb1r/pppppppp/8/8/8/5n2/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(uci_of(&p, "exf3"), "e2f3");
        assert_eq!(uci_of(&p, "gxf3"), "g2f3");
        // Missing or extra `x` on a piece move.
        let p = pos("rnbqkbnr/pppp1ppp/8/4p3/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 2");
        assert_eq!(uci_of(&p, "Ne5"), "f3e5");
        assert_eq!(uci_of(&p, "Nxe5"), "f3e5");
        assert_eq!(uci_of(&p, "Nxd4"), "f3d4");
        // En passant.
        let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        assert_eq!(uci_of(&p, "exf6"), "e5f6");
        assert_eq!(uci_of(&p, "e5f6"), "e5f6");
    }

    #[test]
    fn castling() {
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
        for t in ["O-O", "0-0", "o-o", "O-O+", "e1g1"] {
            assert_eq!(uci_of(&p, t), "e1g1", "{t}");
        }
        for t in ["O-O-O", "0-0-0", "e1c1"] {
            assert_eq!(uci_of(&p, t), "e1c1", "{t}");
        }
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1");
        assert_eq!(uci_of(&p, "O-O-O"), "e8c8");
        assert_eq!(uci_of(&p, "e8g8"), "e8g8");
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1");
        assert_eq!(parse_move(&p, "O-O"), Err(MoveError::Illegal));
        assert_eq!(parse_move(&p, "e1g1"), Err(MoveError::Illegal));
    }

    #[test]
    fn promotions() {
        let p = pos("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
        for t in ["e8=Q", "e8Q", "e8=Q+", "e8q", "e7e8q", "e7e8Q"] {
            assert_eq!(uci_of(&p, t), "e7e8q", "{t}");
        }
        assert_eq!(uci_of(&p, "e8=N"), "e7e8n");
        assert_eq!(uci_of(&p, "exd8=R"), "e7d8r");
        assert_eq!(uci_of(&p, "exd8N"), "e7d8n");
        assert_eq!(uci_of(&p, "e7d8b"), "e7d8b");
        assert_eq!(
            parse_move(&p, "e8"),
            Err(MoveError::NeedsPromotion("e8=Q+".to_string()))
        );
        assert_eq!(
            parse_move(&p, "e7e8"),
            Err(MoveError::NeedsPromotion("e8=Q+".to_string()))
        );
        assert_eq!(parse_move(&p, "e8=K"), Err(MoveError::Illegal));
    }

    #[test]
    fn ambiguity() {
        let p = pos("4k3/8/8/8/8/8/8/N3K1N1 w - - 0 1");
        assert_eq!(
            parse_move(&p, "Nf3"),
            Ok(parse_move(&p, "g1f3").unwrap()),
            "only the g1 knight reaches f3"
        );
        let p = pos("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1");
        assert_eq!(uci_of(&p, "Nd2"), "b1d2", "g1 cannot reach d2");
        let p = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
        assert_eq!(
            parse_move(&p, "Nd2"),
            Err(MoveError::Ambiguous(vec![
                "Nbd2".to_string(),
                "Nfd2".to_string()
            ]))
        );
        assert_eq!(uci_of(&p, "Nbd2"), "b1d2");
        assert_eq!(uci_of(&p, "Nfd2"), "f1d2");
        assert_eq!(uci_of(&p, "f1d2"), "f1d2");
        // `bc4`: a pawn move if one fits, else the bishop.
        let p = pos("4k3/8/8/8/8/8/8/4KB2 w - - 0 1");
        assert_eq!(uci_of(&p, "bc4"), "f1c4");
    }

    #[test]
    fn move_lists_and_numbers() {
        let start = Chess::default();
        assert_eq!(legal_sans(&start).len(), 20);
        assert!(legal_sans(&start).contains(&"Nf3".to_string()));
        let e4 = parse_move(&start, "e4").unwrap();
        assert_eq!(numbered_san(&start, e4), "1. e4");
        let mut after = start.clone();
        after.play_unchecked(e4);
        let c5 = parse_move(&after, "c5").unwrap();
        assert_eq!(numbered_san(&after, c5), "1... c5");
        assert_eq!(move_text(&start, e4), "e2e4");
    }
}

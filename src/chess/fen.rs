//! FEN in and out: standard, X-FEN and Shredder-FEN castling, positions that are legal to set up
//! even when no game reaches them (perft suites have them).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, PositionError};

use super::Error;

/// The most pieces a position may have: as many as a game has. The evaluators' feature lists
/// and the training formats hold this many.
pub const MAX_PIECES: usize = 32;

/// Parses a FEN (standard, X-FEN or Shredder-FEN castling) into a position.
pub fn parse_fen(fen: &str, chess960: bool) -> Result<Chess, Error> {
    let text = fen.trim();
    let parsed: Fen = text.parse().map_err(|e| Error::InvalidFen {
        fen: text.to_string(),
        reason: format!("{e}"),
    })?;
    // Too much material is accepted below, but not more pieces than a game can have: the
    // evaluators' feature lists and the training formats hold 32.
    let pieces = parsed.as_setup().board.occupied().count();
    if pieces > MAX_PIECES {
        return Err(Error::IllegalPosition {
            fen: text.to_string(),
            reason: format!("{pieces} pieces on the board; a game has at most {MAX_PIECES}"),
        });
    }
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    // Accept positions that cannot arise in a game but are well-defined (perft suites have
    // them): too much material, impossible checks. Leniently, also castling rights the board
    // contradicts (no rook on its square, a king moved) and an en passant square no pawn could
    // have passed, dropped as Stockfish and python-chess drop them: a GUI's slip is no reason
    // to refuse its position (and answer for the previous one).
    let read = |fen: Fen, mode, lenient: bool| {
        let p = fen
            .into_position::<Chess>(mode)
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check);
        if lenient {
            p.or_else(PositionError::ignore_invalid_ep_square)
                .or_else(PositionError::ignore_invalid_castling_rights)
        } else {
            p
        }
        .map_err(|e| e.to_string())
    };
    let relaxed = |fen, mode| read(fen, mode, false);
    let lenient = |fen, mode| read(fen, mode, true);
    let illegal = |reason| Error::IllegalPosition {
        fen: text.to_string(),
        reason,
    };
    match relaxed(parsed.clone(), mode) {
        Ok(p) => Ok(p),
        // Shredder-FEN castling of a Chess960 start in standard mode: retry as Chess960.
        Err(_) if !chess960 => relaxed(parsed.clone(), CastlingMode::Chess960)
            .or_else(|_| {
                // Both readings need leniency: the one that keeps more castling rights (a
                // Chess960 position with one slip stays a Chess960 position).
                let rights = |p: &Chess| p.castles().castling_rights().count();
                match (
                    lenient(parsed.clone(), mode),
                    lenient(parsed, CastlingMode::Chess960),
                ) {
                    (Ok(a), Ok(b)) => Ok(if rights(&b) > rights(&a) { b } else { a }),
                    (Ok(p), Err(_)) | (Err(_), Ok(p)) => Ok(p),
                    (Err(e), Err(_)) => Err(e),
                }
            })
            .map_err(illegal),
        Err(_) => lenient(parsed, mode).map_err(illegal),
    }
}

/// What [`parse_fen`] dropped of `fen` to read it as `pos` (leniently, as Stockfish and
/// python-chess do): castling rights the board contradicts, an en passant square no pawn can
/// have just passed. Empty when nothing was (or `fen` does not parse).
pub fn dropped_by_reading(fen: &str, pos: &Chess) -> Vec<String> {
    let Ok(parsed) = fen.trim().parse::<Fen>() else {
        return Vec::new();
    };
    let setup = parsed.as_setup();
    let mut dropped = Vec::new();
    let kept = pos.castles().castling_rights();
    let lost = setup.castling_rights & !kept;
    if lost.any() {
        let squares: Vec<String> = lost.into_iter().map(|sq| sq.to_string()).collect();
        dropped.push(format!(
            "castling rights with the rooks of {} dropped: the board contradicts them",
            squares.join(", ")
        ));
    }
    if let Some(ep) = setup.ep_square
        && pos.ep_square(EnPassantMode::Always).is_none()
    {
        dropped.push(format!(
            "en passant square {ep} dropped: no pawn can have just passed it"
        ));
    }
    dropped
}

/// The FEN of `pos` (en passant square only when a capture is legal).
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_with_the_text_named() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(fen_of(&parse_fen(start, false).unwrap()), start);
        // Shredder-FEN castling of a Chess960 start, read without UCI_Chess960.
        let shredder = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        assert!(parse_fen(shredder, false).is_ok());
        // Rights the board contradicts and an impossible en passant square: dropped, as
        // Stockfish and python-chess read them (they were refused).
        for (given, read) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq e3 0 1",
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w Kkq - 0 1",
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
            ),
        ] {
            let pos = parse_fen(given, false).unwrap();
            assert_eq!(fen_of(&pos), read, "{given}");
            // Each is said (a GUI's user is told, over UCI, what was not read).
            assert_eq!(dropped_by_reading(given, &pos).len(), 1, "{given}");
        }
        let start = parse_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            false,
        )
        .unwrap();
        assert!(
            dropped_by_reading(
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                &start
            )
            .is_empty()
        );
        // A Chess960 position with one slip (an impossible en passant square) stays one, its
        // castling rights kept: read as standard chess, they were all dropped.
        let slip = parse_fen("4k3/8/8/8/8/8/8/R4K1R w HA e6 0 1", false).unwrap();
        assert_eq!(slip.castles().mode(), CastlingMode::Chess960);
        assert_eq!(slip.castles().castling_rights().count(), 2);
        let e = parse_fen("not a fen", false).unwrap_err().to_string();
        assert!(e.starts_with("invalid FEN 'not a fen'"), "{e}");
        let e = parse_fen("8/8/8/8/8/8/8/8 w - - 0 1", false)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("illegal position '8/8/8/8/8/8/8/8 w - - 0 1'"),
            "{e}"
        );
        // Too much material is read (perft suites have it), more than 32 pieces is not: the
        // evaluators' feature lists hold 32 (the web app's explorer answered 500).
        let crowded = "4k3/pppppppp/pppppppp/pppppppp/PPPPPPPP/PPPPPPPP/PPPPPPPP/4K3 w - - 0 1";
        let e = parse_fen(crowded, false).unwrap_err().to_string();
        assert!(
            e.contains("50 pieces on the board; a game has at most 32"),
            "{e}"
        );
        assert!(
            parse_fen(
                "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
                false
            )
            .is_ok()
        );
    }
}

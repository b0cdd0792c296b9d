//! Parsing the arguments of `position` and `go` (done here rather than by shakmaty-uci: its FEN
//! grammar refuses Shredder-FEN castling, which Chess960 GUIs send, and it reads
//! `go ponder wtime ...` as a bare ponder, losing the clocks).

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::Error;
use crate::chess::fen::{fen_of, parse_fen};
use crate::chess::zobrist::hash_of;
use crate::search::Limits;

/// A position as the GUI set it: the root and the keys of the positions that led to it.
#[derive(Clone, Default)]
pub struct Game {
    pub pos: Chess,
    pub history: Vec<u64>,
    /// The position the moves started from, and the moves.
    pub start: Chess,
    pub moves: Vec<Move>,
    /// What the FEN's reading dropped (castling rights the board contradicts, an impossible
    /// en passant square): see [`crate::chess::fen::dropped_by_reading`].
    pub dropped: Vec<String>,
}

/// Parses `position startpos|fen F [moves ...]` (the tokens after `position`).
pub fn parse_position(args: &str, chess960: bool) -> Result<Game, Error> {
    let tokens: Vec<&str> = args.split_whitespace().collect();
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (&tokens[..], &[][..]),
    };
    let mut dropped = Vec::new();
    let mut pos = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => Chess::default(),
        Some(&"fen") if setup.len() >= 2 => {
            let fen = setup[1..].join(" ");
            let pos = parse_fen(&fen, chess960)?;
            dropped = crate::chess::fen::dropped_by_reading(&fen, &pos);
            pos
        }
        _ => return Err(Error::PositionSyntax),
    };
    let start = pos.clone();
    let mut played = Vec::with_capacity(moves.len());
    let mut history = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let uci: UciMove = text.parse().map_err(|_| Error::NotAMove {
            number: i + 1,
            text: text.to_string(),
        })?;
        let m = uci.to_move(&pos).map_err(|_| Error::IllegalMove {
            number: i + 1,
            text: text.to_string(),
            fen: fen_of(&pos),
        })?;
        history.push(hash_of(&pos));
        pos.play_unchecked(m);
        played.push(m);
    }
    Ok(Game {
        pos,
        history,
        start,
        moves: played,
        dropped,
    })
}

/// Parses the arguments of `go`, as Stockfish reads them, so that every `go` gets its
/// `bestmove`: unknown words are skipped with a warning, and a keyword whose number is missing
/// or not a number is taken as 0 (a decimal as its whole part), with a warning. Negative times
/// (some GUIs send them when a clock ran out) count as 0. Keywords are read in any case.
pub fn parse_go(args: &str, pos: &Chess) -> (Limits, Vec<String>) {
    let mut limits = Limits::default();
    let mut warnings = Vec::new();
    let lower: Vec<String> = args
        .split_whitespace()
        .map(|t| t.to_ascii_lowercase())
        .collect();
    let tokens: Vec<&str> = lower.iter().map(String::as_str).collect();
    let mut i = 0;
    // A limit below 1 is raised to 1 and said: the GUI that sent it still waits for a bestmove.
    let at_least_one = |word: &str, n: i64, warnings: &mut Vec<String>| {
        if n < 1 {
            warnings.push(format!("'go {word} {n}': searched as {word} 1"));
        }
        n.max(1)
    };
    while i < tokens.len() {
        let word = tokens[i];
        match word {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "wtime" | "btime" | "winc" | "binc" | "movetime" => {
                let (n, used) = go_number(&tokens, i, word, &mut warnings);
                let v = Some(n.max(0) as u64);
                match word {
                    "wtime" => limits.wtime = v,
                    "btime" => limits.btime = v,
                    "winc" => limits.winc = v,
                    "binc" => limits.binc = v,
                    _ => limits.movetime = v,
                }
                i += used;
            }
            "movestogo" | "depth" | "mate" => {
                let (n, used) = go_number(&tokens, i, word, &mut warnings);
                if word == "movestogo" && n < 1 {
                    // Some GUIs send movestogo 0 with a clock: the clock alone then limits.
                    warnings.push(format!("'go movestogo {n}' ignored"));
                    i += 1 + used;
                    continue;
                }
                let n = at_least_one(word, n, &mut warnings);
                let n = n.min(i64::from(u32::MAX)) as u32;
                match word {
                    "movestogo" => limits.movestogo = Some(n),
                    "depth" => limits.depth = Some(n),
                    _ => limits.mate = Some(n),
                }
                i += used;
            }
            "nodes" => {
                let (n, used) = go_number(&tokens, i, word, &mut warnings);
                limits.nodes = Some(at_least_one(word, n, &mut warnings) as u64);
                i += used;
            }
            "searchmoves" => {
                // Moves up to the next `go` keyword; a word that is no move is skipped.
                while let Some(t) = tokens.get(i + 1) {
                    if GO_WORDS.contains(t) {
                        break;
                    }
                    let Ok(uci) = t.parse::<UciMove>() else {
                        warnings.push(format!("searchmoves: '{t}' is not a move, ignored"));
                        i += 1;
                        continue;
                    };
                    match uci.to_move(pos) {
                        Ok(m) => limits.searchmoves.push(m),
                        Err(_) => {
                            warnings.push(format!("searchmoves: '{t}' is illegal here, ignored"))
                        }
                    }
                    i += 1;
                }
            }
            other => warnings.push(format!("unknown go parameter '{other}' ignored")),
        }
        i += 1;
    }
    let own = match pos.turn() {
        shakmaty::Color::White => limits.wtime,
        shakmaty::Color::Black => limits.btime,
    };
    let clock = [limits.wtime, limits.btime, limits.winc, limits.binc];
    if own.is_none() && clock.iter().any(Option::is_some) {
        let other = limits.wtime.or(limits.btime);
        // What `Limits::clock` makes of it.
        let outcome = if other.is_some() && !limits.limited() {
            "this side has no time: answering at once"
        } else {
            "the clock does not limit this search"
        };
        warnings.push(format!(
            "no {} for {} to move: {outcome}",
            if pos.turn().is_white() {
                "wtime"
            } else {
                "btime"
            },
            pos.turn()
        ));
    }
    (limits, warnings)
}

/// The number after `go`'s keyword `word` at `tokens[i]`, and how many tokens it took (0 when
/// it is missing: the next word is another keyword, or there is none). A number past i64 is
/// taken as far as it goes (`go nodes 18446744073709551615`); a decimal as its whole part; no
/// number as 0, said in `warnings`.
fn go_number(tokens: &[&str], i: usize, word: &str, warnings: &mut Vec<String>) -> (i64, usize) {
    let Some(v) = tokens.get(i + 1).filter(|v| !GO_WORDS.contains(v)) else {
        warnings.push(format!("'go {word}' has no number: taken as 0"));
        return (0, 0);
    };
    if let Ok(n) = v.parse::<i64>() {
        return (n, 1);
    }
    let digits = v.strip_prefix('-').unwrap_or(v);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return (
            if v.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            },
            1,
        );
    }
    match v.parse::<f64>() {
        // `inf` and `1e400` as far as they go, as a whole number past i64 is.
        Ok(x) if !x.is_nan() => {
            let n = x.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64;
            warnings.push(format!("'go {word} {v}': not a whole number, taken as {n}"));
            (n, 1)
        }
        _ => {
            warnings.push(format!("'go {word} {v}': not a number, taken as 0"));
            (0, 1)
        }
    }
}

/// The words of `go`'s parameters (a `searchmoves` list ends at one).
const GO_WORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_their_errors() {
        let g = parse_position("startpos moves e2e4 e7e5", false).unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.history.len(), 2);
        assert_eq!(
            fen_of(&g.pos),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        let e = |s| parse_position(s, false).err().unwrap().to_string();
        assert_eq!(
            e("startpos moves e2e4 e2e4"),
            "move 2 'e2e4' is illegal in rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        assert_eq!(e("startpos moves xx"), "move 1 'xx' is not a UCI move");
        assert_eq!(
            e("somewhere"),
            "expected 'position startpos' or 'position fen <FEN>'"
        );
        assert!(e("fen 8/8/8 w - - 0 1").starts_with("invalid FEN"));
    }

    #[test]
    fn go_arguments() {
        let pos = Chess::default();
        let (l, w) = parse_go("wtime -5 btime 1000 movestogo 3 bogus", &pos);
        assert_eq!(
            (l.wtime, l.btime, l.movestogo),
            (Some(0), Some(1000), Some(3))
        );
        assert_eq!(w, vec!["unknown go parameter 'bogus' ignored".to_string()]);
        // No number, or not one: 0 (a decimal: its whole part), said; the search still runs
        // (a GUI waits for its bestmove), in any case of the words.
        let (l, w) = parse_go("depth", &pos);
        assert_eq!(l.depth, Some(1));
        assert_eq!(
            w,
            [
                "'go depth' has no number: taken as 0",
                "'go depth 0': searched as depth 1"
            ]
        );
        let (l, w) = parse_go("nodes x movetime 2.9 wtime - DEPTH 3", &pos);
        assert_eq!(
            (l.nodes, l.movetime, l.wtime, l.depth),
            (Some(1), Some(2), Some(0), Some(3))
        );
        assert_eq!(
            w,
            [
                "'go nodes x': not a number, taken as 0",
                "'go nodes 0': searched as nodes 1",
                "'go movetime 2.9': not a whole number, taken as 2",
                "'go wtime -': not a number, taken as 0",
            ]
        );
        // A keyword where the number should be is read as the keyword.
        let (l, _) = parse_go("wtime inf btime 1e400", &pos);
        assert_eq!(
            (l.wtime, l.btime),
            (Some(i64::MAX as u64), Some(i64::MAX as u64))
        );
        let (l, _) = parse_go("movetime depth 4", &pos);
        assert_eq!((l.movetime, l.depth), (Some(0), Some(4)));
        // Past i64 (u64::MAX nodes, a clock of 10^20 ms): as far as the limit goes.
        let (l, _) = parse_go(
            "nodes 18446744073709551615 wtime 99999999999999999999",
            &pos,
        );
        assert_eq!(
            (l.nodes, l.wtime),
            (Some(i64::MAX as u64), Some(i64::MAX as u64))
        );
        // A limit below 1 searches at 1 and says so; movestogo 0 leaves the clock alone.
        let (l, w) = parse_go("nodes 0 mate -1 depth 0 movestogo 0 wtime 10", &pos);
        assert_eq!(
            (l.nodes, l.mate, l.depth, l.movestogo),
            (Some(1), Some(1), Some(1), None)
        );
        assert_eq!(
            w,
            [
                "'go nodes 0': searched as nodes 1",
                "'go mate -1': searched as mate 1",
                "'go depth 0': searched as depth 1",
                "'go movestogo 0' ignored"
            ]
        );
        // A searchmoves list skips a word that is no move and ends at the next keyword.
        let (l, w) = parse_go("searchmoves e2e4 zz d2d4 depth 3", &pos);
        assert_eq!((l.searchmoves.len(), l.depth), (2, Some(3)));
        assert_eq!(
            w,
            vec!["searchmoves: 'zz' is not a move, ignored".to_string()]
        );
        // The clock of the other side only: this side has none, and answers at once; with a
        // depth the depth limits the search; an increment alone limits nothing.
        let (l, w) = parse_go("btime 1000 binc 10", &pos);
        assert_eq!(
            w,
            vec![
                "no wtime for white to move: this side has no time: answering at once".to_string()
            ]
        );
        assert_eq!(l.clock(pos.turn()).time, Some(0));
        let (l, w) = parse_go("btime 1000 depth 4", &pos);
        assert_eq!(
            w,
            vec!["no wtime for white to move: the clock does not limit this search".to_string()]
        );
        assert_eq!(l.clock(pos.turn()).time, None);
        let (l, w) = parse_go("winc 100", &pos);
        assert_eq!(
            w,
            vec!["no wtime for white to move: the clock does not limit this search".to_string()]
        );
        assert_eq!(l.clock(pos.turn()).time, None);
        assert!(parse_go("wtime 1000", &pos).1.is_empty());
    }
}

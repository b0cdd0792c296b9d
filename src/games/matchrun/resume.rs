//! Resuming a match from its PGN (`deepred match --resume`): the games already in the file
//! count again, and only the others are played. A long SPRT can then be stopped and started
//! again with the same command. A game is taken only if it is one this match would play: its
//! round, colours, players, opening and time control must be the ones the same options give.

use std::collections::BTreeSet;
use std::path::Path;

use super::options::{MatchOptions, match_id, opening, time_control_tag};
use super::report::{Ending, GameOutcome};
use crate::chess::fen::fen_of;
use crate::chess::pgn::read_games;
use crate::games::Error;

/// The finished games of this match in the PGN at `path` (none if there is no file), and a
/// warning for each unreadable game (it is played again).
pub(super) fn finished_games(
    path: &Path,
    opts: &MatchOptions,
    order: &[usize],
    (engine_name, opponent_name): (&str, &str),
) -> Result<(Vec<GameOutcome>, Vec<String>), Error> {
    let refuse = |why: String| Error::Resume {
        path: path.to_path_buf(),
        why,
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(source) => {
            return Err(Error::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let (mut games, mut warnings, mut seen) = (Vec::new(), Vec::new(), BTreeSet::new());
    // Whether each game of the file, in order, is taken.
    let mut taken = Vec::new();
    for g in read_games(&bytes[..]) {
        taken.push(false);
        let g = match g {
            Ok(g) => g,
            Err(e) => {
                warnings.push(format!(
                    "{}: game {} unreadable, played again: {}",
                    path.display(),
                    e.number,
                    e.reason
                ));
                continue;
            }
        };
        // A game cut short (the file of a match killed while writing it) is played again.
        let plies = g.tag("PlyCount").and_then(|n| n.parse::<usize>().ok());
        if plies.is_some_and(|n| n != g.moves.len()) {
            warnings.push(format!(
                "{}: game {} has {} of its {} plies (cut short), played again",
                path.display(),
                g.number,
                g.moves.len(),
                plies.unwrap_or(0)
            ));
            continue;
        }
        let round: usize = match g.tag("Round").and_then(|r| r.parse().ok()) {
            Some(r) if (1..=opts.games).contains(&r) => r,
            _ => {
                return Err(refuse(format!(
                    "game {} has no Round from 1 to --games {}",
                    g.number, opts.games
                )));
            }
        };
        if !seen.insert(round) {
            return Err(refuse(format!("round {round} is in the file twice")));
        }
        let engine_white = (round - 1).is_multiple_of(2);
        let (white, black) = if engine_white {
            (engine_name, opponent_name)
        } else {
            (opponent_name, engine_name)
        };
        let start = opening(opts, order, round);
        // PGNs written before the `Match` tag: only the names tell the players apart.
        let id = g.tag("Match").map(|_| match_id(opts));
        let checks = [
            (
                "Match",
                g.tag("Match").unwrap_or(""),
                id.unwrap_or_default(),
            ),
            ("White", g.tag("White").unwrap_or(""), white.to_string()),
            ("Black", g.tag("Black").unwrap_or(""), black.to_string()),
            // The position, not its move counters: books read before their counters were
            // kept started every game at `0 1`.
            (
                "opening",
                &position_fields(&g.start),
                position_fields(&start),
            ),
            (
                "TimeControl",
                g.tag("TimeControl").unwrap_or(""),
                time_control_tag(opts, engine_white),
            ),
        ];
        for (what, found, want) in checks {
            if found != want {
                return Err(refuse(format!(
                    "round {round}: {what} is '{found}', this match's is '{want}' (the same \
                     --engine, --opponent, their options, --book, --seed and --tc resume a match)"
                )));
            }
        }
        let ending = g.tag("Comment").and_then(Ending::from_description);
        let (Some(result), Some(ending)) = (g.result, ending) else {
            return Err(refuse(format!(
                "round {round} has no result or no ending this runner wrote"
            )));
        };
        if let Some(t) = taken.last_mut() {
            *t = true;
        }
        games.push(GameOutcome {
            round,
            engine_white,
            result,
            ending,
            start: g.start,
            moves: g.moves,
            evals: g.evals,
            millis: Vec::new(),
        });
    }
    if let Some(cut) = broken_tail(&bytes, &taken) {
        warnings.push(cut_off(path, &bytes, cut)?);
    }
    Ok((games, warnings))
}

/// Takes the last game out of the file from `cut` on, its bytes kept in `<path>.cut`: the game
/// played again goes where the cut one began. Left in the file, the cut game was read
/// differently once something followed it (a game that lacked only its result token became
/// whole, a cut tag swallowed the next game's), and the next resume refused the file as
/// holding a round twice or a game without a result.
fn cut_off(path: &Path, bytes: &[u8], cut: usize) -> Result<String, Error> {
    let mut kept = path.as_os_str().to_owned();
    kept.push(".cut");
    let kept = std::path::PathBuf::from(kept);
    let written = std::fs::write(&kept, &bytes[cut..]).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)?
            .set_len(cut as u64)
    });
    written.map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(format!(
        "{}: its last game, cut short, taken out of the file ({} bytes, kept in {})",
        path.display(),
        bytes.len() - cut,
        kept.display()
    ))
}

/// Where the last game begins when it is the only one that could not be taken (a match killed
/// while writing it; a kill cuts only the last write): the start of its `[Event` line, or of the
/// last line when that is the beginning of one (`[Eve`). `None` otherwise: every game taken,
/// another game not taken (a file of another kind is not cut), or games that cannot be told
/// apart by their `[Event` lines (one line each, as this runner writes them).
fn broken_tail(bytes: &[u8], taken: &[bool]) -> Option<usize> {
    let (&last, before) = taken.split_last()?;
    if last || before.iter().any(|&t| !t) {
        return None;
    }
    let starts: Vec<usize> = (0..bytes.len())
        .filter(|&i| (i == 0 || bytes[i - 1] == b'\n') && bytes[i..].starts_with(b"[Event "))
        .collect();
    if starts.len() == taken.len() {
        return starts.last().copied();
    }
    let line = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let stub = &bytes[line..];
    (starts.len() + 1 == taken.len() && !stub.is_empty() && b"[Event ".starts_with(stub))
        .then_some(line)
}

/// A position's FEN without its move counters.
fn position_fields(pos: &shakmaty::Chess) -> String {
    let fen = fen_of(pos);
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

//! PGN text. Reading streams with pgn-reader: every SAN move is validated against the position,
//! games from a FEN and Chess960 games are supported, and a bad game is reported (game number,
//! ply, text, reason) without stopping the rest of the file. Writing gives the seven-tag roster,
//! SAN and `FEN`/`SetUp` tags where the game does not start from the initial position.

use std::io::Read;
use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

mod tokens;

use super::fen::fen_of;
use super::rules::GameResult;

/// The result of a PGN outcome token.
fn result_of(o: Outcome) -> Option<GameResult> {
    match o {
        Outcome::Known(KnownOutcome::Decisive { winner }) => Some(GameResult::won_by(winner)),
        Outcome::Known(KnownOutcome::Draw) => Some(GameResult::Draw),
        Outcome::Unknown => None,
    }
}

/// One game of a PGN file.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// 1-based position of the game in its file.
    pub number: usize,
    pub tags: Vec<(String, String)>,
    pub start: Chess,
    pub chess960: bool,
    pub moves: Vec<Move>,
    /// From the `Result` tag, else from the movetext's result token.
    pub result: Option<GameResult>,
    /// Per move, the evaluation its comment carries ([`comment_eval`]): (centipawns for the
    /// side that played it, depth, 0 if not given).
    pub evals: Vec<Option<(i32, u8)>>,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The positions of the game: the start, then the position after each move.
    pub fn positions(&self) -> Vec<Chess> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut pos = self.start.clone();
        out.push(pos.clone());
        for m in &self.moves {
            pos.play_unchecked(*m);
            out.push(pos.clone());
        }
        out
    }
}

/// Why a game was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    pub number: usize,
    /// Ply at which the problem was found (0 = in the tags).
    pub ply: usize,
    /// The offending text (a move, a tag value).
    pub text: String,
    pub reason: String,
}

impl std::fmt::Display for PgnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {}, ply {}: {} ('{}')",
            self.number, self.ply, self.reason, self.text
        )
    }
}

struct Tags {
    tags: Vec<(String, String)>,
    error: Option<(String, String)>,
}

struct Movetext {
    game: PgnGame,
    /// The position after the moves read so far.
    pos: Chess,
    error: Option<PgnError>,
    /// The termination marker at the end of the moves: `None` if there was none (a game cut
    /// short), `Some(None)` for `*`.
    outcome: Option<Option<GameResult>>,
}

struct GameVisitor {
    number: usize,
    /// Whether the last game read had no result after its moves.
    unterminated: bool,
}

const UNSUPPORTED_VARIANTS: &[&str] = &[
    "crazyhouse",
    "antichess",
    "suicide",
    "giveaway",
    "atomic",
    "horde",
    "king of the hill",
    "racing kings",
    "three-check",
    "3-check",
    "losers",
];

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.number += 1;
        self.unterminated = false;
        ControlFlow::Continue(Tags {
            tags: Vec::new(),
            error: None,
        })
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let name = String::from_utf8_lossy(name).into_owned();
        let raw = value.decode();
        // PGN is Latin-1 or UTF-8 in practice: keep valid UTF-8, read anything else as Latin-1.
        let value = match std::str::from_utf8(&raw) {
            Ok(s) => s.to_string(),
            Err(_) => raw.iter().map(|&b| b as char).collect(),
        };
        tags.tags.push((name, value));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let number = self.number;
        let fail = |text: &str, reason: String| {
            ControlFlow::Break(Err(PgnError {
                number,
                ply: 0,
                text: text.to_string(),
                reason,
            }))
        };
        if let Some((text, reason)) = tags.error {
            return fail(&text, reason);
        }
        let get = |k: &str| {
            tags.tags
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.clone())
        };
        let variant = get("Variant").unwrap_or_default().to_ascii_lowercase();
        if UNSUPPORTED_VARIANTS.iter().any(|v| variant.contains(v)) {
            return fail(&variant, "unsupported variant".to_string());
        }
        let chess960 = variant.contains("960") || variant.contains("fischer");
        let (start, chess960) = match get("FEN") {
            Some(fen_text) => {
                let fen: Fen = match fen_text.parse() {
                    Ok(f) => f,
                    Err(e) => return fail(&fen_text, format!("invalid FEN tag: {e}")),
                };
                match fen.clone().into_position::<Chess>(CastlingMode::Standard) {
                    Ok(p) if !chess960 => (p, false),
                    _ => match fen.into_position::<Chess>(CastlingMode::Chess960) {
                        Ok(p) => (p, true),
                        Err(e) => return fail(&fen_text, format!("illegal FEN position: {e}")),
                    },
                }
            }
            None => (Chess::default(), chess960),
        };
        let result = get("Result").and_then(|r| GameResult::from_tag(&r));
        ControlFlow::Continue(Movetext {
            pos: start.clone(),
            game: PgnGame {
                number,
                tags: tags.tags,
                start,
                chess960,
                moves: Vec::new(),
                result,
                evals: Vec::new(),
            },
            error: None,
            outcome: None,
        })
    }

    fn san(&mut self, mt: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if mt.error.is_some() {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&mt.pos) {
            Ok(m) => {
                mt.game.moves.push(m);
                mt.game.evals.push(None);
                mt.pos.play_unchecked(m);
            }
            Err(e) => {
                mt.error = Some(PgnError {
                    number: mt.game.number,
                    ply: mt.game.moves.len() + 1,
                    text: san_plus.to_string(),
                    reason: format!("illegal or ambiguous move: {e}"),
                })
            }
        }
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        mt: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        // A token meant as a move but not one, which pgn-reader would skip ([`tokens`]).
        if let Some(token) = comment.as_bytes().strip_prefix(tokens::MARKER) {
            if mt.error.is_none() {
                mt.error = Some(PgnError {
                    number: mt.game.number,
                    ply: mt.game.moves.len() + 1,
                    text: String::from_utf8_lossy(token).into_owned(),
                    reason: "not a move".into(),
                });
            }
            return ControlFlow::Continue(());
        }
        // The comment of the last move read: its mover is the side not to move now.
        let mover = !mt.pos.turn();
        if mt.error.is_none()
            && let Some(slot @ None) = mt.game.evals.last_mut()
        {
            *slot = comment_eval(&String::from_utf8_lossy(comment.as_bytes()), mover);
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _mt: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, mt: &mut Self::Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        mt.outcome = Some(result_of(outcome));
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mut mt: Self::Movetext) -> Self::Output {
        if let Some(e) = mt.error {
            return Err(e);
        }
        let fail = |reason: String| PgnError {
            number: mt.game.number,
            ply: mt.game.moves.len(),
            text: String::new(),
            reason,
        };
        // Without a result after the moves (which the PGN standard asks for, and some files
        // lack) the Result tag decides; [`read_games`] refuses such a game at the very end of
        // a file cut in the middle of a line.
        self.unterminated = mt.outcome.is_none();
        // Unterminated, and fewer or more moves than its PlyCount tag says: a game cut short
        // in the middle of a file (a killed match whose file was then resumed), which the
        // Result tag, written before the moves, would score as if it had been played out.
        if self.unterminated
            && let Some(count) = mt
                .game
                .tag("PlyCount")
                .and_then(|c| c.parse::<usize>().ok())
            && count != mt.game.moves.len()
        {
            return Err(fail(format!(
                "the PlyCount tag says {count} plies and no result follows the moves: cut short"
            )));
        }
        let outcome = mt.outcome.flatten();
        match (mt.game.result, outcome) {
            (None, _) => mt.game.result = outcome,
            (Some(tag), Some(end)) if tag != end => {
                return Err(fail(format!(
                    "the Result tag says {}, the moves end with {}",
                    tag.as_pgn(),
                    end.as_pgn()
                )));
            }
            _ => {}
        }
        Ok(mt.game)
    }
}

/// A move's evaluation as cutechess writes it after the move, which [`comment_eval`] reads
/// back: `+0.35/12` (the mover's score in pawns, then the depth), `+M3/20` or `-M2/20` (moves
/// to mate, `score` in plies as `chess::score` counts them).
pub fn eval_comment(score: i32, depth: u8) -> String {
    use super::score::{MATE, MATE_BOUND};
    let value = if score > MATE_BOUND {
        format!("+M{}", (MATE - score + 1) / 2)
    } else if score < -MATE_BOUND {
        format!("-M{}", (MATE + score) / 2)
    } else {
        format!("{:+.2}", f64::from(score.clamp(-20_000, 20_000)) / 100.0)
    };
    format!("{value}/{depth}")
}

/// The evaluation a move's comment carries, as (centipawns for `mover`, the side that played
/// the move; depth, 0 if not given), or `None`:
/// - `[%eval 0.35]`, `[%eval -1.2,22]`, `[%eval #3]`, `[%eval #-2]` (lichess: pawns or moves to
///   mate, from White's side);
/// - `+0.35/12 0.5s`, `-1.20/18`, `+M5/20` (cutechess, fastchess: the mover's score when it
///   chose the move, in pawns or moves to mate, then the depth).
///
/// Mate in n moves for the mover scores `MATE - (2n - 1)` (the plies to mate), mated in n
/// `-(MATE - 2n)`.
pub fn comment_eval(text: &str, mover: Color) -> Option<(i32, u8)> {
    use super::score::MATE;
    // A score: pawns ("0.35", "-1.2") or moves to mate ("#3", "M5", "-M2"), from one side,
    // turned to the other's when `flip` (before the mate distance is counted: a mate for
    // White is a mate for Black's opponent, not a negated score one ply off).
    fn score(s: &str, flip: bool) -> Option<i32> {
        let (sign, body) = match s.strip_prefix('-') {
            Some(b) => (-1, b),
            None => (1, s.strip_prefix('+').unwrap_or(s)),
        };
        let sign = if flip { -sign } else { sign };
        if let Some(m) = body.strip_prefix('#').or_else(|| body.strip_prefix('M')) {
            let (sign, m) = match m.strip_prefix('-') {
                Some(m) => (-sign, m),
                None => (sign, m),
            };
            let n: i32 = m.parse().ok().filter(|n| (1..=200).contains(n))?;
            return Some(if sign > 0 {
                MATE - (2 * n - 1)
            } else {
                -(MATE - 2 * n)
            });
        }
        let pawns: f64 = body.parse().ok().filter(|p: &f64| p.is_finite())?;
        Some(sign * (pawns * 100.0).round().clamp(-20_000.0, 20_000.0) as i32)
    }
    let text = text.trim();
    if let Some(i) = text.find("[%eval ") {
        let rest = &text[i + 7..];
        let body = rest[..rest.find(']')?].trim();
        let (value, depth) = match body.split_once(',') {
            Some((v, d)) => (v.trim(), d.trim().parse::<u8>().unwrap_or(0)),
            None => (body, 0),
        };
        return Some((score(value, mover == Color::Black)?, depth));
    }
    let first = text.split_whitespace().next()?;
    let (value, depth) = first.split_once('/')?;
    let depth: u8 = depth.parse().ok()?;
    Some((score(value, false)?, depth))
}

/// A reader that remembers the last byte it gave.
struct LastByte<R> {
    inner: R,
    last: std::rc::Rc<std::cell::Cell<u8>>,
}

impl<R: Read> Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last.set(buf[n - 1]);
        }
        Ok(n)
    }
}

/// Reads every game of `input`. Games that cannot be read are returned as errors in file order,
/// and reading goes on with the next game: also after text the PGN reader cannot parse at all (a
/// tag line longer than its buffer, about 64 KiB), whose game is skipped to its end. An I/O
/// error ends the list with one last error. A token meant as a move that is not one (`Qxf7Q`,
/// `a8Q`) refuses its game at that ply, where pgn-reader alone would skip it.
pub fn read_games(input: impl Read) -> Vec<Result<PgnGame, PgnError>> {
    let last_byte = std::rc::Rc::new(std::cell::Cell::new(b'\n'));
    let mut reader = Reader::new(tokens::TokenCheck::new(LastByte {
        inner: input,
        last: last_byte.clone(),
    }));
    let mut visitor = GameVisitor {
        number: 0,
        unterminated: false,
    };
    let mut out = Vec::new();
    // Every parse error consumes input (at least its line), so this only stops a runaway.
    let mut errors_in_a_row = 0;
    loop {
        match reader.read_game(&mut visitor) {
            Ok(Some(g)) => {
                errors_in_a_row = 0;
                out.push(g);
            }
            Ok(None) => {
                // A last game with no result, in a file that ends in the middle of a line: the
                // file was cut while written (a killed match or tournament).
                if visitor.unterminated
                    && last_byte.get() != b'\n'
                    && let Some(Ok(g)) = out.last()
                {
                    let (number, ply) = (g.number, g.moves.len());
                    out.pop();
                    out.push(Err(PgnError {
                        number,
                        ply,
                        text: String::new(),
                        reason: "the file ends in the middle of this game (no result after its moves): cut short".into(),
                    }));
                }
                break;
            }
            Err(e) => {
                // pgn-reader says "unterminated tag" of a tag line longer than its buffer too.
                let hint = if e.to_string().contains("unterminated tag") {
                    " (or a tag line longer than the reader's 64 KiB)"
                } else {
                    ""
                };
                out.push(Err(PgnError {
                    number: visitor.number,
                    ply: 0,
                    text: String::new(),
                    reason: format!("unreadable input: {e}{hint}"),
                }));
                errors_in_a_row += 1;
                let parse_error = e.kind() == std::io::ErrorKind::InvalidData;
                if !parse_error || errors_in_a_row > 100 || reader.skip_game().is_err() {
                    break;
                }
            }
        }
    }
    out
}

/// Appends PGN `text` to the file at `path` (made if missing), after a blank line when the file
/// does not end with a line end: games are never glued to what is there, nor written over it.
pub fn append_pgn(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    append_whole(&mut open_for_append(path)?, text)
}

/// Appends `text` (one or more whole games) to `f`, opened for appending, whole or not at all:
/// a write that fails part way (a full disk) is cut back out, so that no fragment merges with
/// the next game. The file is locked meanwhile, so that the cut never takes the games another
/// process appended (two self-play runs into one PGN). Where the file system takes no lock (some
/// network file systems), the game is appended without one.
pub fn append_whole(f: &mut std::fs::File, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let locked = f.lock().is_ok();
    let written = f.metadata().map(|m| m.len()).and_then(|len| {
        f.write_all(text.as_bytes())
            .and_then(|_| f.flush())
            .inspect_err(|_| {
                let _ = f.set_len(len);
            })
    });
    if locked {
        let _ = f.unlock();
    }
    written
}

/// Opens the PGN file at `path` (made if missing) for games to be appended, after a blank line
/// when it does not end with a line end (its last game cut short, say): the next game starts on
/// a line of its own.
pub fn open_for_append(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    let len = f.metadata()?.len();
    if len > 0 {
        let mut last = [0u8];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        if last[0] != b'\n' {
            f.write_all(b"\n\n")?;
        }
    }
    Ok(f)
}

/// Writes one game as PGN (SAN moves, seven-tag roster plus `extra` tags; a `FEN`/`SetUp` pair
/// when the game does not start from the standard position, `Variant` for Chess960).
pub fn write_pgn(
    start: &Chess,
    moves: &[Move],
    result: Option<GameResult>,
    tags: &[(&str, String)],
) -> String {
    write_pgn_annotated(start, moves, result, tags, &[])
}

/// [`write_pgn`] with a comment after each move that has one in `comments` (by ply; shorter is
/// fine), e.g. the `{+0.35/12}` of an engine's score.
pub fn write_pgn_annotated(
    start: &Chess,
    moves: &[Move],
    result: Option<GameResult>,
    tags: &[(&str, String)],
    comments: &[Option<String>],
) -> String {
    use shakmaty::san::SanPlus;
    let result_text = result.map_or("*", GameResult::as_pgn);
    let mut out = String::new();
    // A tag's value on one line: a line end or other control character (a file name learned
    // as a game's source) became a line of its own, and the game could not be read back.
    let tag = |out: &mut String, k: &str, v: &str| {
        let v: String = v
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        out.push_str(&format!(
            "[{k} \"{}\"]\n",
            v.replace('\\', "\\\\").replace('"', "\\\"")
        ));
    };
    // The seven tags every PGN game has; one not known (missing, empty or "?") in PGN's own
    // form (a date "?" is "????.??.??").
    for key in ["Event", "Site", "Date", "Round", "White", "Black"] {
        let unknown = if key == "Date" { "????.??.??" } else { "?" };
        let v = tags
            .iter()
            .find(|(k, v)| *k == key && !v.is_empty() && v.as_str() != "?")
            .map_or(unknown, |(_, v)| v.as_str());
        tag(&mut out, key, v);
    }
    tag(&mut out, "Result", result_text);
    if *start != Chess::default() || start.castles().mode() == CastlingMode::Chess960 {
        if start.castles().mode() == CastlingMode::Chess960 {
            tag(&mut out, "Variant", "Chess960");
        }
        tag(&mut out, "SetUp", "1");
        tag(&mut out, "FEN", &fen_of(start));
    }
    for (k, v) in tags {
        if !["Event", "Site", "Date", "Round", "White", "Black", "Result"].contains(k) {
            tag(&mut out, k, v);
        }
    }
    out.push('\n');
    let mut pos = start.clone();
    let mut line = String::new();
    for (i, &m) in moves.iter().enumerate() {
        let mut token = String::new();
        if pos.turn() == Color::White {
            token.push_str(&format!("{}. ", pos.fullmoves()));
        } else if i == 0 {
            token.push_str(&format!("{}... ", pos.fullmoves()));
        }
        token.push_str(&SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        if let Some(Some(c)) = comments.get(i) {
            token.push_str(&format!(" {{{c}}}"));
        }
        if line.len() + token.len() + 1 > 79 {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clear();
        }
        line.push_str(&token);
        line.push(' ');
    }
    line.push_str(result_text);
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// Today's date as PGN writes it (`YYYY.MM.DD`, UTC).
pub fn pgn_date() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An append waits while another writer (another open file, as another process would have)
    /// holds the file, so that a cut of a failed write could never take that writer's game.
    #[test]
    fn an_append_waits_for_another_writers_lock() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("deepred-append-{}.pgn", std::process::id()));
        std::fs::write(&path, "").unwrap();
        let mut holder = std::fs::File::options().append(true).open(&path).unwrap();
        holder.lock().unwrap();
        let p = path.clone();
        let appender = std::thread::spawn(move || append_pgn(&p, "[Event \"two\"]\n\n*\n\n"));
        std::thread::sleep(std::time::Duration::from_millis(300));
        holder.write_all(b"[Event \"one\"]\n\n*\n\n").unwrap();
        holder.unlock().unwrap();
        appender.join().unwrap().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[Event \"one\"]\n\n*\n\n[Event \"two\"]\n\n*\n\n"
        );
        let _ = std::fs::remove_file(&path);
    }

    /// The seven tags are always there; one not known (missing, or empty as a self-play game's
    /// date is in the store, or "?") is written in PGN's form for it, not as `""` (a date "?"
    /// was written as `"?"`).
    #[test]
    fn unknown_tags_are_written_as_pgn_says() {
        let tags = [
            ("Event", "x\nline.pgn".to_string()),
            ("Date", "?".to_string()),
            ("White", String::new()),
        ];
        let text = write_pgn_annotated(&Chess::default(), &[], None, &tags, &[]);
        for line in [
            // A line end in a value stays on the tag's line.
            "[Event \"x line.pgn\"]",
            "[Site \"?\"]",
            "[Date \"????.??.??\"]",
            "[Round \"?\"]",
            "[White \"?\"]",
            "[Black \"?\"]",
            "[Result \"*\"]",
        ] {
            assert!(text.contains(line), "{line}: {text}");
        }
        assert!(!text.contains("\"\""), "{text}");
    }

    #[test]
    fn pgn_date_looks_like_a_date() {
        let d = pgn_date();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
        assert_eq!(&d[4..5], ".");
        assert_eq!(&d[7..8], ".");
    }

    #[test]
    fn evaluations_are_read_from_comments() {
        use crate::chess::score::MATE;
        let w = Color::White;
        let b = Color::Black;
        assert_eq!(comment_eval("[%eval 0.35]", w), Some((35, 0)));
        assert_eq!(comment_eval("[%eval 0.35]", b), Some((-35, 0)));
        assert_eq!(
            comment_eval(" [%clk 0:01:00] [%eval -1.2,22] ", w),
            Some((-120, 22))
        );
        assert_eq!(comment_eval("[%eval #3]", w), Some((MATE - 5, 0)));
        assert_eq!(comment_eval("[%eval #-2]", w), Some((-(MATE - 4), 0)));
        // Black mates in 2: the mover's mate in 2, as White's #2 is White's (it was one ply
        // off: the negation of White's "mated in 2").
        assert_eq!(comment_eval("[%eval #-2]", b), Some((MATE - 3, 0)));
        assert_eq!(comment_eval("[%eval #2]", b), Some((-(MATE - 4), 0)));
        assert_eq!(comment_eval("+0.35/12 0.512s", b), Some((35, 12)));
        assert_eq!(comment_eval("-1.20/18", w), Some((-120, 18)));
        assert_eq!(comment_eval("+M5/20 0.1s", w), Some((MATE - 9, 20)));
        assert_eq!(comment_eval("-M3/30", w), Some((-(MATE - 6), 30)));
        for none in [
            "book",
            "",
            "a fine move",
            "[%clk 0:01:00]",
            "+0.35",
            "x/12",
            "[%eval]",
        ] {
            assert_eq!(comment_eval(none, w), None, "{none}");
        }
        // Read with the moves, each comment to the move before it; variations skipped.
        let pgn = "[Result \"*\"]\n\n1. e4 { +0.30/10 0.1s } e5 {book} (1... c5 {+9.99/1}) 2. Nf3 { [%eval -0.2] } *\n";
        let g = read_games(pgn.as_bytes()).remove(0).unwrap();
        assert_eq!(g.evals, vec![Some((30, 10)), None, Some((-20, 0))]);
    }
}

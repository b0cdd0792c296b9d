//! `deepred play`: a human against Deep Red, or two humans against each other, in the terminal.
//!
//! Commands are read line by line from any [`BufRead`]; the board, prompts and messages go to one
//! [`Write`], errors (a store that cannot be opened or written, a PGN file that cannot be
//! appended) to another, so a whole game can be driven from a test. Moves are typed in SAN
//! (`Nf3`, `exd5`, `O-O`, `e8=Q`, with or without `+`/`#`) or UCI (`g1f3`, `e7e8q`); a move that
//! is illegal, ambiguous or not a move at all gets a message and the prompt again.
//!
//! A game ends by the rules ([`rule_result`]), by resignation or by an agreed draw; it is then
//! learned into the experience store (source `play`) and appended to a PGN file when asked. A
//! game that is abandoned (`quit`, end of input) is neither learned nor written.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position, Role};

use crate::eval::Evaluator;
use crate::experience::live::rule_result;
use crate::experience::store::{GameRecord, Learned, Store};
use crate::games::pgn::{GameResult, write_pgn};
use crate::search::tt::TranspositionTable;
use crate::search::{
    Limits, MATE, MATE_BOUND, SearchParams, SearchResult, Shared, hash_of, search,
};

/// The engine's name in prompts, messages and on the board.
pub const ENGINE: &str = "Deep Red";
/// The human players' name in the store and the PGN.
pub const HUMAN: &str = "Human";
/// In an engine game the engine accepts a draw when its own score is at most this (centipawns,
/// its point of view).
pub const DRAW_ACCEPT_CP: i32 = -150;
/// Milliseconds per engine move when no limit is given.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Who is at the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Humans {
    /// The human plays White, Deep Red Black.
    White,
    /// The human plays Black, Deep Red White.
    Black,
    /// Two humans, no engine.
    Both,
}

impl Humans {
    pub fn is_human(self, c: Color) -> bool {
        match self {
            Humans::White => c == Color::White,
            Humans::Black => c == Color::Black,
            Humans::Both => true,
        }
    }

    pub fn engine_game(self) -> bool {
        self != Humans::Both
    }

    fn player_name(self, c: Color) -> String {
        if self.is_human(c) {
            HUMAN.to_string()
        } else {
            crate::uci::ENGINE_NAME.to_string()
        }
    }
}

#[derive(Clone, Debug)]
pub struct PlayOptions {
    pub humans: Humans,
    /// Engine limits per move; with none of the three, [`DEFAULT_MOVETIME_MS`].
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub start: Chess,
    pub evaluator: Evaluator,
    /// The experience store to learn the game into (`None`: no learning).
    pub store: Option<PathBuf>,
    /// Append the finished game to this PGN file.
    pub pgn: Option<PathBuf>,
    /// Turn the board around (default: the human's colour at the bottom, White for two humans).
    pub flip: bool,
    /// Let the engine play the best known move of the store when its position has at least
    /// `book_min_games` games.
    pub book: bool,
    pub book_min_games: u32,
    pub hash_mb: usize,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            humans: Humans::White,
            movetime_ms: None,
            depth: None,
            nodes: None,
            start: Chess::default(),
            evaluator: crate::eval::default_evaluator(),
            store: None,
            pgn: None,
            flip: false,
            book: false,
            book_min_games: 10,
            hash_mb: 16,
        }
    }
}

impl PlayOptions {
    /// The search limits of one engine move.
    pub fn limits(&self) -> Limits {
        let movetime = if self.movetime_ms.is_none() && self.depth.is_none() && self.nodes.is_none()
        {
            Some(DEFAULT_MOVETIME_MS)
        } else {
            self.movetime_ms
        };
        Limits {
            movetime,
            depth: self.depth,
            nodes: self.nodes,
            ..Default::default()
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Checkmate, stalemate, fifty moves, threefold repetition, insufficient material; the
    /// text says which.
    Rules(GameResult, &'static str),
    /// This side resigned.
    Resigned(Color),
    /// A draw was agreed.
    Agreed,
    /// `quit` or end of input: no result, nothing learned.
    Abandoned,
}

impl Ending {
    pub fn result(&self) -> Option<GameResult> {
        match self {
            Ending::Rules(r, _) => Some(*r),
            Ending::Resigned(Color::White) => Some(GameResult::BlackWins),
            Ending::Resigned(Color::Black) => Some(GameResult::WhiteWins),
            Ending::Agreed => Some(GameResult::Draw),
            Ending::Abandoned => None,
        }
    }

    /// The PGN `Termination` text.
    pub fn termination(&self) -> String {
        match self {
            Ending::Rules(GameResult::WhiteWins, why) => format!("White won by {why}"),
            Ending::Rules(GameResult::BlackWins, why) => format!("Black won by {why}"),
            Ending::Rules(GameResult::Draw, why) => format!("Game drawn by {why}"),
            Ending::Resigned(c) => format!("{} won by resignation", color_name(!*c)),
            Ending::Agreed => "Game drawn by agreement".to_string(),
            Ending::Abandoned => "Game abandoned".to_string(),
        }
    }
}

/// What a session did (for tests and callers).
#[derive(Clone, Debug)]
pub struct PlayOutcome {
    pub ending: Ending,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// What the store said, when the game was learned.
    pub learned: Option<Learned>,
    pub pgn_written: bool,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The game's end by the rules, with the reason, after `moves` from `start`.
pub fn rule_ending(start: &Chess, moves: &[Move]) -> Option<Ending> {
    let result = rule_result(start, moves)?;
    let mut pos = start.clone();
    for &m in moves {
        pos.play_unchecked(m);
    }
    // The same order of checks as `rule_result`.
    let why = if pos.is_checkmate() {
        "checkmate"
    } else if pos.is_stalemate() {
        "stalemate"
    } else if pos.is_insufficient_material() {
        "insufficient material"
    } else if pos.halfmoves() >= 100 {
        "the fifty-move rule"
    } else {
        "threefold repetition"
    };
    Some(Ending::Rules(result, why))
}

/// A position no one can win in practice: no pawns, queens or rooks, and at most one minor
/// piece a side (the engine accepts a draw offer there whatever its score).
pub fn dead_draw(pos: &Chess) -> bool {
    let b = pos.board();
    if (b.pawns() | b.queens() | b.rooks()).any() {
        return false;
    }
    let minors = b.knights() | b.bishops();
    (minors & b.white()).count() <= 1 && (minors & b.black()).count() <= 1
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

fn san_text(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
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
                .map(|m| san_text(pos, *m))
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
                        return Err(MoveError::NeedsPromotion(san_text(pos, m)));
                    }
                }
            }
            Err(MoveError::Illegal)
        }
    }
}

/// Parses a move typed by a human: UCI (`g1f3`, `e7e8q`, `e1g1`) or SAN (`Nf3`, `exd5`, `O-O`,
/// `0-0-0`, `e8=Q`, `e8Q`, `Nf3+`, `Qh4#`, `nf3`), annotations `!`/`?` ignored.
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, MoveError> {
    let t = text.trim().trim_end_matches(['!', '?']);
    if t.is_empty() || !t.is_ascii() {
        return Err(MoveError::NotAMove);
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
                    return Err(MoveError::NeedsPromotion(san_text(pos, m)));
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
    let mut v: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| san_text(pos, *m))
        .collect();
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
    format!("{}{dots} {}", pos.fullmoves(), san_text(pos, m))
}

/// A score from the side to move's point of view, for humans: `+0.35`, `mate in 3`, `mated in 2`.
pub fn human_score(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate in {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mated in {}", (MATE + score) / 2)
    } else {
        format!("{:+.2}", f64::from(score) / 100.0)
    }
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

const HELP: &str = "\
Moves: SAN (e4, Nf3, exd5, O-O, e8=Q, with or without +/#) or UCI (g1f3, e7e8q).
Commands:
  moves            list the legal moves
  undo, takeback   take back your last move (and the engine's reply)
  draw             offer a draw
  resign           resign the game
  board            draw the board again
  flip             turn the board around
  fen              the position as FEN
  pgn              the game so far as PGN
  help             this text
  quit             abandon the game (it is not learned)
Uppercase letters are White's pieces, lowercase Black's; [ ] marks the last move.
";

struct Session<'a, W: Write, E: Write> {
    opts: &'a PlayOptions,
    out: &'a mut W,
    err: &'a mut E,
    moves: Vec<Move>,
    pos: Chess,
    bottom: Color,
    tt: TranspositionTable,
    shared: Shared,
    store: Option<Store>,
    /// Why the game will not be learned, when it will not.
    no_learn_reason: Option<String>,
}

impl<W: Write, E: Write> Session<'_, W, E> {
    fn replay(&mut self) {
        let mut pos = self.opts.start.clone();
        for &m in &self.moves {
            pos.play_unchecked(m);
        }
        self.pos = pos;
    }

    /// Keys of the positions before the current one (for repetitions in the search).
    fn history(&self) -> Vec<u64> {
        let mut pos = self.opts.start.clone();
        let mut keys = Vec::with_capacity(self.moves.len());
        for &m in &self.moves {
            keys.push(hash_of(&pos));
            pos.play_unchecked(m);
        }
        keys
    }

    fn play(&mut self, m: Move) -> io::Result<()> {
        let text = numbered_san(&self.pos, m);
        self.pos.play_unchecked(m);
        self.moves.push(m);
        self.show_board(Some(&text))
    }

    fn last_move_text(&self) -> Option<String> {
        let last = *self.moves.last()?;
        let mut pos = self.opts.start.clone();
        for &m in &self.moves[..self.moves.len() - 1] {
            pos.play_unchecked(m);
        }
        Some(numbered_san(&pos, last))
    }

    fn show_board(&mut self, last: Option<&str>) -> io::Result<()> {
        let marked: Vec<shakmaty::Square> = match self.moves.last() {
            Some(&Move::Castle { king, rook }) => {
                let side = shakmaty::CastlingSide::from_king_side(king < rook);
                let us = !self.pos.turn();
                vec![king, side.king_to(us)]
            }
            Some(m) => m.from().into_iter().chain([m.to()]).collect(),
            None => Vec::new(),
        };
        let last = last.map(str::to_string).or_else(|| self.last_move_text());
        writeln!(self.out)?;
        write!(
            self.out,
            "{}",
            crate::uci::diagram_from(&self.pos, self.bottom, &marked)
        )?;
        if let Some(l) = last {
            writeln!(self.out, "Last move: {l}")?;
        }
        let turn = self.pos.turn();
        let who = if self.opts.humans.engine_game() {
            if self.opts.humans.is_human(turn) {
                " (you)".to_string()
            } else {
                format!(" ({ENGINE})")
            }
        } else {
            String::new()
        };
        if self.pos.is_checkmate() {
            writeln!(self.out, "{} is checkmated{who}", color_name(turn))?;
        } else {
            let check = if self.pos.is_check() {
                ", in check"
            } else {
                ""
            };
            writeln!(self.out, "{} to move{who}{check}", color_name(turn))?;
        }
        self.out.flush()
    }

    fn search_here(&mut self) -> SearchResult {
        let mut params = SearchParams::new(self.pos.clone(), self.opts.limits());
        params.history = self.history();
        params.evaluator = self.opts.evaluator.clone();
        self.shared.stop.store(false, Ordering::SeqCst);
        self.shared.reset_clock();
        search(&params, &self.shared, &self.tt)
    }

    /// The best known move of the store (confidence-aware), when the position has enough games.
    fn book_move(&self) -> Option<(Move, String)> {
        let store = self.store.as_ref()?;
        let known = store.moves_from(&self.pos).ok()?;
        let total: u64 = known.iter().map(|m| m.games()).sum();
        if total < u64::from(self.opts.book_min_games) {
            return None;
        }
        let turn = self.pos.turn();
        let (m, k) = known
            .iter()
            .filter_map(|k| Some((k.mv.parse::<UciMove>().ok()?.to_move(&self.pos).ok()?, k)))
            .max_by(|a, b| {
                a.1.confidence_score(turn)
                    .total_cmp(&b.1.confidence_score(turn))
            })?;
        Some((
            m,
            format!(
                "experience book: {} games, score {:.1}%",
                k.games(),
                100.0 * k.score_for(turn)
            ),
        ))
    }

    /// Deep Red's move (from the book or the search). `Some` only if no move could be found.
    fn engine_move(&mut self) -> io::Result<Option<Ending>> {
        if self.opts.book
            && let Some((m, note)) = self.book_move()
        {
            writeln!(
                self.out,
                "{ENGINE} plays {} ({note})",
                numbered_san(&self.pos, m)
            )?;
            self.play(m)?;
            return Ok(None);
        }
        writeln!(self.out, "{ENGINE} is thinking...")?;
        self.out.flush()?;
        let r = self.search_here();
        let Some(m) = r.best else {
            // Unreachable: without a legal move the game has ended by the rules.
            writeln!(self.err, "deepred: the search found no move")?;
            return Ok(Some(Ending::Abandoned));
        };
        writeln!(
            self.out,
            "{ENGINE} plays {} (its score {}, depth {}, {} nodes)",
            numbered_san(&self.pos, m),
            human_score(r.score),
            r.depth,
            r.nodes
        )?;
        self.play(m)?;
        Ok(None)
    }

    /// Takes back the human's last move (and the engine's reply after it). False if there is
    /// no human move to take back.
    fn undo(&mut self) -> bool {
        let humans = self.opts.humans;
        if !humans.engine_game() {
            if self.moves.pop().is_none() {
                return false;
            }
            self.replay();
            return true;
        }
        let saved = self.moves.clone();
        while !self.moves.is_empty() {
            self.moves.pop();
            self.replay();
            if humans.is_human(self.pos.turn()) {
                return true;
            }
        }
        self.moves = saved;
        self.replay();
        false
    }

    /// Reads one line; `None` at end of input.
    fn read_line(input: &mut impl BufRead) -> io::Result<Option<String>> {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        Ok(Some(line.trim().to_string()))
    }

    /// A draw offer by the side to move. `Some(ending)` when accepted (or abandoned at end of input).
    fn offer_draw(&mut self, input: &mut impl BufRead) -> io::Result<Option<Ending>> {
        if self.opts.humans.engine_game() {
            if dead_draw(&self.pos) {
                writeln!(
                    self.out,
                    "{ENGINE} accepts the draw: no one can win this position."
                )?;
                return Ok(Some(Ending::Agreed));
            }
            writeln!(self.out, "{ENGINE} considers your offer...")?;
            self.out.flush()?;
            // The search is from the human's point of view (the human is to move).
            let r = self.search_here();
            let engine_view = -r.score;
            if engine_view <= DRAW_ACCEPT_CP {
                writeln!(
                    self.out,
                    "{ENGINE} accepts the draw (its score: {}).",
                    human_score(engine_view)
                )?;
                return Ok(Some(Ending::Agreed));
            }
            writeln!(
                self.out,
                "{ENGINE} declines the draw (its score: {}). Play on.",
                human_score(engine_view)
            )?;
            return Ok(None);
        }
        let turn = self.pos.turn();
        loop {
            write!(
                self.out,
                "{} offers a draw. {}, do you accept? [y/n] ",
                color_name(turn),
                color_name(!turn)
            )?;
            self.out.flush()?;
            let Some(answer) = Self::read_line(input)? else {
                writeln!(self.out)?;
                return Ok(Some(Ending::Abandoned));
            };
            match answer.to_ascii_lowercase().as_str() {
                "y" | "yes" => {
                    writeln!(self.out, "Draw agreed.")?;
                    return Ok(Some(Ending::Agreed));
                }
                "n" | "no" => {
                    writeln!(self.out, "Draw declined. Play on.")?;
                    return Ok(None);
                }
                _ => writeln!(self.out, "Please answer y or n.")?,
            }
        }
    }

    fn pgn_text(&self, ending: Option<&Ending>) -> String {
        let h = self.opts.humans;
        let mut tags = vec![
            ("Event", "Deep Red terminal game".to_string()),
            ("Site", "deepred play".to_string()),
            ("Date", pgn_date()),
            ("White", h.player_name(Color::White)),
            ("Black", h.player_name(Color::Black)),
        ];
        if let Some(e) = ending {
            tags.push(("Termination", e.termination()));
        }
        write_pgn(
            &self.opts.start,
            &self.moves,
            ending.and_then(Ending::result),
            &tags,
        )
    }

    /// The human's turn: reads lines until a move is played or the game ends.
    fn human_turn(&mut self, input: &mut impl BufRead) -> io::Result<Option<Ending>> {
        loop {
            let turn = self.pos.turn();
            let dots = if turn == Color::White { "." } else { "..." };
            write!(
                self.out,
                "{} {}{dots} > ",
                color_name(turn),
                self.pos.fullmoves()
            )?;
            self.out.flush()?;
            let Some(line) = Self::read_line(input)? else {
                writeln!(self.out)?;
                writeln!(self.out, "End of input.")?;
                return Ok(Some(Ending::Abandoned));
            };
            if line.is_empty() {
                continue;
            }
            match line.to_ascii_lowercase().as_str() {
                "help" | "?" | "h" => write!(self.out, "{HELP}")?,
                "quit" | "exit" | "q" => return Ok(Some(Ending::Abandoned)),
                "resign" => {
                    writeln!(self.out, "{} resigns.", color_name(turn))?;
                    return Ok(Some(Ending::Resigned(turn)));
                }
                "draw" => {
                    if let Some(e) = self.offer_draw(input)? {
                        return Ok(Some(e));
                    }
                }
                "undo" | "takeback" | "take back" => {
                    if self.undo() {
                        writeln!(self.out, "Taken back.")?;
                        self.show_board(None)?;
                    } else {
                        writeln!(self.out, "There is no move of yours to take back.")?;
                    }
                }
                "moves" => {
                    let mut line = String::new();
                    for m in legal_sans(&self.pos) {
                        if !line.is_empty() && line.len() + m.len() >= 78 {
                            writeln!(self.out, "{line}")?;
                            line.clear();
                        }
                        if !line.is_empty() {
                            line.push(' ');
                        }
                        line.push_str(&m);
                    }
                    writeln!(self.out, "{line}")?;
                }
                "fen" => writeln!(self.out, "{}", crate::uci::fen_of(&self.pos))?,
                "pgn" => write!(self.out, "{}", self.pgn_text(None))?,
                "board" | "d" => self.show_board(None)?,
                "flip" => {
                    self.bottom = !self.bottom;
                    self.show_board(None)?;
                }
                _ => match parse_move(&self.pos, &line) {
                    Ok(m) => {
                        self.play(m)?;
                        return Ok(None);
                    }
                    Err(MoveError::NotAMove) => writeln!(
                        self.out,
                        "'{line}' is neither a move nor a command (type 'help')."
                    )?,
                    Err(MoveError::Illegal) => writeln!(
                        self.out,
                        "'{line}' is not a legal move here (type 'moves' for the list)."
                    )?,
                    Err(MoveError::Ambiguous(c)) => writeln!(
                        self.out,
                        "'{line}' is ambiguous here: {} (say which).",
                        c.join(", ")
                    )?,
                    Err(MoveError::NeedsPromotion(q)) => {
                        writeln!(self.out, "'{line}' promotes a pawn: say to what, e.g. {q}.")?
                    }
                },
            }
            self.out.flush()?;
        }
    }

    fn finish(&mut self, ending: Ending) -> io::Result<PlayOutcome> {
        let mut outcome = PlayOutcome {
            ending: ending.clone(),
            start: self.opts.start.clone(),
            moves: self.moves.clone(),
            learned: None,
            pgn_written: false,
        };
        let Some(result) = ending.result() else {
            writeln!(
                self.out,
                "Game abandoned after {} plies: not learned, not written.",
                self.moves.len()
            )?;
            self.out.flush()?;
            return Ok(outcome);
        };
        writeln!(self.out)?;
        writeln!(
            self.out,
            "Result: {} ({}).",
            result.as_pgn(),
            ending.termination()
        )?;
        let h = self.opts.humans;
        if let Some(store) = self.store.as_mut() {
            let game = GameRecord {
                source: "play".to_string(),
                white: h.player_name(Color::White),
                black: h.player_name(Color::Black),
                date: pgn_date(),
                result,
                start: self.opts.start.clone(),
                moves: self.moves.clone(),
            };
            let path = store.path().display().to_string();
            match store.learn_game(game) {
                Ok(l) => {
                    outcome.learned = Some(l);
                    match l {
                        Learned::New { .. } => {
                            writeln!(self.out, "The game was learned into {path}.")?
                        }
                        Learned::AlreadyKnown => writeln!(
                            self.out,
                            "The same game is already in {path}: nothing new to learn."
                        )?,
                    }
                }
                Err(e) => {
                    writeln!(self.err, "deepred: {e}")?;
                    writeln!(self.out, "The game could not be learned (see above).")?;
                }
            }
        } else if let Some(why) = &self.no_learn_reason {
            writeln!(self.out, "The game was not learned ({why}).")?;
        }
        if let Some(p) = &self.opts.pgn {
            let text = self.pgn_text(Some(&ending));
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .and_then(|mut f| {
                    f.write_all(text.as_bytes())?;
                    f.flush()
                });
            match written {
                Ok(()) => {
                    outcome.pgn_written = true;
                    writeln!(self.out, "The game was appended to {}.", p.display())?;
                }
                Err(e) => writeln!(self.err, "deepred: cannot write '{}': {e}", p.display())?,
            }
        }
        self.out.flush()?;
        self.err.flush()?;
        Ok(outcome)
    }
}

/// Plays one game: commands from `input`, board and messages to `out`, errors to `err`.
pub fn run(
    opts: &PlayOptions,
    mut input: impl BufRead,
    out: &mut impl Write,
    err: &mut impl Write,
) -> io::Result<PlayOutcome> {
    let humans = opts.humans;
    let auto_bottom = if humans == Humans::Black {
        Color::Black
    } else {
        Color::White
    };
    let (store, no_learn_reason) = match &opts.store {
        None => (None, Some("learning is off".to_string())),
        Some(p) => match Store::open(p) {
            Ok(s) => (Some(s), None),
            Err(e) => {
                writeln!(err, "deepred: {e}; learning is off for this game")?;
                err.flush()?;
                (
                    None,
                    Some("the experience store could not be opened".to_string()),
                )
            }
        },
    };
    let mut s = Session {
        opts,
        out,
        err,
        moves: Vec::new(),
        pos: opts.start.clone(),
        bottom: if opts.flip { !auto_bottom } else { auto_bottom },
        tt: TranspositionTable::new(opts.hash_mb.max(1)),
        shared: Shared::default(),
        store,
        no_learn_reason,
    };
    match humans {
        Humans::Both => writeln!(s.out, "Human against human.")?,
        _ => writeln!(
            s.out,
            "You play {} against {ENGINE} ({}).",
            color_name(if humans == Humans::White {
                Color::White
            } else {
                Color::Black
            }),
            opts.evaluator.name()
        )?,
    }
    match &s.store {
        Some(st) => writeln!(
            s.out,
            "Finished games are learned into {}.",
            st.path().display()
        )?,
        None => writeln!(s.out, "Learning is off.")?,
    }
    writeln!(s.out, "Type a move (e4, Nf3, O-O, e7e8q) or 'help'.")?;
    if let Some(e) = rule_ending(&opts.start, &[]) {
        s.show_board(None)?;
        writeln!(
            s.out,
            "The game is already over ({}): nothing to play.",
            e.termination()
        )?;
        return Ok(PlayOutcome {
            ending: Ending::Abandoned,
            start: opts.start.clone(),
            moves: Vec::new(),
            learned: None,
            pgn_written: false,
        });
    }
    s.show_board(None)?;
    let ending = loop {
        if let Some(e) = rule_ending(&opts.start, &s.moves) {
            break e;
        }
        if humans.is_human(s.pos.turn()) {
            if let Some(e) = s.human_turn(&mut input)? {
                break e;
            }
        } else if let Some(e) = s.engine_move()? {
            break e;
        }
    };
    s.finish(ending)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::parse_fen;

    fn pos(fen: &str) -> Chess {
        parse_fen(fen, false).unwrap()
    }

    fn uci_of(p: &Chess, text: &str) -> String {
        crate::search::uci_move(parse_move(p, text).unwrap(), false)
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
    fn endings_and_helpers() {
        let start = Chess::default();
        let g = crate::uci::parse_position("startpos moves f2f3 e7e5 g2g4 d8h4", false).unwrap();
        assert_eq!(
            rule_ending(&start, &g.moves),
            Some(Ending::Rules(GameResult::BlackWins, "checkmate"))
        );
        assert_eq!(rule_ending(&start, &[]), None);
        assert_eq!(
            Ending::Resigned(Color::White).result(),
            Some(GameResult::BlackWins)
        );
        assert_eq!(
            Ending::Resigned(Color::White).termination(),
            "Black won by resignation"
        );
        assert_eq!(Ending::Abandoned.result(), None);
        assert!(dead_draw(&pos("4k3/8/8/2n5/8/8/8/2B1K3 w - - 0 1")));
        assert!(!dead_draw(&pos("4k3/8/8/2n5/8/8/8/1BB1K3 w - - 0 1")));
        assert!(!dead_draw(&pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")));
        assert_eq!(human_score(35), "+0.35");
        assert_eq!(human_score(-120), "-1.20");
        assert_eq!(human_score(MATE - 5), "mate in 3");
        assert_eq!(human_score(-(MATE - 4)), "mated in 2");
        let d = pgn_date();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
        assert_eq!(legal_sans(&start).len(), 20);
        assert!(legal_sans(&start).contains(&"Nf3".to_string()));
    }

    #[test]
    fn board_orientation_and_marks() {
        use shakmaty::Square;
        let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let white = crate::uci::diagram_from(&p, Color::White, &[Square::E2, Square::E4]);
        let lines: Vec<&str> = white.lines().collect();
        assert_eq!(lines[1], " | r | n | b | q | k | b | n | r | 8");
        assert_eq!(lines[9], " |   |   |   |   |[P]|   |   |   | 4");
        assert_eq!(lines[13], " | P | P | P | P |[ ]| P | P | P | 2");
        assert_eq!(lines[17], "   a   b   c   d   e   f   g   h");
        let black = crate::uci::diagram_from(&p, Color::Black, &[]);
        let lines: Vec<&str> = black.lines().collect();
        assert_eq!(lines[1], " | R | N | B | K | Q | B | N | R | 1");
        assert_eq!(lines[7], " |   |   |   | P |   |   |   |   | 4");
        assert_eq!(lines[17], "   h   g   f   e   d   c   b   a");
        assert_eq!(
            crate::uci::diagram(&p),
            crate::uci::diagram_from(&p, Color::White, &[])
        );
    }

    #[test]
    fn a_scripted_human_game() {
        let opts = PlayOptions {
            humans: Humans::Both,
            ..Default::default()
        };
        let input = "f3\ne7e5\nbogus\ng4\nundo\nfen\ng4\nQh4#\n";
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let o = run(&opts, input.as_bytes(), &mut out, &mut err).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            o.ending,
            Ending::Rules(GameResult::BlackWins, "checkmate"),
            "{text}"
        );
        assert_eq!(o.moves.len(), 4);
        assert!(text.contains("'bogus' is neither a move nor a command"));
        assert!(text.contains("rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2"));
        assert!(text.contains("Result: 0-1 (Black won by checkmate)."));
        assert!(err.is_empty());
    }
}

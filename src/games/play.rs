//! `deepred play`: a human against Deep Red, or two humans against each other, in the terminal.
//!
//! Commands are read line by line from any [`BufRead`]; the board, prompts and messages go to one
//! [`Write`], errors (a store that cannot be opened or written, a PGN file that cannot be
//! appended) to another, so a whole game can be driven from a test. Moves are typed in SAN
//! (`Nf3`, `exd5`, `O-O`, `e8=Q`, with or without `+`/`#`) or UCI (`g1f3`, `e7e8q`); a move that
//! is illegal, ambiguous or not a move at all gets a message and the prompt again.
//!
//! A game ends by the rules ([`game_end`]), by resignation or by an agreed draw; it is then
//! learned into the experience store (source `play`) and appended to a PGN file when asked. A
//! game that is abandoned (`quit`, end of input) is neither learned nor written.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use shakmaty::{Chess, Color, Move, Position};

use crate::chess::display::diagram_from;
use crate::chess::fen::fen_of;
use crate::chess::notation::{MoveError, legal_sans, numbered_san, parse_move};
use crate::chess::pgn::{pgn_date, write_pgn};
use crate::chess::rules::{GameResult, game_end};
use crate::chess::score::{MATE, MATE_BOUND};
use crate::chess::zobrist::hash_of;
use crate::eval::Evaluator;
use crate::experience::book::book_move;
use crate::experience::records::GameRecord;
use crate::experience::store::{Learned, Store};
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchParams, SearchResult, Shared, search};

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
    game_end(start, moves).map(|e| Ending::Rules(e.result, e.reason.text()))
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
            diagram_from(&self.pos, self.bottom, &marked)
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
        let b = book_move(self.store.as_ref()?, &self.pos, self.opts.book_min_games)?;
        Some((
            b.mv,
            format!(
                "experience book: {} games, score {:.1}%",
                b.stats.games(),
                100.0 * b.stats.score_for(self.pos.turn())
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
                "fen" => writeln!(self.out, "{}", fen_of(&self.pos))?,
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
    use crate::chess::fen::parse_fen;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str) -> Chess {
        parse_fen(fen, false).unwrap()
    }

    #[test]
    fn endings_and_helpers() {
        let start = Chess::default();
        let fools_mate: Vec<Move> = ["f2f3", "e7e5", "g2g4", "d8h4"]
            .iter()
            .scan(start.clone(), |p, u| {
                let m = u.parse::<UciMove>().unwrap().to_move(p).unwrap();
                p.play_unchecked(m);
                Some(m)
            })
            .collect();
        assert_eq!(
            rule_ending(&start, &fools_mate),
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

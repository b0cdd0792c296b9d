//! A terminal game in progress: the board shown after every move, the human's commands and
//! moves, Deep Red's moves (book or search), takebacks, draw offers, and the end of the game
//! (learned and written as PGN).

use std::io::{self, BufRead, Write};

use shakmaty::{Chess, Color, Move, Position};

use super::game::{
    DRAW_ACCEPT_CP, ENGINE, Ending, PlayOptions, PlayOutcome, color_name, dead_draw, human_score,
};
use crate::chess::display::diagram_from;
use crate::chess::fen::fen_of;
use crate::chess::notation::{MoveError, legal_sans, numbered_san, parse_move};
use crate::chess::pgn::{pgn_date, write_pgn};
use crate::chess::zobrist::hash_of;
use crate::experience::records::GameRecord;
use crate::experience::store::{Learned, shown};
use crate::player::{LearnSettings, Player};
use crate::search::skill::Skill;
use crate::search::{SearchResult, Shared};

pub(super) const HELP: &str = "\
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

pub(super) struct Session<'a, W: Write, E: Write> {
    pub(super) opts: &'a PlayOptions,
    pub(super) out: &'a mut W,
    pub(super) err: &'a mut E,
    pub(super) moves: Vec<Move>,
    pub(super) pos: Chess,
    pub(super) bottom: Color,
    /// Deep Red: its evaluator, hash table and, when learning, search memory and root bias.
    pub(super) player: Player,
    pub(super) shared: Shared,
    /// Where finished games are learned (`learning`: the store could be opened).
    pub(super) settings: LearnSettings,
    /// Why the game will not be learned, when it will not.
    pub(super) no_learn_reason: Option<String>,
}

impl<W: Write, E: Write> Session<'_, W, E> {
    pub(super) fn replay(&mut self) {
        let mut pos = self.opts.start.clone();
        for &m in &self.moves {
            pos.play_unchecked(m);
        }
        self.pos = pos;
    }

    /// Keys of the positions before the current one (for repetitions in the search).
    pub(super) fn history(&self) -> Vec<u64> {
        let mut pos = self.opts.start.clone();
        let mut keys = Vec::with_capacity(self.moves.len());
        for &m in &self.moves {
            keys.push(hash_of(&pos));
            pos.play_unchecked(m);
        }
        keys
    }

    pub(super) fn play(&mut self, m: Move) -> io::Result<()> {
        let text = numbered_san(&self.pos, m);
        self.pos.play_unchecked(m);
        self.moves.push(m);
        self.show_board(Some(&text))
    }

    pub(super) fn last_move_text(&self) -> Option<String> {
        let last = *self.moves.last()?;
        let mut pos = self.opts.start.clone();
        for &m in &self.moves[..self.moves.len() - 1] {
            pos.play_unchecked(m);
        }
        Some(numbered_san(&pos, last))
    }

    pub(super) fn show_board(&mut self, last: Option<&str>) -> io::Result<()> {
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

    /// Searches the current position; `weak`: at the strength asked (`--elo`), for a move.
    pub(super) fn search_here(&mut self, weak: bool) -> SearchResult {
        let skill = match self.opts.elo {
            Some(elo) if weak => {
                let seed = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64)
                    ^ hash_of(&self.pos);
                let calibration =
                    crate::search::skill::Calibration::of(self.player.eval.kind().name());
                Skill::from_elo(elo, seed, calibration)
            }
            _ => None,
        };
        let (root, history) = (self.pos.clone(), self.history());
        let limits = self.opts.limits();
        self.player
            .think(&self.settings, &self.shared, root, history, limits, skill)
    }

    /// The best known move of the store (confidence-aware), when the position has enough games.
    pub(super) fn book_move(&self) -> Option<(Move, String)> {
        if !self.settings.learning {
            return None;
        }
        let (m, why) = self.player.book_move(&self.settings, &self.pos)?;
        Some((m, format!("experience book: {why}")))
    }

    /// Deep Red's move (from the book or the search). `Some` only if no move could be found.
    pub(super) fn engine_move(&mut self) -> io::Result<Option<Ending>> {
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
        let r = self.search_here(true);
        self.tell_notes()?;
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

    /// What the player has to say (the search memory read, or why not): errors to `err`.
    pub(super) fn tell_notes(&mut self) -> io::Result<()> {
        for note in self.player.take_notes() {
            match note.strip_prefix("error: ") {
                Some(e) => writeln!(self.err, "deepred: {e}")?,
                None => writeln!(self.out, "({note})")?,
            }
        }
        Ok(())
    }

    /// Takes back the human's last move (and the engine's reply after it). False if there is
    /// no human move to take back.
    pub(super) fn undo(&mut self) -> bool {
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
    /// The next line of input, trimmed; `None` at its end. Bytes that are not UTF-8 become
    /// U+FFFD, so such a line is answered as any unreadable move is, and the game goes on.
    pub(super) fn read_line(input: &mut impl BufRead) -> io::Result<Option<String>> {
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&line).trim().to_string()))
    }

    /// A draw offer by the side to move. `Some(ending)` when accepted (or abandoned at end of input).
    pub(super) fn offer_draw(&mut self, input: &mut impl BufRead) -> io::Result<Option<Ending>> {
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
            let r = self.search_here(false);
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

    pub(super) fn pgn_text(&self, ending: Option<&Ending>) -> String {
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
    pub(super) fn human_turn(&mut self, input: &mut impl BufRead) -> io::Result<Option<Ending>> {
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
                        "'{}' is neither a move nor a command (type 'help').",
                        typed(&line)
                    )?,
                    Err(MoveError::Illegal) => writeln!(
                        self.out,
                        "'{}' is not a legal move here (type 'moves' for the list).",
                        typed(&line)
                    )?,
                    Err(MoveError::Ambiguous(c)) => writeln!(
                        self.out,
                        "'{}' is ambiguous here: {} (say which).",
                        typed(&line),
                        c.join(", ")
                    )?,
                    Err(MoveError::NeedsPromotion(q)) => writeln!(
                        self.out,
                        "'{}' promotes a pawn: say to what, e.g. {q}.",
                        typed(&line)
                    )?,
                },
            }
            self.out.flush()?;
        }
    }

    pub(super) fn finish(&mut self, ending: Ending) -> io::Result<PlayOutcome> {
        let mut outcome = PlayOutcome {
            ending: ending.clone(),
            start: self.opts.start.clone(),
            moves: self.moves.clone(),
            learned: None,
            pgn_written: false,
            not_kept: None,
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
        if self.settings.learning {
            let mut game = GameRecord {
                source: crate::experience::source::PLAY.to_string(),
                white: h.player_name(Color::White),
                black: h.player_name(Color::Black),
                date: pgn_date(),
                result,
                start: self.opts.start.clone(),
                moves: self.moves.clone(),
                // Filled by the player with its searches' evaluations of the moves they chose.
                evals: Vec::new(),
            };
            let path = shown(&self.settings.store);
            match self.player.learn_game(&self.settings, &mut game, None) {
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
                    outcome.not_kept = Some(format!("the game could not be learned: {e}"));
                }
            }
        } else if let Some(why) = &self.no_learn_reason {
            writeln!(self.out, "The game was not learned ({why}).")?;
        }
        if let Some(p) = &self.opts.pgn {
            let text = self.pgn_text(Some(&ending));
            let written = crate::chess::pgn::append_pgn(p, &text);
            match written {
                Ok(()) => {
                    outcome.pgn_written = true;
                    writeln!(self.out, "The game was appended to {}.", p.display())?;
                }
                Err(e) => {
                    // The game is shown here instead, so that it is not lost.
                    writeln!(self.err, "deepred: cannot write '{}': {e}", p.display())?;
                    writeln!(self.out, "The game, which could not be written:\n{text}")?;
                    outcome.not_kept = Some(format!("cannot write '{}': {e}", p.display()));
                }
            }
        }
        self.out.flush()?;
        self.err.flush()?;
        Ok(outcome)
    }
}

/// What was typed, as it is said back: 40 characters at most, a control character as '?' (a
/// pasted file is not echoed whole).
fn typed(line: &str) -> String {
    let mut shown: String = line
        .chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if line.chars().nth(40).is_some() {
        shown.push_str("...");
    }
    shown
}

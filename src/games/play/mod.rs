//! `deepred play`: a human against Deep Red, or two humans against each other, in the terminal.
//!
//! Commands are read line by line from any [`BufRead`]; the board, prompts and messages go to one
//! [`Write`], errors (a store that cannot be opened or written, a PGN file that cannot be
//! appended) to another, so a whole game can be driven from a test. Moves are typed in SAN
//! (`Nf3`, `exd5`, `O-O`, `e8=Q`, with or without `+`/`#`) or UCI (`g1f3`, `e7e8q`); a move that
//! is illegal, ambiguous or not a move at all gets a message and the prompt again.
//!
//! A game ends by the rules ([`crate::chess::rules::game_end`]), by resignation or by an agreed
//! draw; it is then learned into the experience store (source `play`) and appended to a PGN file
//! when asked. A game that is abandoned (`quit`, end of input) is neither learned nor written.
//!
//! Files: `game` (who plays, limits, endings), `session` (a game in progress), this one (`run`).

mod game;
mod session;

use std::io::{self, BufRead, Write};

use shakmaty::{Color, Position};

use crate::experience::store::Store;
use crate::player::{LearnSettings, Player};
use crate::search::Shared;
use game::color_name;
pub use game::{
    DEFAULT_MOVETIME_MS, DRAW_ACCEPT_CP, ENGINE, Ending, HUMAN, Humans, PlayOptions, PlayOutcome,
    dead_draw, human_score, rule_ending,
};
use session::Session;

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
    // Learning needs a store that opens; the player reads its memory in the background.
    let (store, no_learn_reason) = match &opts.store {
        None => (None, Some("learning is off".to_string())),
        Some(p) => match Store::open(p) {
            Ok(_) => (Some(p.clone()), None),
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
    let mut settings = LearnSettings::new(store.clone().unwrap_or_default(), store.is_some());
    settings.bias.min_games = opts.book_min_games;
    let mut player = Player::with_evaluator(opts.evaluator.clone(), opts.hash_mb.max(1));
    player.prefetch_memory(&settings);
    let mut s = Session {
        opts,
        out,
        err,
        moves: Vec::new(),
        pos: opts.start.clone(),
        bottom: if opts.flip { !auto_bottom } else { auto_bottom },
        player,
        shared: Shared::default(),
        settings,
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
    match &store {
        Some(p) => writeln!(
            s.out,
            "Finished games are learned into {}.",
            crate::experience::store::shown(p)
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
            not_kept: None,
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
    use crate::chess::rules::GameResult;

    #[test]
    fn a_scripted_human_game() {
        let opts = PlayOptions {
            humans: Humans::Both,
            ..Default::default()
        };
        let pasted = "x".repeat(100_000);
        let input = format!("f3\ne7e5\nbogus\n{pasted}\nbo\x07gus\ng4\nundo\nfen\ng4\nQh4#\n");
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
        // A pasted page is said back cut short, a control character as '?'.
        let said = format!("'{}...' is neither a move nor a command", "x".repeat(40));
        assert!(text.contains(&said), "{}", &text[..text.len().min(2000)]);
        assert!(text.len() < 10_000, "the pasted line echoed whole");
        assert!(text.contains("'bo?gus' is neither a move nor a command"));
        assert!(text.contains("rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2"));
        assert!(text.contains("Result: 0-1 (Black won by checkmate)."));
        assert!(err.is_empty());
    }
}

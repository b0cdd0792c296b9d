//! Deep Red: a UCI chess engine with pluggable evaluators that learns from experience.

pub mod bench;
pub mod eval;
pub mod experience;
pub mod games;
pub mod perft;
pub mod search;
pub mod sts;
pub mod uci;

use shakmaty::{Chess, Position};

/// Every evaluator's view of `pos` (the `eval` command), White's point of view in pawns.
pub fn eval_report(pos: &Chess) -> String {
    let mut out = String::new();
    if pos.is_game_over() {
        out.push_str(&format!("game over: {:?}\n", pos.outcome()));
        return out;
    }
    let key = search::hash_of(pos);
    for name in eval::EVALUATOR_NAMES {
        match eval::by_name(name) {
            Ok(eval::Evaluator::Scalar(e)) => {
                let stm = e.evaluate(pos, key);
                let white = if pos.turn() == shakmaty::Color::White {
                    stm
                } else {
                    -stm
                };
                out.push_str(&format!(
                    "{name}: {:+.2} (White's view)\n",
                    f64::from(white) / 100.0
                ));
            }
            Ok(eval::Evaluator::Comparator(_)) => {
                out.push_str(&format!("{name}: comparator (no single-position score)\n"));
            }
            Err(e) => out.push_str(&format!("{name}: unavailable ({e})\n")),
        }
    }
    out
}

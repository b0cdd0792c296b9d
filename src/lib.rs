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
/// `ctx` says where the experience store is.
pub fn eval_report(pos: &Chess, ctx: &eval::EvalContext) -> String {
    let mut out = String::new();
    if pos.is_game_over() {
        out.push_str(&format!("game over: {:?}\n", pos.outcome()));
        return out;
    }
    let white_view = |stm: i32| {
        if pos.turn() == shakmaty::Color::White {
            stm
        } else {
            -stm
        }
    };
    let pst = eval::pst::evaluate(pos);
    out.push_str(&format!(
        "pst: {:+.2} (White's view)\n",
        f64::from(white_view(pst)) / 100.0
    ));
    // Experience: the record of the position in the store, read directly.
    let record = experience::store::Store::open_read_only(&ctx.experience_file)
        .and_then(|s| s.position_record(pos));
    match record {
        Ok((w, b, d)) if w + b + d > 0 => {
            let n = w + b + d;
            let white_score = (w as f64 + 0.5 * d as f64) / n as f64;
            let cp = eval::experience::ratio_to_cp(white_score);
            let used = if n >= u64::from(ctx.experience_min_games) {
                ""
            } else {
                "; too few games, search uses pst"
            };
            out.push_str(&format!(
                "experience: {:+.2} (White's view; {n} games: {w} won by White, {b} by Black, {d} drawn{used})\n",
                f64::from(cp) / 100.0
            ));
        }
        Ok(_) => out.push_str("experience: unknown position (search uses pst)\n"),
        Err(e) => out.push_str(&format!("experience: unavailable ({e})\n")),
    }
    out
}

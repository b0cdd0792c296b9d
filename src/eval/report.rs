//! The `eval` command's report: every evaluator's view of one position, for people.

use shakmaty::{Chess, Position};

use super::EvalContext;
use crate::chess::score::cp_from_expectation;
use crate::experience::store::Store;
use crate::nn::net::{Kind, NetFile};
use crate::nn::value::ValueNet;
use crate::nn::{DeepChess, DeepPink};

/// Every evaluator's view of `pos` (the `eval` command), White's point of view in pawns.
/// `ctx` says where the experience store is.
pub fn eval_report(pos: &Chess, ctx: &EvalContext) -> String {
    let mut out = String::new();
    // The rules' end in words (it was Rust's debug text); a position with moves left (kings
    // alone, fifty moves) is still shown to every evaluator.
    if let Some(end) = crate::chess::rules::game_end(pos, &[]) {
        out.push_str(&format!(
            "game over: {} ({})\n",
            end.result.as_pgn(),
            end.reason.text()
        ));
        if pos.legal_moves().is_empty() {
            return out;
        }
    }
    let white_view = |stm: i32| {
        if pos.turn() == shakmaty::Color::White {
            stm
        } else {
            -stm
        }
    };
    let pst = super::pst::evaluate(pos);
    out.push_str(&format!(
        "pst: {:+.2} (White's view)\n",
        f64::from(white_view(pst)) / 100.0
    ));
    // Experience: the record of the position in the store, read directly.
    let record = Store::open_read_only(&ctx.experience_file).and_then(|s| s.position_record(pos));
    match record {
        Ok((w, b, d)) if w + b + d > 0 => {
            let n = w + b + d;
            let white_score = (w as f64 + 0.5 * d as f64) / n as f64;
            let cp = cp_from_expectation(white_score);
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
    match net_for_report(Kind::DeepPink, ctx).and_then(|f| DeepPink::from_file(&f)) {
        Ok(net) => {
            let f = net.forward(pos);
            let cp = white_view(net.cp(f));
            out.push_str(&format!(
                "deeppink: {:+.2} (White's view, {cp:+} cp; f = {f:+.4} for the side to move; {})\n",
                f64::from(cp) / 100.0,
                net.description
            ));
        }
        Err(e) => out.push_str(&format!("deeppink: unavailable ({e})\n")),
    }
    match net_for_report(Kind::Learned, ctx).and_then(|f| ValueNet::from_file(&f)) {
        Ok(net) => {
            let cp = white_view(net.evaluate_cp(pos));
            out.push_str(&format!(
                "learned: {:+.2} (White's view, {cp:+} cp; {})\n",
                f64::from(cp) / 100.0,
                net.description
            ));
        }
        Err(e) => out.push_str(&format!("learned: unavailable ({e})\n")),
    }
    match net_for_report(Kind::DeepChess, ctx).and_then(|f| DeepChess::from_file(&f)) {
        Ok(net) => {
            let v = net.pos2vec(pos);
            let p_mirror = net.compare(&v, &net.pos2vec_mirror(pos));
            let p_start = net.compare(&v, &net.pos2vec(&Chess::default()));
            out.push_str(&format!(
                "deepchess: P(better for White than its colour mirror) = {p_mirror:.3} (~{:+.2} White's view); P(better for White than the start position) = {p_start:.3}; {}\n",
                f64::from(cp_from_expectation(f64::from(p_mirror))) / 100.0,
                net.description
            ));
        }
        Err(e) => out.push_str(&format!("deepchess: unavailable ({e})\n")),
    }
    out
}

/// The net the `eval` report uses for `kind`: `ctx.eval_file` when it is a net of that kind (or
/// cannot be read), else the newest promoted one, else the embedded one.
fn net_for_report(kind: Kind, ctx: &EvalContext) -> Result<NetFile, crate::nn::Error> {
    if let Some(f) = &ctx.eval_file {
        match NetFile::load(f, None) {
            Ok(n) if n.kind == kind => return Ok(n),
            Ok(_) => {}
            Err(e) => return Err(e),
        }
    }
    let auto = EvalContext {
        eval_file: None,
        ..ctx.clone()
    };
    NetFile::open(kind, &super::net_source(kind, &auto))
}

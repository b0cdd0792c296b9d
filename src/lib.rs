//! Deep Red: a UCI chess engine with pluggable evaluators that learns from experience.

pub mod chess;
pub mod eval;
pub mod experience;
pub mod games;
pub mod nn;

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
            let cp = chess::score::cp_from_expectation(white_score);
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
    match net_for_report(nn::net::Kind::DeepPink, ctx).and_then(|f| nn::DeepPink::from_file(&f)) {
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
    match net_for_report(nn::net::Kind::DeepChess, ctx).and_then(|f| nn::DeepChess::from_file(&f)) {
        Ok(net) => {
            let v = net.pos2vec(pos);
            let p_mirror = net.compare(&v, &net.pos2vec_mirror(pos));
            let p_start = net.compare(&v, &net.pos2vec(&Chess::default()));
            out.push_str(&format!(
                "deepchess: P(better for White than its colour mirror) = {p_mirror:.3} (~{:+.2} White's view); P(better for White than the start position) = {p_start:.3}; {}\n",
                f64::from(chess::score::cp_from_expectation(f64::from(p_mirror))) / 100.0,
                net.description
            ));
        }
        Err(e) => out.push_str(&format!("deepchess: unavailable ({e})\n")),
    }
    out
}

/// The net file the `eval` report uses for `kind`: `ctx.eval_file` when it is a net of that
/// kind (or cannot be read), else the default location.
fn net_for_report(
    kind: nn::net::Kind,
    ctx: &eval::EvalContext,
) -> Result<nn::net::NetFile, String> {
    if let Some(f) = &ctx.eval_file {
        match nn::net::NetFile::load(f, None) {
            Ok(n) if n.kind == kind => return Ok(n),
            Ok(_) => {}
            Err(e) => return Err(e),
        }
    }
    let path = nn::net::resolve(kind.name(), None)?;
    nn::net::NetFile::load(&path, Some(kind))
}

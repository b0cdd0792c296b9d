//! Won endings against a lone king played out by the search, both sides searching: the stronger
//! side must mate before the fifty-move rule, with the learned net (the default) and with pst.
//! Generation 8 once drew KBNK against pst that way (BENCHMARKS.md, "Mating a lone king").

use deepred::chess::fen::parse_fen;
use deepred::chess::notation::uci_move;
use deepred::chess::rules::{GameEnd, GameResult, Reason, game_end};
use deepred::chess::zobrist::hash_of;
use deepred::eval::{Evaluator, default_evaluator, pst_evaluator};
use deepred::search::tt::TranspositionTable;
use deepred::search::{Limits, SearchParams, Shared, search};
use shakmaty::{Move, Position};

/// Nodes a move: a fraction of a second, far less than a blitz game gives.
const NODES: u64 = 40_000;

/// Plays `fen` out with `evaluator` on both sides at `NODES` a move until the game ends by the
/// rules (`game_end`: mate, stalemate, insufficient material, fifty moves, repetition). Returns
/// how it ended and the moves played.
fn play_out(fen: &str, evaluator: &Evaluator) -> (GameEnd, Vec<Move>) {
    let start = parse_fen(fen, false).unwrap();
    let mut pos = start.clone();
    let mut history: Vec<u64> = Vec::new();
    let mut moves = Vec::new();
    let tt = TranspositionTable::new(16);
    loop {
        if let Some(end) = game_end(&start, &moves) {
            return (end, moves);
        }
        let mut limits = Limits::depth(100);
        limits.nodes = Some(NODES);
        let mut params = SearchParams::new(pos.clone(), limits);
        params.evaluator = evaluator.clone();
        params.history = history.clone();
        let r = search(&params, &Shared::default(), &tt);
        let m = r.best.expect("a legal move");
        history.push(hash_of(&pos));
        moves.push(m);
        pos.play_unchecked(m);
    }
}

fn mates(fen: &str) {
    for (name, evaluator) in [("learned", default_evaluator()), ("pst", pst_evaluator())] {
        let (end, moves) = play_out(fen, &evaluator);
        let text: Vec<String> = moves.iter().map(|&m| uci_move(m, false)).collect();
        assert_eq!(
            (end.result, end.reason),
            (GameResult::WhiteWins, Reason::Checkmate),
            "{name} from {fen}: {} after {} plies: {}",
            end.reason.text(),
            moves.len(),
            text.join(" ")
        );
    }
}

#[test]
fn queen_and_rook_mate_a_centralised_king() {
    mates("8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
    mates("8/8/8/3k4/8/8/8/KR6 w - - 0 1");
}

#[test]
fn two_bishops_mate() {
    mates("8/8/8/4k3/8/8/8/KBB5 w - - 0 1");
}

#[test]
fn bishop_and_knight_mate_in_the_right_corner() {
    // The light-squared bishop mates in a8 or h1; the king starts near the wrong corner (h8)
    // and must be driven along the edge.
    mates("7k/8/8/8/8/8/8/KBN5 w - - 0 1");
    // A dark-squared bishop, the king in the centre.
    mates("8/8/8/3k4/8/8/8/K1BN4 w - - 0 1");
}

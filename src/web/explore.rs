//! The explorer: what the experience store knows of a position, like an opening explorer, plus
//! what Deep Red's net thinks of it and which move Deep Red would play. Read-only: nothing
//! here writes the store.

use serde::Serialize;
use shakmaty::{Chess, Color, Move, Position};

use super::Error;
use crate::chess::fen::{fen_of, parse_fen};
use crate::chess::notation::{decode_move, parse_move, san_of, uci_move};
use crate::chess::score::MATE_BOUND;
use crate::chess::zobrist::hash_of;
use crate::eval::Evaluator;
use crate::experience::book::{book_move, ranked};
use crate::experience::store::Store;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchParams, Shared, search};

/// A position: a FEN (the start position when empty) and the moves played from it (UCI or SAN,
/// separated by spaces or commas).
#[derive(Clone)]
pub struct Walk {
    pub start: Chess,
    pub moves: Vec<Move>,
    pub position: Chess,
}

impl Walk {
    pub fn parse(fen: Option<&str>, moves: Option<&str>) -> Result<Walk, Error> {
        let fen = fen.map(str::trim).filter(|f| !f.is_empty());
        let start = match fen {
            Some(f) => parse_fen(f, false).map_err(|e| Error::BadRequest(format!("FEN: {e}")))?,
            None => Chess::default(),
        };
        // parse_fen takes Shredder castling as Chess960; the web app knows standard chess (its
        // links and PGN would name another game).
        if start.castles().mode() == shakmaty::CastlingMode::Chess960 {
            return Err(Error::BadRequest(
                "FEN: a Chess960 position (the web app knows standard chess)".into(),
            ));
        }
        let mut position = start.clone();
        let mut played = Vec::new();
        let words = moves.unwrap_or("");
        for (i, word) in words
            .split([' ', ','])
            // Move numbers between the moves (`1. e4 e5 2. Nf3`) are skipped; `0000` (UCI's
            // null move) is none, and is refused as a move.
            .filter(|w| {
                let n = w.trim_end_matches('.');
                !w.is_empty() && (n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()))
            })
            .enumerate()
        {
            let m = parse_move(&position, word)
                .map_err(|e| Error::BadRequest(format!("move {} '{word}': {e}", i + 1)))?;
            played.push(m);
            position.play_unchecked(m);
        }
        Ok(Walk {
            start,
            moves: played,
            position,
        })
    }
}

/// A move in both notations.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MoveName {
    pub uci: String,
    pub san: String,
}

impl MoveName {
    fn of(pos: &Chess, m: Move) -> MoveName {
        MoveName {
            uci: uci_move(m, false),
            san: san_of(pos, m),
        }
    }
}

/// A known move of the position and what came of it.
#[derive(Serialize, Debug)]
pub struct KnownMove {
    #[serde(flatten)]
    pub name: MoveName,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The mover's score, 0 to 1.
    pub score: f64,
    /// The book's confidence-aware score (lower bound of the 95% Wilson interval), 0 to 1.
    pub confidence: f64,
    /// The net's evaluation of the position after the move, centipawns from White's view
    /// (`None` when the move ends the game).
    pub net_after: Option<i32>,
}

/// The search memory's entry of the position.
#[derive(Serialize, Debug)]
pub struct Memory {
    #[serde(flatten)]
    pub name: Option<MoveName>,
    pub score: i32,
    pub depth: i32,
    pub learned: i32,
}

/// The book's move (what `ExperienceBook` plays).
#[derive(Serialize, Debug)]
pub struct Book {
    #[serde(flatten)]
    pub name: MoveName,
    pub games: u64,
    pub confidence: f64,
    pub position_games: u64,
}

/// Everything the explorer shows of one position.
#[derive(Serialize, Debug)]
pub struct Explored {
    pub fen: String,
    pub start_fen: String,
    /// The path from the start, in SAN and UCI.
    pub path: Vec<MoveName>,
    pub turn: &'static str,
    /// Legal moves by origin square: `{"e2": ["e3", "e4"], ...}` (the board's move input).
    pub dests: std::collections::BTreeMap<String, Vec<String>>,
    /// "checkmate", "stalemate", "insufficient material" or `None`.
    pub game_over: Option<&'static str>,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub moves: Vec<KnownMove>,
    pub memory: Option<Memory>,
    pub book: Option<Book>,
    /// The net's evaluation of this position, centipawns from White's view.
    pub net: Option<i32>,
    pub net_name: String,
}

/// Centipawns from White's view of a static evaluation (`None` for a game over).
fn static_eval(ev: &Evaluator, pos: &Chess) -> Option<i32> {
    if pos.is_game_over() {
        return None;
    }
    let Evaluator::Scalar(e) = ev else {
        return None;
    };
    let stm = e.evaluate(pos, hash_of(pos));
    Some(if pos.turn() == Color::White {
        stm
    } else {
        -stm
    })
}

fn game_over(pos: &Chess) -> Option<&'static str> {
    if pos.is_checkmate() {
        Some("checkmate")
    } else if pos.is_stalemate() {
        Some("stalemate")
    } else if pos.is_insufficient_material() {
        Some("insufficient material")
    } else {
        None
    }
}

/// The legal moves of `pos` by origin square, in UCI squares.
pub fn dests(pos: &Chess) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for m in pos.legal_moves() {
        let uci = uci_move(m, false);
        let to = uci[2..4].to_string();
        let list = out.entry(uci[..2].to_string()).or_default();
        if !list.contains(&to) {
            list.push(to);
        }
    }
    out
}

/// What the store and the net know of the walk's position.
pub fn explore(
    store: &Store,
    walk: &Walk,
    ev: &Evaluator,
    min_games: u32,
) -> Result<Explored, Error> {
    let pos = &walk.position;
    let turn = pos.turn();
    let mut path = Vec::with_capacity(walk.moves.len());
    let mut p = walk.start.clone();
    for &m in &walk.moves {
        path.push(MoveName::of(&p, m));
        p.play_unchecked(m);
    }
    let known = ranked(store, pos)?;
    let moves: Vec<KnownMove> = known
        .into_iter()
        .map(|k| {
            let mut after = pos.clone();
            after.play_unchecked(k.mv);
            KnownMove {
                name: MoveName::of(pos, k.mv),
                games: k.stats.games(),
                white: k.stats.white_wins,
                draws: k.stats.draws,
                black: k.stats.black_wins,
                score: k.stats.score_for(turn),
                confidence: k.stats.confidence_score(turn),
                net_after: static_eval(ev, &after),
            }
        })
        .collect();
    let memory = store.memory_of(hash_of(pos))?.map(|r| Memory {
        name: decode_move(pos, r.mv).map(|m| MoveName::of(pos, m)),
        score: r.score,
        depth: r.depth,
        learned: r.learned,
    });
    let book = book_move(store, pos, min_games).map(|b| Book {
        name: MoveName::of(pos, b.mv),
        games: b.stats.games(),
        confidence: b.stats.confidence_score(turn),
        position_games: b.position_games,
    });
    Ok(Explored {
        fen: fen_of(pos),
        start_fen: fen_of(&walk.start),
        path,
        turn: if turn == Color::White {
            "white"
        } else {
            "black"
        },
        dests: dests(pos),
        game_over: game_over(pos),
        games: moves.iter().map(|m| m.games).sum(),
        white: moves.iter().map(|m| m.white).sum(),
        draws: moves.iter().map(|m| m.draws).sum(),
        black: moves.iter().map(|m| m.black).sum(),
        moves,
        memory,
        book,
        net: static_eval(ev, pos),
        net_name: ev.description().unwrap_or_else(|| ev.name().to_string()),
    })
}

/// Which move Deep Red would play, and why.
#[derive(Serialize, Debug)]
pub struct Choice {
    #[serde(flatten)]
    pub name: MoveName,
    /// "book" (the store's record, as `ExperienceBook` plays) or "search".
    pub source: &'static str,
    pub why: String,
    /// The search's score in centipawns for the side to move (mates: `None`, see `mate`).
    pub score: Option<i32>,
    /// Moves to mate (negative: mated), when the search found one.
    pub mate: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<String>,
}

/// The book's move when the store knows the position well enough (at least `min_games`
/// games), else `None`: then [`search_choice`] answers.
pub fn book_choice(store: &Store, walk: &Walk, min_games: u32) -> Option<Choice> {
    let pos = &walk.position;
    if let Some(b) = book_move(store, pos, min_games) {
        let turn = pos.turn();
        return Some(Choice {
            name: MoveName::of(pos, b.mv),
            source: "book",
            why: format!(
                "the store's best move by confidence: {} games, score {:.1}%, confidence {:.1}% ({} games in this position, at least {min_games} needed)",
                b.stats.games(),
                100.0 * b.stats.score_for(turn),
                100.0 * b.stats.confidence_score(turn),
                b.position_games
            ),
            score: None,
            mate: None,
            depth: 0,
            nodes: 0,
            pv: vec![],
        });
    }
    None
}

/// Deep Red's move by a search of `nodes` nodes with `ev` (no search memory: the explorer
/// reads, it does not learn), where the store has no book move ([`book_choice`]); it reads no
/// store, so the explorer's other requests go on meanwhile.
pub fn search_choice(
    walk: &Walk,
    ev: &Evaluator,
    min_games: u32,
    nodes: u64,
) -> Result<Option<Choice>, Error> {
    let pos = &walk.position;
    if pos.legal_moves().is_empty() {
        return Ok(None);
    }
    let mut params = SearchParams::new(
        pos.clone(),
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        },
    );
    params.evaluator = ev.clone();
    let mut p = walk.start.clone();
    params.history = vec![hash_of(&p)];
    for &m in &walk.moves {
        p.play_unchecked(m);
        params.history.push(hash_of(&p));
    }
    params.history.pop();
    let tt = TranspositionTable::new(16);
    let r = search(&params, &Shared::default(), &tt);
    let Some(best) = r.best else {
        return Ok(None);
    };
    let mate = (r.score.abs() >= MATE_BOUND).then(|| {
        let plies = crate::chess::score::MATE - r.score.abs();
        (plies + 1) / 2 * r.score.signum()
    });
    let mut pv = Vec::new();
    let mut q = pos.clone();
    for m in r.lines.first().map(|l| l.pv.as_slice()).unwrap_or(&[]) {
        if !q.is_legal(*m) {
            break;
        }
        pv.push(san_of(&q, *m));
        q.play_unchecked(*m);
    }
    Ok(Some(Choice {
        name: MoveName::of(pos, best),
        source: "search",
        why: format!(
            "a search of {} nodes to depth {} with {} (the store knows fewer than {min_games} games here)",
            r.nodes,
            r.depth,
            ev.name()
        ),
        score: mate.is_none().then_some(r.score),
        mate,
        depth: r.depth,
        nodes: r.nodes,
        pv,
    }))
}

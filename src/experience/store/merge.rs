//! Merging stores (`deepred experience merge A B --into C`, any backend to any backend) and
//! reading the learned games back (`export --pgn`).
//!
//! A merge adds a source's counts to the target's in one transaction. A game known to both
//! stores (the same content hash) is in both counts: its rows are taken off once, replayed from
//! the moves either store kept (schema version 4 keeps them; a shared game learned before by
//! both stores cannot be replayed and the merge is refused, nothing written). A source game
//! whose kept moves do not replay to its hash refuses the merge too.

use std::borrow::Cow;
use std::collections::HashMap;

use rusqlite::params;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position};

use super::tx::{CountRow, MemoryRow, StoredGame, merge_rows};
use super::write::result_counts;
use super::{Backend, Store, StoredRow};
use crate::chess::fen::{MAX_PIECES, parse_fen};
use crate::chess::notation::decode_move;
use crate::chess::rules::GameResult;
use crate::experience::Error;
use crate::experience::records::{GameRecord, decode_evals};

/// What a merge did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Games of the source.
    pub games: u64,
    /// Of those, games the target did not know.
    pub new_games: u64,
    /// Move rows of the source whose counts were added.
    pub rows: u64,
    /// Search memory rows of the source.
    pub memory_rows: u64,
}

/// The rows of `record` as a store with the row keys `keys` wrote them. A stored game keeps its
/// start as a FEN, which does not say whether the game was Chess960: a Chess960 start with its
/// king on e1 and rooks in the corners reads as standard chess too, with the same replay, and
/// its castling moves are then `e1g1` where the store wrote `e1h1` (a merge took the wrong
/// rows off and counted the shared game's castling rows again). Only the rows where the two
/// readings differ decide (a pruned store lacks late rows; another game may share a castling
/// row of one reading): the other reading is taken when more of its own rows are in the store.
fn rows_as_written(
    record: &GameRecord,
    keys: &std::collections::HashSet<(Color, &[u8], &str)>,
) -> Vec<crate::experience::records::MoveRow> {
    let rows = record.rows();
    // Without a castling move both readings write the same rows.
    if !record.moves.iter().any(|m| m.is_castle()) {
        return rows;
    }
    let other = match record.start.castles().mode() {
        CastlingMode::Standard => CastlingMode::Chess960,
        CastlingMode::Chess960 => CastlingMode::Standard,
    };
    let Ok(start) = Chess::from_setup(record.start.to_setup(EnPassantMode::Always), other)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
    else {
        return rows;
    };
    let again = GameRecord {
        start,
        ..record.clone()
    }
    .rows();
    // How many of `a`'s rows that `b` lacks are in the store.
    let own_known = |a: &[crate::experience::records::MoveRow],
                     b: &[crate::experience::records::MoveRow]| {
        let b: std::collections::HashSet<(&[u8], &str)> = b
            .iter()
            .map(|r| (r.parent.as_slice(), r.mv.as_str()))
            .collect();
        a.iter()
            .filter(|r| !b.contains(&(r.parent.as_slice(), r.mv.as_str())))
            .filter(|r| keys.contains(&(r.mover, r.parent.as_slice(), r.mv.as_str())))
            .count()
    };
    if own_known(&again, &rows) > own_known(&rows, &again) {
        again
    } else {
        rows
    }
}

/// The game a stored game row describes, if its moves were kept. A row whose start or moves
/// do not replay to its content hash (a corrupt row) is an error naming the store.
pub fn record_of(store: &std::path::Path, g: &StoredGame) -> Result<Option<GameRecord>, Error> {
    let Some(moves) = &g.moves else {
        return Ok(None);
    };
    let corrupt = |what: String| Error::CorruptGame {
        path: store.to_path_buf(),
        detail: what,
    };
    let result =
        GameResult::from_tag(&g.result).ok_or_else(|| corrupt(format!("result '{}'", g.result)))?;
    if moves.len() % 2 != 0 {
        return Err(corrupt(format!("{} bytes of move codes", moves.len())));
    }
    // A start with more pieces than a game has (a web or terminal game set it up before such
    // FENs were refused): no record, as for a game whose moves were not kept, rather than an
    // error that stops every export, merge and training run on the store.
    let pieces = |fen: &str| {
        let board = fen.split(' ').next().unwrap_or("");
        board.bytes().filter(u8::is_ascii_alphabetic).count()
    };
    if g.start.as_deref().is_some_and(|f| pieces(f) > MAX_PIECES) {
        return Ok(None);
    }
    // The start in standard castling notation, else as Chess960: the one whose replay has the
    // game's content hash.
    for chess960 in [false, true] {
        let start: Chess = match &g.start {
            None => Chess::default(),
            Some(fen) => match parse_fen(fen, chess960) {
                Ok(p) => p,
                Err(_) => continue,
            },
        };
        let mut pos = start.clone();
        let mut played = Vec::with_capacity(moves.len() / 2);
        for code in moves.chunks_exact(2) {
            let Some(m) = decode_move(&pos, u16::from_le_bytes([code[0], code[1]])) else {
                break;
            };
            pos.play_unchecked(m);
            played.push(m);
        }
        let evals = decode_evals(g.evals.as_deref(), played.len());
        let record = GameRecord {
            source: g.source.clone(),
            white: g.white.clone(),
            black: g.black.clone(),
            date: g.date.clone(),
            result,
            start,
            moves: played,
            evals,
        };
        if record.moves.len() * 2 == moves.len() && record.content_hash()[..] == g.hash[..] {
            return Ok(Some(record));
        }
    }
    Err(corrupt(format!(
        "the game {} - {} ({}) does not replay to its content hash",
        g.white, g.black, g.date
    )))
}

impl Store {
    /// Every learned game, in the order learned.
    pub fn stored_games(&self) -> Result<Vec<StoredGame>, Error> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let page = self.games_after(after, 10_000)?;
            let Some(&(last, _)) = page.last() else {
                return Ok(out);
            };
            after = last;
            out.extend(page.into_iter().map(|(_, g)| g));
        }
    }

    /// Up to `limit` learned games with an id above `after`, in the order learned, with their
    /// ids (rising).
    pub fn games_after(&self, after: i64, limit: usize) -> Result<Vec<(i64, StoredGame)>, Error> {
        let evals = self.column("evals", 5);
        let conn = sqlite_or!(self, pg => pg.games_after(after, limit, evals));
        let e = |err| Error::sqlite(&self.path, err);
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT hash, source, white, black, result, date, plies, rows, learned_at, start,
                     moves, {evals}, id FROM games WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))
            .map_err(e)?;
        let rows = stmt
            .query_map(params![after, limit as i64], |r| {
                Ok((
                    r.get(12)?,
                    StoredGame {
                        hash: r.get(0)?,
                        source: r.get(1)?,
                        white: r.get(2)?,
                        black: r.get(3)?,
                        result: r.get(4)?,
                        date: r.get(5)?,
                        plies: r.get(6)?,
                        rows: r.get(7)?,
                        learned_at: r.get(8)?,
                        start: r.get(9)?,
                        moves: r.get(10)?,
                        evals: r.get(11)?,
                    },
                ))
            })
            .map_err(e)?;
        rows.collect::<Result<_, _>>().map_err(e)
    }

    /// The id after which the latest `n` games lie (0: every game is among them).
    pub fn window_start(&self, n: u64) -> Result<i64, Error> {
        // A window past i64 holds every game (as i64, 2^63 and more were negative offsets).
        let n = n.min(i64::MAX as u64);
        let sql = "SELECT coalesce((SELECT id FROM games ORDER BY id DESC LIMIT 1 OFFSET ?1), 0)";
        let conn =
            sqlite_or!(self, pg => pg.count(&sql.replace("?1", &n.to_string())).map(|v| v as i64));
        conn.query_row(sql, [n as i64], |r| r.get(0))
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// How many learned games have this source and White player (the learning loop counts
    /// the games of each net this way).
    pub fn count_games(&self, source: &str, white: &str) -> Result<u64, Error> {
        let sql = "SELECT count(*) FROM games WHERE source = ?1 AND white = ?2";
        let conn = sqlite_or!(self, pg => pg.count_games(&sql.replace("?1", "$1").replace("?2", "$2"), source, white));
        conn.query_row(sql, [source, white], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// The id of the last learned game (0 for none).
    pub fn last_game_id(&self) -> Result<i64, Error> {
        let conn = sqlite_or!(self, pg => pg.count("SELECT coalesce(max(id), 0) FROM games").map(|n| n as i64));
        conn.query_row("SELECT coalesce(max(id), 0) FROM games", [], |r| r.get(0))
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// Every search memory row with its update count.
    pub fn memory_rows_with_updates(&self) -> Result<Vec<MemoryRow>, Error> {
        let conn = sqlite_or!(self, pg => pg.memory_rows_with_updates());
        let e = |err| Error::sqlite(&self.path, err);
        let mut stmt = conn
            .prepare("SELECT key, mv, score, depth, learned, updates FROM search_memory")
            .map_err(e)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(MemoryRow {
                    entry: crate::experience::memory::Remembered {
                        key: r.get::<_, i64>(0)? as u64,
                        mv: r.get::<_, i64>(1)? as u16,
                        score: r.get(2)?,
                        depth: r.get(3)?,
                        learned: r.get(4)?,
                    },
                    updates: r.get(5)?,
                })
            })
            .map_err(e)?;
        rows.collect::<Result<_, _>>().map_err(e)
    }

    /// Adds everything `source` knows to this store, in one transaction: its games (a game
    /// this store knows is counted once), its move counts, its search memory (the deeper search
    /// of a position wins; what results taught comes from the row updated more often) and its
    /// pruned counts.
    pub fn merge_from(&mut self, source: &Store) -> Result<Merged, Error> {
        let games = source.stored_games()?;
        let stored: Vec<(Color, StoredRow)> = [Color::White, Color::Black]
            .into_iter()
            .map(|mover| Ok(source.all_rows(mover)?.into_iter().map(move |r| (mover, r))))
            .collect::<Result<Vec<_>, Error>>()?
            .into_iter()
            .flatten()
            .collect();
        let memory = source.memory_rows_with_updates()?;
        let pruned = source.pruned_counts()?.map(|n| n as i64);
        let source_path = source.path().to_path_buf();
        // A game whose moves do not replay to its content hash (a corrupt row) is not copied:
        // the merge is refused before anything is written, naming the source.
        // Each replay is kept for the shared games below (a replay is the merge's costliest
        // step per game).
        let records = games
            .iter()
            .map(|g| record_of(&source_path, g))
            .collect::<Result<Vec<_>, Error>>()?;
        let target_path = self.path.clone();
        // The source's row keys: a shared game's castling rows are taken off as the source
        // wrote them (see [`rows_as_written`]).
        let keys: std::collections::HashSet<(Color, &[u8], &str)> = stored
            .iter()
            .map(|(mover, (parent, mv, ..))| (*mover, parent.as_slice(), mv.as_str()))
            .collect();
        self.write(|tx| {
            let inserted = tx.insert_games(&games)?;
            // The rows of the games both stores know, to take off the source's counts.
            let mut shared: HashMap<(Color, Vec<u8>, String), [i64; 3]> = HashMap::new();
            let mut new_games = 0;
            for ((g, new), record) in games.iter().zip(&inserted).zip(&records) {
                if *new {
                    new_games += 1;
                    continue;
                }
                let record = match record {
                    Some(r) => Some(Cow::Borrowed(r)),
                    None => match tx.game_moves(&g.hash)? {
                        Some((start, moves, evals)) => record_of(
                            &target_path,
                            &StoredGame {
                                start,
                                moves: Some(moves),
                                evals,
                                ..g.clone()
                            },
                        )?
                        .map(Cow::Owned),
                        None => None,
                    },
                };
                let Some(record) = record else {
                    return Err(Error::MergeWithoutMoves {
                        from: source_path.clone(),
                        into: target_path.clone(),
                        game: format!("{} - {} ({})", g.white, g.black, g.date),
                    });
                };
                let counts = result_counts(record.result);
                for r in rows_as_written(&record, &keys) {
                    let c = shared.entry((r.mover, r.parent, r.mv)).or_default();
                    for (c, add) in c.iter_mut().zip(counts) {
                        *c += add;
                    }
                }
            }
            let mut add = Vec::with_capacity(stored.len());
            for (mover, (parent, mv, child, w, b, d)) in &stored {
                let mut r = CountRow {
                    mover: *mover,
                    parent,
                    mv,
                    child,
                    counts: [*w as i64, *b as i64, *d as i64],
                };
                // (Most merges share no game: no key to build then.)
                let sub = if shared.is_empty() {
                    None
                } else {
                    shared.get(&(r.mover, parent.clone(), mv.clone()))
                };
                if let Some(sub) = sub {
                    // A pruned source may have lost some of a shared game's rows: never below 0.
                    for (c, s) in r.counts.iter_mut().zip(sub) {
                        *c = (*c - s).max(0);
                    }
                }
                if r.counts != [0; 3] {
                    add.push(r);
                }
            }
            let added = add.len() as u64;
            tx.add_counts(&merge_rows(add))?;
            let mut memory = memory.clone();
            memory.sort_by_key(|m| m.entry.key);
            tx.merge_memory(&memory)?;
            if pruned != [0; 3] {
                tx.add_pruned(pruned)?;
            }
            Ok(Merged {
                games: games.len() as u64,
                new_games,
                rows: added,
                memory_rows: memory.len() as u64,
            })
        })
    }
}

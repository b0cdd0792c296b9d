//! Writing: learning games, whole games per transaction, and the checkpoints of bulk imports.

use shakmaty::{CastlingMode, Chess, Position};

use super::tx::{CountRow, StoredGame, Tx, merge_rows};
use super::{Backend, Learned, Store};
use crate::chess::fen::fen_of;
use crate::chess::notation::encode_move;
use crate::chess::rules::GameResult;
use crate::experience::Error;
use crate::experience::records::{GameRecord, MoveRow, encode_evals};

impl Store {
    /// For bulk imports: let the write-ahead log grow to about `bytes` before it is copied back
    /// into the database (fewer, larger checkpoints); `None`: SQLite's default (1000 pages).
    /// `checkpoint` ends the bulk phase. (SQLite only: a server manages its own log.)
    pub fn set_autocheckpoint(&self, bytes: Option<u64>) -> Result<(), Error> {
        match &self.backend {
            Backend::Sqlite(conn) => {
                let e = |err| Error::sqlite(&self.path, err);
                let pages = match bytes {
                    Some(b) => {
                        let page: i64 = conn
                            .pragma_query_value(None, "page_size", |r| r.get(0))
                            .map_err(e)?;
                        i64::try_from(b / page.max(512) as u64)
                            .unwrap_or(i64::MAX)
                            .max(1)
                    }
                    None => 1000i64,
                };
                conn.pragma_update(None, "wal_autocheckpoint", pages)
                    .map_err(e)
            }
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Copies the write-ahead log back into the database file and truncates it.
    pub fn checkpoint(&self) -> Result<(), Error> {
        match &self.backend {
            Backend::Sqlite(conn) => conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .map_err(|e| Error::sqlite(&self.path, e)),
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Learns `games` in one transaction (whole games only). Returns what happened to each.
    /// On error nothing of the batch is written.
    pub fn learn(&mut self, games: &[(GameRecord, Vec<MoveRow>)]) -> Result<Vec<Learned>, Error> {
        self.write(|tx| learn_in(tx, games))
    }

    /// Learns one game (its own transaction).
    pub fn learn_game(&mut self, game: GameRecord) -> Result<Learned, Error> {
        let rows = game.rows();
        Ok(self.learn(&[(game, rows)])?[0])
    }

    /// Learns one game whose win/draw/loss counts cover only its first `plies` plies (`None`:
    /// all of them), so that the store grows by a game rather than a row per position.
    pub fn learn_first_plies(
        &mut self,
        game: &GameRecord,
        plies: Option<usize>,
    ) -> Result<Learned, Error> {
        let rows = game.rows_first(plies.unwrap_or(usize::MAX));
        Ok(self.learn(&[(game.clone(), rows)])?[0])
    }
}

/// The game row of a record: its tags, content hash, start and moves.
pub(super) fn stored_game(g: &GameRecord, rows: usize) -> StoredGame {
    // Two bytes a move: the codes the search memory uses.
    let moves: Vec<u8> = g
        .moves
        .iter()
        .flat_map(|m| encode_move(m).to_le_bytes())
        .collect();
    StoredGame {
        hash: g.content_hash().to_vec(),
        source: g.source.clone(),
        white: g.white.clone(),
        black: g.black.clone(),
        result: g.result.as_pgn().to_string(),
        date: g.date.clone(),
        plies: g.moves.len() as i64,
        rows: rows as i64,
        learned_at: None,
        start: (g.start != Chess::default() || g.start.castles().mode() == CastlingMode::Chess960)
            .then(|| fen_of(&g.start)),
        moves: Some(moves),
        evals: encode_evals(&g.evals),
    }
}

/// The counts a game adds to its rows.
pub(super) fn result_counts(result: GameResult) -> [i64; 3] {
    match result {
        GameResult::WhiteWins => [1, 0, 0],
        GameResult::BlackWins => [0, 1, 0],
        GameResult::Draw => [0, 0, 1],
    }
}

/// The work of [`Store::learn`] inside the caller's transaction.
pub(super) fn learn_in(
    tx: &mut dyn Tx,
    games: &[(GameRecord, Vec<MoveRow>)],
) -> Result<Vec<Learned>, Error> {
    let records: Vec<StoredGame> = games
        .iter()
        .map(|(g, rows)| stored_game(g, rows.len()))
        .collect();
    let inserted = tx.insert_games(&records)?;
    let mut out = Vec::with_capacity(games.len());
    // Rows of the new games, sorted by key (B-tree locality, one lock order) and merged: the
    // same (position, move) from several games of the batch becomes one upsert.
    let mut rows = Vec::new();
    for ((g, game_rows), new) in games.iter().zip(inserted) {
        if !new {
            out.push(Learned::AlreadyKnown);
            continue;
        }
        let counts = result_counts(g.result);
        rows.extend(game_rows.iter().map(|r| CountRow {
            mover: r.mover,
            parent: &r.parent,
            mv: &r.mv,
            child: &r.child,
            counts,
        }));
        out.push(Learned::New {
            rows: game_rows.len(),
        });
    }
    tx.add_counts(&merge_rows(rows))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experience::records::test_game;
    use shakmaty::Chess;

    fn temp(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!(
            "deepred-store-{}-{name}.sqlite",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn learns_counts_and_dedupes_games() {
        let path = temp("learn");
        let mut s = Store::open(&path).unwrap();
        let g = test_game(&["e2e4", "e7e5", "g1f3"], GameResult::WhiteWins);
        assert_eq!(s.learn_game(g.clone()).unwrap(), Learned::New { rows: 3 });
        assert_eq!(s.learn_game(g).unwrap(), Learned::AlreadyKnown);
        s.learn_game(test_game(&["e2e4", "c7c5"], GameResult::Draw))
            .unwrap();
        s.learn_game(test_game(&["d2d4"], GameResult::BlackWins))
            .unwrap();
        let start = s.moves_from(&Chess::default()).unwrap();
        assert_eq!(start.len(), 2);
        assert_eq!(start[0].mv, "e2e4");
        assert_eq!(
            (start[0].white_wins, start[0].black_wins, start[0].draws),
            (1, 0, 1)
        );
        assert_eq!(
            (start[1].white_wins, start[1].black_wins, start[1].draws),
            (0, 1, 0)
        );
        let st = s.stats().unwrap();
        assert_eq!((st.games, st.white_rows, st.black_rows), (3, 3, 2));
        // Parents: the start, after 1.e4, after 1.e4 e5.
        assert_eq!(st.positions, 3);
        drop(s);
        let _ = std::fs::remove_file(&path);
    }
}

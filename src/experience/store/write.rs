//! Writing: learning games, whole games per transaction, and the checkpoints of bulk imports.

use rusqlite::{OptionalExtension, params};
use shakmaty::Color;

use super::{Learned, Store};
use crate::chess::rules::GameResult;
use crate::experience::Error;
use crate::experience::records::{GameRecord, MoveRow};

/// One row of a batch on its way to an upsert.
struct MergedRow<'a> {
    mover: u8,
    parent: &'a [u8],
    mv: &'a [u8],
    child: &'a [u8],
    counts: [i64; 3],
}

impl Store {
    /// For bulk imports: let the write-ahead log grow to `pages` pages before it is copied back
    /// into the database (fewer, larger checkpoints). `checkpoint` ends the bulk phase.
    pub fn set_autocheckpoint(&self, pages: u32) -> Result<(), Error> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", pages)
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// Copies the write-ahead log back into the database file and truncates it.
    pub fn checkpoint(&self) -> Result<(), Error> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// Learns `games` in one transaction (whole games only). Returns what happened to each.
    /// On error nothing of the batch is written.
    pub fn learn(&mut self, games: &[(GameRecord, Vec<MoveRow>)]) -> Result<Vec<Learned>, Error> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|err| Error::sqlite(&path, err))?;
        let out = learn_in(&tx, &path, games)?;
        tx.commit().map_err(|err| Error::sqlite(&path, err))?;
        Ok(out)
    }

    /// Learns one game (its own transaction).
    pub fn learn_game(&mut self, game: GameRecord) -> Result<Learned, Error> {
        let rows = game.rows();
        Ok(self.learn(&[(game, rows)])?[0])
    }
}

/// The work of [`Store::learn`] inside the caller's transaction `tx`.
pub(super) fn learn_in(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    games: &[(GameRecord, Vec<MoveRow>)],
) -> Result<Vec<Learned>, Error> {
    let e = |err| Error::sqlite(path, err);
    let mut out = Vec::with_capacity(games.len());
    let mut insert_game = tx
        .prepare_cached(
            "INSERT INTO games (hash, source, white, black, result, date, plies, rows, learned_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, strftime('%s','now'))
             ON CONFLICT (hash) DO NOTHING",
        )
        .map_err(e)?;
    let upsert = |t: &str| {
        format!(
            "INSERT INTO {t} (parent, mv, child, white_wins, black_wins, draws, id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (parent, mv) DO UPDATE SET
               white_wins = white_wins + excluded.white_wins,
               black_wins = black_wins + excluded.black_wins,
               draws = draws + excluded.draws"
        )
    };
    let mut up_white = tx.prepare_cached(&upsert("white_moves")).map_err(e)?;
    let mut up_black = tx.prepare_cached(&upsert("black_moves")).map_err(e)?;
    // The id a new row of each table gets (kept in meta; read inside the transaction,
    // so concurrent writers never hand out the same id).
    let mut next_id = [0i64; 2];
    for (i, t) in ["white_moves", "black_moves"].iter().enumerate() {
        let stored: Option<String> = tx
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [format!("next_id.{t}")],
                |r| r.get(0),
            )
            .optional()
            .map_err(e)?;
        next_id[i] = match stored.and_then(|v| v.parse().ok()) {
            Some(n) => n,
            None => tx
                .query_row(
                    &format!("SELECT coalesce(max(id), 0) + 1 FROM {t}"),
                    [],
                    |r| r.get(0),
                )
                .map_err(e)?,
        };
    }
    let first_id = next_id;
    // Rows of the new games, sorted by key (B-tree locality) and merged: the same
    // (position, move) from several games of the batch becomes one upsert.
    let mut merged: Vec<MergedRow<'_>> = Vec::new();
    for (g, rows) in games {
        let inserted = insert_game
            .execute(params![
                &g.content_hash()[..],
                g.source,
                g.white,
                g.black,
                g.result.as_pgn(),
                g.date,
                g.moves.len() as i64,
                rows.len() as i64
            ])
            .map_err(e)?;
        if inserted == 0 {
            out.push(Learned::AlreadyKnown);
            continue;
        }
        let counts = match g.result {
            GameResult::WhiteWins => [1, 0, 0],
            GameResult::BlackWins => [0, 1, 0],
            GameResult::Draw => [0, 0, 1],
        };
        merged.extend(rows.iter().map(|r| MergedRow {
            mover: r.mover as u8,
            parent: &r.parent,
            mv: r.mv.as_bytes(),
            child: &r.child,
            counts,
        }));
        out.push(Learned::New { rows: rows.len() });
    }
    merged.sort_unstable_by(|a, b| (a.mover, a.parent, a.mv).cmp(&(b.mover, b.parent, b.mv)));
    let mut i = 0;
    while i < merged.len() {
        let first = &merged[i];
        let mut counts = first.counts;
        let mut j = i + 1;
        while j < merged.len()
            && (merged[j].mover, merged[j].parent, merged[j].mv)
                == (first.mover, first.parent, first.mv)
        {
            for (c, add) in counts.iter_mut().zip(merged[j].counts) {
                *c += add;
            }
            j += 1;
        }
        let side = usize::from(first.mover != Color::White as u8);
        let stmt = if side == 0 {
            &mut up_white
        } else {
            &mut up_black
        };
        let mv = std::str::from_utf8(first.mv).unwrap_or_default();
        // The candidate id is used only if the row is new; it is consumed either way
        // (asking SQLite which case it was, with RETURNING, costs more than the whole
        // rest of the upsert), so ids are unique and increasing but not contiguous.
        stmt.execute(params![
            first.parent,
            mv,
            first.child,
            counts[0],
            counts[1],
            counts[2],
            next_id[side]
        ])
        .map_err(e)?;
        next_id[side] += 1;
        i = j;
    }
    for (i, t) in ["white_moves", "black_moves"].iter().enumerate() {
        if next_id[i] != first_id[i] {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                [format!("next_id.{t}"), next_id[i].to_string()],
            )
            .map_err(e)?;
        }
    }
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

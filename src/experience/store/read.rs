//! Reading: the known moves of a position, position records, counts and consistency checks.

use std::path::PathBuf;

use shakmaty::{Chess, Color, Position};

use super::{Backend, RESULT_COLUMNS, Stats, Store, StoredRow, table};
use crate::experience::Error;
use crate::experience::codec::{compact_key, decode_key};
use crate::experience::records::{MoveStats, Record};

impl Store {
    /// Known moves from `pos`, most played first.
    pub fn moves_from(&self, pos: &Chess) -> Result<Vec<MoveStats>, Error> {
        let sql = format!(
            "SELECT mv, child, white_wins, black_wins, draws FROM {} WHERE parent = ?1
             ORDER BY white_wins + black_wins + draws DESC, mv",
            table(pos.turn())
        );
        let conn = sqlite_or!(self, pg => pg.moves_from(pos));
        let mut stmt = conn
            .prepare_cached(&sql)
            .map_err(|e| Error::sqlite(&self.path, e))?;
        let rows = stmt
            .query_map([&compact_key(pos)[..]], |r| {
                Ok(MoveStats {
                    mv: r.get(0)?,
                    child: r.get(1)?,
                    white_wins: r.get::<_, i64>(2)? as u64,
                    black_wins: r.get::<_, i64>(3)? as u64,
                    draws: r.get::<_, i64>(4)? as u64,
                })
            })
            .map_err(|e| Error::sqlite(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// (white wins, black wins, draws) of the games that went on from `pos`.
    pub fn position_record(&self, pos: &Chess) -> Result<(u64, u64, u64), Error> {
        let moves = self.moves_from(pos)?;
        Ok(moves.iter().fold((0, 0, 0), |a, m| {
            (a.0 + m.white_wins, a.1 + m.black_wins, a.2 + m.draws)
        }))
    }

    /// Number of games learned.
    pub fn game_count(&self) -> Result<u64, Error> {
        let conn = sqlite_or!(self, pg => pg.count("SELECT count(*) FROM games"));
        conn.query_row("SELECT count(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    pub fn stats(&self) -> Result<Stats, Error> {
        let conn = sqlite_or!(self, pg => pg.stats());
        let count = |sql: &str| -> Result<u64, Error> {
            conn.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(|e| Error::sqlite(&self.path, e))
        };
        // The file SQLite opened (an SQLite URI names it in its own syntax).
        let file = conn.path().map_or_else(|| self.path.clone(), PathBuf::from);
        let wal = PathBuf::from(format!("{}-wal", file.display()));
        let file_bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0)
            + std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        Ok(Stats {
            games: count("SELECT count(*) FROM games")?,
            white_rows: count("SELECT count(*) FROM white_moves")?,
            black_rows: count("SELECT count(*) FROM black_moves")?,
            positions: count(
                "SELECT count(*) FROM (SELECT parent FROM white_moves UNION SELECT parent FROM black_moves)",
            )?,
            file_bytes,
        })
    }

    /// Every row of one table, for checks and export: (parent, mv, child, w, b, d).
    pub fn all_rows(&self, mover: Color) -> Result<Vec<StoredRow>, Error> {
        let sql = format!(
            "SELECT parent, mv, child, white_wins, black_wins, draws FROM {} ORDER BY id",
            table(mover)
        );
        let conn = sqlite_or!(self, pg => pg.all_rows(mover));
        let mut stmt = conn
            .prepare(&sql)
            .map_err(|e| Error::sqlite(&self.path, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get::<_, i64>(3)? as u64,
                    r.get::<_, i64>(4)? as u64,
                    r.get::<_, i64>(5)? as u64,
                ))
            })
            .map_err(|e| Error::sqlite(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// Calls `f(position, (white wins, black wins, draws))` for every known position, with the
    /// games that went on from it (summed over its moves).
    pub fn for_each_position(&self, mut f: impl FnMut(&Chess, Record)) -> Result<(), Error> {
        let conn = sqlite_or!(self, pg => pg.for_each_position(&mut f));
        for t in ["white_moves", "black_moves"] {
            let sql = format!(
                "SELECT parent, sum(white_wins), sum(black_wins), sum(draws) FROM {t} GROUP BY parent"
            );
            let mut stmt = conn
                .prepare(&sql)
                .map_err(|e| Error::sqlite(&self.path, e))?;
            let mut rows = stmt.query([]).map_err(|e| Error::sqlite(&self.path, e))?;
            while let Some(r) = rows.next().map_err(|e| Error::sqlite(&self.path, e))? {
                let key: Vec<u8> = r.get(0).map_err(|e| Error::sqlite(&self.path, e))?;
                let get = |i| {
                    r.get::<_, i64>(i)
                        .map(|v| v.clamp(0, i64::from(u32::MAX)) as u32)
                };
                let rec = (
                    get(1).map_err(|e| Error::sqlite(&self.path, e))?,
                    get(2).map_err(|e| Error::sqlite(&self.path, e))?,
                    get(3).map_err(|e| Error::sqlite(&self.path, e))?,
                );
                match decode_key(&key) {
                    Ok(pos) => f(&pos, rec),
                    Err(e) => {
                        return Err(Error::CorruptKey {
                            path: self.path.clone(),
                            source: Box::new(e),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Consistency of the store: for each result, the counts in the move tables must add up to
    /// the rows of the learned games with that result. Returns the three pairs
    /// ((counted in moves, expected from games) for 1-0, 0-1, draws).
    pub fn consistency(&self) -> Result<[(u64, u64); 3], Error> {
        let conn = sqlite_or!(self, pg => pg.consistency());
        let q = |sql: &str| -> Result<u64, Error> {
            conn.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(|e| Error::sqlite(&self.path, e))
        };
        let mut out = [(0, 0); 3];
        for (i, (col, res)) in RESULT_COLUMNS.iter().enumerate() {
            let moves = q(&format!(
                "SELECT (SELECT coalesce(sum({col}), 0) FROM white_moves) + (SELECT coalesce(sum({col}), 0) FROM black_moves)"
            ))?;
            let games = q(&format!(
                "SELECT coalesce(sum(rows), 0) FROM games WHERE result = '{res}'"
            ))?;
            out[i] = (moves, games);
        }
        Ok(out)
    }
}

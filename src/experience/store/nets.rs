//! The nets the learning loop promoted (`nets`, schema 5): each generation's net file, whole,
//! kept in the store so that every machine learning into it (a farm on one server) picks up the
//! newest one between games. Written once per generation; never changed. And what a running
//! loop is doing (`meta` key `learn_status`), for those who watch the store.

use rusqlite::OptionalExtension;

use super::{Backend, Store};
use crate::experience::Error;

/// A promoted net as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredNet {
    pub generation: i64,
    /// The evaluator it is for (`learned`).
    pub kind: String,
    pub parent: Option<i64>,
    /// Unix seconds.
    pub created_at: i64,
    /// The net file (safetensors).
    pub bytes: Vec<u8>,
}

impl Store {
    /// Keeps `net` as its generation's promoted net. False (nothing written) when that
    /// generation is already there: a promotion done twice, by two trainers or after a restart,
    /// keeps the first.
    pub fn publish_net(&mut self, net: &StoredNet) -> Result<bool, Error> {
        let (g, k, p, at) = (net.generation, &net.kind, net.parent, net.created_at);
        match &mut self.backend {
            Backend::Postgres(pg) => pg.publish_net(net),
            Backend::Sqlite(conn) => conn
                .execute(
                    "INSERT INTO nets (generation, kind, parent, created_at, bytes)
                     VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (generation) DO NOTHING",
                    rusqlite::params![g, k, p, at, net.bytes],
                )
                .map(|n| n > 0)
                .map_err(|e| Error::sqlite(&self.path, e)),
        }
    }

    /// The generation of the newest promoted net of `kind`, if there is one (a cheap question
    /// for players to ask between games).
    pub fn latest_net_generation(&self, kind: &str) -> Result<Option<i64>, Error> {
        if self.version < 5 {
            return Ok(None);
        }
        let sql = "SELECT max(generation) FROM nets WHERE kind = ?1";
        let conn = sqlite_or!(self, pg => pg.latest_net_generation(&sql.replace("?1", "$1"), kind));
        conn.query_row(sql, [kind], |r| r.get(0))
            .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// The promoted net of `generation`, if there is one.
    pub fn net(&self, generation: i64) -> Result<Option<StoredNet>, Error> {
        if self.version < 5 {
            return Ok(None);
        }
        let conn = sqlite_or!(self, pg => pg.net(generation));
        conn.query_row(
            "SELECT generation, kind, parent, created_at, bytes FROM nets WHERE generation = ?1",
            [generation],
            |r| {
                Ok(StoredNet {
                    generation: r.get(0)?,
                    kind: r.get(1)?,
                    parent: r.get(2)?,
                    created_at: r.get(3)?,
                    bytes: r.get(4)?,
                })
            },
        )
        .optional()
        .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// Says what a running `deepred learn` is doing (`line`, at Unix second `at`), for those who
    /// watch the store (`deepred web`); the last one wins.
    pub fn set_loop_status(&self, at: i64, line: &str) -> Result<(), Error> {
        let value = format!("{at}\t{line}");
        let conn = sqlite_or!(self, pg => pg.set_meta(LOOP_STATUS, &value));
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [LOOP_STATUS, &value],
        )
        .map(|_| ())
        .map_err(|e| Error::sqlite(&self.path, e))
    }

    /// The last thing a `deepred learn` on this store said, with its Unix second.
    pub fn loop_status(&self) -> Result<Option<(i64, String)>, Error> {
        let value: Option<String> = match &self.backend {
            Backend::Postgres(pg) => pg.meta(LOOP_STATUS)?,
            Backend::Sqlite(conn) => conn
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    [LOOP_STATUS],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| Error::sqlite(&self.path, e))?,
        };
        Ok(value.and_then(|v| {
            let (at, line) = v.split_once('\t')?;
            Some((at.parse().ok()?, line.to_string()))
        }))
    }
}

/// The `meta` key of [`Store::set_loop_status`].
const LOOP_STATUS: &str = "learn_status";

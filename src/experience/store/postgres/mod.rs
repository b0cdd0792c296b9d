//! The PostgreSQL backend: one experience store on a server that many machines learn into at
//! once (`postgresql://user[:password]@host[:port]/dbname`, the URL libpq takes; no TLS).
//!
//! The same schema idea as the SQLite file (schema version 4 from the start): `white_moves` and
//! `black_moves` keyed by (parent, move), ids from a sequence per table; `games` unique on the
//! content hash; `search_memory`; `meta`. Concurrency: each game is learned in one transaction
//! at READ COMMITTED; counts are added by `INSERT ... ON CONFLICT DO UPDATE SET n = n + ...`,
//! which locks the row and re-reads it, so concurrent updates add up and none is lost; a game
//! two writers learn at once is inserted by one, and the other waits for its commit and finds
//! it known (counted once). Rows are written in key order, so writers lock them in one order;
//! a transaction that still loses a deadlock is run again. Each batch is one statement per
//! table (arrays through `unnest`), not one round trip per row.
//!
//! Messages name the URL without its password.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use shakmaty::{Chess, Color, Position};

mod tx;

use super::tx::{MemoryRow, PRUNED_KEYS, StoredGame, Tx};
use super::{APPLICATION, Backend, RESULT_COLUMNS, SCHEMA_VERSION, Stats, Store, StoredRow, table};
use crate::experience::Error;
use crate::experience::codec::{compact_key, decode_key};
use crate::experience::memory::Remembered;
use crate::experience::records::{MoveStats, Record};
use tx::PgTx;

/// Key of the advisory lock that serialises creating the tables (two workers starting on an
/// empty database at once).
const SETUP_LOCK: i64 = 0x0064_6565_7072_6564;

/// How often a transaction that lost a deadlock or serialization conflict is tried again.
const RETRIES: usize = 20;

/// The URL with its password (in the user part or a `password=` parameter) replaced by `***`.
pub fn redact(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(scheme_end) = out.find("://") {
        let rest_start = scheme_end + 3;
        // The last '@' before the host: a password may hold a raw '/' or '?' (the client
        // reads it so), and the user part then runs past the first of them.
        if let Some(at) = out[rest_start..].rfind('@') {
            let userinfo = &out[rest_start..rest_start + at];
            if let Some(colon) = userinfo.find(':') {
                let from = rest_start + colon + 1;
                out.replace_range(from..rest_start + at, "***");
            }
        }
    }
    if let Some(q) = out.find('?') {
        let (head, query) = out.split_at(q + 1);
        let query: Vec<String> = query
            .split('&')
            .map(|kv| {
                let key = kv.split('=').next().unwrap_or_default();
                let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
                if kv.contains('=') && key.eq_ignore_ascii_case("password") {
                    "password=***".to_string()
                } else {
                    kv.to_string()
                }
            })
            .collect();
        out = format!("{head}{}", query.join("&"));
    }
    out
}

/// Connects and logs in, or says the server did not answer: the client's `connect_timeout`
/// covers only the socket's connection, and a server that takes it and then says nothing (a
/// stopped or overloaded one) held every command, and a UCI engine's `go`, for ever. The
/// connection runs on a thread of its own, left behind if it never ends.
fn connect_within(config: Config, path: &Path) -> Result<Result<Client, postgres::Error>, Error> {
    let limit = config
        .get_connect_timeout()
        .copied()
        .unwrap_or(Duration::from_secs(10))
        * 2;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("postgres-connect".into())
        .spawn(move || {
            let _ = tx.send(config.connect(NoTls));
        })
        .map_err(|e| Error::Connect {
            path: path.to_path_buf(),
            detail: format!("cannot start a thread: {e}"),
        })?;
    rx.recv_timeout(limit).map_err(|_| Error::Connect {
        path: path.to_path_buf(),
        detail: format!("the server did not answer within {} s", limit.as_secs_f64()),
    })
}

/// An open connection to the store's server.
pub struct PgStore {
    client: Mutex<Client>,
    path: PathBuf,
}

fn server_error(path: &Path, e: postgres::Error) -> Error {
    let code = e.code().map(|c| c.code().to_string());
    let detail = match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => e.to_string(),
    };
    Error::Server {
        path: path.to_path_buf(),
        detail,
        code,
    }
}

impl PgStore {
    /// Connects to the server at `url` and opens the store there: creates it in an empty
    /// database (unless `read_only`), refuses a database of another application or a newer
    /// schema, with the URL (no password) in every message.
    pub fn open(url: &Path, read_only: bool) -> Result<Store, Error> {
        let text = url.to_string_lossy().into_owned();
        let path = PathBuf::from(redact(&text));
        let mut config: Config = text.parse().map_err(|e: postgres::Error| Error::BadUrl {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("deepred");
        }
        let mut client = connect_within(config, &path)?.map_err(|e| {
            let detail = match e.as_db_error() {
                Some(db) => format!("{}: {}", db.severity(), db.message()),
                None => e.to_string(),
            };
            match e.code() {
                Some(c)
                    if *c == SqlState::INVALID_PASSWORD
                        || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
                {
                    Error::Credentials {
                        path: path.clone(),
                        detail,
                    }
                }
                _ => Error::Connect {
                    path: path.clone(),
                    detail,
                },
            }
        })?;
        let e = |err| server_error(&path, err);
        // Tables of this database's schema: refuse foreign ones before writing anything. From
        // the catalogue, which lists them whatever the user's rights (`information_schema`
        // hides the tables a user may not read: a store read without rights "did not exist").
        let tables: Vec<String> = client
            .query(
                "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
                &[],
            )
            .map_err(e)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let has_meta = tables.iter().any(|t| t == "meta");
        if !tables.is_empty() && !has_meta {
            return Err(Error::ForeignDatabase { path });
        }
        if has_meta {
            // Another application's `meta` table (tables of its own beside it) is refused
            // before the store's tables are made and its keys written into it.
            let application: Option<String> = client
                .query_opt("SELECT value FROM meta WHERE key = 'application'", &[])
                .map_err(e)?
                .and_then(|r| r.try_get(0).ok());
            if application.as_deref() != Some(APPLICATION) {
                return Err(Error::OtherApplication { path, application });
            }
        }
        if read_only {
            if !has_meta {
                return Err(Error::Missing { path });
            }
            client
                .batch_execute("SET default_transaction_read_only = on")
                .map_err(e)?;
        } else if !has_meta || !tables.iter().any(|t| t == "white_moves") {
            create(&mut client).map_err(e)?;
        }
        let pg = PgStore {
            client: Mutex::new(client),
            path: path.clone(),
        };
        let mut version = pg.check_meta()?;
        if version < SCHEMA_VERSION && !read_only {
            migrate(&mut pg.client()).map_err(e)?;
            version = SCHEMA_VERSION;
        }
        Ok(Store {
            backend: Backend::Postgres(Box::new(pg)),
            path,
            version,
        })
    }

    fn client(&self) -> MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn e(&self) -> impl Fn(postgres::Error) -> Error + '_ {
        |err| server_error(&self.path, err)
    }

    fn check_meta(&self) -> Result<i64, Error> {
        let mut client = self.client();
        let mut get = |k: &str| -> Result<Option<String>, Error> {
            client
                .query_opt("SELECT value FROM meta WHERE key = $1", &[&k])
                .map(|r| r.map(|r| r.get(0)))
                .map_err(self.e())
        };
        match get("application")? {
            Some(app) if app == APPLICATION => {}
            application => {
                return Err(Error::OtherApplication {
                    path: self.path.clone(),
                    application,
                });
            }
        }
        let version: i64 = get("schema_version")?
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| Error::NoSchemaVersion {
                path: self.path.clone(),
            })?;
        if version > SCHEMA_VERSION {
            return Err(Error::Newer {
                path: self.path.clone(),
                version,
            });
        }
        Ok(version)
    }

    /// See [`Store::write`].
    pub fn write<T>(
        &mut self,
        mut f: impl FnMut(&mut dyn Tx) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let path = self.path.clone();
        let client = self.client.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut attempt = 0;
        loop {
            let tx = client.transaction().map_err(|e| server_error(&path, e))?;
            let mut ptx = PgTx {
                tx,
                path: &path,
                memory_seq: None,
            };
            let result = f(&mut ptx).and_then(|out| {
                ptx.tx
                    .commit()
                    .map(|()| out)
                    .map_err(|e| server_error(&path, e))
            });
            match result {
                Err(Error::Server {
                    code: Some(ref c), ..
                }) if (c == SqlState::T_R_DEADLOCK_DETECTED.code()
                    || c == SqlState::T_R_SERIALIZATION_FAILURE.code())
                    && attempt < RETRIES =>
                {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(5 * attempt as u64));
                }
                other => return other,
            }
        }
    }

    pub fn count(&self, sql: &str) -> Result<u64, Error> {
        self.client()
            .query_one(sql, &[])
            .map(|r| r.get::<_, i64>(0) as u64)
            .map_err(self.e())
    }

    pub fn moves_from(&self, pos: &Chess) -> Result<Vec<MoveStats>, Error> {
        let sql = format!(
            "SELECT mv, child, white_wins, black_wins, draws FROM {} WHERE parent = $1
             ORDER BY white_wins + black_wins + draws DESC, mv",
            table(pos.turn())
        );
        let key = compact_key(pos).to_vec();
        let rows = self.client().query(&sql, &[&key]).map_err(self.e())?;
        Ok(rows
            .iter()
            .map(|r| MoveStats {
                mv: r.get(0),
                child: r.get(1),
                white_wins: r.get::<_, i64>(2) as u64,
                black_wins: r.get::<_, i64>(3) as u64,
                draws: r.get::<_, i64>(4) as u64,
            })
            .collect())
    }

    pub fn stats(&self) -> Result<Stats, Error> {
        Ok(Stats {
            games: self.count("SELECT count(*) FROM games")?,
            white_rows: self.count("SELECT count(*) FROM white_moves")?,
            black_rows: self.count("SELECT count(*) FROM black_moves")?,
            positions: self.count(
                "SELECT count(*) FROM (SELECT parent FROM white_moves UNION SELECT parent FROM black_moves) t",
            )?,
            file_bytes: self.count(
                "SELECT (pg_total_relation_size('white_moves') + pg_total_relation_size('black_moves')
                   + pg_total_relation_size('games') + pg_total_relation_size('search_memory')
                   + pg_total_relation_size('meta'))::bigint",
            )?,
        })
    }

    pub fn all_rows(&self, mover: Color) -> Result<Vec<StoredRow>, Error> {
        let sql = format!(
            "SELECT parent, mv, child, white_wins, black_wins, draws FROM {} ORDER BY id",
            table(mover)
        );
        let rows = self.client().query(&sql, &[]).map_err(self.e())?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    r.get(1),
                    r.get(2),
                    r.get::<_, i64>(3) as u64,
                    r.get::<_, i64>(4) as u64,
                    r.get::<_, i64>(5) as u64,
                )
            })
            .collect())
    }

    pub fn for_each_position(&self, f: &mut dyn FnMut(&Chess, Record)) -> Result<(), Error> {
        for t in ["white_moves", "black_moves"] {
            let sql = format!(
                "SELECT parent, sum(white_wins)::bigint, sum(black_wins)::bigint, sum(draws)::bigint
                 FROM {t} GROUP BY parent"
            );
            let rows = self.client().query(&sql, &[]).map_err(self.e())?;
            for r in rows {
                let key: Vec<u8> = r.get(0);
                let get = |i| r.get::<_, i64>(i).clamp(0, i64::from(u32::MAX)) as u32;
                let pos = decode_key(&key).map_err(|e| Error::CorruptKey {
                    path: self.path.clone(),
                    source: Box::new(e),
                })?;
                f(&pos, (get(1), get(2), get(3)));
            }
        }
        Ok(())
    }

    pub fn consistency(&self) -> Result<[(u64, u64); 3], Error> {
        let mut out = [(0, 0); 3];
        for (i, (col, res)) in RESULT_COLUMNS.iter().enumerate() {
            let moves = self.count(&format!(
                "SELECT ((SELECT coalesce(sum({col}), 0) FROM white_moves)
                        + (SELECT coalesce(sum({col}), 0) FROM black_moves))::bigint"
            ))?;
            let games = self.count(&format!(
                "SELECT coalesce(sum(rows), 0)::bigint FROM games WHERE result = '{res}'"
            ))?;
            out[i] = (moves, games);
        }
        Ok(out)
    }

    /// See [`Store::memory_rows_since`] (`sql` selects key, mv, score, depth, learned, seq
    /// above `$1`): streamed from the server with a portal, a batch at a time.
    pub fn memory_rows_since(
        &self,
        sql: &str,
        after: i64,
        mut f: impl FnMut(Remembered),
    ) -> Result<i64, Error> {
        let mut client = self.client();
        let mut tx = client.transaction().map_err(self.e())?;
        let portal = tx.bind(sql, &[&after]).map_err(self.e())?;
        let mut top = after;
        loop {
            let rows = tx.query_portal(&portal, 50_000).map_err(self.e())?;
            if rows.is_empty() {
                break;
            }
            for r in &rows {
                f(memory_entry(r));
                top = top.max(r.get::<_, i64>(5));
            }
        }
        tx.commit().map_err(self.e())?;
        Ok(top)
    }

    /// See [`Store::count_games`] (`sql` takes the source and the White player as `$1`, `$2`).
    pub fn count_games(&self, sql: &str, source: &str, white: &str) -> Result<u64, Error> {
        self.client()
            .query_one(sql, &[&source, &white])
            .map(|r| r.get::<_, i64>(0) as u64)
            .map_err(self.e())
    }

    /// See [`Store::publish_net`].
    pub fn publish_net(&mut self, net: &super::StoredNet) -> Result<bool, Error> {
        self.client()
            .execute(
                "INSERT INTO nets (generation, kind, parent, created_at, bytes)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (generation) DO NOTHING",
                &[
                    &net.generation,
                    &net.kind,
                    &net.parent,
                    &net.created_at,
                    &net.bytes,
                ],
            )
            .map(|n| n > 0)
            .map_err(self.e())
    }

    /// See [`Store::latest_net_generation`] (`sql` takes the kind as `$1`).
    pub fn latest_net_generation(&self, sql: &str, kind: &str) -> Result<Option<i64>, Error> {
        self.client()
            .query_one(sql, &[&kind])
            .map(|r| r.get(0))
            .map_err(self.e())
    }

    /// See [`Store::net`].
    pub fn net(&self, generation: i64) -> Result<Option<super::StoredNet>, Error> {
        self.client()
            .query_opt(
                "SELECT generation, kind, parent, created_at, bytes FROM nets WHERE generation = $1",
                &[&generation],
            )
            .map(|r| {
                r.map(|r| super::StoredNet {
                    generation: r.get(0),
                    kind: r.get(1),
                    parent: r.get(2),
                    created_at: r.get(3),
                    bytes: r.get(4),
                })
            })
            .map_err(self.e())
    }

    pub fn memory_rows(&self) -> Result<Vec<Remembered>, Error> {
        Ok(self
            .memory_rows_with_updates()?
            .into_iter()
            .map(|m| m.entry)
            .collect())
    }

    pub fn memory_rows_with_updates(&self) -> Result<Vec<MemoryRow>, Error> {
        let rows = self
            .client()
            .query(
                "SELECT key, mv, score, depth, learned, updates FROM search_memory ORDER BY key",
                &[],
            )
            .map_err(self.e())?;
        Ok(rows
            .iter()
            .map(|r| MemoryRow {
                entry: memory_entry(r),
                updates: r.get(5),
            })
            .collect())
    }

    pub fn memory_of(&self, key: u64) -> Result<Option<Remembered>, Error> {
        self.client()
            .query_opt(
                "SELECT key, mv, score, depth, learned FROM search_memory WHERE key = $1",
                &[&(key as i64)],
            )
            .map(|r| r.as_ref().map(memory_entry))
            .map_err(self.e())
    }

    pub fn growth_rows(&self) -> Result<Vec<(i64, i64)>, Error> {
        let rows = self
            .client()
            .query("SELECT learned_at, rows FROM games ORDER BY id", &[])
            .map_err(self.e())?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    pub fn pruned_counts(&self) -> Result<[u64; 3], Error> {
        let mut out = [0; 3];
        for (o, key) in out.iter_mut().zip(PRUNED_KEYS) {
            let v: Option<String> = self
                .client()
                .query_opt("SELECT value FROM meta WHERE key = $1", &[&key])
                .map_err(self.e())?
                .map(|r| r.get(0));
            *o = v.and_then(|v| v.parse().ok()).unwrap_or(0);
        }
        Ok(out)
    }

    /// A `meta` value (see [`Store::set_loop_status`]).
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), Error> {
        self.client()
            .execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                &[&key, &value],
            )
            .map(|_| ())
            .map_err(self.e())
    }

    /// A `meta` value, if set.
    pub fn meta(&self, key: &str) -> Result<Option<String>, Error> {
        self.client()
            .query_opt("SELECT value FROM meta WHERE key = $1", &[&key])
            .map(|r| r.map(|r| r.get(0)))
            .map_err(self.e())
    }

    /// See [`Store::games_after`]; `evals`: the column, or `NULL` in an older store.
    pub fn games_after(
        &self,
        after: i64,
        limit: usize,
        evals: &str,
    ) -> Result<Vec<(i64, StoredGame)>, Error> {
        let rows = self
            .client()
            .query(
                &format!(
                    "SELECT hash, source, white, black, result, date, plies, rows, learned_at,
                         start, moves, {evals}::bytea, id FROM games WHERE id > $1 ORDER BY id
                         LIMIT $2"
                ),
                &[&after, &(limit as i64)],
            )
            .map_err(self.e())?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.get(12),
                    StoredGame {
                        hash: r.get(0),
                        source: r.get(1),
                        white: r.get(2),
                        black: r.get(3),
                        result: r.get(4),
                        date: r.get(5),
                        plies: r.get(6),
                        rows: r.get(7),
                        learned_at: r.get(8),
                        start: r.get(9),
                        moves: r.get(10),
                        evals: r.get(11),
                    },
                )
            })
            .collect())
    }

    /// `VACUUM FULL` of the store's tables (rewritten without dead rows); their size before
    /// (`before`, from `stats`) and after.
    pub fn vacuum(&self, before: u64) -> Result<(u64, u64), Error> {
        self.client()
            .batch_execute("VACUUM FULL white_moves, black_moves, games, search_memory, meta")
            .map_err(self.e())?;
        Ok((before, self.stats()?.file_bytes))
    }
}

fn memory_entry(r: &postgres::Row) -> Remembered {
    Remembered {
        key: r.get::<_, i64>(0) as u64,
        mv: r.get::<_, i32>(1) as u16,
        score: r.get(2),
        depth: r.get(3),
        learned: r.get(4),
    }
}

/// The tables of a new store, with the advisory lock that keeps two workers from creating
/// them at once (the second finds them made).
fn create(client: &mut Client) -> Result<(), postgres::Error> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SETUP_LOCK])?;
    let moves = |t: &str| {
        format!(
            "CREATE SEQUENCE IF NOT EXISTS {t}_id;
             CREATE TABLE IF NOT EXISTS {t} (
                 parent BYTEA NOT NULL, mv TEXT COLLATE \"C\" NOT NULL,
                 id BIGINT NOT NULL DEFAULT nextval('{t}_id'), child BYTEA NOT NULL,
                 white_wins BIGINT NOT NULL DEFAULT 0, black_wins BIGINT NOT NULL DEFAULT 0,
                 draws BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (parent, mv));"
        )
    };
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO meta (key, value) VALUES ('application', '{APPLICATION}')
             ON CONFLICT (key) DO NOTHING;
         INSERT INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}')
             ON CONFLICT (key) DO NOTHING;
         CREATE TABLE IF NOT EXISTS games (
             id BIGSERIAL PRIMARY KEY, hash BYTEA NOT NULL UNIQUE, source TEXT NOT NULL,
             white TEXT NOT NULL, black TEXT NOT NULL, result TEXT NOT NULL, date TEXT NOT NULL,
             plies BIGINT NOT NULL, rows BIGINT NOT NULL, learned_at BIGINT NOT NULL,
             start TEXT, moves BYTEA, evals BYTEA);
         CREATE TABLE IF NOT EXISTS nets (
             generation BIGINT PRIMARY KEY, kind TEXT NOT NULL, parent BIGINT,
             created_at BIGINT NOT NULL, bytes BYTEA NOT NULL);
         CREATE INDEX IF NOT EXISTS games_source_white ON games (source, white);
         {} {}
         CREATE TABLE IF NOT EXISTS search_memory (
             key BIGINT PRIMARY KEY, mv INTEGER NOT NULL, score INTEGER NOT NULL,
             depth INTEGER NOT NULL, learned INTEGER NOT NULL DEFAULT 0,
             updates BIGINT NOT NULL DEFAULT 0, seq BIGINT NOT NULL DEFAULT 0);
         CREATE INDEX IF NOT EXISTS search_memory_seq ON search_memory (seq);",
        moves("white_moves"),
        moves("black_moves")
    ))?;
    tx.commit()
}

/// Brings a version 4 store (the first on a server) to this version: games' evaluations (none
/// for the games already learned) and the memory rows' write numbers (0 for those already
/// there), under the setup lock.
fn migrate(client: &mut Client) -> Result<(), postgres::Error> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SETUP_LOCK])?;
    tx.batch_execute(&format!(
        "ALTER TABLE games ADD COLUMN IF NOT EXISTS evals BYTEA;
         ALTER TABLE search_memory ADD COLUMN IF NOT EXISTS seq BIGINT NOT NULL DEFAULT 0;
         CREATE INDEX IF NOT EXISTS search_memory_seq ON search_memory (seq);
         CREATE TABLE IF NOT EXISTS nets (
             generation BIGINT PRIMARY KEY, kind TEXT NOT NULL, parent BIGINT,
             created_at BIGINT NOT NULL, bytes BYTEA NOT NULL);
         CREATE INDEX IF NOT EXISTS games_source_white ON games (source, white);
         UPDATE meta SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version';"
    ))?;
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_never_reach_a_message() {
        assert_eq!(
            redact("postgresql://deepred:s3cret@db.example:5433/exp"),
            "postgresql://deepred:***@db.example:5433/exp"
        );
        assert_eq!(
            redact("postgres://u@h/db?sslmode=disable&password=x&user=u"),
            "postgres://u@h/db?sslmode=disable&password=***&user=u"
        );
        assert_eq!(redact("postgresql://h/db"), "postgresql://h/db");
        assert_eq!(redact("postgresql://a:b:c@h"), "postgresql://a:***@h");
        // A raw '/' or '?' in the password, a parameter name escaped: the client reads a
        // password from each (they were printed whole).
        assert_eq!(
            redact("postgresql://deepred:pa/ss@127.0.0.1:5432/m2"),
            "postgresql://deepred:***@127.0.0.1:5432/m2"
        );
        assert_eq!(
            redact("postgresql://deepred:pa?ss@h/db"),
            "postgresql://deepred:***@h/db"
        );
        assert_eq!(
            redact("postgresql://u@h/db?pass%77ord=x&user=u"),
            "postgresql://u@h/db?password=***&user=u"
        );
    }
}

//! A version 1 store migrated; merges and PGN exports across backends; many PostgreSQL
//! workers at once; bad servers.

use super::*;

#[test]
fn a_version_1_store_is_migrated_with_its_rows_and_ids() {
    let db = temp_db("v1");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('application', 'deepred-experience'), ('schema_version', '1');
             CREATE TABLE white_moves (
                 id INTEGER PRIMARY KEY, parent BLOB NOT NULL, mv TEXT NOT NULL, child BLOB NOT NULL,
                 white_wins INTEGER NOT NULL DEFAULT 0, black_wins INTEGER NOT NULL DEFAULT 0,
                 draws INTEGER NOT NULL DEFAULT 0, UNIQUE (parent, mv));
             CREATE TABLE black_moves (
                 id INTEGER PRIMARY KEY, parent BLOB NOT NULL, mv TEXT NOT NULL, child BLOB NOT NULL,
                 white_wins INTEGER NOT NULL DEFAULT 0, black_wins INTEGER NOT NULL DEFAULT 0,
                 draws INTEGER NOT NULL DEFAULT 0, UNIQUE (parent, mv));
             CREATE TABLE games (
                 id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, source TEXT NOT NULL,
                 white TEXT NOT NULL, black TEXT NOT NULL, result TEXT NOT NULL, date TEXT NOT NULL,
                 plies INTEGER NOT NULL, rows INTEGER NOT NULL, learned_at INTEGER NOT NULL);",
        )
        .unwrap();
        let start = deepred::experience::codec::compact_key(&Chess::default());
        c.execute(
            "INSERT INTO white_moves (id, parent, mv, child, white_wins, black_wins, draws)
             VALUES (7, ?1, 'e2e4', x'00', 3, 1, 2)",
            [&start],
        )
        .unwrap();
    }
    let out = deepred(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        games(TCEC).to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = rusqlite::Connection::open(&db).unwrap();
    let version: String = c
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Migrated step by step to the newest version: 2 (WITHOUT ROWID), 3 (search memory), 4
    // (games' moves: unknown for the games learned before, kept for those learned since) and 5
    // (games' evaluations, the memory rows' write numbers).
    assert_eq!(version, "5");
    for (table, column) in [("games", "evals"), ("search_memory", "seq")] {
        let n: i64 = c
            .query_row(
                &format!(
                    "SELECT count(*) FROM pragma_table_info('{table}') WHERE name = '{column}'"
                ),
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "{table}.{column}");
    }
    let (without, with): (i64, i64) = c
        .query_row(
            "SELECT count(*) FILTER (WHERE moves IS NULL), count(*) FILTER (WHERE moves IS NOT NULL) FROM games",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(without, 0);
    assert!(with > 0);
    let memory: i64 = c
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'search_memory'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(memory, 1);
    let sql: String = c
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'white_moves'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(sql.contains("WITHOUT ROWID"), "{sql}");
    // The old row kept its id and gained the new games' counts; new rows got fresh ids.
    let (id, games): (i64, i64) = c
        .query_row(
            "SELECT id, white_wins + black_wins + draws FROM white_moves WHERE mv = 'e2e4' AND id = 7",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(id, 7);
    assert!(games >= 6);
    for t in ["white_moves", "black_moves"] {
        let (n, distinct, min): (i64, i64, i64) = c
            .query_row(
                &format!("SELECT count(*), count(DISTINCT id), min(id) FROM {t}"),
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert!(n > 100);
        assert_eq!(n, distinct, "ids are unique in {t}");
        assert!(min >= 1);
    }
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

/// `deepred ARGS`, which must succeed; its stdout.
fn ok(args: &[&str]) -> String {
    let out = deepred(args);
    assert!(
        out.status.success(),
        "deepred {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Merging stores of either backend into either backend equals importing the union of their
/// games; a game known to two sources is counted once; merging again changes nothing.
fn merge_equals_import_of_the_union(a: &Path, b: &Path, into: &Path) {
    let (k, t, z) = (
        games("Korchnoi_first500.pgn"),
        games(TCEC),
        games(ALPHAZERO),
    );
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&["import", "--db", &s(a), &s(&k), &s(&t)]);
    ok(&["import", "--db", &s(b), &s(&t), &s(&z)]);
    let union = temp_db(&format!("union-{}-{}", is_url(a), is_url(into)));
    ok(&["import", "--db", &s(&union), &s(&k), &s(&t), &s(&z)]);
    let out = ok(&["experience", "merge", &s(a), &s(b), "--into", &s(into)]);
    assert!(!out.contains(PASSWORD_IN_TESTS), "{out}");
    assert_eq!(consistent(into), consistent(&union));
    assert_eq!(store_counts(into), store_counts(&union));
    // Again: every game is known, nothing changes.
    ok(&["experience", "merge", &s(b), &s(a), "--into", &s(into)]);
    assert_eq!(store_counts(into), store_counts(&union));
    assert_eq!(consistent(into), consistent(&union));
    remove(&union);
}

const PASSWORD_IN_TESTS: &str = common::pg::PASSWORD;

#[test]
fn merge_sqlite_stores_equals_import_of_the_union() {
    merge_equals_import_of_the_union(&temp_db("ma"), &temp_db("mb"), &temp_db("mc"));
}

#[test]
fn postgres_merge_across_backends_equals_import_of_the_union() {
    let Some(server) = common::pg::server() else {
        return;
    };
    // SQLite + server into a new server database, and server + SQLite into a new file.
    let a = temp_db("xa");
    let b = PathBuf::from(server.new_db("xb"));
    merge_equals_import_of_the_union(&a, &b, &PathBuf::from(server.new_db("xc")));
    let (a2, b2) = (PathBuf::from(server.new_db("ya")), temp_db("yb"));
    merge_equals_import_of_the_union(&a2, &b2, &temp_db("yc"));
}

#[test]
fn merge_refuses_shared_games_whose_moves_neither_store_kept() {
    // Two stores that both learned the same game before schema 4 (no moves kept): the merge
    // cannot count it once, so it writes nothing and says why.
    let (a, b) = (temp_db("old-a"), temp_db("old-b"));
    let t = games(TCEC);
    for db in [&a, &b] {
        ok(&["import", "--db", db.to_str().unwrap(), t.to_str().unwrap()]);
        rusqlite::Connection::open(db)
            .unwrap()
            .execute_batch("UPDATE games SET start = NULL, moves = NULL")
            .unwrap();
    }
    let before = store_counts(&a);
    let out = deepred(&[
        "experience",
        "merge",
        b.to_str().unwrap(),
        "--into",
        a.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("neither kept its moves"), "{err}");
    assert_eq!(store_counts(&a), before);
    remove(&a);
    remove(&b);
}

/// Each learned game (start and moves) with the evaluations kept of its moves.
type Evals = HashMap<(String, Vec<String>), Vec<Option<(i16, u8)>>>;

fn evals_of(db: &Path) -> Evals {
    let store = Store::open_read_only(db).unwrap();
    let mut out = HashMap::new();
    for g in store.stored_games().unwrap() {
        let Some(r) = deepred::experience::store::record_of(store.path(), &g).unwrap() else {
            continue;
        };
        let fen = shakmaty::fen::Fen::from_position(&r.start, EnPassantMode::Legal).to_string();
        let moves = r.moves.iter().map(|m| m.to_string()).collect();
        let evals = r
            .evals
            .iter()
            .map(|e| e.map(|e| (e.score, e.depth)))
            .collect();
        out.insert((fen, moves), evals);
    }
    out
}

/// `export --pgn` writes the learned games; importing them into a new store gives the same
/// store, evaluations included.
fn pgn_export_round_trip(db: &Path) {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    // Master games, engine games from FEN starts (sf15 self-play from book positions) and
    // Chess960 games.
    let chess960 = common::data("pgn/robustness/pychess_chess960rwch.pgn");
    let sf = games("sf15-selfplay-6k-nodes_first200.pgn");
    ok(&[
        "import",
        "--db",
        &s(db),
        &s(&games(TCEC)),
        &s(&sf),
        &s(&chess960),
    ]);
    let dir = temp_db(&format!("pgn-out-{}", is_url(db)));
    let pgn = dir.with_file_name("games.pgn");
    // What was written is said on stderr: stdout may be the export itself (`--pgn /dev/stdout`).
    let out = deepred(&["experience", "export", "--db", &s(db), "--pgn", &s(&pgn)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(out.stdout.is_empty(), "{err}");
    let n = consistent(db);
    assert!(err.contains(&format!("{n} games (0 ")), "{err}");
    let again = temp_db(&format!("pgn-again-{}", is_url(db)));
    ok(&["import", "--db", &s(&again), &s(&pgn)]);
    assert_eq!(consistent(&again), n);
    assert_eq!(store_counts(&again), store_counts(db));
    // The engines' evaluations of the moves come back too (written as `{+0.35/12}`).
    let (before, after) = (evals_of(db), evals_of(&again));
    assert!(
        before.values().flatten().filter(|e| e.is_some()).count() > 1000,
        "the test games carry evaluations"
    );
    assert_eq!(after, before);
    remove(&dir);
    remove(&again);
    remove(db);
}

#[test]
fn pgn_export_round_trips() {
    pgn_export_round_trip(&temp_db("export-pgn"));
}

#[test]
fn postgres_pgn_export_round_trips() {
    if let Some(db) = server_db("export_pgn") {
        pgn_export_round_trip(&db);
    }
}

/// Four self-play processes learning into one server at once: every game they played is in
/// the store once (two of them play the same seeded games), and the counts equal an import of
/// all their PGN files.
#[test]
fn postgres_four_selfplay_workers_lose_no_game_and_count_none_twice() {
    let Some(db) = server_db("workers") else {
        return;
    };
    let dir = temp_db("workers");
    let book = common::data("books/noob_3moves_200.epd");
    let pgns: Vec<PathBuf> = (0..4)
        .map(|i| dir.with_file_name(format!("w{i}.pgn")))
        .collect();
    let outputs: Vec<std::process::Output> = std::thread::scope(|sc| {
        let handles: Vec<_> = pgns
            .iter()
            .enumerate()
            .map(|(i, pgn)| {
                let db = db.clone();
                let book = book.clone();
                sc.spawn(move || {
                    // Workers 0 and 1 share a seed: the same openings.
                    let seed = [1, 1, 2, 3][i].to_string();
                    common::command()
                        .args([
                            "selfplay",
                            "--games",
                            "3",
                            "--nodes",
                            "1500",
                            "--book",
                            book.to_str().unwrap(),
                            "--seed",
                            &seed,
                            "--db",
                            db.to_str().unwrap(),
                            "--pgn",
                            pgn.to_str().unwrap(),
                        ])
                        .output()
                        .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for o in &outputs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let reference = temp_db("workers-reference");
    let mut args = vec!["import", "--db", reference.to_str().unwrap()];
    args.extend(pgns.iter().map(|p| p.to_str().unwrap()));
    ok(&args);
    // Distinct games over the four files (by moves and result).
    let mut distinct = std::collections::HashSet::new();
    for p in &pgns {
        for g in deepred::chess::pgn::read_games(std::fs::File::open(p).unwrap()) {
            let g = g.unwrap();
            distinct.insert((format!("{:?}", g.start), format!("{:?}", g.moves), g.result));
        }
    }
    assert_eq!(distinct.len() as u64, consistent(&reference));
    assert_eq!(consistent(&db), consistent(&reference));
    assert_eq!(store_counts(&db), store_counts(&reference));
    let store = Store::open_read_only(&db).unwrap();
    assert!(store.memory_count().unwrap() > 0);
    remove(&dir);
    remove(&reference);
}

/// What a user gets wrong about a server: each is a clear message naming the URL without its
/// password, and nothing of an existing store is lost.
#[test]
fn postgres_bad_servers_are_clear_errors() {
    let Some(server) = common::pg::server() else {
        return;
    };
    let pgn = games(TCEC);
    let fails_with = |db: &str, want: &str| {
        for args in [
            vec!["import", "--db", db, pgn.to_str().unwrap()],
            vec!["experience", "stats", "--db", db],
        ] {
            let out = deepred(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{args:?}");
            assert!(err.contains(want), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{err}");
            assert!(!err.contains(PASSWORD_IN_TESTS), "{err}");
        }
    };
    // Nothing listens on port 1.
    fails_with(
        &format!("postgresql://deepred:{PASSWORD_IN_TESTS}@127.0.0.1:1/x"),
        "cannot connect",
    );
    fails_with(
        &format!("postgresql://deepred:{PASSWORD_IN_TESTS}@127.0.0.1:1/x"),
        "deepred:***@127.0.0.1:1/x",
    );
    let good = server.new_db("creds");
    let wrong = good.replace(PASSWORD_IN_TESTS, "not-the-password");
    let out = deepred(&["import", "--db", &wrong, pgn.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("refused the user or password"), "{err}");
    assert!(!err.contains("not-the-password"), "{err}");
    // A database that does not exist on the server.
    let missing = good.replace("/t", "/nonexistent_t");
    fails_with(&missing, "does not exist");
    fails_with("postgresql://deepred@127.0.0.1:notaport/db", "not valid");
    // A database of another application: refused, left alone.
    let foreign = server.new_db("foreign");
    server.sql(
        &foreign,
        "CREATE TABLE customers (id INTEGER); INSERT INTO customers VALUES (7)",
    );
    fails_with(&foreign, "another application");
    let mut c = postgres::Client::connect(&foreign, postgres::NoTls).unwrap();
    let n: i64 = c
        .query_one("SELECT count(*) FROM customers", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
    // Another application's own 'meta' table, with or without an 'application' key: refused
    // before anything is made or written (the store's tables were made, and its keys written
    // into that table).
    for (name, rows) in [
        ("foreign_meta", "('theme', 'dark')"),
        ("other_app", "('application', 'other-app')"),
    ] {
        let db = server.new_db(name);
        server.sql(
            &db,
            &format!(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES {rows};
                 CREATE TABLE users (id INTEGER)"
            ),
        );
        fails_with(&db, "belongs to another application");
        let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        let count =
            |c: &mut postgres::Client, sql: &str| -> i64 { c.query_one(sql, &[]).unwrap().get(0) };
        assert_eq!(count(&mut c, "SELECT count(*) FROM meta"), 1, "{name}");
        assert_eq!(
            count(
                &mut c,
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
            ),
            2,
            "{name}"
        );
    }
    // A store of a newer Deep Red: refused, its games kept.
    ok(&["import", "--db", &good, pgn.to_str().unwrap()]);
    let games_before = consistent(Path::new(&good));
    server.sql(
        &good,
        "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
    );
    fails_with(&good, "newer than this Deep Red");
    server.sql(
        &good,
        "UPDATE meta SET value = '4' WHERE key = 'schema_version'",
    );
    assert_eq!(consistent(Path::new(&good)), games_before);
    // A user without rights on the store's tables: told so (it was "does not exist", since
    // information_schema hides such tables).
    server.sql(
        &good,
        "DROP ROLE IF EXISTS no_rights; CREATE ROLE no_rights LOGIN PASSWORD 'nr-pw'",
    );
    let no_rights = good.replace(&format!("deepred:{PASSWORD_IN_TESTS}@"), "no_rights:nr-pw@");
    assert_ne!(no_rights, good);
    let out = deepred(&["experience", "stats", "--db", &no_rights]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("permission denied") && !err.contains("does not exist"),
        "{err}"
    );
    assert!(!err.contains("nr-pw"), "{err}");
}

/// A server that takes the connection and then says nothing (a stopped one) is an error after
/// twice the connection timeout: every command, and a UCI engine's `go`, waited for ever.
#[test]
fn a_server_that_never_answers_is_an_error_in_time() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepts, holds the connection, answers nothing.
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().take(4).collect();
        std::thread::sleep(std::time::Duration::from_secs(60));
        drop(held);
    });
    let url = format!("postgresql://deepred@127.0.0.1:{port}/x?connect_timeout=1");
    let start = std::time::Instant::now();
    let out = deepred(&["experience", "stats", "--db", &url]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("did not answer within 2 s"), "{err}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

/// `prune` removes rare rows in one transaction and says the file's size before and after: the
/// file itself (its log copied back), which a prune never makes larger.
#[test]
fn prune_reports_the_size_of_the_file() {
    let db = temp_db("prune");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&[
        "import",
        "--db",
        &s(&db),
        &s(&games("Korchnoi_first500.pgn")),
    ]);
    let rows = |db: &Path| {
        let st = Store::open_read_only(db).unwrap().stats().unwrap();
        st.white_rows + st.black_rows
    };
    let before_rows = rows(&db);
    let out = ok(&["experience", "prune", "--db", &s(&db), "--min-games", "2"]);
    let sizes: Vec<u64> = out
        .split("file size ")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(2)
        .map(|w| w.parse().unwrap())
        .collect();
    assert!(rows(&db) < before_rows, "{out}");
    assert!(sizes[1] <= sizes[0], "{out}");
    assert_eq!(sizes[1], std::fs::metadata(&db).unwrap().len(), "{out}");
    // coverage: a folder given as PGN is named with the reason, and with no game read at all
    // the command fails (it used to say "1 game(s) could not be read" and succeed).
    let folder = db.parent().unwrap();
    let out = deepred(&[
        "experience",
        "coverage",
        "--db",
        &s(&db),
        "--pgn",
        &s(folder),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&s(folder)) && err.contains("directory"),
        "{err}"
    );
    // Games where no player has the name (the default "Deep Red"): said so, not 0 of 0.
    let korchnoi = s(&games("Korchnoi_first500.pgn"));
    let args = [
        "experience",
        "coverage",
        "--db",
        &s(&db),
        "--pgn",
        &korchnoi,
    ];
    let out = deepred(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("no game has a player named 'Deep Red'"),
        "{err}"
    );
    let out = deepred(&[&args[..], &["--player", "Korchnoi"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && !text.contains("positions to move: 0"),
        "{text}"
    );
    remove(&db);
}

/// A Chess960 game whose start reads as standard chess too (king on e1, rooks in the corners)
/// and whose sides castle: merged again and again, it adds nothing (its castling rows, `e1h1`
/// in the store, were taken off as `e1g1`, and counted once more each time).
#[test]
fn merging_a_chess960_game_again_adds_nothing() {
    let dir = temp_db("c960").with_extension("pgn");
    std::fs::write(
        &dir,
        r#"[Event "?"]
[Result "1/2-1/2"]
[FEN "rqnnkbbr/pppppppp/8/8/8/8/PPPPPPPP/RQNNKBBR w KQkq - 0 1"]
[SetUp "1"]
[Variant "Chess960"]

1. e3 b5 2. g4 Nb6 3. e4 f5 4. d3 c6 5. f4 Bd5 6. c3 Rg8 7. g5 Qd6 8. d4 Qc5 9. Be2 a6
10. Qd3 Qb4 11. h4 Qa5 12. Bh2 Be6 13. O-O d6 14. b3 Nb7 15. Qb1 O-O-O 16. h5 Kd7 1/2-1/2
"#,
    )
    .unwrap();
    let (src, dst) = (temp_db("c960-src"), temp_db("c960-dst"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&["import", "--db", &s(&src), &s(&dir)]);
    let want = store_counts(&src);
    assert!(want.keys().any(|(_, mv)| mv == "e1h1"), "{want:?}");
    for _ in 0..3 {
        ok(&["experience", "merge", &s(&src), "--into", &s(&dst)]);
        assert_eq!(store_counts(&dst), want);
    }
    let _ = std::fs::remove_file(&dir);
}

/// A source game whose kept moves do not replay to its content hash (a corrupt row) is not
/// copied: the merge is refused, names the source, and writes nothing.
#[test]
fn merge_refuses_a_source_game_whose_moves_do_not_replay() {
    let (src, dst) = (temp_db("corrupt-src"), temp_db("corrupt-dst"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&["import", "--db", &s(&src), games(TCEC).to_str().unwrap()]);
    ok(&[
        "import",
        "--db",
        &s(&dst),
        games(ALPHAZERO).to_str().unwrap(),
    ]);
    // One game's last move cut off: its moves replay, but not to its hash.
    rusqlite::Connection::open(&src)
        .unwrap()
        .execute_batch(
            "UPDATE games SET moves = substr(moves, 1, length(moves) - 2)
             WHERE id = (SELECT max(id) FROM games)",
        )
        .unwrap();
    let before = store_counts(&dst);
    let out = deepred(&["experience", "merge", &s(&src), "--into", &s(&dst)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not replay") && err.contains(&s(&src)),
        "{err}"
    );
    assert_eq!(store_counts(&dst), before);
    remove(&src);
    remove(&dst);
}

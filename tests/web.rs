//! `deepred web` over real HTTP: the explorer's counts against games counted by hand, walking
//! the tree, Deep Red's move (book or search), a pasted PGN, and bad requests answered with a
//! 4xx while the server keeps serving; the store is never written; the same on a PostgreSQL
//! store.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use deepred::web::MAX_BODY;
use serde_json::Value;

/// Five games whose counts are known by hand: from the start 1.e4 four times (one White win,
/// two draws, one Black win) and 1.d4 once (Black won); after 1.e4, 1...e5 three times (one
/// White win, two draws) and 1...c5 once (Black won).
const GAMES: &str = r#"[Event "a"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "b"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 1/2-1/2

[Event "c"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 1/2-1/2

[Event "d"]
[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Event "e"]
[Result "0-1"]

1. d4 d5 2. c4 e6 0-1
"#;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-web-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `deepred web` on a free loopback port, until dropped.
struct Server {
    child: Child,
    addr: String,
    agent: ureq::Agent,
}

impl Server {
    fn start(db: &str) -> Server {
        Server::start_with(db, &[])
    }

    fn start_with(db: &str, args: &[&str]) -> Server {
        let mut c = common::command();
        c.args(["web", "--listen", "127.0.0.1:0", "--db", db])
            .args(args);
        Server::spawn(c)
    }

    fn spawn(mut command: std::process::Command) -> Server {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in '{line}'"))
            .to_string();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Server { child, addr, agent }
    }

    fn get(&self, path: &str) -> (u16, String) {
        let mut r = self
            .agent
            .get(&format!("http://{}{path}", self.addr))
            .call()
            .unwrap();
        let status = r.status().as_u16();
        (status, r.body_mut().read_to_string().unwrap())
    }

    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// POSTs JSON; the answer's status and body.
    fn post_json(&self, path: &str, body: Value) -> (u16, Value) {
        let mut r = self
            .agent
            .post(&format!("http://{}{path}", self.addr))
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .unwrap();
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// The game until `done` holds (Deep Red's move, a clock), at most 30 s.
    fn game_until(&self, id: &Value, done: impl Fn(&Value) -> bool) -> Value {
        let t0 = std::time::Instant::now();
        loop {
            let g = self.json(&format!("/api/games/{id}"));
            if done(&g) {
                return g;
            }
            assert!(t0.elapsed() < Duration::from_secs(30), "{g}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn post(&self, path: &str, body: &str) -> (u16, String) {
        let mut r = self
            .agent
            .post(&format!("http://{}{path}", self.addr))
            .send(body)
            .unwrap();
        let status = r.status().as_u16();
        (status, r.body_mut().read_to_string().unwrap())
    }

    /// A request written byte for byte (what a client library would clean up); the status.
    fn raw(&self, request: &str) -> u16 {
        let mut s = std::net::TcpStream::connect(&self.addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out.split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status in '{out}'"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// More connections than the server may open files: it waits for them to close and serves on
/// (it aborted: the accept loop sleeps after a failed accept, and the runtime had no timers).
#[test]
fn more_connections_than_files_leave_the_server_serving() {
    let dir = temp_dir("files");
    let db = dir.join("exp.sqlite");
    import(db.to_str().unwrap(), &dir);
    let mut c = std::process::Command::new("sh");
    c.args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_deepred"))
        .args(["web", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .env("DEEPRED_HOME", dir.join("home"));
    let mut s = Server::spawn(c);
    assert_eq!(s.get("/api/explore").0, 200);
    let idle: Vec<_> = (0..100)
        .map(|_| std::net::TcpStream::connect(&s.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(s.child.try_wait().unwrap().is_none(), "the server ended");
    drop(idle);
    assert_eq!(s.get("/api/explore").0, 200);
    assert!(s.child.try_wait().unwrap().is_none(), "the server ended");
}

/// A client that sends half its headers and waits is let go after the server's 30 s (it held
/// a connection, and a file, for as long as it liked); the server serves on.
#[test]
fn a_client_that_never_ends_its_headers_is_let_go() {
    let dir = temp_dir("slow");
    let db = dir.join("exp.sqlite");
    import(db.to_str().unwrap(), &dir);
    let s = Server::start(db.to_str().unwrap());
    let mut c = std::net::TcpStream::connect(&s.addr).unwrap();
    c.write_all(b"GET /api/explore HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    c.set_read_timeout(Some(Duration::from_secs(90))).unwrap();
    let t0 = std::time::Instant::now();
    let mut out = Vec::new();
    let read = c.read_to_end(&mut out);
    assert!(read.is_ok(), "still open after 90 s: {read:?}");
    assert!(
        t0.elapsed() >= Duration::from_secs(25),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(s.json("/api/explore")["games"], 5);
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A known move of an explorer answer: (games, white, draws, black).
fn counts(d: &Value, san: &str) -> (u64, u64, u64, u64) {
    let m = d["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["san"] == san)
        .unwrap_or_else(|| panic!("no {san} in {d}"));
    let n = |k: &str| m[k].as_u64().unwrap();
    (n("games"), n("white"), n("draws"), n("black"))
}

fn import(db: &str, dir: &Path) {
    let pgn = dir.join("five.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let (ok, out, err) = common::deepred(&["import", pgn.to_str().unwrap(), "--db", db]);
    assert!(ok && out.contains("5 learned"), "{out}{err}");
}

/// The explorer's answers on the five games, whatever the store.
fn explores_the_five_games(s: &Server) {
    let d = s.json("/api/explore");
    assert_eq!(d["games"], 5);
    assert_eq!(
        (d["white"].clone(), d["draws"].clone(), d["black"].clone()),
        (1.into(), 2.into(), 2.into())
    );
    assert_eq!(counts(&d, "e4"), (4, 1, 2, 1));
    assert_eq!(counts(&d, "d4"), (1, 0, 0, 1));
    assert_eq!(d["dests"]["e2"], serde_json::json!(["e3", "e4"]));
    let legal: usize = d["dests"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    assert_eq!(legal, 20);
    // e4 scores 2/4 for White; d4 0/1.
    let e4 = d["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["san"] == "e4")
        .unwrap();
    assert!((e4["score"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    assert!(e4["net_after"].is_i64());
    // Walking: by UCI and by SAN, the path in SAN.
    let d = s.json("/api/explore?moves=e2e4");
    assert_eq!(d["turn"], "black");
    assert_eq!(counts(&d, "e5"), (3, 1, 2, 0));
    assert_eq!(counts(&d, "c5"), (1, 0, 0, 1));
    let d = s.json("/api/explore?moves=e4,e5,Qh5,Nc6,Bc4,Nf6,Qxf7");
    assert_eq!(d["game_over"], "checkmate");
    assert_eq!(d["path"][6]["san"], "Qxf7#");
    assert_eq!(d["games"], 0);
    // As copied from a score sheet: move numbers between the moves, long algebraic.
    let numbered =
        s.json("/api/explore?moves=1.%20e4%20e5%202.%20Qh5%20Nc6%203.Bc4%20Nf6%204.%20Qh5xf7");
    assert_eq!(numbered["path"], d["path"]);
    assert!(d["dests"].as_object().unwrap().is_empty());
    // Too few games for the book (10 by default): Deep Red searches; a mate in one is found.
    let c = s.json("/api/choose?fen=6k1/5ppp/8/8/8/8/5PPP/3R2K1%20w%20-%20-%200%201&nodes=20000");
    assert_eq!(c["uci"], "d1d8", "{c}");
    assert_eq!(c["source"], "search");
    assert_eq!(c["mate"], 1);
    let c = s.json("/api/choose?moves=e4,e5,Qh5,Nc6,Bc4,Nf6,Qxf7");
    assert!(c.is_null(), "{c}");
    // A pasted PGN: its first game's moves.
    let (status, body) = s.post("/api/pgn", GAMES);
    assert_eq!(status, 200, "{body}");
    let g: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        g["moves"],
        serde_json::json!(["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"])
    );
    // Moves pasted bare, as the box's placeholder shows them: no tags, no result, no line end.
    let (status, body) = s.post("/api/pgn", "1. e4 e5 2. Nf3");
    assert_eq!(status, 200, "{body}");
    let g: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(g["moves"], serde_json::json!(["e2e4", "e7e5", "g1f3"]));
}

/// Bad requests: a 4xx that says why, and the server goes on.
fn refuses_bad_requests(s: &Server) {
    let bad = [
        ("/api/explore?fen=not%20a%20fen", 400, "FEN"),
        ("/api/explore?moves=e2e5", 400, "move 1 'e2e5'"),
        ("/api/explore?moves=e4,e4", 400, "move 2 'e4'"),
        ("/api/choose?nodes=0", 400, "nodes"),
        ("/api/choose?nodes=lots", 400, "nodes"),
        ("/api/explore?fen=%ZZ", 400, ""),
        ("/assets/nothing.js", 404, "{\"error\":"),
        ("/etc/passwd", 404, ""),
    ];
    for (path, want, says) in bad {
        let (status, body) = s.get(path);
        assert_eq!(status, want, "{path}: {body}");
        assert!(body.contains(says), "{path}: {body}");
    }
    let (status, body) = s.post("/api/pgn", "1. e4 e5 2. Qxf7 *");
    assert_eq!(status, 400);
    assert!(body.contains("PGN") && body.contains("Qxf7"), "{body}");
    let (status, body) = s.post("/api/pgn", "");
    assert_eq!(status, 400, "{body}");
    let (status, body) = s.post("/api/pgn", "hello world");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("no game in the text"), "{body}");
    // A message that quotes a long input quotes its start, not all of it.
    let (status, body) = s.get(&format!("/api/explore?fen={}", "p".repeat(3000)));
    assert_eq!(status, 400);
    assert!(
        body.len() < 1200 && body.contains("more characters)"),
        "{} bytes: {}",
        body.len(),
        &body[..200.min(body.len())]
    );
    // The body limit, at its edge. A body the server stops reading part way is refused with a
    // reset the client may see before the 413, so the refused body is one byte over: read whole.
    let unit = "1. e4 e5 ";
    let long = unit.repeat(MAX_BODY / unit.len() + 1);
    let (status, body) = s.post("/api/pgn", &long[..MAX_BODY]);
    assert_eq!(status, 400, "{body}");
    let (status, body) = s.post("/api/pgn", &long[..MAX_BODY + 1]);
    assert_eq!(status, 413);
    assert!(body.starts_with("{\"error\":"), "{body}");
    // No route writes: the explorer answers GET only.
    let (status, body) = s.post("/api/explore", "");
    assert_eq!(status, 405);
    assert!(body.starts_with("{\"error\":"), "{body}");
    let (status, body) = s.get("/no/such/page");
    assert_eq!(status, 404);
    assert!(body.starts_with("{\"error\":"), "{body}");
    // Paths a client library would normalise, sent as they are.
    for path in [
        "/assets/../Cargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/assets//etc/passwd",
    ] {
        let status = s.raw(&format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        ));
        assert_eq!(status, 404, "{path}");
    }
    assert_eq!(s.raw("NONSENSE\r\n\r\n"), 400);
    // Still serving.
    assert_eq!(s.json("/api/explore")["games"], 5);
}

/// A client that shuts its side down after the request (`nc -N`) still reads the answer
/// (hyper dropped such a connection unanswered while the store was read).
fn a_half_closed_client_is_answered(s: &Server) {
    let mut c = std::net::TcpStream::connect(&s.addr).unwrap();
    c.write_all(b"GET /api/explore HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    c.shutdown(std::net::Shutdown::Write).unwrap();
    let mut out = String::new();
    c.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200 "), "'{out}'");
    let body = out.split("\r\n\r\n").nth(1).unwrap_or_default();
    let explored: Value = serde_json::from_str(body).unwrap();
    assert_eq!(explored["games"], 5);
}

/// `/api/choose`'s search (5 million nodes, seconds) does not hold the store: the explorer
/// answers meanwhile.
fn a_long_search_holds_up_no_other_request(s: &Server) {
    std::thread::scope(|scope| {
        let search = scope.spawn(|| {
            s.json("/api/choose?fen=r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R%20w%20KQ%20-%200%208&nodes=5000000")
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert_eq!(s.json("/api/explore")["games"], 5);
        assert!(
            !search.is_finished(),
            "the search ended before the explorer answered: no overlap to test"
        );
        assert_eq!(search.join().unwrap()["source"], "search");
    });
}

#[test]
fn the_explorer_shows_what_the_store_learned_and_refuses_bad_requests() {
    let dir = temp_dir("sqlite");
    let db = dir.join("store.sqlite");
    let db = db.to_str().unwrap();
    import(db, &dir);
    let before = std::fs::read(db).unwrap();
    let s = Server::start(db);
    // The page and its assets come from the binary.
    let (status, page) = s.get("/explore");
    assert_eq!(status, 200);
    assert!(page.contains("/assets/app.js"));
    let (status, page) = s.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("/assets/play.js"));
    for asset in [
        "/assets/app.js",
        "/assets/play.js",
        "/assets/style.css",
        "/assets/vendor/cm-chessboard/src/Chessboard.js",
        "/assets/vendor/cm-chessboard/assets/pieces/standard.svg",
    ] {
        assert_eq!(s.get(asset).0, 200, "{asset}");
    }
    explores_the_five_games(&s);
    refuses_bad_requests(&s);
    a_half_closed_client_is_answered(&s);
    a_long_search_holds_up_no_other_request(&s);
    drop(s);
    assert!(
        std::fs::read(db).unwrap() == before,
        "the explorer wrote the store"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_explorer_reads_a_postgresql_store() {
    let Some(server) = common::pg::server() else {
        return;
    };
    let url = server.new_db("web");
    let dir = temp_dir("pg");
    import(&url, &dir);
    let s = Server::start(&url);
    explores_the_five_games(&s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_that_cannot_be_opened_is_a_clear_error() {
    let (ok, _, err) = common::deepred(&[
        "web",
        "--db",
        "/nonexistent/store.sqlite",
        "--listen",
        "127.0.0.1:0",
    ]);
    assert!(!ok);
    assert!(err.contains("/nonexistent/store.sqlite"), "{err}");
    // A store that does not exist yet: the explorer alone refuses it, a server that plays
    // makes it (empty) and says so.
    let dir = temp_dir("web-new-store");
    let db = dir.join("new.sqlite");
    let db = db.to_str().unwrap();
    let (ok, _, err) = common::deepred(&["web", "--db", db, "--explore-only"]);
    assert!(!ok && err.contains("no experience store"), "{err}");
    assert!(!dir.join("new.sqlite").exists());
    let s = Server::start(db);
    assert!(dir.join("new.sqlite").exists());
    let d = s.json("/api/explore");
    assert_eq!(d["games"], 0, "{d}");
    drop(s);
    let (ok, _, err) = common::deepred(&["web", "--listen", "not-an-address"]);
    assert!(!ok);
    assert!(err.contains("--listen"), "{err}");
}

/// Plays `mv` in game `id`; the game after it.
fn play(s: &Server, id: &Value, mv: &str) -> Value {
    let (status, g) = s.post_json(
        &format!("/api/games/{id}/move"),
        serde_json::json!({"move": mv}),
    );
    assert_eq!(status, 200, "{mv}: {g}");
    g
}

#[test]
fn games_in_the_browser_are_played_checked_clocked_and_learned() {
    let dir = temp_dir("play");
    let db = dir.join("store.sqlite");
    let db = db.to_str().unwrap();
    import(db, &dir);
    let s = Server::start(db);
    // A human (White) against Deep Red from a position where Black has only pawn moves: the
    // pawn promotes with mate whatever Deep Red plays.
    let fen = "k7/7p/1KP5/8/8/8/8/8 w - - 0 1";
    let (status, g) = s.post_json(
        "/api/games",
        serde_json::json!({"white": "human", "black": "deepred", "fen": fen, "movetime_ms": 50}),
    );
    assert_eq!(status, 200, "{g}");
    let id = g["id"].clone();
    assert_eq!(g["dests"]["c6"], serde_json::json!(["c7"]));
    let g = play(&s, &id, "c7");
    assert!(
        g["dests"].as_object().unwrap().is_empty(),
        "Black moves: {g}"
    );
    let g = s.game_until(&id, |g| g["moves"].as_array().unwrap().len() == 2);
    assert!(
        g["moves"][1]["san"].as_str().unwrap().starts_with('h'),
        "{g}"
    );
    let g = play(&s, &id, "c8=Q");
    assert_eq!(g["result"], "1-0");
    assert_eq!(g["termination"], "checkmate");
    assert_eq!(g["moves"][2]["san"], "c8=Q#");
    let g = s.game_until(&id, |g| {
        g["learned"].as_str().is_some_and(|l| l != "being learned")
    });
    assert!(
        g["learned"].as_str().unwrap().starts_with("learned into"),
        "{g}"
    );
    let (status, pgn) = s.get(&format!("/api/games/{id}/pgn"));
    assert_eq!(status, 200);
    assert!(
        pgn.contains("[FEN \"k7/7p/1KP5/8/8/8/8/8 w - - 0 1\"]") && pgn.contains("2. c8=Q# 1-0"),
        "{pgn}"
    );
    // The explorer sees the game.
    let d = s.json("/api/explore?fen=k7/7p/1KP5/8/8/8/8/8%20w%20-%20-%200%201");
    assert_eq!(counts(&d, "c7"), (1, 1, 0, 0));

    // Two humans: a move out of turn, a take-back, a declined-by-nobody draw; not learned.
    let (_, g) = s.post_json(
        "/api/games",
        serde_json::json!({"white": "human", "black": "human"}),
    );
    let id = g["id"].clone();
    let (status, e) = s.post_json(
        &format!("/api/games/{id}/move"),
        serde_json::json!({"move": "e5"}),
    );
    assert_eq!(status, 400, "{e}");
    play(&s, &id, "e4");
    play(&s, &id, "e5");
    let (_, g) = s.post_json(&format!("/api/games/{id}/takeback"), serde_json::json!({}));
    assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
    play(&s, &id, "c5");
    let (_, g) = s.post_json(&format!("/api/games/{id}/draw"), serde_json::json!({}));
    assert_eq!(g["result"], "1/2-1/2");
    let g = s.game_until(&id, |g| {
        g["learned"].as_str().is_some_and(|l| l != "being learned")
    });
    assert!(g["learned"].as_str().unwrap().contains("taken back"), "{g}");
    let d = s.json("/api/explore?moves=e4");
    assert!(
        counts(&d, "c5").0 == 1,
        "the game with a take-back was learned: {d}"
    );

    // A human who resigns against Deep Red (Black) loses, and the game is learned.
    let (_, g) = s.post_json(
        "/api/games",
        serde_json::json!({"white": "deepred", "black": "human", "movetime_ms": 50, "elo": 1500, "evaluator": "pst"}),
    );
    let id = g["id"].clone();
    let g = s.game_until(&id, |g| g["moves"].as_array().unwrap().len() == 1);
    assert!(!g["dests"].as_object().unwrap().is_empty());
    let (status, e) = s.post_json(&format!("/api/games/{id}/resign"), serde_json::json!(7));
    assert_eq!(status, 400, "{e}");
    let (status, e) = s.post_json(
        &format!("/api/games/{id}/resign"),
        serde_json::json!({"color": "white", "extra": 1}),
    );
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].is_string(), "{e}");
    let (_, g) = s.post_json(&format!("/api/games/{id}/resign"), serde_json::json!({}));
    assert_eq!(g["result"], "1-0");
    assert_eq!(g["termination"], "Black resigned");

    // A flag falls: 0.01 minutes (600 ms) and no move.
    let (_, g) = s.post_json(
        "/api/games",
        serde_json::json!({"white": "human", "black": "deepred", "minutes": 0.01}),
    );
    let id = g["id"].clone();
    let g = s.game_until(&id, |g| !g["result"].is_null());
    assert_eq!(g["result"], "0-1");
    assert_eq!(g["termination"], "White lost on time");
    assert_eq!(g["clock"][0], 0);

    // Bad games and moves.
    for bad in [
        serde_json::json!({"white": "robot", "black": "human"}),
        serde_json::json!({"white": "human", "black": "human", "minutes": -1}),
        serde_json::json!({"white": "human", "black": "human", "evaluator": "nonsense"}),
        serde_json::json!({"white": "human", "black": "deepred", "elo": 5}),
        serde_json::json!({"white": "human", "black": "human", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
        // Over before it starts: stalemate, checkmate.
        serde_json::json!({"white": "human", "black": "deepred", "fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}),
        serde_json::json!({"white": "human", "black": "human", "fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}),
        serde_json::json!({"white": "human"}),
    ] {
        let (status, e) = s.post_json("/api/games", bad.clone());
        assert_eq!(status, 400, "{bad}: {e}");
    }
    assert_eq!(s.get("/api/games/12345").0, 404);
    assert_eq!(s.get("/api/games/abc").0, 400);
    drop(s);

    // Explore-only: no game routes, the store untouched.
    let before = std::fs::read(db).unwrap();
    let s = Server::start_with(db, &["--explore-only"]);
    let (status, _) = s.post_json(
        "/api/games",
        serde_json::json!({"white": "human", "black": "human"}),
    );
    assert_eq!(status, 404);
    assert!(s.get("/api/games/1").1.contains("--explore-only"));
    assert!(s.get("/").1.contains("/assets/app.js"));
    drop(s);
    assert!(std::fs::read(db).unwrap() == before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A take-back while Deep Red thinks, then another human move: Deep Red answers the position
/// there is. Its search of the position taken back played its move on the new one (the rook
/// took the queen that had gone back: the white king came off the board and the server
/// panicked), because the game had the same number of moves again.
#[test]
fn a_take_back_while_deep_red_thinks_never_plays_its_old_move() {
    let dir = temp_dir("takeback");
    let db = dir.join("store.sqlite");
    let db = db.to_str().unwrap();
    import(db, &dir);
    let s = Server::start(db);
    for _ in 0..3 {
        let (status, g) = s.post_json(
            "/api/games",
            serde_json::json!({"white": "human", "black": "deepred",
                "fen": "7k/8/8/8/3r4/4K3/8/3Q4 w - - 0 1", "movetime_ms": 1000}),
        );
        assert_eq!(status, 200, "{g}");
        let id = g["id"].clone();
        play(&s, &id, "Qa4");
        let (status, g) = s.post_json(&format!("/api/games/{id}/takeback"), serde_json::json!({}));
        assert_eq!(status, 200, "{g}");
        assert!(g["moves"].as_array().unwrap().is_empty(), "{g}");
        play(&s, &id, "Kxd4");
        let g = s.game_until(&id, |g| g["moves"].as_array().unwrap().len() == 2);
        let reply = g["moves"][1]["san"].as_str().unwrap();
        assert!(reply.starts_with('K'), "Black has only its king: {g}");
        assert_eq!(s.get(&format!("/api/games/{id}/pgn")).0, 200);
        let (status, _) = s.post_json(&format!("/api/games/{id}/resign"), serde_json::json!({}));
        assert_eq!(status, 200);
    }
    // Nothing of a human's to take back: Deep Red's first move as White, or a game of Deep Red
    // against itself (a take-back undid every move and left it waiting for ever).
    for (white, black) in [("deepred", "human"), ("deepred", "deepred")] {
        let (_, g) = s.post_json(
            "/api/games",
            serde_json::json!({"white": white, "black": black, "movetime_ms": 50}),
        );
        let id = g["id"].clone();
        s.game_until(&id, |g| !g["moves"].as_array().unwrap().is_empty());
        let (status, e) = s.post_json(&format!("/api/games/{id}/takeback"), serde_json::json!({}));
        assert_eq!(status, 400, "{white} {black}: {e}");
        assert!(
            e["error"].as_str().unwrap().contains("no move of yours"),
            "{e}"
        );
    }
    // A Shredder-FEN (Chess960) position is not the web app's chess; nor is UCI's null move a
    // move in the explorer.
    let (status, e) = s.post_json(
        "/api/games",
        serde_json::json!({"white": "human", "black": "human", "fen": "4k3/8/8/8/8/8/8/R4K1R w HA - 0 1"}),
    );
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("Chess960"), "{e}");
    assert_eq!(s.get("/api/explore?moves=e2e4,0000").0, 400);
    let (status, body) = s.get("/assets/%FF");
    assert_eq!(status, 400);
    assert!(
        serde_json::from_str::<Value>(&body).is_ok_and(|v| v["error"].is_string()),
        "{body}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_learning_page_reads_the_growth_and_the_promoted_generations() {
    use deepred::experience::store::{Store, StoredNet};
    use deepred::nn::net::Kind;
    let dir = temp_dir("watch");
    let db = dir.join("store.sqlite");
    let db = db.to_str().unwrap();
    import(db, &dir);
    // Two generations promoted as the loop promotes them (the store's nets table).
    let layout = deepred::nn::random::learned_layout(8, 1);
    {
        let mut store = Store::open(Path::new(db)).unwrap();
        for g in [1, 2] {
            let mut meta = deepred::nn::random::metadata(Kind::Learned, &layout);
            meta.insert("gate".into(), format!("gate of {g}"));
            meta.insert("positions".into(), (1000 * g).to_string());
            let bytes = deepred::nn::random::serialize(
                &deepred::nn::random::tensors(&layout, g as u64),
                meta,
            )
            .unwrap();
            let net = StoredNet {
                generation: g,
                kind: "learned".into(),
                parent: Some(g - 1),
                created_at: 1_700_000_000 + g,
                bytes,
            };
            assert!(store.publish_net(&net).unwrap());
        }
    }
    // The loop's generations.csv and a learning curve, as the server was told; a missing one
    // is said, not fatal.
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let gens_csv = "generation,opponent,games,score_pct,elo,elo_95\n1,pst,200,60.0,70,40\n";
    std::fs::write(work.join("generations.csv"), gens_csv).unwrap();
    let curve = dir.join("curve.csv");
    std::fs::write(
        &curve,
        "block,games_learned,learning,score_pct,elo,elo_95\n0,0,on,50.0,0,60\n",
    )
    .unwrap();
    let s = Server::start_with(
        db,
        &[
            "--explore-only",
            "--learn-dir",
            work.to_str().unwrap(),
            "--curve",
            curve.to_str().unwrap(),
            "--curve",
            "/nonexistent/curve.csv",
        ],
    );
    let c = s.json("/api/curves");
    assert_eq!(c[0]["csv"], gens_csv);
    assert!(c[1]["csv"].as_str().unwrap().contains("games_learned"));
    assert!(c[2]["csv"].is_null() && c[2]["error"].is_string(), "{c}");
    assert!(s.json("/api/learning").is_null());
    Store::open(Path::new(db))
        .unwrap()
        .set_loop_status(1_700_000_123, "play: generation 2 has 10 of 20 games")
        .unwrap();
    let l = s.json("/api/learning");
    assert_eq!(l["line"], "play: generation 2 has 10 of 20 games");
    assert_eq!(l["at"], 1_700_000_123);
    let g = s.json("/api/growth");
    assert_eq!(g["games"], 5);
    let points = g["points"].as_array().unwrap();
    assert_eq!(points.last().unwrap()[1], 5.0);
    // The tree rows the five games touched: one per ply of each (7, 4, 4, 4 and 4 plies).
    let plies = [7u64, 4, 4, 4, 4];
    assert_eq!(points.last().unwrap()[2], plies.iter().sum::<u64>() as f64);
    let gens = s.json("/api/generations");
    assert_eq!(gens.as_array().unwrap().len(), 2, "{gens}");
    assert_eq!(gens[1]["generation"], 2);
    assert_eq!(gens[1]["parent"], 1);
    assert_eq!(gens[1]["gate"], "gate of 2");
    assert_eq!(gens[1]["positions"], "2000");
    assert!(s.get("/learn").1.contains("/assets/learn.js"));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

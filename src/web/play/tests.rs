//! The game table's rules: room for games, and what each game gets from the server.

use super::*;

fn human_game() -> NewGame {
    serde_json::from_value(serde_json::json!({"white": "human", "black": "human"})).unwrap()
}

/// A full table refuses a new game while its games are in use, and makes room from the
/// games no request has named for the idle limit.
#[test]
fn a_full_table_makes_room_from_idle_games_only() {
    let dir = std::env::temp_dir().join(format!("deepred-web-idle-{}", std::process::id()));
    let mut games = Games::new(dir.join("store.sqlite"), GameSetup::default());
    games.max_games = 2;
    games.idle_evict = std::time::Duration::from_secs(3600);
    let first = games.create(human_game()).unwrap().id;
    games.create(human_game()).unwrap();
    assert!(matches!(games.create(human_game()), Err(Error::TooMany(_))));
    assert!(games.view(first).is_ok(), "a refused game evicted none");
    games.idle_evict = std::time::Duration::ZERO;
    let third = games.create(human_game()).unwrap().id;
    assert!(matches!(games.view(first), Err(Error::NotFound(_))));
    assert!(games.view(third).is_ok());
}

/// Each game gets the server's hash size and, for the server's evaluator, its net file;
/// memory that cannot be had is a 503, not an abort of the server.
#[test]
fn games_get_the_servers_hash_and_net() {
    let dir = std::env::temp_dir().join(format!("deepred-web-setup-{}", std::process::id()));
    let store = dir.join("store.sqlite");
    let huge = GameSetup {
        hash_mb: usize::MAX,
        eval_file: None,
    };
    let e = Games::new(store.clone(), huge)
        .create(human_game())
        .unwrap_err();
    assert!(
        matches!(&e, Error::Rejected(s, t) if *s == axum::http::StatusCode::SERVICE_UNAVAILABLE
            && t.starts_with("no memory for another game")),
        "{e:?}"
    );
    let missing = dir.join("no-such-net.safetensors");
    let setup = GameSetup {
        hash_mb: 1,
        eval_file: Some((EvalKind::Learned, missing.clone())),
    };
    let games = Games::new(store, setup);
    let e = games.create(human_game()).unwrap_err().to_string();
    assert!(e.contains("no-such-net.safetensors"), "{e}");
    // Another evaluator than the server's keeps its own net.
    let pst = serde_json::json!({"white": "human", "black": "human", "evaluator": "pst"});
    let id = games
        .create(serde_json::from_value(pst).unwrap())
        .unwrap()
        .id;
    assert_eq!(lock(&lock(&games.map)[&id].player).tt().mb(), 1);
}

fn new_game(v: serde_json::Value) -> NewGame {
    serde_json::from_value(v).unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("deepred-web-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SLEEP: fn(u64) = |ms| std::thread::sleep(std::time::Duration::from_millis(ms));

/// A game dropped to make room plays no more: Deep Red against itself went on unseen, a
/// search after each move, holding its hash table.
#[test]
fn a_game_dropped_for_room_plays_no_more() {
    let mut games = Games::new(temp("evict").join("store.sqlite"), GameSetup::default());
    games.max_games = 1;
    games.idle_evict = std::time::Duration::ZERO;
    let both = serde_json::json!({"white": "deepred", "black": "deepred", "movetime_ms": 10});
    let first = games.create(new_game(both)).unwrap().id;
    let dropped = lock(&games.map)[&first].clone();
    SLEEP(100);
    games.create(human_game()).unwrap();
    assert!(matches!(games.view(first), Err(Error::NotFound(_))));
    SLEEP(200);
    let moves = lock(&dropped.state).moves.len();
    SLEEP(300);
    let st = lock(&dropped.state);
    assert_eq!(st.moves.len(), moves, "the dropped game played on");
    assert!(!st.searching);
}

/// A flag that fell since the last request ends the game for a take-back, a resignation and a
/// draw offer too: they were granted, and the game learned with their result.
#[test]
fn a_fallen_flag_ends_the_game_for_every_request() {
    let games = Games::new(temp("flag").join("store.sqlite"), GameSetup::default());
    let clocked = serde_json::json!({"white": "human", "black": "human", "minutes": 0.005});
    for request in ["takeback", "resign", "draw"] {
        let id = games.create(new_game(clocked.clone())).unwrap().id;
        games.play(id, "e4").unwrap();
        SLEEP(500);
        let refused = match request {
            "takeback" => games.takeback(id),
            "resign" => games.resign(id, Some("white")),
            _ => games.draw(id),
        };
        let e = refused.unwrap_err().to_string();
        assert_eq!(e, "the game is over (1-0, Black lost on time)", "{request}");
        let v = games.view(id).unwrap();
        assert_eq!((v.result, v.moves.len()), (Some("1-0"), 1), "{request}");
        assert!(v.learned.is_some(), "{request}");
    }
}

/// Only a human offers a draw (Deep Red against itself was drawn by any request, and learned
/// as a draw); a refused take-back leaves Deep Red's search its time.
#[test]
fn draws_and_take_backs_are_the_humans() {
    let games = Games::new(temp("draw").join("store.sqlite"), GameSetup::default());
    let both = serde_json::json!({"white": "deepred", "black": "deepred", "movetime_ms": 60000});
    let id = games.create(new_game(both)).unwrap().id;
    let e = games.draw(id).unwrap_err().to_string();
    assert_eq!(e, "only a human offers a draw");
    let thinking = serde_json::json!({"white": "deepred", "black": "human", "movetime_ms": 60000});
    let id = games.create(new_game(thinking)).unwrap().id;
    let e = games.takeback(id).unwrap_err().to_string();
    assert_eq!(e, "no move of yours to take back");
    let game = lock(&games.map)[&id].clone();
    assert!(
        !game.shared.stop.load(Ordering::SeqCst),
        "the search was stopped"
    );
    assert!(lock(&game.state).searching);
    for g in lock(&games.map).values() {
        lock(&g.state).closed = true;
        g.shared.stop.store(true, Ordering::SeqCst);
    }
}

/// A finished game the store refused is kept and learned when the store takes it (it was
/// lost: "not learned", and no way to try again).
#[test]
fn a_game_the_store_refused_is_learned_later() {
    let folder = temp("retry").join("store");
    std::fs::write(&folder, "a file where the store's folder goes").unwrap();
    let store = folder.join("store.sqlite");
    let mut games = Games::new(store.clone(), GameSetup::default());
    games.learn_retry = std::time::Duration::from_millis(100);
    // Against Deep Red: its search's findings are learned with the game (Black has only pawn
    // moves; c8=Q mates).
    let setup = serde_json::json!({"white": "human", "black": "deepred", "movetime_ms": 50,
        "fen": "k7/7p/1KP5/8/8/8/8/8 w - - 0 1"});
    let id = games.create(new_game(setup)).unwrap().id;
    games.play(id, "c7").unwrap();
    for _ in 0..100 {
        if games.view(id).unwrap().moves.len() == 2 {
            break;
        }
        SLEEP(50);
    }
    games.play(id, "c8=Q").unwrap();
    let note = games.view(id).unwrap().learned.unwrap();
    assert!(note.starts_with("not learned yet"), "{note}");
    std::fs::remove_file(&folder).unwrap();
    std::fs::create_dir(&folder).unwrap();
    let learned = (0..100).find_map(|_| {
        SLEEP(100);
        let note = games.view(id).unwrap().learned.unwrap();
        note.starts_with("learned into").then_some(note)
    });
    assert!(learned.is_some(), "{:?}", games.view(id).unwrap().learned);
    // The searches' findings too (they were dropped by the refused write).
    let db = rusqlite::Connection::open(&store).unwrap();
    let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM games"), 1);
    assert!(count("SELECT count(*) FROM search_memory") > 0);
}

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

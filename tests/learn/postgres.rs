//! The learning loop on a farm: players and a trainer on one store on a real PostgreSQL
//! server (tests/common/pg.rs), a promoted net reaching both players, and a server that ends
//! the connections of a player or a trainer.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use deepred::experience::store::Store;

use super::{common, last_status, learn, run_ok, small_random_net, temp, wait_for_games};

/// A player whose connection the server ends (a restart, an administrator) connects again and
/// plays on: it stopped with "connection closed", and a farm's every player had to be started
/// again by hand.
#[test]
fn postgres_a_player_connects_again_when_the_server_ends_its_connection() {
    let Some(server) = common::pg::server() else {
        return;
    };
    let url = server.new_db("reconnect");
    let db_name = url.rsplit('/').next().unwrap().to_string();
    let dir = temp("reconnect");
    let from = small_random_net(&dir);
    let mut c = learn(
        &dir.join("home"),
        &url,
        &dir.join("work"),
        &from,
        &["--play-only", "--max-games", "30", "--threads", "1"],
    );
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let have = wait_for_games(Path::new(&url), 3, Duration::from_secs(60));
    assert!(have >= 3, "{have}");
    server.sql(
        &server.url("postgres"),
        &format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = '{db_name}' AND application_name = 'deepred'"
        ),
    );
    let out = child.wait_with_output().unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("lost the store") && log.contains("connected to the store again"),
        "{log}"
    );
    // Every game but the one under way when the connection went.
    let games = wait_for_games(Path::new(&url), 30, Duration::ZERO);
    assert!((29..=30).contains(&games), "{games}\n{log}");
}

/// A trainer whose connection the server ends while it waits for the players connects again
/// and trains once their games are there: it stopped with the server's error, and had to be
/// started again by hand.
#[test]
fn postgres_a_trainer_connects_again_when_the_server_ends_its_connection() {
    let Some(server) = common::pg::server() else {
        return;
    };
    let url = server.new_db("retrain");
    let db_name = url.rsplit('/').next().unwrap().to_string();
    let dir = temp("retrain");
    let from = small_random_net(&dir);
    let trainer = learn(
        &dir.join("home-trainer"),
        &url,
        &dir.join("work-trainer"),
        &from,
        &[
            "--train-only",
            "--rounds",
            "1",
            "--max-wait",
            "120",
            "--games",
            "6",
            "--threads",
            "1",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let start = Instant::now();
    while !last_status(Path::new(&url)).contains("waiting for the players") {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the trainer never waited"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server.sql(
        &server.url("postgres"),
        &format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = '{db_name}' AND application_name = 'deepred'"
        ),
    );
    run_ok(learn(
        &dir.join("home-player"),
        &url,
        &dir.join("work-player"),
        &from,
        &["--play-only", "--max-games", "6", "--threads", "1"],
    ));
    let out = trainer.wait_with_output().unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("learn: lost the store")
            && log.contains("learn: connected to the store again"),
        "{log}"
    );
    assert!(log.contains("train: generation 1"), "{log}");
    assert!(log.contains("1 candidates trained"), "{log}");
}

#[test]
fn postgres_a_farm_of_two_players_and_a_trainer() {
    let Some(server) = common::pg::server() else {
        return;
    };
    let url = server.new_db("farm");
    let dir = temp("farm");
    let from = small_random_net(&dir);
    let player = |k: usize| {
        let mut c = learn(
            &dir.join(format!("home{k}")),
            &url,
            &dir.join(format!("work{k}")),
            &from,
            &[
                "--play-only",
                "--max-games",
                "120",
                "--threads",
                "1",
                "--games",
                "24",
                "--seed",
            ],
        );
        c.arg(k.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let players = [player(1), player(2)];
    let trainer = learn(
        &dir.join("home-trainer"),
        &url,
        &dir.join("work-trainer"),
        &from,
        &[
            "--train-only",
            "--generations",
            "1",
            "--max-wait",
            "120",
            "--games",
            "24",
            "--threads",
            "2",
        ],
    );
    let log = run_ok(trainer);
    assert!(log.contains("generations promoted: 1"), "{log}");
    // A candidate of its parent's size is gated at fixed nodes.
    assert!(
        log.contains("gate: generation 1 against 0 at 200 nodes,"),
        "{log}"
    );
    // The trainer trained on every game there was when it started.
    let trained = log
        .lines()
        .find(|l| l.contains("train: generation 1"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(trained.contains("of the latest"), "{trained}");
    let mut played = 0;
    for p in players {
        let out = p.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        // The promoted net reached this player between its games.
        assert!(text.contains("play: with generation 1"), "{text}");
        let n: u64 = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("learn: ")?
                    .split(" games played")
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("{text}"));
        played += n;
    }
    // Every game counted once: the players' games are all in the store, none twice.
    let store = Store::open_read_only(Path::new(&url)).unwrap();
    let in_store = store.count_games("learn", "Deep Red learn gen 0").unwrap()
        + store.count_games("learn", "Deep Red learn gen 1").unwrap();
    assert_eq!(in_store, played);
    assert!(store.count_games("learn", "Deep Red learn gen 1").unwrap() > 0);
    let (_, line) = store.loop_status().unwrap().expect("the farm's status");
    assert!(
        line.starts_with("(player) ") || line.starts_with("(trainer) "),
        "{line}"
    );
}

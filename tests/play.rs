//! `deepred play` driven through piped stdin: human against human and against the engine, with
//! a temporary experience store and PGN file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

mod common;

use deepred::chess::pgn::{PgnGame, read_games};
use deepred::chess::rules::GameResult;
use deepred::experience::store::Store;
use shakmaty::Chess;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-play-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Run {
    stdout: String,
    stderr: String,
}

/// Runs `deepred play ARGS`, feeds `input` on stdin and closes it; the process must exit
/// successfully and never panic.
fn play(args: &[&str], input: &str) -> Run {
    let mut child = common::command()
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start deepred play");
    {
        let mut stdin = child.stdin.take().unwrap();
        // The process may have ended already (game over): a broken pipe is fine.
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        run.stdout,
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn games_in(db: &Path) -> u64 {
    Store::open_read_only(db).unwrap().game_count().unwrap()
}

fn pgn_games(pgn: &Path) -> Vec<PgnGame> {
    read_games(std::fs::File::open(pgn).unwrap())
        .into_iter()
        .map(|g| g.unwrap())
        .collect()
}

fn uci_moves(g: &PgnGame) -> Vec<String> {
    g.moves
        .iter()
        .map(|m| deepred::chess::notation::uci_move(*m, false))
        .collect()
}

/// The FENs printed by the `fen` command, in order.
fn fens(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| l.rsplit("> ").next().unwrap_or(l).trim())
        .filter(|l| l.split(' ').count() == 6 && l.split('/').count() == 8)
        .map(str::to_string)
        .collect()
}

#[test]
fn fools_mate_between_humans_is_learned_and_written() {
    let dir = temp_dir("fools-mate");
    let (db, pgn) = (dir.join("exp.sqlite"), dir.join("games.pgn"));
    let r = play(
        &["--human", "both", "--db", s(&db), "--pgn", s(&pgn)],
        "f3\ne7e5\ng2g4\nQh4#\n",
    );
    assert!(
        r.stdout.contains("Result: 0-1 (Black won by checkmate)."),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Last move: 2... Qh4#"), "{}", r.stdout);
    assert!(r.stdout.contains("learned into"), "{}", r.stdout);
    assert!(r.stdout.contains("appended to"), "{}", r.stdout);
    assert!(r.stderr.is_empty(), "{}", r.stderr);

    // The store holds the game, as its own `stats` command and the library say.
    assert_eq!(games_in(&db), 1);
    let stats = common::command()
        .args(["experience", "stats", "--db", s(&db)])
        .output()
        .unwrap();
    let stats = String::from_utf8_lossy(&stats.stdout);
    assert!(stats.contains("games: 1"), "{stats}");
    let store = Store::open_read_only(&db).unwrap();
    let after_f3 = deepred::chess::fen::parse_fen(
        "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1",
        false,
    )
    .unwrap();
    let known = store.moves_from(&after_f3).unwrap();
    assert_eq!(known.len(), 1);
    assert_eq!(
        (
            known[0].mv.as_str(),
            known[0].black_wins,
            known[0].white_wins
        ),
        ("e7e5", 1, 0)
    );

    // The PGN re-reads to the same game.
    let games = pgn_games(&pgn);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(uci_moves(g), ["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert_eq!(g.result, Some(GameResult::BlackWins));
    assert_eq!(g.start, Chess::default());
    assert_eq!(g.tag("White"), Some("Human"));
    assert_eq!(g.tag("Black"), Some("Human"));
    assert_eq!(g.tag("Termination"), Some("Black won by checkmate"));

    // A second game is appended to the same file.
    play(
        &["--human", "both", "--db", s(&db), "--pgn", s(&pgn)],
        "e4\nresign\n",
    );
    assert_eq!(pgn_games(&pgn).len(), 2);
    assert_eq!(games_in(&db), 2);
}

#[test]
fn bad_input_never_crashes() {
    let dir = temp_dir("bad-input");
    let db = dir.join("exp.sqlite");
    let long = "x".repeat(100_000);
    let input = format!(
        "\n   \ne5\nxyzzy\nNf6\ne2e5\nKe2\nO-O\ne7e8q\n0000\n--\nN@f3\n\u{1F642}\n\u{0}\n{long}\nundo\ndraw please\ne4 e5\nmoves\nhelp\nboard\nflip\nfen\npgn\nquit\n"
    );
    let r = play(&["--human", "both", "--db", s(&db)], &input);
    for msg in [
        "'e5' is not a legal move here",
        "'xyzzy' is neither a move nor a command",
        "'O-O' is not a legal move here",
        "'e7e8q' is not a legal move here",
        "There is no move of yours to take back.",
        "Nf3",
        "take back your last move",
        "[Result \"*\"]",
        "Game abandoned after 0 plies",
    ] {
        assert!(r.stdout.contains(msg), "missing {msg:?} in\n{}", r.stdout);
    }
    assert_eq!(fens(&r.stdout), [START_FEN]);
    assert_eq!(games_in(&db), 0);
}

#[test]
fn ambiguous_and_promotion_moves_are_explained() {
    let r = play(
        &[
            "--human",
            "both",
            "--no-learn",
            "--fen",
            "4k3/P7/8/8/8/8/8/1N2KN2 w - - 0 1",
        ],
        "Nd2\na8\nNbd2\nKd7\na8=N\nfen\nquit\n",
    );
    assert!(
        r.stdout
            .contains("'Nd2' is ambiguous here: Nbd2, Nfd2 (say which)."),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("'a8' promotes a pawn: say to what"),
        "{}",
        r.stdout
    );
    assert_eq!(fens(&r.stdout), ["N7/3k4/8/8/8/8/3N4/4KN2 b - - 0 2"]);
}

#[test]
fn takeback_restores_the_position() {
    // Between humans: one ply.
    let r = play(
        &["--human", "both", "--no-learn"],
        "e4\ne5\nNf3\nundo\nfen\ntakeback\nfen\nd5\nfen\nquit\n",
    );
    assert_eq!(
        fens(&r.stdout),
        [
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        ]
    );
    // Against the engine: the human's move and the engine's reply.
    let r = play(
        &["--human", "white", "--depth", "2", "--no-learn"],
        "e4\nd4\nundo\nfen\nundo\nfen\nundo\nquit\n",
    );
    let f = fens(&r.stdout);
    assert_eq!(f.len(), 2, "{}", r.stdout);
    // After 1. e4 and Deep Red's reply: White to move on move 2, the e-pawn on e4.
    assert!(
        f[0].contains("/4P3/8/PPPP1PPP/") && f[0].contains(" w KQkq ") && f[0].ends_with(" 2"),
        "{f:?}"
    );
    assert_eq!(f[1], START_FEN);
    assert_eq!(r.stdout.matches("Taken back.").count(), 2);
    assert!(
        r.stdout.contains("There is no move of yours to take back."),
        "{}",
        r.stdout
    );
    // Deep Red answered 1. e4 and 2. d4; the takebacks removed both replies.
    assert_eq!(r.stdout.matches("Deep Red plays").count(), 2);
}

#[test]
fn resignation_is_learned_with_its_result() {
    let dir = temp_dir("resign");
    let (db, pgn) = (dir.join("exp.sqlite"), dir.join("games.pgn"));
    let r = play(
        &["--human", "both", "--db", s(&db), "--pgn", s(&pgn)],
        "e4\ne5\nresign\n",
    );
    assert!(
        r.stdout.contains("Result: 0-1 (Black won by resignation)."),
        "{}",
        r.stdout
    );
    assert_eq!(games_in(&db), 1);
    let g = &pgn_games(&pgn)[0];
    assert_eq!(g.result, Some(GameResult::BlackWins));
    assert_eq!(g.tag("Termination"), Some("Black won by resignation"));
    assert_eq!(uci_moves(g), ["e2e4", "e7e5"]);
}

#[test]
fn quit_and_end_of_input_learn_nothing() {
    let dir = temp_dir("quit");
    let (db, pgn) = (dir.join("exp.sqlite"), dir.join("games.pgn"));
    let args = ["--human", "both", "--db", s(&db), "--pgn", s(&pgn)];
    let r = play(&args, "e4\ne5\nquit\nresign\n");
    assert!(
        r.stdout.contains("Game abandoned after 2 plies"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("Result:"), "{}", r.stdout);
    let r = play(&args, "e4\ne5\nNf3");
    assert!(r.stdout.contains("End of input."), "{}", r.stdout);
    assert!(
        r.stdout.contains("Game abandoned after 3 plies"),
        "{}",
        r.stdout
    );
    // End of input while a draw offer waits for its answer.
    let r = play(&args, "e4\ndraw\n");
    assert!(r.stdout.contains("Game abandoned"), "{}", r.stdout);
    assert_eq!(games_in(&db), 0);
    assert!(!pgn.exists());
}

#[test]
fn draws_by_agreement_and_by_the_rules() {
    let dir = temp_dir("draws");
    let (db, pgn) = (dir.join("exp.sqlite"), dir.join("games.pgn"));
    let args = ["--human", "both", "--db", s(&db), "--pgn", s(&pgn)];
    let r = play(&args, "e4\ndraw\nmaybe\nn\ne5\ndraw\nyes\n");
    assert!(r.stdout.contains("Draw declined."), "{}", r.stdout);
    assert!(r.stdout.contains("Please answer y or n."), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("Result: 1/2-1/2 (Game drawn by agreement)."),
        "{}",
        r.stdout
    );
    let r = play(&args, "Nf3\nNf6\nNg1\nNg8\nNf3\nNf6\nNg1\nNg8\n");
    assert!(
        r.stdout
            .contains("Result: 1/2-1/2 (Game drawn by threefold repetition)."),
        "{}",
        r.stdout
    );
    let games = pgn_games(&pgn);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("Termination"), Some("Game drawn by agreement"));
    assert_eq!(games[0].result, Some(GameResult::Draw));
    assert_eq!(games[1].moves.len(), 8);
    assert_eq!(games_in(&db), 2);
}

#[test]
fn the_engine_accepts_draws_only_when_it_stands_badly() {
    // Deep Red (Black) has a lone king against two queens: it accepts.
    let r = play(
        &[
            "--human",
            "white",
            "--depth",
            "3",
            "--no-learn",
            "--fen",
            "4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1",
        ],
        "draw\n",
    );
    assert!(
        r.stdout.contains("Deep Red accepts the draw"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Result: 1/2-1/2"), "{}", r.stdout);
    // Deep Red (White) has the two queens: it declines, and the human resigns.
    let r = play(
        &[
            "--human",
            "black",
            "--depth",
            "3",
            "--no-learn",
            "--fen",
            "4k3/8/8/8/8/8/8/QQ2K3 b - - 0 1",
        ],
        "draw\nresign\n",
    );
    assert!(
        r.stdout.contains("Deep Red declines the draw"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("Result: 1-0 (White won by resignation)."),
        "{}",
        r.stdout
    );
    // A dead draw (a minor piece each) is accepted whatever the score.
    let r = play(
        &[
            "--human",
            "white",
            "--depth",
            "2",
            "--no-learn",
            "--fen",
            "4k3/8/8/2n5/8/8/8/2B1K3 w - - 0 1",
        ],
        "draw\n",
    );
    assert!(
        r.stdout.contains("no one can win this position"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_human_against_the_engine_resigns_and_the_game_is_learned() {
    let dir = temp_dir("engine");
    let (db, pgn) = (dir.join("exp.sqlite"), dir.join("games.pgn"));
    let r = play(
        &[
            "--human",
            "black",
            "--depth",
            "2",
            "--db",
            s(&db),
            "--pgn",
            s(&pgn),
        ],
        "a6\nh6\na5\nh5\nresign\n",
    );
    // Deep Red moves first as White, answers each move, and says how it sees the game.
    assert!(
        r.stdout.contains("You play Black against Deep Red"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Deep Red plays 1. "), "{}", r.stdout);
    assert!(r.stdout.contains("depth 2"), "{}", r.stdout);
    assert!(r.stdout.contains("Black to move (you)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Result: 1-0 (White won by resignation)."),
        "{}",
        r.stdout
    );
    // The human plays Black: the board has rank 1 at the top.
    let board_top = r
        .stdout
        .lines()
        .find(|l| l.starts_with(" |"))
        .unwrap()
        .to_string();
    assert!(board_top.ends_with("| 1"), "{board_top}");
    assert_eq!(games_in(&db), 1);
    let g = &pgn_games(&pgn)[0];
    assert_eq!(g.result, Some(GameResult::WhiteWins));
    assert!(g.tag("White").unwrap().starts_with("Deep Red"));
    assert_eq!(g.tag("Black"), Some("Human"));
    assert!(g.moves.len() >= 9, "{:?}", uci_moves(g));
    assert_eq!(
        g.moves.len() % 2,
        1,
        "the engine moved after each human move"
    );
}

#[test]
fn an_unusable_store_does_not_stop_the_game() {
    let dir = temp_dir("bad-store");
    let db = dir.join("not-a-db.sqlite");
    let junk = "this is not an SQLite file\n".repeat(100);
    std::fs::write(&db, &junk).unwrap();
    let r = play(&["--human", "both", "--db", s(&db)], "f3\ne5\ng4\nQh4#\n");
    assert!(r.stderr.contains("learning is off"), "{}", r.stderr);
    assert!(r.stdout.contains("Result: 0-1"), "{}", r.stdout);
    assert!(r.stdout.contains("could not be opened"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&db).unwrap(), junk);
}

#[test]
fn a_game_from_a_fen_is_written_with_its_start() {
    let dir = temp_dir("fen");
    let pgn = dir.join("games.pgn");
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    let r = play(
        &[
            "--human",
            "both",
            "--no-learn",
            "--pgn",
            s(&pgn),
            "--fen",
            fen,
        ],
        "Ra8\n",
    );
    assert!(
        r.stdout.contains("Result: 1-0 (White won by checkmate)."),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("not learned"), "{}", r.stdout);
    let g = &pgn_games(&pgn)[0];
    assert_eq!(deepred::chess::fen::fen_of(&g.start), fen);
    assert_eq!(uci_moves(g), ["a1a8"]);
    // A position that is already over is not played.
    let r = play(
        &[
            "--human",
            "both",
            "--no-learn",
            "--fen",
            "R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1",
        ],
        "",
    );
    assert!(r.stdout.contains("already over"), "{}", r.stdout);
}

/// Input that is not UTF-8 is one unreadable line, not the end of the game; a PGN file is
/// appended to after a line end, never glued to what it holds; a game that cannot be written
/// is shown instead and the command fails.
#[cfg(unix)]
#[test]
fn unreadable_input_and_an_unwritable_pgn_lose_no_game() {
    let dir = temp_dir("bytes");
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, "notes without a line end").unwrap();
    let run = |pgn: &Path, input: &[u8]| {
        let mut child = common::command()
            .args(["play", "--human", "both", "--no-learn", "--pgn", s(pgn)])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input);
        child.wait_with_output().unwrap()
    };
    let out = run(&pgn, b"e4\ne5\n\xff\xfe\nNf3\nresign\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        text.starts_with("notes without a line end\n\n[Event "),
        "{text}"
    );
    let games: Vec<PgnGame> = read_games(std::fs::File::open(&pgn).unwrap())
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let g = games.last().unwrap();
    assert_eq!(uci_moves(g), ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(g.result, Some(GameResult::WhiteWins));
    let out = run(Path::new("/dev/full"), b"f3\ne5\ng4\nQh4#\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("[Result \"0-1\"]"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write '/dev/full'"));
}

//! `deepred match` against real engines (Deep Red itself) and against fake engines (shell
//! scripts, so Unix only): two that play a scripted game, a crashing one, one that plays
//! illegal moves, one that answers no move, one that never moves.

use std::path::{Path, PathBuf};
use std::process::Output;

use deepred::chess::pgn::read_games;
use deepred::chess::rules::GameResult;
use deepred::chess::rules::rule_result;
use deepred::experience::store::Store;
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_deepred");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-match-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn book() -> String {
    common::data("books/noob_3moves_200.epd")
        .to_string_lossy()
        .into_owned()
}

/// Every game of a PGN file the match wrote (each must read back).
fn read_pgn(path: &Path) -> Vec<deepred::chess::pgn::PgnGame> {
    read_games(std::fs::File::open(path).unwrap())
        .into_iter()
        .map(|g| g.expect("the PGN the match wrote reads back"))
        .collect()
}

fn run_match(args: &[&str]) -> Output {
    common::command().arg("match").args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fake UCI engine: a shell script answering the handshake, doing `on_go` for every `go`.
#[cfg(unix)]
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo \"id name {name}\"; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn deep_red_against_itself_alternates_colours_writes_pgn_and_learns() {
    let dir = temp_dir("self");
    let pgn = dir.join("m.pgn");
    let db = dir.join("x.sqlite");
    let o = run_match(&[
        "--opponent",
        &format!("{BIN} uci"),
        "--opponent-option",
        "Hash=8",
        "--nodes",
        "3000",
        "--games",
        "4",
        "--book",
        &book(),
        "--concurrency",
        "2",
        "--pgn",
        pgn.to_str().unwrap(),
        "--learn",
        "--db",
        db.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(": 4 games,"), "{out}");
    assert!(out.contains("Elo"), "{out}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("game ")).count(),
        4,
        "{err}"
    );

    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 4);
    let mut rounds: Vec<_> = games
        .iter()
        .map(|g| g.tag("Round").unwrap().parse::<usize>().unwrap())
        .collect();
    rounds.sort();
    assert_eq!(rounds, [1, 2, 3, 4]);
    let by_round = |r: &str| games.iter().find(|g| g.tag("Round") == Some(r)).unwrap();
    for (a, b) in [("1", "2"), ("3", "4")] {
        let (a, b) = (by_round(a), by_round(b));
        assert_eq!(a.start, b.start, "a pair shares its opening");
        assert_eq!(a.tag("White"), b.tag("Black"), "colours are swapped");
        assert_ne!(a.tag("White"), a.tag("Black"));
    }
    // Every game is decided on the board and learned; the same game played twice (two equal
    // engines can repeat each other's game with colours swapped) is learned once.
    let mut distinct = std::collections::HashSet::new();
    for g in &games {
        let term = g.tag("Termination").unwrap();
        if term == "normal" {
            assert_eq!(rule_result(&g.start, &g.moves), g.result);
        } else {
            assert_eq!(term, "adjudication", "no forfeits between two Deep Reds");
        }
        let start = Fen::from_position(&g.start, EnPassantMode::Legal).to_string();
        distinct.insert((start, g.moves.clone(), g.result));
    }
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.game_count().unwrap(), distinct.len() as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_crashing_opponent_loses_and_is_restarted_and_forfeits_are_not_learned() {
    let dir = temp_dir("crash");
    let crasher = fake_engine(&dir, "Crasher", "exit 3");
    let pgn = dir.join("m.pgn");
    let db = dir.join("x.sqlite");
    let o = run_match(&[
        "--opponent",
        &crasher,
        "--nodes",
        "500",
        "--games",
        "3",
        "--pgn",
        pgn.to_str().unwrap(),
        "--learn",
        "--db",
        db.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("3 games, 3 wins, 0 losses, 0 draws"), "{out}");
    assert!(out.contains("disconnect by Crasher 3"), "{out}");
    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 3);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("abandoned"));
        let crasher_white = g.tag("White") == Some("Crasher");
        let expected = if crasher_white {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        };
        assert_eq!(g.result, Some(expected));
        // Deep Red's move is kept when the crasher had Black.
        assert_eq!(g.moves.len(), usize::from(!crasher_white));
    }
    assert_eq!(Store::open_read_only(&db).unwrap().game_count().unwrap(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn illegal_moves_lose() {
    let dir = temp_dir("illegal");
    // e2e5 is illegal for both colours at move one, garbage is no move either.
    for (i, reply) in ["e2e5", "xyz"].iter().enumerate() {
        let bad = fake_engine(
            &dir,
            &format!("Cheater{i}"),
            &format!("echo 'info depth 1 score cp 0'; echo 'bestmove {reply}'"),
        );
        let o = run_match(&["--opponent", &bad, "--depth", "2", "--games", "2"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        assert!(out.contains("2 games, 2 wins, 0 losses"), "{reply}: {out}");
        assert!(
            out.contains(&format!("illegal move by Cheater{i} 2")),
            "{out}"
        );
        assert!(err.contains(&format!("illegal move: {reply}")), "{err}");
    }
    // "(none)" (what Stockfish answers a position without a legal move) and the null move
    // "0000" are understood as no move: a position with legal moves, so they lose too.
    for (i, reply) in ["(none)", "0000"].iter().enumerate() {
        let idle = fake_engine(
            &dir,
            &format!("Idle{i}"),
            &format!("echo 'info depth 0 score cp 0'; echo 'bestmove {reply}'"),
        );
        let o = run_match(&["--opponent", &idle, "--depth", "2", "--games", "2"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        assert!(out.contains("2 games, 2 wins, 0 losses"), "{reply}: {out}");
        assert!(out.contains(&format!("no move by Idle{i} 2")), "{out}");
        assert!(
            err.contains(&format!(
                "Idle{i} gives no move in a position with legal moves"
            )),
            "{err}"
        );
        assert!(!err.contains("illegal move: "), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two scripted engines that play Fool's mate, each `go` answered by the next of `replies`
/// (an `info` line's score and depth, then the move).
#[cfg(unix)]
fn scripted_engine(dir: &Path, name: &str, replies: &[(&str, &str)]) -> String {
    let mut on_go = String::from("n=$((n+1)); case $n in");
    for (i, (info, mv)) in replies.iter().enumerate() {
        on_go.push_str(&format!(
            " {}) echo 'info {info} nodes 10 pv {mv}'; echo 'bestmove {mv}';;",
            i + 1
        ));
    }
    on_go.push_str(" esac");
    fake_engine(dir, name, &on_go)
}

#[cfg(unix)]
#[test]
fn the_pgn_carries_each_movers_score_depth_and_time_as_cutechess_writes_them() {
    let dir = temp_dir("comments");
    let pgn = dir.join("m.pgn");
    let white = scripted_engine(
        &dir,
        "Fool",
        &[
            ("depth 7 score cp -123", "f2f3"),
            ("depth 9 score mate -1", "g2g4"),
        ],
    );
    let black = scripted_engine(
        &dir,
        "Mater",
        &[
            ("depth 8 score cp 45", "e7e5"),
            ("depth 11 score mate 1", "d8h4"),
        ],
    );
    let o = run_match(&[
        "--engine",
        &white,
        "--opponent",
        &black,
        "--depth",
        "5",
        "--games",
        "1",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].result, Some(GameResult::BlackWins));
    // Read back as any cutechess PGN is: each mover's own score, mates in plies to the mate
    // (`MATE - 1` for mate in one, `-(MATE - 2)` for mated in one).
    assert_eq!(
        games[0].evals,
        [
            Some((-123, 7)),
            Some((45, 8)),
            Some((-31_998, 9)),
            Some((31_999, 11))
        ]
    );
    // The comments themselves, each with the time the move took.
    let text = std::fs::read_to_string(&pgn).unwrap();
    let comments: Vec<&str> = text
        .split('{')
        .skip(1)
        .map(|c| c.split('}').next().unwrap())
        .collect();
    let evals: Vec<&str> = comments
        .iter()
        .map(|c| c.split(' ').next().unwrap())
        .collect();
    assert_eq!(evals, ["-1.23/7", "+0.45/8", "-M1/9", "+M1/11"], "{text}");
    for c in &comments {
        let time = c.split(' ').nth(1).unwrap_or_default();
        let secs = time.strip_suffix('s').and_then(|t| t.parse::<f64>().ok());
        assert!(secs.is_some_and(|s| (0.0..5.0).contains(&s)), "{c}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn an_engine_that_never_moves_loses_on_time() {
    let dir = temp_dir("slow");
    let sleeper = fake_engine(&dir, "Sleeper", ":");
    let o = run_match(&["--opponent", &sleeper, "--tc", "0.3+0", "--games", "2"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("2 games, 2 wins"), "{out}");
    assert!(out.contains("time forfeit by Sleeper 2"), "{out}");
    assert!(err.contains("Sleeper loses on time"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn bad_arguments_fail_cleanly() {
    let cases: [&[&str]; 10] = [
        &["--opponent", "/nonexistent/engine"],
        &["--opponent", "true"],
        &["--opponent", "cat", "--tc", "fast"],
        &["--opponent", "cat", "--tc", "40/"],
        &["--opponent", "cat", "--tc", "0/60"],
        &["--opponent", "cat", "--opponent-tc", "40/-1"],
        &["--opponent", "cat", "--sprt", "5,0,0.05,0.05"],
        &["--opponent", "cat", "--sprt", "0,5,0.05"],
        &["--opponent", "cat", "--book", "/nonexistent.epd"],
        &["--opponent", "cat", "--engine-option", "Hash"],
    ];
    for args in cases {
        let o = run_match(args);
        let (out, err) = text(&o);
        assert!(!o.status.success(), "{args:?}: {out}");
        assert!(err.starts_with("deepred: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// An option an engine lacks, or one it refuses, stops the match before any game, naming it:
/// a mistyped tunable must not leave an SPRT or a tune playing at the defaults.
#[test]
fn option_errors_stop_the_match_before_any_game() {
    let dir = temp_dir("options");
    let pgn = dir.join("m.pgn");
    let opponent = format!("{BIN} uci");
    for (side, option, want) in [
        (
            "--engine-option",
            "NoSuchTunable=1",
            "it has no option 'NoSuchTunable'",
        ),
        // Values outside what the engine announced: refused by the runner, since most engines
        // ignore them (Stockfish keeps its default)...
        (
            "--engine-option",
            "Hash=abc",
            "'abc' is not a value of 'Hash', a whole number from 1 to",
        ),
        ("--opponent-option", "Hash=99999999", "from 1 to 32768"),
        ("--engine-option", "Ponder=maybe", "true or false"),
        (
            "--opponent-option",
            "Evaluator=best",
            "one of: pst, experience",
        ),
        // ...and one the engine answers with an error.
        (
            "--engine-option",
            "EvalFile=/nonexistent/net.safetensors",
            "it answered 'info string error: net '/nonexistent/net.safetensors'",
        ),
    ] {
        let o = run_match(&[
            "--opponent",
            &opponent,
            side,
            option,
            "--nodes",
            "500",
            "--games",
            "2",
            "--pgn",
            pgn.to_str().unwrap(),
        ]);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{option}: {err}");
        assert!(
            err.starts_with("deepred: engine") && err.contains("refused its options"),
            "{option}: {err}"
        );
        assert!(err.contains(want), "{option}: {err}");
        assert!(!pgn.exists(), "{option}: a game was played");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The engine's points in each game from the per-game lines on stderr (`game N (White vs
/// Black): RESULT`); the engine has White in odd rounds.
fn points_by_round(err: &str, engine: &str) -> std::collections::BTreeMap<usize, u32> {
    let mut out = std::collections::BTreeMap::new();
    for line in err.lines().filter(|l| l.starts_with("game ")) {
        let round: usize = line[5..].split(' ').next().unwrap().parse().unwrap();
        let engine_white = round % 2 == 1;
        assert_eq!(
            line.contains(&format!("({engine} vs ")),
            engine_white,
            "colours alternate: {line}"
        );
        let result = line.split("): ").nth(1).unwrap().split(' ').next().unwrap();
        // Half points for the engine.
        let halves = match (result, engine_white) {
            ("1/2-1/2", _) => 1,
            ("1-0", true) | ("0-1", false) => 2,
            ("1-0", false) | ("0-1", true) => 0,
            _ => panic!("{line}"),
        };
        assert!(out.insert(round, halves).is_none(), "{line}");
    }
    out
}

/// The numbers in the summary's `Ptnml(0-2): [a, b, c, d, e]`.
fn ptnml(out: &str) -> Vec<u32> {
    let line = out
        .lines()
        .find(|l| l.starts_with("Ptnml(0-2): ["))
        .expect(out);
    let inner = &line["Ptnml(0-2): [".len()..line.find(']').unwrap()];
    inner.split(", ").map(|x| x.parse().unwrap()).collect()
}

#[test]
fn pairs_are_counted_by_opening_whatever_order_games_finish_in() {
    // Two games at once (so pairs can finish out of order) and an odd last game, which counts
    // only in the wins/losses/draws.
    let o = run_match(&[
        "--opponent",
        &format!("{BIN} uci"),
        "--nodes",
        "400",
        "--games",
        "5",
        "--concurrency",
        "2",
        "--max-plies",
        "120",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(": 5 games,"), "{out}");
    let engine = err
        .lines()
        .find_map(|l| l.strip_prefix("game 1 (")?.split(" vs ").next())
        .expect(&err)
        .to_string();
    let points = points_by_round(&err, &engine);
    assert_eq!(points.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    let mut want = vec![0; 5];
    for pair in [1, 3] {
        want[(points[&pair] + points[&(pair + 1)]) as usize] += 1;
    }
    assert_eq!(ptnml(&out), want, "{out}\n{err}");
    assert!(!out.contains("SPRT"), "{out}");
}

#[test]
fn sprt_stops_the_match_once_a_bound_is_crossed() {
    // Bounds [0, 0] (alpha = beta = 0.5): the first pair decides, so 2 of at most 20 games.
    let o = run_match(&[
        "--opponent",
        &format!("{BIN} uci"),
        "--nodes",
        "300",
        "--games",
        "20",
        "--max-plies",
        "120",
        "--sprt",
        "-1000,1000,0.5,0.5",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(": 2 games,"), "{out}\n{err}");
    assert_eq!(ptnml(&out).iter().sum::<u32>(), 1, "{out}");
    let sprt = out
        .lines()
        .find(|l| l.starts_with("SPRT: llr "))
        .expect(&out);
    assert!(sprt.contains(" (bounds [0.00, 0.00]) - H"), "{sprt}");
    assert!(sprt.ends_with(" accepted"), "{sprt}");
    assert!(
        err.lines()
            .filter(|l| l.starts_with("game "))
            .all(|l| l.contains(" llr ")),
        "{err}"
    );

    // Bounds no two pairs can reach (two pairs move the LLR by at most about 0.03 here, by
    // scripts/match_stats_reference.py): the match plays all its games and the test goes on.
    let o = run_match(&[
        "--opponent",
        &format!("{BIN} uci"),
        "--nodes",
        "300",
        "--games",
        "4",
        "--max-plies",
        "120",
        "--sprt",
        "0,5,0.05,0.05",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(": 4 games,"), "{out}\n{err}");
    assert_eq!(ptnml(&out).iter().sum::<u32>(), 2, "{out}");
    assert!(
        out.contains("SPRT: llr ") && out.contains(" (bounds [-2.94, 2.94]) - continue"),
        "{out}"
    );
}

#[test]
fn a_moves_per_period_clock_sends_movestogo_and_refills() {
    let dir = temp_dir("movestogo");
    let log = dir.join("opponent.log");
    let pgn = dir.join("m.pgn");
    // The opponent is Deep Red behind `tee`, which records every command it receives.
    let opponent = format!("tee -a {} | {BIN} uci", log.display());
    let o = run_match(&[
        "--opponent",
        &opponent,
        "--tc",
        "40/1",
        "--time-margin",
        "1000",
        "--games",
        "2",
        "--max-plies",
        "100",
        "--draw-move",
        "0",
        "--resign-plies",
        "0",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.tag("TimeControl") == Some("40/1")));
    let log = std::fs::read_to_string(&log).unwrap();
    let mut plies = None;
    let (mut gos, mut refills) = (0, 0);
    // The opponent's clock before its previous move: (plies then, its time left).
    let mut last: Option<(usize, u64)> = None;
    for line in log.lines() {
        if line.starts_with("position ") {
            plies = Some(
                line.split(" moves ")
                    .nth(1)
                    .map_or(0, |m| m.split(' ').count()),
            );
        } else if line.starts_with("go ") {
            let k = plies.take().expect("a position before each go");
            let word = |w: &str| -> u64 {
                let mut it = line.split(' ');
                it.find(|x| *x == w).expect(line);
                it.next().unwrap().parse().unwrap()
            };
            // The side to move has made k / 2 moves (rounded down) so far.
            let made = (k / 2) as u64;
            assert_eq!(word("movestogo"), 40 - made % 40, "{line} after {k} plies");
            let own = word(if k % 2 == 0 { "wtime" } else { "btime" });
            if k < 2 {
                assert_eq!(own, 1000, "{line}");
                last = None;
            }
            // A second per period begun, never more.
            assert!(own <= 1000 * (made / 40 + 1), "{line}");
            if let Some((pk, pown)) = last
                && pk + 2 == k
                && made.is_multiple_of(40)
            {
                // The 40th move added a second to what was left of the first (< 1000 ms).
                assert!(pown < 1000 && own >= 1000, "{pown} then {line}");
                refills += 1;
            }
            last = Some((k, own));
            gos += 1;
        }
    }
    assert!(gos >= 2, "{log}");
    // Games shorter than 81 plies (a mate or a repetition) never reach a refill.
    let long = games.iter().filter(|g| g.moves.len() >= 81).count();
    assert!(
        refills >= long.min(1),
        "{refills} refills, {long} long games\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--resume`: a match stopped after 4 of 6 games goes on with games 5 and 6 only, counting the
/// first four from its PGN (the summary's totals are the PGN's); a game missing from the middle
/// of the file is played again, and a finished match plays nothing more. Another `--seed`
/// (other openings) is refused, and the file is left as it was.
#[test]
fn a_resumed_match_plays_only_the_games_its_pgn_lacks() {
    let dir = temp_dir("resume");
    let pgn = dir.join("m.pgn");
    let args = |games: &'static str, seed: &'static str, resume: bool| {
        let mut v: Vec<String> = [
            "--opponent",
            &format!("{BIN} uci"),
            "--nodes",
            "400",
            "--max-plies",
            "100",
            "--book",
            &book(),
            "--pgn",
            pgn.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(["--games", games, "--seed", seed].map(String::from));
        if resume {
            v.push("--resume".into());
        }
        v
    };
    let go = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = run_match(&a);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        let played: Vec<usize> = err
            .lines()
            .filter_map(|l| l.strip_prefix("game ")?.split(' ').next()?.parse().ok())
            .collect();
        (out, played)
    };
    let rounds = |games: &[deepred::chess::pgn::PgnGame]| {
        let mut r: Vec<usize> = games
            .iter()
            .map(|g| g.tag("Round").unwrap().parse().unwrap())
            .collect();
        r.sort();
        r
    };
    let (_, played) = go(args("4", "5", false));
    assert_eq!(played, [1, 2, 3, 4]);
    let (out, mut played) = go(args("6", "5", true));
    played.sort();
    assert_eq!(played, [5, 6], "{out}");
    assert!(out.contains(": 6 games,"), "{out}");
    assert!(
        out.contains("(4 of these games were played before"),
        "{out}"
    );
    let games = read_pgn(&pgn);
    assert_eq!(rounds(&games), [1, 2, 3, 4, 5, 6]);
    // The totals are the PGN's: Deep Red (1) is the first engine.
    let (mut w, mut l, mut d) = (0, 0, 0);
    for g in &games {
        let first_white = g.tag("White").unwrap().ends_with("(1)");
        match (g.result.unwrap(), first_white) {
            (GameResult::Draw, _) => d += 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => w += 1,
            _ => l += 1,
        }
    }
    assert!(
        out.contains(&format!("6 games, {w} wins, {l} losses, {d} draws")),
        "{out}"
    );
    assert_eq!(ptnml(&out).iter().sum::<u32>(), 3, "{out}");

    // Game 2 lost from the file: only it is played again.
    let text_before = std::fs::read_to_string(&pgn).unwrap();
    let kept: Vec<&str> = text_before
        .split("[Event ")
        .filter(|g| !g.is_empty() && !g.contains("[Round \"2\"]"))
        .collect();
    std::fs::write(&pgn, format!("[Event {}", kept.join("[Event "))).unwrap();
    assert_eq!(rounds(&read_pgn(&pgn)), [1, 3, 4, 5, 6]);
    let (_, played) = go(args("6", "5", true));
    assert_eq!(played, [2]);
    assert_eq!(rounds(&read_pgn(&pgn)), [1, 2, 3, 4, 5, 6]);
    let (out, played) = go(args("6", "5", true));
    assert!(played.is_empty(), "{out}");
    assert!(out.contains(": 6 games,"), "{out}");

    // Other openings: refused, the file unchanged.
    let before = std::fs::read(&pgn).unwrap();
    let a = args("6", "7", true);
    let o = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        err.contains("cannot resume from") && err.contains("opening is"),
        "{err}"
    );
    assert_eq!(std::fs::read(&pgn).unwrap(), before);
    // Another option for a player (two builds of one engine share their names): refused.
    let mut a = args("8", "5", true);
    a.extend(["--opponent-option".to_string(), "Hash=8".to_string()]);
    let o = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(err.contains("round 1: Match is"), "{err}");
    assert_eq!(std::fs::read(&pgn).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

//! PGN torture tests from tests/data/pgn/robustness: readable games are read, broken or
//! unsupported ones are reported with a reason, nothing panics.

use deepred::chess::pgn::read_games;
use deepred::chess::rules::GameResult;

mod common;

fn read(name: &str) -> (Vec<deepred::chess::pgn::PgnGame>, Vec<String>) {
    let p = common::data(&format!("pgn/robustness/{name}"));
    let games = read_games(std::fs::File::open(&p).expect(name));
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for g in games {
        match g {
            Ok(g) => ok.push(g),
            Err(e) => bad.push(e.to_string()),
        }
    }
    (ok, bad)
}

#[test]
fn readable_files() {
    for (name, games) in [
        ("pychess_3fold.pgn", 2),
        ("pychess_annotated.pgn", 1),
        ("pychess_chess960rwch.pgn", 20),
        ("pychess_fenSetup.pgn", 1),
        ("pychess_promotion.pgn", 1),
        ("pythonchess_chessbase-empty-line.pgn", 1),
        ("pythonchess_cutechess-fischerrandom.pgn", 4),
        ("pythonchess_kasparov-deep-blue-1997.pgn", 6),
        ("pythonchess_molinari-bordais-1979.pgn", 1),
        ("pythonchess_nepomniachtchi-liren-game1.pgn", 1),
        ("pythonchess_stockfish-learning.pgn", 1),
    ] {
        let (ok, bad) = read(name);
        assert_eq!((ok.len(), bad.len()), (games, 0), "{name}: {bad:?}");
        for g in &ok {
            assert!(!g.moves.is_empty(), "{name} game {}", g.number);
            // The replay of every game is legal by construction; its last position exists.
            assert_eq!(g.positions().len(), g.moves.len() + 1);
        }
    }
}

#[test]
fn utf8_byte_order_mark_is_skipped() {
    // Two empty games (result "*"); the first tag must not carry the BOM.
    let (ok, bad) = read("pythonchess_utf8-bom.pgn");
    assert!(bad.is_empty());
    let events: Vec<_> = ok
        .iter()
        .map(|g| g.tag("Event").unwrap_or("").to_string())
        .collect();
    assert_eq!(events, ["A", "B"]);
}

#[test]
fn chess960_and_fen_starts() {
    let (ok, _) = read("pychess_chess960rwch.pgn");
    assert!(ok.iter().all(|g| g.chess960));
    let (ok, _) = read("pythonchess_cutechess-fischerrandom.pgn");
    assert!(ok.iter().all(|g| g.chess960));
    let (ok, _) = read("pychess_fenSetup.pgn");
    assert_ne!(ok[0].start, shakmaty::Chess::default());
}

#[test]
fn results_are_read() {
    let (ok, _) = read("pythonchess_kasparov-deep-blue-1997.pgn");
    let results: Vec<_> = ok.iter().map(|g| g.result).collect();
    // Deep Blue - Kasparov 1997: 0-1, 1-0, 1/2, 1/2, 1/2, 1-0 (White first-named as in the file).
    assert_eq!(results.iter().filter(|r| r.is_some()).count(), 6);
    assert!(results.contains(&Some(GameResult::Draw)));
}

#[test]
fn broken_and_unsupported_games_are_reported() {
    let (ok, bad) = read("pythonchess_antichess-programfox.pgn");
    assert!(ok.is_empty());
    assert_eq!(bad.len(), 2);
    assert!(bad[0].contains("unsupported variant"), "{bad:?}");
    for name in [
        "pythonchess_knightvuillaume-jannlee-zh-lichess.pgn",
        "pythonchess_saturs-jannlee-zh-lichess.pgn",
    ] {
        let (ok, bad) = read(name);
        assert!(
            ok.is_empty() && bad.len() == 1 && bad[0].contains("crazyhouse"),
            "{name}: {bad:?}"
        );
    }
    // A null move ("--") in the main line: the game is refused at that ply.
    let (_, bad) = read("pythonchess_anastasian-lewis.pgn");
    assert!(
        bad[0].contains("ply 82") && bad[0].contains("--"),
        "{bad:?}"
    );
    // UCI moves instead of SAN.
    let (_, bad) = read("pythonchess_uci-moves.pgn");
    assert!(
        bad[0].contains("ply 1") && bad[0].contains("g1f3"),
        "{bad:?}"
    );
    // Garbage: no moves, no result, nothing to learn.
    let (ok, _) = read("pychess_badpgn.pgn");
    assert!(ok.iter().all(|g| g.moves.is_empty() && g.result.is_none()));
}

/// pgn-reader alone skips a token it cannot read as a move: `4. Qxf7Q 1-0` was read as a game
/// of six plies won by White. A token meant as a move (it names a square, or begins a piece's
/// move or a pawn's capture: `Qxf`) that is not one refuses its game at that ply; annotations
/// (`e.p.`, `+-`, `N`) are still passed over.
#[test]
fn a_token_meant_as_a_move_refuses_its_game() {
    let game = |event: &str, moves: &str| {
        format!(
            "[Event \"{event}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 {moves} 1-0\n\n"
        )
    };
    let text = [
        game("promotion letter", "4. Qxf7Q"),
        game("mate", "4. Qxf7# {a8Q in a comment} +- N"),
        game("glued", "4. Qxf7#+-"),
        game("cut short", "4. Qxf"),
        "[Event \"pawn\"]\n[SetUp \"1\"]\n[FEN \"7k/P7/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. a8Q+ 1-0\n\n"
            .to_string(),
        "[Event \"en passant\"]\n\n1. e4 Nf6 2. e5 d5 3. exd6 e.p. 1/2-1/2\n\n".to_string(),
    ]
    .concat();
    let games = read_games(text.as_bytes());
    let outcome: Vec<String> = games
        .iter()
        .map(|g| match g {
            Ok(g) => format!("{} plies", g.moves.len()),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(
        outcome,
        [
            "game 1, ply 7: not a move ('Qxf7Q')",
            "7 plies",
            "game 3, ply 7: not a move ('Qxf7#+-')",
            "game 4, ply 7: not a move ('Qxf')",
            "game 5, ply 1: not a move ('a8Q+')",
            "5 plies",
        ]
    );
}

#[test]
fn truncated_and_binary_input_never_panics() {
    let full = std::fs::read(common::data(
        "pgn/robustness/pythonchess_kasparov-deep-blue-1997.pgn",
    ))
    .unwrap();
    for cut in (0..full.len()).step_by(97) {
        let _ = read_games(&full[..cut]);
    }
    let mut noise = Vec::new();
    let mut x = 12345u32;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        noise.push((x & 0xff) as u8);
    }
    let _ = read_games(&noise[..]);
}

/// A game whose result contradicts the board (a mate or stalemate on it, read as another
/// result) is not learned, with the reason; results the board cannot check stand.
#[test]
fn a_result_the_board_contradicts_is_not_learned() {
    use deepred::experience::import::to_record;
    let cases = [
        // Fool's mate: Black mates.
        (
            "1. f3 e5 2. g4 Qh4# 1-0",
            Some("checkmate on the board, 0-1"),
        ),
        ("1. f3 e5 2. g4 Qh4# 1/2-1/2", Some("checkmate")),
        ("1. f3 e5 2. g4 Qh4# 0-1", None),
        // A resignation is not on the board: any decisive result stands.
        ("1. e4 e5 2. Qh5 Nc6 3. Bc4 1-0", None),
    ];
    for (movetext, refused) in cases {
        let text = format!("[Event \"t\"]\n\n{movetext}\n");
        let g = read_games(text.as_bytes()).remove(0).expect(movetext);
        match (to_record("t.pgn", g), refused) {
            (Ok(_), None) => {}
            (Err(e), Some(why)) => assert!(e.to_string().contains(why), "{movetext}: {e}"),
            (r, _) => panic!("{movetext}: {:?}", r.map(|r| r.result)),
        }
    }
    // Stalemate (Black to move, no legal move) read as a win.
    let text = "[FEN \"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Kh6 1-0\n";
    let g = read_games(text.as_bytes()).remove(0).unwrap();
    let e = to_record("t.pgn", g).map(|r| r.result).unwrap_err();
    assert!(e.to_string().contains("stalemate"), "{e}");
}

/// Games python-chess reads are read around text the PGN reader cannot take (a tag line over
/// its 64 KiB buffer); a last game cut in the middle of a line, or whose Result tag the end of
/// its moves contradicts, is refused with the reason.
#[test]
fn cut_contradicted_and_oversized_games() {
    let mate = "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n";
    let huge = format!(
        "[White \"{}\"]\n[Result \"0-1\"]\n\n1. f3 e6 2. g4 Qh4# 0-1\n\n",
        "y".repeat(70_000)
    );
    let scholar = "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let games = read_games(format!("{mate}{huge}{scholar}").as_bytes());
    let read: Vec<usize> = games.iter().flatten().map(|g| g.moves.len()).collect();
    assert_eq!(read, [4, 7], "{games:?}");
    let why = games[1].as_ref().unwrap_err().to_string();
    assert!(why.contains("longer than the reader's 64 KiB"), "{why}");
    // Cut in the middle of a move: refused. The same moves ending a line are a game without
    // its result marker (as some files have), read with the Result tag's result.
    let cut = format!("{mate}[Result \"1-0\"]\n\n1. d4 d5 2. c4 e6 3. Nc");
    let games = read_games(cut.as_bytes());
    assert_eq!(games.len(), 2);
    let e = games[1].as_ref().unwrap_err().to_string();
    assert!(e.contains("cut short"), "{e}");
    // Cut short in the middle of a file (a killed match, resumed after it): its PlyCount
    // tells, and the Result tag written before its moves does not score it.
    let middle =
        format!("[Result \"1-0\"]\n[PlyCount \"9\"]\n\n1. d4 d5 2. c4 e6 3. Nc3\n\n{mate}");
    let games = read_games(middle.as_bytes());
    assert_eq!(games.len(), 2);
    let e = games[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("PlyCount tag says 9") && e.contains("cut short"),
        "{e}"
    );
    assert_eq!(games[1].as_ref().unwrap().moves.len(), 4);
    let ended = format!("{mate}[Result \"1-0\"]\n\n1. d4 d5 2. c4 e6\n");
    let games = read_games(ended.as_bytes());
    assert_eq!(
        games[1].as_ref().unwrap().result,
        Some(GameResult::WhiteWins)
    );
    // A Result tag the end of the moves contradicts.
    let both = "[Result \"1-0\"]\n\n1. e4 e5 0-1\n";
    let e = read_games(both.as_bytes())
        .remove(0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the Result tag says 1-0, the moves end with 0-1"),
        "{e}"
    );
}

//! The learned value net's pipeline: `deepred datagen` (records checked position by position,
//! deterministic by seed whatever the threads, resumable), its PGN, and the DeepChess and Deep
//! Pink data sets built from its records; the trainer and inference are in `trainer.rs`.

use std::path::{Path, PathBuf};

use deepred::chess::bullet::{ChessBoard, best_move, read_file};
use deepred::chess::score::TB_WIN_BOUND;
use shakmaty::{Bitboard, Board, Chess, Color, Piece, Position, Role, Square};

#[path = "../common/mod.rs"]
mod common;
mod trainer;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("deepred-learned-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn datagen(out: &Path, games: usize, threads: usize) {
    datagen_with(out, games, threads, &[]);
}

fn datagen_with(out: &Path, games: usize, threads: usize, extra: &[&str]) {
    let o = datagen_output(out, games, threads, extra);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn datagen_output(
    out: &Path,
    games: usize,
    threads: usize,
    extra: &[&str],
) -> std::process::Output {
    let book = common::data("books/noob_3moves_200.epd");
    common::command()
        .args([
            "datagen",
            "--games",
            &games.to_string(),
            "--nodes",
            "1500",
            "--book",
            book.to_str().unwrap(),
            "--seed",
            "5",
            // The data the assertions below were written for (the default is the learned net).
            "--evaluator",
            "pst",
            "--threads",
            &threads.to_string(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// The record's board as a position with the side to move as White (the record's frame: the
/// board of a Black-to-move position is mirrored), without castling rights.
fn frame_position(b: &ChessBoard) -> Option<Chess> {
    let mut board = Board::empty();
    for (piece, sq) in *b {
        let colour = if piece >> 3 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ][usize::from(piece & 7).min(5)];
        board.set_piece_at(
            Square::new(u32::from(sq)),
            Piece {
                color: colour,
                role,
            },
        );
    }
    let setup = shakmaty::Setup {
        board,
        turn: Color::White,
        castling_rights: Bitboard::EMPTY,
        ..shakmaty::Setup::empty()
    };
    setup
        .position::<Chess>(shakmaty::CastlingMode::Standard)
        .ok()
}

#[test]
fn datagen_writes_legal_quiet_positions_deterministically_and_resumes() {
    let dir = temp_dir("datagen");
    let a = dir.join("a.bin");
    datagen(&a, 4, 2);
    let records = read_file(&a).unwrap();
    let progress = std::fs::read_to_string(dir.join("a.bin.progress")).unwrap();
    assert!(progress.lines().nth(1) == Some("4"), "{progress}");
    assert!(
        records.len() > 40,
        "{} positions from 4 games",
        records.len()
    );
    let mut results = [0usize; 3];
    for b in &records {
        // A legal position, side to move (White in the record's frame) not in check.
        let pos = frame_position(b).expect("a legal position");
        assert!(!pos.is_check());
        let us = pos.board().king_of(Color::White).unwrap();
        let them = pos.board().king_of(Color::Black).unwrap();
        assert_eq!(u32::from(b.ksq), u32::from(us));
        assert_eq!(u32::from(b.opp_ksq), u32::from(them) ^ 56);
        assert!(i32::from(b.score).abs() < TB_WIN_BOUND);
        results[usize::from(b.result)] += 1;
        // The best move (real board squares) is a quiet legal move of the frame position in one
        // of the two orientations (the record does not say which colour was to move).
        let code = best_move(b);
        let (from, to) = (u32::from(code & 63), u32::from((code >> 6) & 63));
        let legal = pos.legal_moves();
        let found = [0, 56].iter().any(|flip| {
            legal.iter().any(|m| {
                m.from().map(u32::from) == Some(from ^ flip)
                    && (u32::from(m.to()) == to ^ flip)
                    && !m.is_capture()
                    && m.promotion().is_none()
            })
        });
        let castles = pos.board().role_at(Square::new(from)) == Some(Role::King)
            || pos.board().role_at(Square::new(from ^ 56)) == Some(Role::King);
        assert!(found || castles, "move code {code} in {b:?}");
    }
    assert!(results.iter().sum::<usize>() == records.len());
    // Same seed, one thread, two runs (the second resumes the first): the same bytes.
    let b = dir.join("b.bin");
    datagen(&b, 2, 1);
    let half = std::fs::metadata(&b).unwrap().len();
    assert!(half > 0 && half < std::fs::metadata(&a).unwrap().len());
    datagen(&b, 4, 1);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // A torn write after the last recorded game is cut off on resume.
    let c = dir.join("c.bin");
    datagen(&c, 2, 1);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&c)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &[7u8; 13]))
        .unwrap();
    datagen(&c, 4, 2);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
    // Other settings on an existing output: refused, file untouched.
    let o = common::command()
        .args(["datagen", "--games", "5", "--nodes", "999", "--out"])
        .arg(&a)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("other settings"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn datagen_pgn_holds_every_game_whole_and_resumes_with_the_records() {
    use deepred::chess::bullet::board_of;
    use deepred::chess::pgn::read_games;
    let dir = temp_dir("pgn");
    let (a, a_pgn) = (dir.join("a.bin"), dir.join("a.pgn"));
    datagen_with(&a, 3, 2, &["--pgn", a_pgn.to_str().unwrap()]);
    let text = std::fs::read(&a_pgn).unwrap();
    let games: Vec<_> = read_games(&text[..])
        .into_iter()
        .map(|g| g.expect("a readable game"))
        .collect();
    assert_eq!(games.len(), 3);
    // Every record is a position of one of the games, with that game's result.
    let mut seen = std::collections::HashMap::new();
    for g in &games {
        assert!(g.result.is_some(), "a finished game");
        let white = match g.result {
            Some(deepred::chess::rules::GameResult::WhiteWins) => 1.0,
            Some(deepred::chess::rules::GameResult::BlackWins) => 0.0,
            _ => 0.5,
        };
        assert!(g.moves.len() > 8, "{} plies", g.moves.len());
        for p in g.positions() {
            let b = board_of(&p, 0, white, 0);
            seen.insert((b.occ, b.pcs), b.result);
        }
    }
    let records = read_file(&a).unwrap();
    assert!(!records.is_empty());
    for r in &records {
        assert_eq!(seen.get(&(r.occ, r.pcs)), Some(&r.result), "{r:?}");
    }
    // Resumed (2 games, then 3, one thread): the same PGN bytes.
    let (b, b_pgn) = (dir.join("b.bin"), dir.join("b.pgn"));
    datagen_with(&b, 2, 1, &["--pgn", b_pgn.to_str().unwrap()]);
    let half = std::fs::metadata(&b_pgn).unwrap().len();
    assert!(half > 0 && half < text.len() as u64);
    datagen_with(&b, 3, 1, &["--pgn", b_pgn.to_str().unwrap()]);
    assert_eq!(std::fs::read(&b_pgn).unwrap(), text);
    assert_eq!(std::fs::read(&b).unwrap(), std::fs::read(&a).unwrap());
    // A new run never writes over a PGN file that holds games.
    let o = common::command()
        .args(["datagen", "--games", "1", "--nodes", "500", "--out"])
        .arg(dir.join("c.bin"))
        .arg("--pgn")
        .arg(&a_pgn)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("choose another --pgn"));
    assert_eq!(std::fs::read(&a_pgn).unwrap(), text);
    // A random walk far longer than a game stops before the rules end the game or let it be
    // claimed drawn: every game is played (such walks gave games of no move, left out).
    let (g, g_pgn) = (dir.join("g.bin"), dir.join("g.pgn"));
    let o = datagen_output(
        &g,
        4,
        1,
        &["--random-plies", "1000", "--pgn", g_pgn.to_str().unwrap()],
    );
    assert!(o.status.success(), "{o:?}");
    let walked = deepred::chess::pgn::read_games(std::fs::File::open(&g_pgn).unwrap());
    assert_eq!(walked.len(), 4, "{walked:?}");
    for game in walked {
        let game = game.unwrap();
        assert!(
            !game.moves.is_empty() && shakmaty::Position::halfmoves(&game.start) < 100,
            "{game:?}"
        );
    }
    // A folder as either output: said so (it was "exists but has no '.progress'" and
    // "already exists").
    for outputs in [["folder.bin", "e.pgn"], ["e.bin", "folder.pgn"]] {
        let (out, pgn) = (dir.join(outputs[0]), dir.join(outputs[1]));
        std::fs::create_dir_all(if outputs[0].starts_with("folder") {
            &out
        } else {
            &pgn
        })
        .unwrap();
        let o = datagen_output(&out, 1, 1, &["--pgn", pgn.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("it is a folder"),
            "{err}"
        );
    }
    // A progress record whose files are missing or shorter than it counts (left from another
    // run): refused, and no file is padded, cut or created.
    let (d, d_pgn) = (dir.join("d.bin"), dir.join("d.pgn"));
    let b_progress = std::fs::read_to_string(dir.join("b.bin.progress")).unwrap();
    std::fs::write(dir.join("d.bin.progress"), &b_progress).unwrap();
    std::fs::write(&d_pgn, "PRECIOUS").unwrap();
    // The record names b.pgn: another --pgn is another run, and its file is not cut to b's
    // length.
    let o = datagen_output(&d, 4, 1, &["--pgn", d_pgn.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("other settings"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&d_pgn).unwrap(), "PRECIOUS");
    // The same record naming d.pgn: the files are what is checked.
    std::fs::write(
        dir.join("d.bin.progress"),
        b_progress.replace("b.pgn", "d.pgn"),
    )
    .unwrap();
    let o = datagen_output(&d, 4, 1, &["--pgn", d_pgn.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not this run's output"));
    assert!(!d.exists());
    let whole = std::fs::read(&b).unwrap();
    std::fs::write(&d, &whole[..whole.len() - 32]).unwrap();
    let o = datagen_output(&d, 4, 1, &["--pgn", d_pgn.to_str().unwrap()]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read(&d).unwrap(), &whole[..whole.len() - 32]);
    std::fs::write(&d, &whole).unwrap();
    let o = datagen_output(&d, 4, 1, &["--pgn", d_pgn.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("d.pgn"), "{err}");
    assert_eq!(std::fs::read_to_string(&d_pgn).unwrap(), "PRECIOUS");
    assert_eq!(std::fs::read(&d).unwrap(), whole);
    // A run that cannot open its --pgn records nothing: the run with the right --pgn starts.
    let f = dir.join("f.bin");
    let o = datagen_output(&f, 1, 1, &["--pgn", "/nonexistent/f.pgn"]);
    assert!(!o.status.success());
    assert!(!dir.join("f.bin.progress").exists());
    datagen_with(&f, 1, 1, &["--pgn", dir.join("f.pgn").to_str().unwrap()]);
    // --pgn naming the positions file or its progress record: refused, nothing written.
    let e = dir.join("e.bin");
    for pgn in [e.clone(), dir.join("e.bin.progress")] {
        let o = datagen_output(&e, 1, 1, &["--pgn", pgn.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("choose another --pgn"),
            "{err}"
        );
        assert!(!e.exists() && !dir.join("e.bin.progress").exists());
    }
    // A run killed before it recorded anything leaves an empty --out at most: a new run
    // starts there (it used to be refused as "not a datagen output" for ever).
    std::fs::write(&e, b"").unwrap();
    datagen_with(&e, 2, 1, &[]);
    assert_eq!(
        std::fs::read(&e).unwrap(),
        std::fs::read(&b).unwrap()[..std::fs::metadata(&e).unwrap().len() as usize]
    );
    // Another book of as many openings is another run.
    let book = common::data("books/noob_3moves_200.epd");
    let mut lines: Vec<_> = std::fs::read_to_string(&book)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines.reverse();
    let reversed = dir.join("reversed.epd");
    std::fs::write(&reversed, lines.join("\n")).unwrap();
    let o = common::command()
        .args(["datagen", "--games", "3", "--nodes", "1500", "--seed", "5"])
        .args(["--evaluator", "pst", "--threads", "1", "--book"])
        .arg(&reversed)
        .arg("--out")
        .arg(&e)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("other settings"),
        "{err}"
    );
    // Deep Pink's triplets from it: the move played against a random other move.
    let o = common::command()
        .args(["dataset", "deeppink", "--pgn"])
        .arg(&a_pgn)
        .arg("--out")
        .arg(dir.join("t.bin"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("3 games"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn datagen_records_give_back_their_positions_and_feed_the_deepchess_and_deep_pink_data_sets() {
    let dir = temp_dir("datasets");
    let bin = dir.join("g.bin");
    datagen(&bin, 4, 2);
    let records = read_file(&bin).unwrap();
    // The real position (side to move found through the best move) re-encodes to the same
    // record, and the best move is one of its legal quiet moves.
    let mut recovered = 0;
    for b in &records {
        let Some((pos, m)) = deepred::chess::bullet::position(b) else {
            continue;
        };
        recovered += 1;
        assert!(pos.is_legal(m) && !m.is_capture());
        let again = deepred::chess::bullet::board_of(
            &pos,
            0,
            0.5,
            deepred::chess::notation::encode_move(&m),
        );
        assert_eq!((again.occ, again.pcs), (b.occ, b.pcs), "{b:?}");
        assert_eq!(again.extra, b.extra);
    }
    assert!(
        recovered * 100 >= records.len() * 98,
        "{recovered} of {} records recovered",
        records.len()
    );
    // Deep Pink triplets: q after the best move, r after another quiet legal move of p (the
    // best move is quiet: datagen's filter).
    let run = |kind: &str, out: &Path| {
        let o = common::command()
            .args(["dataset", kind, "--datagen"])
            .arg(&bin)
            .args(["--val-fraction", "0.5", "--seed", "3", "--out"])
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    use deepred::train::data::{self, BOARD_LEN};
    let triplets = dir.join("t.bin");
    let report = run("deeppink", &triplets);
    let set = data::read(&triplets).unwrap();
    // One triplet a recovered record, unless p has no other quiet legal move.
    assert!(
        set.records.len() <= recovered && set.records.len() + 5 >= recovered,
        "{report}"
    );
    for r in &set.records {
        let p = data::decode(&data::board_at(r, 0)).unwrap();
        let q = data::board_at(r, BOARD_LEN);
        let rr = data::board_at(r, 2 * BOARD_LEN);
        assert_ne!(q[..65], rr[..65]);
        for child in [q, rr] {
            assert!(
                p.legal_moves().iter().any(|&m| {
                    if m.is_capture() || m.is_promotion() {
                        return false;
                    }
                    let mut c = p.clone();
                    c.play_unchecked(m);
                    data::encode(&c)[..65] == child[..65]
                }),
                "a child that is not p after a quiet legal move"
            );
        }
        // The split goes by blocks of DATAGEN_BLOCK records (the record's index is stored).
        let index = u32::from_le_bytes(r[3 * BOARD_LEN + 2..].try_into().unwrap());
        let val = data::is_validation(3, u64::from(index) / data::DATAGEN_BLOCK, 0.5);
        assert_eq!(r[3 * BOARD_LEN], u8::from(val));
    }
    // --equal-material keeps exactly the triplets whose children have the same SEE-resolved
    // material, in the same order.
    let equal = dir.join("teq.bin");
    let o = common::command()
        .args(["dataset", "deeppink", "--equal-material", "--datagen"])
        .arg(&bin)
        .args(["--val-fraction", "0.5", "--seed", "3", "--out"])
        .arg(&equal)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept: Vec<&Vec<u8>> = set
        .records
        .iter()
        .filter(|r| {
            let material = |k: usize| {
                let p = data::decode(&data::board_at(r, k * BOARD_LEN)).unwrap();
                deepred::chess::see::resolved_material(&p, &p.legal_moves())
            };
            material(1) == material(2)
        })
        .collect();
    let eq = data::read(&equal).unwrap();
    // It filters triplets only: asked of DeepChess positions it is an error, no file written.
    let refused_out = dir.join("never.bin");
    let o = common::command()
        .args(["dataset", "deepchess", "--equal-material", "--datagen"])
        .arg(&bin)
        .arg("--out")
        .arg(&refused_out)
        .output()
        .unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--equal-material"));
    assert!(!refused_out.exists());
    assert!(!kept.is_empty() && kept.len() < set.records.len());
    assert_eq!(eq.records.iter().collect::<Vec<_>>(), kept);
    // `nn calibrate`: the least-squares scale of f against the pst evaluation on the p of the
    // validation triplets, written into the net; the weights stay as they were.
    let net = dir.join("dp.safetensors");
    let deepred_ok = |args: &[&std::ffi::OsStr]| {
        let o = common::command().args(args).output().unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    let (ok, text) = deepred_ok(&[
        "nn".as_ref(),
        "random-net".as_ref(),
        "deeppink".as_ref(),
        "--out".as_ref(),
        net.as_os_str(),
    ]);
    assert!(ok, "{text}");
    let before = deepred::nn::net::NetFile::load(&net, None).unwrap();
    // Every triplet in the validation split (these few games fill one or two blocks).
    let all_val = dir.join("tval.bin");
    let o = common::command()
        .args(["dataset", "deeppink", "--datagen"])
        .arg(&bin)
        .args(["--val-fraction", "1", "--out"])
        .arg(&all_val)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let val_set = data::read(&all_val).unwrap();
    let calibrate = |net: &Path, dataset: &Path| {
        deepred_ok(&[
            "nn".as_ref(),
            "calibrate".as_ref(),
            "--net".as_ref(),
            net.as_os_str(),
            "--dataset".as_ref(),
            dataset.as_os_str(),
        ])
    };
    let (ok, text) = calibrate(&net, &all_val);
    assert!(ok, "{text}");
    let after = deepred::nn::net::NetFile::load(&net, None).unwrap();
    assert_eq!(before.tensors(), after.tensors());
    let dp = deepred::nn::DeepPink::from_file(&after).unwrap();
    let (mut fy, mut ff) = (0.0f64, 0.0f64);
    assert!(val_set.records.iter().all(|r| r[3 * BOARD_LEN] == 1));
    for r in val_set.records.iter().take(20_000) {
        let p = data::decode(&data::board_at(r, 0)).unwrap();
        let f = f64::from(dp.forward(&p));
        fy += f * f64::from(deepred::eval::pst::evaluate(&p)).clamp(-1500.0, 1500.0);
        ff += f * f;
    }
    let expected = if fy > 0.0 { fy / ff } else { 100.0 };
    let scale: f64 = after.meta["cp_scale"].parse().unwrap();
    assert!(
        (scale - expected).abs() < 1e-3 * expected.abs().max(1.0),
        "{scale} against {expected}: {text}"
    );
    assert!(text.contains("cp_scale"), "{text}");
    // Not a Deep Pink net, or not a Deep Pink data set: an error, the files untouched.
    let dc = dir.join("dc.safetensors");
    let (ok, _) = deepred_ok(&[
        "nn".as_ref(),
        "random-net".as_ref(),
        "deepchess".as_ref(),
        "--out".as_ref(),
        dc.as_os_str(),
    ]);
    assert!(ok);
    // A refusal says why and leaves the net file as it was.
    let refused = |net: &Path, dataset: &Path, why: &str| {
        let bytes = std::fs::read(net).unwrap();
        let (ok, text) = calibrate(net, dataset);
        assert!(!ok && text.contains(why), "{text}");
        assert_eq!(std::fs::read(net).unwrap(), bytes);
    };
    refused(&dc, &triplets, "deeppink");
    // No position asked for: refused by the arguments (it said the split had no triplets).
    let bytes = std::fs::read(&net).unwrap();
    let (ok, text) = deepred_ok(&[
        "nn".as_ref(),
        "calibrate".as_ref(),
        "--net".as_ref(),
        net.as_os_str(),
        "--dataset".as_ref(),
        all_val.as_os_str(),
        "--samples".as_ref(),
        "0".as_ref(),
    ]);
    assert!(
        !ok && text.contains("--samples") && !text.contains("triplets"),
        "{text}"
    );
    assert_eq!(std::fs::read(&net).unwrap(), bytes);
    // DeepChess positions: those of decisive games, with White's result.
    let positions = dir.join("p.bin");
    let report = run("deepchess", &positions);
    let set = data::read(&positions).unwrap();
    let decisive: Vec<&ChessBoard> = records
        .iter()
        .filter(|b| b.result != 1 && deepred::chess::bullet::position(b).is_some())
        .collect();
    assert_eq!(set.records.len(), decisive.len(), "{report}");
    refused(&net, &positions, "Deep Pink triplets");
    for (r, b) in set.records.iter().zip(decisive) {
        let p = data::decode(&data::board_at(r, 0)).unwrap();
        let won_by_mover = b.result == 2;
        let white_won = r[BOARD_LEN] == 1;
        assert_eq!(white_won, won_by_mover == (p.turn() == Color::White));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! The experience store: `import` and `experience stats|show`.

use std::process::ExitCode;

use deepred::chess::fen::fen_of;
use deepred::experience::book::ranked;
use deepred::experience::import::import as import_games;
use deepred::experience::store::Store;
use shakmaty::Position;

use super::{fail, position_arg};
use crate::cli::{ExperienceCmd, ImportArgs, ShowArgs, StatsArgs};

pub fn import(a: ImportArgs) -> ExitCode {
    let mut store = match Store::open(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    match import_games(&mut store, &a.pgn, a.batch as usize, true) {
        Ok(r) => {
            for s in &r.skipped {
                eprintln!("skipped: {s}");
            }
            println!(
                "{} file(s), {} games read: {} learned, {} already known, {} skipped; {} move rows; {:.2} s, {:.0} games/s",
                r.files,
                r.games_read,
                r.learned,
                r.already_known,
                r.skipped.len(),
                r.rows_written,
                r.seconds,
                r.games_per_second()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

pub fn experience(what: ExperienceCmd) -> ExitCode {
    match what {
        ExperienceCmd::Stats(a) => stats(a),
        ExperienceCmd::Show(a) => show(a),
    }
}

fn stats(a: StatsArgs) -> ExitCode {
    let store = match Store::open_read_only(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    match store.stats() {
        Ok(s) => {
            println!("file: {}", a.db.display());
            println!("games: {}", s.games);
            println!("white_moves rows: {}", s.white_rows);
            println!("black_moves rows: {}", s.black_rows);
            println!("distinct positions: {}", s.positions);
            println!("file size: {} bytes", s.file_bytes);
            println!("bytes per row: {:.1}", s.bytes_per_row());
            println!("bytes per game: {:.1}", s.bytes_per_game());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

fn show(a: ShowArgs) -> ExitCode {
    let pos = match position_arg(a.fen, false) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let store = match Store::open_read_only(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let turn = pos.turn();
    match ranked(&store, &pos) {
        Ok(known) => {
            println!("{}", fen_of(&pos));
            if known.is_empty() {
                println!("no known moves");
            }
            println!(
                "{:<8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}",
                "move", "games", "1-0", "0-1", "draws", "score", "confidence"
            );
            for m in known.into_iter().map(|k| k.stats) {
                println!(
                    "{:<8} {:>8} {:>8} {:>8} {:>8} {:>7.1}% {:>9.1}%",
                    m.mv,
                    m.games(),
                    m.white_wins,
                    m.black_wins,
                    m.draws,
                    100.0 * m.score_for(turn),
                    100.0 * m.confidence_score(turn)
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

//! The experience store: `import` and `experience stats|show`.

use std::process::ExitCode;

use deepred::chess::fen::fen_of;
use deepred::chess::notation::{decode_move, uci_move};
use deepred::chess::pgn::read_games;
use deepred::chess::zobrist::hash_of;
use deepred::experience::book::ranked;
use deepred::experience::import::import as import_games;
use deepred::experience::store::Store;
use deepred::experience::walk::{book_depths, positions_near_roots};
use shakmaty::{Color, Position};

use super::{fail, position_arg};
use crate::cli::{
    CoverageArgs, ExperienceCmd, ExportArgs, ImportArgs, MergeArgs, PositionArgs, PruneArgs,
    ShowArgs, StatsArgs, VacuumArgs,
};

pub fn import(a: ImportArgs) -> ExitCode {
    // Not one file to read (a name mistyped): said before the store is opened, which makes a
    // new store (an empty one was left behind, the default store too).
    let unreadable: Vec<String> = a
        .pgn
        .iter()
        .filter_map(|p| {
            deepred::experience::import::open_input(p)
                .err()
                .map(|e| format!("{}: cannot read: {e}", p.display()))
        })
        .collect();
    if unreadable.len() == a.pgn.len() {
        for u in &unreadable {
            eprintln!("skipped: {u}");
        }
        return fail("no file could be read; the store was not opened");
    }
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
            // An unreadable file, or nothing learnable at all, fails the command (what was
            // learnable is learned either way), so that a script notices.
            let nothing = r.learned + r.already_known == 0;
            if r.unreadable > 0 || nothing {
                eprintln!(
                    "deepred: {}",
                    if r.unreadable > 0 {
                        format!("{} file(s) could not be read", r.unreadable)
                    } else if r.games_read == 0 {
                        format!("no game in {}", quoted_list(&a.pgn))
                    } else {
                        "no game could be learned".to_string()
                    }
                );
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `'a', 'b' and 'c'`: paths for a message (the first three, then how many more).
fn quoted_list(paths: &[std::path::PathBuf]) -> String {
    let mut names: Vec<String> = paths
        .iter()
        .take(3)
        .map(|p| format!("'{}'", p.display()))
        .collect();
    if paths.len() > 3 {
        names.push(format!("{} more", paths.len() - 3));
    }
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

pub fn experience(what: ExperienceCmd) -> ExitCode {
    match what {
        ExperienceCmd::Stats(a) => stats(a),
        ExperienceCmd::Show(a) => show(a),
        ExperienceCmd::Coverage(a) => coverage(a),
        ExperienceCmd::Export(a) => export(a),
        ExperienceCmd::Merge(a) => merge(a),
        ExperienceCmd::Prune(a) => prune(a),
        ExperienceCmd::Vacuum(a) => vacuum(a),
    }
}

/// `experience coverage`: of the positions where the player was to move, how many the search
/// memory remembered, how many the move records knew (at least `--min-games` games), either.
fn coverage(a: CoverageArgs) -> ExitCode {
    let store = match Store::open_read_only(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let (mut plies, mut remembered, mut recorded, mut either) = (0u64, 0, 0, 0);
    let mut read = 0u64;
    // Whether any game has the player (one with no move counts: it is there).
    let mut named = false;
    for file in &a.pgn {
        let f = match std::fs::File::open(file) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("deepred: cannot read '{}': {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        let (mut unread, mut first) = (0, None);
        for game in read_games(std::io::BufReader::new(f)) {
            let game = match game {
                Ok(g) => g,
                Err(e) => {
                    unread += 1;
                    first.get_or_insert(format!("game {}: {}", e.number, e.reason));
                    continue;
                }
            };
            read += 1;
            let plays = |tag: &str| {
                a.player.is_empty() || game.tag(tag).is_some_and(|n| n.contains(&a.player))
            };
            let (white, black) = (plays("White"), plays("Black"));
            named |= white || black;
            let positions = game.positions();
            // The positions where a move was played (not the final one).
            for pos in &positions[..positions.len().saturating_sub(1)] {
                let ours = match pos.turn() {
                    Color::White => white,
                    Color::Black => black,
                };
                if !ours {
                    continue;
                }
                plies += 1;
                let m = store.memory_of(hash_of(pos)).ok().flatten().is_some();
                let (w, b, d) = store.position_record(pos).unwrap_or((0, 0, 0));
                let r = w + b + d >= a.min_games;
                remembered += u64::from(m);
                recorded += u64::from(r);
                either += u64::from(m || r);
            }
        }
        if let Some(first) = first {
            eprintln!(
                "deepred: '{}': {unread} game(s) could not be read and were left out (the first, {first})",
                file.display()
            );
        }
    }
    let share = |n: u64| 100.0 * n as f64 / plies.max(1) as f64;
    println!("positions to move: {plies}");
    println!(
        "remembered by the search memory: {remembered} ({:.1}%)",
        share(remembered)
    );
    println!(
        "known to the move records (>= {} games): {recorded} ({:.1}%)",
        a.min_games,
        share(recorded)
    );
    println!("either: {either} ({:.1}%)", share(either));
    if read == 0 {
        return fail("no game could be read");
    }
    if !named {
        return fail(format!(
            "no game has a player named '{}' (--player names the one to count; '' counts every move)",
            a.player
        ));
    }
    ExitCode::SUCCESS
}

fn stats(a: StatsArgs) -> ExitCode {
    if let Some(plot) = &a.plot
        && let Err(e) =
            super::not_an_input(plot, [a.db.as_path()]).and_then(|()| super::replaceable(plot))
    {
        return fail(e);
    }
    let store = match Store::open_read_only(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    match store.stats() {
        Ok(s) => {
            println!("store: {}", store.path().display());
            println!("games: {}", s.games);
            println!("white_moves rows: {}", s.white_rows);
            println!("black_moves rows: {}", s.black_rows);
            println!("distinct positions: {}", s.positions);
            if let Ok(n) = store.memory_count() {
                println!("search memory positions: {n}");
            }
            println!("file size: {} bytes", s.file_bytes);
            println!("bytes per row: {:.1}", s.bytes_per_row());
            println!("bytes per game: {:.1}", s.bytes_per_game());
            match &a.plot {
                Some(p) => plot_store(&store, p),
                None => ExitCode::SUCCESS,
            }
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
            if let Ok(Some(r)) = store.memory_of(hash_of(&pos)) {
                let mv = decode_move(&pos, r.mv).map_or("?".to_string(), |m| uci_move(m, false));
                println!(
                    "search memory: {mv} at depth {}, score {} cp, learned {:+} cp (value {} cp)",
                    r.depth,
                    r.score,
                    r.learned,
                    r.value()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `experience export`: the Polyglot book and/or the EPD of the known positions.
fn export(a: ExportArgs) -> ExitCode {
    use deepred::experience::polyglot::{book_entries, write_epd, write_polyglot};
    if a.polyglot.is_none() && a.epd.is_none() && a.pgn.is_none() && a.bullet.is_none() {
        return fail(
            "experience export: say what to write (--polyglot FILE, --epd FILE, --pgn FILE and/or --bullet FILE)",
        );
    }
    // The position filters choose --bullet's positions; elsewhere they would be ignored.
    if let Err(e) = position_filter(&a.positions) {
        return fail(e);
    }
    let p = &a.positions;
    let filtered = p.window.is_some()
        || !p.source_weights.is_empty()
        || p.skip_plies != deepred::experience::positions::PositionFilter::default().skip_plies
        || p.min_depth != 0
        || p.other_evals;
    if a.bullet.is_none() && filtered {
        return fail(
            "experience export: --window, --source-weight, --skip-plies, --min-depth and --other-evals choose the positions of --bullet",
        );
    }
    // Likewise the book's settings.
    let book_set = a.min_games != ExportArgs::MIN_GAMES || a.max_ply != ExportArgs::MAX_PLY;
    if a.polyglot.is_none() && a.epd.is_none() && book_set {
        return fail(
            "experience export: --min-games and --max-ply choose the moves of --polyglot and --epd",
        );
    }
    let outs: Vec<_> = [&a.polyglot, &a.epd, &a.pgn, &a.bullet]
        .into_iter()
        .flatten()
        .collect();
    for (i, out) in outs.iter().enumerate() {
        if let Err(e) = super::not_an_input(out, [a.db.as_path()]) {
            return fail(e);
        }
        // Two outputs in one file: the second would replace the first.
        if outs[..i]
            .iter()
            .any(|o| super::not_an_input(out, [o.as_path()]).is_err())
        {
            return fail(format!(
                "'{}' is named for two exports; give each its own file",
                out.display()
            ));
        }
    }
    // Every output writable before any is written: not one export made and the next refused.
    if let Some(e) = outs.iter().find_map(|o| super::replaceable(o).err()) {
        return fail(e);
    }
    let store = match Store::open_read_only(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if let Some(p) = &a.bullet {
        match export_bullet(&store, &a.positions, p) {
            Ok(n) => eprintln!("{}: {n} positions", p.display()),
            Err(e) => return fail(e),
        }
        if a.polyglot.is_none() && a.epd.is_none() && a.pgn.is_none() {
            return ExitCode::SUCCESS;
        }
    }
    if let Some(p) = &a.pgn {
        match export_pgn(&store, p) {
            Ok((written, without)) => eprintln!(
                "{}: {written} games ({without} learned before the store kept moves left out)",
                p.display()
            ),
            Err(e) => return fail(e),
        }
        if a.polyglot.is_none() && a.epd.is_none() {
            return ExitCode::SUCCESS;
        }
    }
    let (entries, positions) = match book_entries(&store, a.min_games, a.max_ply) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    if let Some(p) = &a.polyglot {
        if let Err(e) = write_polyglot(p, &entries) {
            return fail(write_error(p, e));
        }
        eprintln!(
            "{}: {} entries, {} positions (moves with at least {} games, up to ply {})",
            p.display(),
            entries.len(),
            positions.len(),
            a.min_games,
            a.max_ply
        );
    }
    if let Some(p) = &a.epd {
        if let Err(e) = write_epd(p, &positions) {
            return fail(write_error(p, e));
        }
        eprintln!("{}: {} positions", p.display(), positions.len());
    }
    ExitCode::SUCCESS
}

/// The greatest `--source-weight`: a game taken this many times.
const MAX_SOURCE_WEIGHT: f64 = 100.0;

/// The position filter of `--window`, `--source-weight`, ... .
pub fn position_filter(
    a: &PositionArgs,
) -> Result<deepred::experience::positions::PositionFilter, String> {
    let weights = super::parse_options(&a.source_weights)
        .map_err(|e| format!("--source-weight: {e}"))?
        .into_iter()
        .map(|(k, v)| match v.parse::<f64>() {
            // Each weighted copy of a game is a copy of its positions in memory: a weight of
            // 1e300 aborted the program for want of memory.
            Ok(w) if (0.0..=MAX_SOURCE_WEIGHT).contains(&w) => Ok((k, w)),
            _ => Err(format!(
                "--source-weight {k}={v}: the weight must be a number from 0 to {MAX_SOURCE_WEIGHT}"
            )),
        })
        .collect::<Result<_, _>>()?;
    Ok(deepred::experience::positions::PositionFilter {
        skip_plies: a.skip_plies,
        min_depth: a.min_depth,
        other_evals: a.other_evals,
        window: a.window,
        weights,
        ..Default::default()
    })
}

/// The training positions of the store at `db` under the filter of `a`, with a progress bar
/// and a line saying what was read (stderr).
pub fn store_positions(
    db: &std::path::Path,
    a: &PositionArgs,
) -> Result<Vec<deepred::chess::bullet::ChessBoard>, String> {
    let f = position_filter(a)?;
    let store = Store::open_read_only(db).map_err(|e| e.to_string())?;
    let bar = indicatif::ProgressBar::new_spinner();
    let (boards, sum) = deepred::experience::positions::training_boards(&store, &f, |n| {
        bar.set_message(format!("{n} games read"))
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    eprintln!(
        "{}: {} games read, {} taken ({} without their moves), {} positions",
        deepred::experience::store::shown(db),
        sum.games,
        sum.taken,
        sum.without_moves,
        sum.positions
    );
    Ok(boards)
}

/// Why an export could not be written; an export into a pipe whose reader went away
/// (`--pgn /dev/stdout | head`) stops quietly instead, as every command does when the reader
/// of its output goes away (it said "Broken pipe" and exited 1).
fn write_error(out: &std::path::Path, e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    format!("cannot write '{}': {e}", out.display())
}

/// `export --bullet`: the store's training positions as bulletformat records; how many.
fn export_bullet(store: &Store, a: &PositionArgs, out: &std::path::Path) -> Result<u64, String> {
    let f = position_filter(a)?;
    let (boards, _) = deepred::experience::positions::training_boards(store, &f, |_| {})
        .map_err(|e| e.to_string())?;
    // Whole or not at all: a file cut by a full disk is still whole records, and a trainer
    // would take it.
    deepred::chess::files::write_replacing_with(out, |w| {
        boards
            .iter()
            .try_for_each(|b| w.write_all(&deepred::chess::bullet::to_bytes(b)))
    })
    .map_err(|e| write_error(out, e))?;
    Ok(boards.len() as u64)
}

/// The learned games as PGN; (games written, games without kept moves).
fn export_pgn(store: &Store, out: &std::path::Path) -> Result<(u64, u64), String> {
    use deepred::chess::pgn::{eval_comment, write_pgn_annotated};
    use deepred::experience::store::record_of;
    let games = store.stored_games().map_err(|e| e.to_string())?;
    let mut text = String::new();
    let (mut written, mut without) = (0, 0);
    for g in &games {
        let Some(r) = record_of(store.path(), g).map_err(|e| e.to_string())? else {
            without += 1;
            continue;
        };
        let tags = [
            ("Event", r.source.clone()),
            ("Date", r.date.clone()),
            ("White", r.white.clone()),
            ("Black", r.black.clone()),
        ];
        // Each kept evaluation as cutechess writes it (the mover's score in pawns, or moves to
        // mate, and the depth), which `import` reads back.
        let comments: Vec<Option<String>> = r
            .evals
            .iter()
            .map(|e| e.map(|e| eval_comment(i32::from(e.score), e.depth)))
            .collect();
        text.push_str(&write_pgn_annotated(
            &r.start,
            &r.moves,
            Some(r.result),
            &tags,
            &comments,
        ));
        written += 1;
    }
    deepred::chess::files::write_replacing(out, text.as_bytes())
        .map_err(|e| write_error(out, e))?;
    Ok((written, without))
}

/// `experience merge`: each source added to --into in its own transaction.
fn merge(a: MergeArgs) -> ExitCode {
    // Every source is checked before --into is opened, so a bad source leaves no new store
    // behind; each is opened again in its turn (hundreds of workers' stores at once would
    // hold too many files open).
    for src in &a.sources {
        if let Err(e) = Store::open_read_only(src) {
            return fail(e);
        }
    }
    let mut into = match Store::open(&a.into) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    for src in &a.sources {
        let source = match Store::open_read_only(src) {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        if source.path() == into.path() {
            return fail(format!(
                "experience merge: '{}' is also --into; nothing merged from it",
                source.path().display()
            ));
        }
        match into.merge_from(&source) {
            Ok(m) => println!(
                "{} -> {}: {} games ({} new), {} move rows added, {} search memory rows",
                source.path().display(),
                into.path().display(),
                m.games,
                m.new_games,
                m.rows,
                m.memory_rows
            ),
            Err(e) => return fail(e),
        }
    }
    match into.stats() {
        Ok(s) => {
            println!(
                "{}: {} games, {} move rows",
                into.path().display(),
                s.games,
                s.white_rows + s.black_rows
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// A store to change in place: one that does not exist is an error (as for `stats`), not a new
/// empty store made from a mistyped path.
fn open_existing(db: &std::path::Path) -> Result<Store, deepred::experience::Error> {
    drop(Store::open_read_only(db)?);
    Store::open(db)
}

/// `experience prune`: rare rows beyond the first plies go, in one transaction.
fn prune(a: PruneArgs) -> ExitCode {
    let mut store = match open_existing(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    // Sizes measured with the log copied back: the rows a prune deletes pass through it, and
    // counted with it the file seemed to grow.
    let size = |store: &Store| {
        let _ = store.checkpoint();
        store.stats().map(|s| s.file_bytes).unwrap_or(0)
    };
    let before = size(&store);
    let keep = match positions_near_roots(&store, a.keep_plies) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    match store.prune(&keep, a.min_games) {
        Ok(r) => {
            println!(
                "{}: {} of {} move rows removed (fewer than {} games, beyond ply {}; {} positions within it kept whole); {} rows left",
                store.path().display(),
                r.rows_removed,
                r.rows_before,
                a.min_games,
                a.keep_plies,
                r.kept_positions,
                r.rows_before - r.rows_removed
            );
            let after = size(&store);
            println!(
                "file size {before} bytes before, {after} after (`deepred experience vacuum` gives the freed pages back)"
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `experience vacuum`: the file rebuilt without free pages.
fn vacuum(a: VacuumArgs) -> ExitCode {
    let store = match open_existing(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    match store.vacuum() {
        Ok((before, after)) => {
            println!(
                "{}: {before} bytes before, {after} after",
                store.path().display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `experience stats --plot`: growth against time, and the book's depth.
fn plot_store(store: &Store, out: &std::path::Path) -> ExitCode {
    use deepred::train::plot::{Panel, plot_lines};
    let (growth, depths) = match (store.growth(), book_depths(store, 60)) {
        (Ok(g), Ok(d)) => (g, d),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    // Minutes for a store learned within two hours, else hours.
    let span = growth.last().map_or(0.0, |g| g.0);
    let (unit, per) = if span < 7200.0 {
        ("minutes", 60.0)
    } else {
        ("hours", 3600.0)
    };
    let hours = |t: f64| t / per;
    let since = format!("{unit} since the first game");
    let panels = [
        Panel {
            title: "Games learned".into(),
            x_label: since.clone(),
            y_label: "games".into(),
            lines: vec![(
                "games".into(),
                growth
                    .iter()
                    .map(|&(t, g, _)| (hours(t), g as f64))
                    .collect(),
            )],
        },
        Panel {
            title: "Move rows the games touched".into(),
            x_label: since.clone(),
            y_label: "rows".into(),
            lines: vec![(
                "rows touched (a row counts once per game)".into(),
                growth
                    .iter()
                    .map(|&(t, _, r)| (hours(t), r as f64))
                    .collect(),
            )],
        },
        Panel {
            title: "The learned book's depth".into(),
            x_label: "plies from the start of the games".into(),
            y_label: "known positions".into(),
            lines: vec![(
                "positions with known moves".into(),
                depths
                    .iter()
                    .enumerate()
                    .map(|(ply, &n)| (ply as f64, n as f64))
                    .collect(),
            )],
        },
    ];
    match plot_lines(out, &panels) {
        Ok(()) => {
            println!("plot: {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

//! `deepred import`: PGN files into the experience store. Files are parsed in parallel (rayon),
//! every game's rows are computed in parallel, and games are written in transactions of whole
//! games. A bad game is reported (file, game number, ply, text, reason) and skipped; importing
//! the same games again changes nothing (content hash).

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::store::{GameRecord, Learned, MoveRow, Store};
use crate::games::pgn::{PgnGame, read_games};

#[derive(Debug, Default, Clone)]
pub struct ImportReport {
    pub files: usize,
    pub games_read: usize,
    pub learned: usize,
    pub already_known: usize,
    pub rows_written: usize,
    /// "file: game N, ply P: reason ('text')" for every game not learned.
    pub skipped: Vec<String>,
    pub seconds: f64,
}

impl ImportReport {
    pub fn games_per_second(&self) -> f64 {
        self.games_read as f64 / self.seconds.max(1e-9)
    }
}

/// The games of one file, or why it could not be read.
type ParsedFile = Result<Vec<Result<PgnGame, crate::games::pgn::PgnError>>, String>;

/// A game of a PGN file as a learnable record, or why it cannot be learned.
pub fn to_record(source: &str, g: PgnGame) -> Result<GameRecord, String> {
    let Some(result) = g.result else {
        return Err(format!(
            "game {}, ply 0: no result, nothing to learn ('*')",
            g.number
        ));
    };
    if g.moves.is_empty() {
        return Err(format!("game {}, ply 0: no moves ('')", g.number));
    }
    let tag = |k: &str| g.tag(k).unwrap_or("?").to_string();
    Ok(GameRecord {
        source: source.to_string(),
        white: tag("White"),
        black: tag("Black"),
        date: tag("Date"),
        result,
        start: g.start,
        moves: g.moves,
    })
}

/// Imports `files` into `store`, `batch` games per transaction.
pub fn import(
    store: &mut Store,
    files: &[PathBuf],
    batch: usize,
    show_progress: bool,
) -> Result<ImportReport, String> {
    let start = Instant::now();
    let mut report = ImportReport {
        files: files.len(),
        ..Default::default()
    };
    // Parse every file in parallel; unreadable files are reported and skipped.
    let parsed: Vec<(String, ParsedFile)> = files
        .par_iter()
        .map(|f| {
            let name = f.display().to_string();
            let r = std::fs::File::open(f)
                .map(|file| read_games(std::io::BufReader::with_capacity(1 << 20, file)))
                .map_err(|e| format!("{name}: cannot read: {e}"));
            (name, r)
        })
        .collect();
    let total: usize = parsed
        .iter()
        .map(|(_, r)| r.as_ref().map_or(0, Vec::len))
        .sum();
    let bar = if show_progress {
        let b = ProgressBar::new(total as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games {per_sec} [{elapsed_precise} < {eta}] {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    for (name, games) in parsed {
        let games = match games {
            Ok(g) => g,
            Err(e) => {
                report.skipped.push(e);
                continue;
            }
        };
        report.games_read += games.len();
        let source = std::path::Path::new(&name)
            .file_name()
            .map_or(name.clone(), |n| n.to_string_lossy().into_owned());
        let prepared: Vec<Result<(GameRecord, Vec<MoveRow>), String>> = games
            .into_par_iter()
            .map(|g| {
                let g = g.map_err(|e| e.to_string())?;
                let rec = to_record(&source, g)?;
                let rows = rec.rows();
                Ok((rec, rows))
            })
            .collect();
        let mut pending: Vec<(GameRecord, Vec<MoveRow>)> = Vec::with_capacity(batch);
        for p in prepared {
            match p {
                Ok(x) => pending.push(x),
                Err(e) => {
                    report.skipped.push(format!("{name}: {e}"));
                    bar.inc(1);
                }
            }
            if pending.len() >= batch {
                write(store, &mut pending, &mut report, &bar)?;
            }
        }
        write(store, &mut pending, &mut report, &bar)?;
    }
    bar.finish_and_clear();
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

fn write(
    store: &mut Store,
    pending: &mut Vec<(GameRecord, Vec<MoveRow>)>,
    report: &mut ImportReport,
    bar: &ProgressBar,
) -> Result<(), String> {
    if pending.is_empty() {
        return Ok(());
    }
    let outcome = store.learn(pending)?;
    for o in outcome {
        match o {
            Learned::New { rows } => {
                report.learned += 1;
                report.rows_written += rows;
            }
            Learned::AlreadyKnown => report.already_known += 1,
        }
    }
    bar.inc(pending.len() as u64);
    pending.clear();
    Ok(())
}

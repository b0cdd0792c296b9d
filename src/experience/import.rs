//! `deepred import`: PGN files into the experience store. Files are read one after another,
//! every game's rows are computed in parallel (rayon) while a writer thread learns the previous
//! batch, and games are written in transactions of whole games. A bad game is reported (file, game number, ply, text, reason) and skipped; importing
//! the same games again changes nothing (content hash).

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::Error;
use super::records::{EvalSource, GameRecord, MoveEval, MoveRow};
use super::store::{Learned, Store};
use crate::chess::pgn::{PgnError, PgnGame, read_games};
use crate::chess::rules::{Reason, game_end};

#[derive(Debug, Default, Clone)]
pub struct ImportReport {
    pub files: usize,
    pub games_read: usize,
    pub learned: usize,
    pub already_known: usize,
    pub rows_written: usize,
    /// "file: game N, ply P: reason ('text')" for every game not learned.
    pub skipped: Vec<String>,
    /// Files that could not be opened or read (also in `skipped`).
    pub unreadable: usize,
    pub seconds: f64,
}

impl ImportReport {
    pub fn games_per_second(&self) -> f64 {
        self.games_read as f64 / self.seconds.max(1e-9)
    }
}

/// A game of a PGN file as a learnable record, or why it cannot be learned.
pub fn to_record(source: &str, g: PgnGame) -> Result<GameRecord, PgnError> {
    let unlearnable = |text: &str, reason: &str| PgnError {
        number: g.number,
        ply: 0,
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let Some(result) = g.result else {
        return Err(unlearnable("*", "no result, nothing to learn"));
    };
    if g.moves.is_empty() {
        return Err(unlearnable("", "no moves"));
    }
    // A game that ends on the board (mate, stalemate, no mating material) has that result:
    // another one says the record is wrong, and learning it would teach the opposite.
    if let Some(end) = game_end(&g.start, &g.moves)
        && matches!(
            end.reason,
            Reason::Checkmate | Reason::Stalemate | Reason::InsufficientMaterial
        )
        && end.result != result
    {
        return Err(unlearnable(
            result.as_pgn(),
            &format!(
                "the game ends by {} on the board, {}",
                end.reason.text(),
                end.result.as_pgn()
            ),
        ));
    }
    let tag = |k: &str| g.tag(k).unwrap_or("?").to_string();
    // The evaluations the PGN's comments carry (`[%eval ...]`, an engine's `{+0.35/12 0.5s}`).
    let evals = g
        .evals
        .iter()
        .map(|e| {
            e.map(|(score, depth)| MoveEval {
                score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
                depth,
                source: EvalSource::Other,
            })
        })
        .collect();
    Ok(GameRecord {
        source: source.to_string(),
        white: tag("White"),
        black: tag("Black"),
        date: tag("Date"),
        result,
        start: g.start,
        moves: g.moves,
        evals,
    })
}

/// WAL size between checkpoints during an import: 256 MiB (in pages of the store's size: 8,192
/// of the 32 KiB pages of a store made by Deep Red).
const BULK_CHECKPOINT_BYTES: u64 = 256 << 20;

/// Imports `files` into `store`, `batch` games per transaction.
///
/// A pipeline: this thread (and rayon) reads the files and computes each game's rows, batch by
/// batch, while a writer thread learns the previous batch into the store.
pub fn import(
    store: &mut Store,
    files: &[PathBuf],
    batch: usize,
    show_progress: bool,
) -> Result<ImportReport, Error> {
    let start = Instant::now();
    let mut report = ImportReport {
        files: files.len(),
        ..Default::default()
    };
    store.set_autocheckpoint(Some(BULK_CHECKPOINT_BYTES))?;
    let bar = if show_progress {
        let total: u64 = files
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum();
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {msg} [{elapsed_precise} < {eta}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let batch = batch.max(1);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(GameRecord, Vec<MoveRow>)>>(2);
    let written = std::thread::scope(|s| {
        let writer = s.spawn(|| -> Result<(usize, usize, usize), Error> {
            let (mut learned, mut known, mut rows) = (0, 0, 0);
            for games in rx {
                // A batch that fails (a full disk) is rolled back whole; what came before stays.
                let done = store.learn(&games).map_err(|e| Error::ImportStopped {
                    learned,
                    known,
                    source: Box::new(e),
                })?;
                for o in done {
                    match o {
                        Learned::New { rows: r } => {
                            learned += 1;
                            rows += r;
                        }
                        Learned::AlreadyKnown => known += 1,
                    }
                }
                bar.set_message(format!("{} games", learned + known));
            }
            Ok((learned, known, rows))
        });
        // Produce batches; stops early if the writer has failed (the channel is closed).
        'files: for f in files {
            let name = f.display().to_string();
            let games = match open_input(f) {
                Ok(file) => read_games(std::io::BufReader::with_capacity(1 << 20, file)),
                Err(e) => {
                    report.skipped.push(format!("{name}: cannot read: {e}"));
                    report.unreadable += 1;
                    continue;
                }
            };
            report.games_read += games.len();
            let source = f
                .file_name()
                .map_or(name.clone(), |n| n.to_string_lossy().into_owned());
            let mut games = games.into_iter().peekable();
            while games.peek().is_some() {
                let chunk: Vec<_> = games.by_ref().take(batch).collect();
                let prepared: Vec<Result<(GameRecord, Vec<MoveRow>), PgnError>> = chunk
                    .into_par_iter()
                    .map(|g| {
                        let rec = to_record(&source, g?)?;
                        let rows = rec.rows();
                        Ok((rec, rows))
                    })
                    .collect();
                let mut ok = Vec::with_capacity(prepared.len());
                for p in prepared {
                    match p {
                        Ok(x) => ok.push(x),
                        Err(e) => report.skipped.push(format!("{name}: {e}")),
                    }
                }
                if !ok.is_empty() && tx.send(ok).is_err() {
                    break 'files;
                }
            }
            bar.inc(std::fs::metadata(f).map_or(0, |m| m.len()));
        }
        drop(tx);
        writer.join().unwrap_or(Err(Error::WriterPanicked))
    });
    let (learned, known, rows) = written?;
    report.learned = learned;
    report.already_known = known;
    report.rows_written = rows;
    bar.finish_and_clear();
    store.checkpoint()?;
    store.set_autocheckpoint(None)?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// A PGN file to import, opened for reading (a folder is refused: it opens, then cannot be
/// read).
pub fn open_input(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::other("it is a folder"));
    }
    Ok(file)
}

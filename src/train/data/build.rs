//! Building data sets: positions and triplets drawn from PGN games, or from `deepred datagen`
//! records, split by game and written in the format of [`super`].

use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rayon::prelude::*;
use shakmaty::{Chess, Color, Move, Position};

use super::{DEEPCHESS_PER_GAME, HEADER_LEN, MAGIC, SKIP_PLIES, encode, equal_material, kind_byte};
use crate::chess::pgn::{PgnGame, read_games};
use crate::chess::rules::GameResult;
use crate::nn::net::Kind;
use crate::train::Error;

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Is game `index` in the validation split?
pub fn is_validation(seed: u64, index: u64, fraction: f64) -> bool {
    let h = splitmix(splitmix(seed ^ 0x5EED) ^ index);
    ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// The random generator of game `index`.
pub fn game_rng(seed: u64, index: u64) -> StdRng {
    StdRng::seed_from_u64(splitmix(
        splitmix(seed) ^ index.wrapping_mul(0xA24B_AED4_963E_E407),
    ))
}

/// The DeepChess positions of a decisive game (none for a draw or an unknown result): up to 10
/// distinct random plies >= 10 whose last move was not a capture, in game order.
pub fn deepchess_positions(game: &PgnGame, rng: &mut StdRng) -> Vec<(usize, Chess)> {
    if !matches!(
        game.result,
        Some(GameResult::WhiteWins | GameResult::BlackWins)
    ) {
        return Vec::new();
    }
    let positions = game.positions();
    let candidates: Vec<usize> = (SKIP_PLIES.max(1)..positions.len())
        .filter(|&k| !game.moves[k - 1].is_capture())
        .collect();
    let mut chosen: Vec<usize> = candidates
        .choose_multiple(rng, DEEPCHESS_PER_GAME)
        .copied()
        .collect();
    chosen.sort_unstable();
    chosen
        .into_iter()
        .map(|k| (k, positions[k].clone()))
        .collect()
}

/// One Deep Pink triplet: the ply of p, p, q (after the move played), r (after another move).
pub struct Triplet {
    pub ply: usize,
    pub p: Chess,
    pub q: Chess,
    pub r: Chess,
    pub played: Move,
    pub other: Move,
}

/// Up to `per_game` Deep Pink triplets of a game, in game order.
pub fn deeppink_triplets(game: &PgnGame, per_game: usize, rng: &mut StdRng) -> Vec<Triplet> {
    let positions = game.positions();
    let mut plies: Vec<usize> = (SKIP_PLIES..game.moves.len()).collect();
    plies.shuffle(rng);
    let mut out = Vec::new();
    for k in plies {
        if out.len() >= per_game {
            break;
        }
        let p = &positions[k];
        let played = game.moves[k];
        let others: Vec<Move> = p
            .legal_moves()
            .into_iter()
            .filter(|&m| m != played)
            .collect();
        let Some(&other) = others.choose(rng) else {
            continue;
        };
        let mut r = p.clone();
        r.play_unchecked(other);
        out.push(Triplet {
            ply: k,
            p: p.clone(),
            q: positions[k + 1].clone(),
            r,
            played,
            other,
        });
    }
    out.sort_by_key(|t| t.ply);
    out
}

#[derive(Clone, Debug)]
pub struct DatasetOptions {
    pub kind: Kind,
    pub val_fraction: f64,
    pub seed: u64,
    pub per_game: usize,
    /// Share of the `deepred datagen` records used (each kept or not by its own random draw).
    pub sample: f64,
    /// Deep Pink from datagen: only triplets whose children have equal SEE-resolved material.
    pub equal_material: bool,
}

/// Records of `deepred datagen` files are split into train and validation by blocks of this
/// many consecutive records (datagen writes each game's records together, about 90 a game, so a
/// game rarely straddles both splits).
pub const DATAGEN_BLOCK: u64 = 256;

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub unreadable: u64,
    pub white_won: u64,
    pub black_won: u64,
    pub drawn: u64,
    pub no_result: u64,
    /// Games that gave at least one record, by split (train, validation).
    pub games_used: [u64; 2],
    /// Records by split (train, validation).
    pub records: [u64; 2],
    /// DeepChess records by result (White won, Black won).
    pub by_result: [u64; 2],
    /// Games skipped as repeats of an earlier game (same start and moves), so that one game
    /// never lands in both splits.
    pub duplicates: u64,
    /// `deepred datagen` records read (a data set from datagen files), and those whose
    /// position could not be recovered (see `chess::bullet::position`).
    pub positions_read: u64,
    pub positions_unusable: u64,
}

impl Summary {
    pub fn total(&self) -> u64 {
        self.records[0] + self.records[1]
    }

    pub fn report(&self, kind: Kind, out: &Path) -> String {
        let mut s = format!(
            "{}: {} records written to '{}'\n",
            kind.name(),
            self.total(),
            out.display()
        );
        if self.positions_read > 0 {
            s.push_str(&format!(
                "datagen records: {} read, {} without a recoverable position; positions of games won by White {}, won by Black {}, drawn {}\n",
                self.positions_read,
                self.positions_unusable,
                self.white_won,
                self.black_won,
                self.drawn
            ));
        } else {
            s.push_str(&format!(
            "games: {} read ({} unreadable, {} repeats of an earlier game skipped): {} won by White, {} won by Black, {} drawn, {} without result\n",
            self.games,
            self.unreadable,
            self.duplicates,
            self.white_won,
            self.black_won,
            self.drawn,
            self.no_result
        ));
        }
        let unit = if self.positions_read > 0 {
            "blocks of 256 records"
        } else {
            "games"
        };
        s.push_str(&format!(
            "split: train {} records from {} {unit}, validation {} records from {} {unit}\n",
            self.records[0], self.games_used[0], self.records[1], self.games_used[1]
        ));
        if kind == Kind::DeepChess {
            s.push_str(&format!(
                "by result: {} positions from games White won, {} from games Black won\n",
                self.by_result[0], self.by_result[1]
            ));
        }
        s
    }
}

/// The records of one game.
fn game_records(game: &PgnGame, index: u64, opts: &DatasetOptions) -> (Vec<u8>, usize) {
    let mut rng = game_rng(opts.seed, index);
    let split = u8::from(is_validation(opts.seed, index, opts.val_fraction));
    let mut out = Vec::new();
    let tail = |out: &mut Vec<u8>| out.extend_from_slice(&(index as u32).to_le_bytes());
    let mut n = 0;
    match opts.kind {
        Kind::DeepChess => {
            let result = match game.result {
                Some(GameResult::WhiteWins) => 1,
                Some(GameResult::BlackWins) => 2,
                _ => return (out, 0),
            };
            for (_, pos) in deepchess_positions(game, &mut rng) {
                out.extend_from_slice(&encode(&pos));
                out.push(result);
                out.push(split);
                tail(&mut out);
                n += 1;
            }
        }
        Kind::DeepPink => {
            for t in deeppink_triplets(game, opts.per_game, &mut rng) {
                out.extend_from_slice(&encode(&t.p));
                out.extend_from_slice(&encode(&t.q));
                out.extend_from_slice(&encode(&t.r));
                out.push(split);
                out.push(0);
                tail(&mut out);
                n += 1;
            }
        }
        // Not a data set kind (the learned net trains on `deepred datagen` files).
        Kind::Learned => {}
    }
    (out, n)
}

/// What one game gave: its records, their count, its result, split and identity key (None:
/// unreadable).
type GameOutput = Option<(Vec<u8>, usize, Option<GameResult>, u8, u64)>;

/// A game's identity for finding repeats: a hash of its start position and moves (tags and
/// result aside). The same game in two files, or twice in one, has one key.
pub fn game_key(g: &PgnGame) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    crate::chess::fen::fen_of(&g.start).hash(&mut h);
    for m in &g.moves {
        m.hash(&mut h);
    }
    h.finish()
}

/// Where the data set `out` is written until it is whole: `out` itself is replaced only by a
/// finished data set with records, so a failed or empty build leaves the previous one.
/// Through links: the file the links name is replaced, and the links stay (a link was
/// replaced by a file, its target left as it was).
fn partial(out: &Path) -> std::path::PathBuf {
    let mut name = crate::chess::files::link_target(out).into_os_string();
    name.push(".part");
    name.into()
}

/// A new data set file for `out` of `kind` (at [`partial`]), its header written (the record
/// count comes at the end). A data set is a file, written whole: a device, pipe or socket
/// (`/dev/full`, `/dev/stdout`) is refused (the finished file was renamed over it: the device
/// went, and a full disk said nothing).
fn create(out: &Path, kind: Kind) -> Result<BufWriter<std::fs::File>, Error> {
    if std::fs::metadata(out).is_ok_and(|m| !m.is_file()) {
        return Err(Error::Create {
            path: out.to_path_buf(),
            source: std::io::Error::other(
                "it is not a file (a folder, a device, a pipe or a socket): a data set is written whole into a file",
            ),
        });
    }
    let file = std::fs::File::create(partial(out)).map_err(|source| Error::Create {
        path: out.to_path_buf(),
        source,
    })?;
    let mut w = BufWriter::new(file);
    let mut header = [0u8; HEADER_LEN];
    header[..8].copy_from_slice(MAGIC);
    header[8] = kind_byte(kind);
    w.write_all(&header).map_err(|source| Error::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(w)
}

/// `r`, and on an error the partial file of `out` removed ([`partial`]).
fn discard_on_error<T>(out: &Path, r: Result<T, Error>) -> Result<T, Error> {
    if r.is_err() {
        let _ = std::fs::remove_file(partial(out));
    }
    r
}

/// Writes the record count of `summary` into the header of `w` and flushes it.
fn finish(mut w: BufWriter<std::fs::File>, out: &Path, summary: Summary) -> Result<Summary, Error> {
    let werr = |source: std::io::Error| Error::Write {
        path: out.to_path_buf(),
        source,
    };
    let total =
        u32::try_from(summary.total()).map_err(|_| Error::TooManyRecords(summary.total()))?;
    w.seek(SeekFrom::Start(12)).map_err(werr)?;
    w.write_all(&total.to_le_bytes()).map_err(werr)?;
    w.flush().map_err(werr)?;
    drop(w);
    if total == 0 {
        let _ = std::fs::remove_file(partial(out));
        return Err(Error::NoData(format!(
            "no record came from the input; '{}' is left as it was",
            out.display()
        )));
    }
    std::fs::rename(partial(out), crate::chess::files::link_target(out)).map_err(werr)?;
    Ok(summary)
}

/// Counts each game's output in the summary and writes its records (a game met before is
/// left out).
struct Sink<'a> {
    kind: Kind,
    w: BufWriter<std::fs::File>,
    out: &'a Path,
    summary: Summary,
    seen: std::collections::HashSet<u64>,
}

impl<'a> Sink<'a> {
    /// A new data set file of `kind` at `out`.
    fn new(out: &'a Path, kind: Kind) -> Result<Sink<'a>, Error> {
        Ok(Sink {
            kind,
            w: create(out, kind)?,
            out,
            summary: Summary::default(),
            seen: std::collections::HashSet::new(),
        })
    }

    fn add(&mut self, r: GameOutput) -> Result<(), Error> {
        let summary = &mut self.summary;
        summary.games += 1;
        let Some((bytes, n, result, split, key)) = r else {
            summary.unreadable += 1;
            return Ok(());
        };
        if !self.seen.insert(key) {
            summary.duplicates += 1;
            return Ok(());
        }
        match result {
            Some(GameResult::WhiteWins) => summary.white_won += 1,
            Some(GameResult::BlackWins) => summary.black_won += 1,
            Some(GameResult::Draw) => summary.drawn += 1,
            None => summary.no_result += 1,
        }
        if n > 0 {
            let s = usize::from(split);
            summary.games_used[s] += 1;
            summary.records[s] += n as u64;
            if self.kind == Kind::DeepChess {
                summary.by_result[usize::from(result == Some(GameResult::BlackWins))] += n as u64;
            }
        }
        self.w.write_all(&bytes).map_err(|source| Error::Write {
            path: self.out.to_path_buf(),
            source,
        })
    }
}

/// The output of game `index` (its records, their count, result, split and identity).
fn game_output(g: &PgnGame, index: u64, opts: &DatasetOptions) -> GameOutput {
    let (bytes, n) = game_records(g, index, opts);
    let split = u8::from(is_validation(opts.seed, index, opts.val_fraction));
    Some((bytes, n, g.result, split, game_key(g)))
}

/// Builds a data set from `pgns` into `out`. `progress` is told of games to do and games done.
pub fn build(
    pgns: &[PathBuf],
    out: &Path,
    opts: &DatasetOptions,
    progress: &indicatif::ProgressBar,
) -> Result<Summary, Error> {
    discard_on_error(
        out,
        (|| {
            let mut sink = Sink::new(out, opts.kind)?;
            let mut next_index: u64 = 0;
            for path in pgns {
                let f = std::fs::File::open(path).map_err(|source| Error::Read {
                    path: path.clone(),
                    source,
                })?;
                let games = read_games(std::io::BufReader::new(f));
                progress.inc_length(games.len() as u64);
                let first = next_index;
                next_index += games.len() as u64;
                let results: Vec<GameOutput> = games
                    .par_iter()
                    .enumerate()
                    .map(|(i, g)| {
                        let r = g
                            .as_ref()
                            .ok()
                            .and_then(|g| game_output(g, first + i as u64, opts));
                        progress.inc(1);
                        r
                    })
                    .collect();
                for r in results {
                    sink.add(r)?;
                }
            }
            finish(sink.w, out, sink.summary)
        })(),
    )
}

/// Builds a data set from the games of the experience store (`filter`: the window of the
/// latest games and the weights of their sources; a game drawn twice is one game) into `out`,
/// as from the same games in PGN. `progress` is told of games done.
pub fn build_from_store(
    store: &crate::experience::store::Store,
    filter: &crate::experience::positions::PositionFilter,
    out: &Path,
    opts: &DatasetOptions,
    progress: &indicatif::ProgressBar,
) -> Result<Summary, Error> {
    discard_on_error(
        out,
        (|| {
            let mut sink = Sink::new(out, opts.kind)?;
            let mut index: u64 = 0;
            let mut failed = None;
            let read = crate::experience::positions::games_of(
                store,
                filter,
                |done| progress.set_position(done),
                |record, _| {
                    let game = PgnGame {
                        number: index as usize + 1,
                        tags: Vec::new(),
                        start: record.start.clone(),
                        chess960: false,
                        moves: record.moves.clone(),
                        result: Some(record.result),
                        evals: Vec::new(),
                    };
                    let r = game_output(&game, index, opts);
                    index += 1;
                    let n = r.as_ref().map_or(0, |r| r.1 as u64);
                    if failed.is_none()
                        && let Err(e) = sink.add(r)
                    {
                        failed = Some(e);
                    }
                    n
                },
            );
            read?;
            if let Some(e) = failed {
                return Err(e);
            }
            finish(sink.w, out, sink.summary)
        })(),
    )
}

/// Builds a data set from `deepred datagen` files (Deep Red's own games) into `out`:
/// - Deep Pink: a triplet per record: p = the record's position, q = after the search's best
///   move, r = after a random other quiet move (no capture, no promotion). datagen keeps only
///   positions whose best move is quiet, so r is drawn from the same kind of move: drawn from
///   every legal move, r would be "worse" whenever it captures, a shortcut that says nothing
///   of the position (the search passed the capture over) and would teach that taking
///   material is bad. The (q, r) pairs are also DeepChess's sibling
///   pairs (`deepred train deepchess --siblings`): two children of one parent, q the better for
///   the side to move at p.
/// - DeepChess: the record's position, if its game was won by either side.
///
/// A record is kept with probability `sample`; its random draws and its split (by blocks of
/// [`DATAGEN_BLOCK`] records) depend only on the seed and its index over all files. The
/// "games" of the summary's split line count those blocks.
pub fn build_from_datagen(
    bins: &[PathBuf],
    out: &Path,
    opts: &DatasetOptions,
    progress: &indicatif::ProgressBar,
) -> Result<Summary, Error> {
    discard_on_error(
        out,
        (|| {
            let mut w = create(out, opts.kind)?;
            let werr = |source: std::io::Error| Error::Write {
                path: out.to_path_buf(),
                source,
            };
            let mut summary = Summary::default();
            let mut first = 0u64;
            let mut blocks = [
                std::collections::HashSet::new(),
                std::collections::HashSet::new(),
            ];
            for path in bins {
                let records = crate::chess::bullet::read_file(path)?;
                progress.inc_length(records.len() as u64);
                // (bytes, records written, White's result 0/1/2 or 3 unusable, split)
                let outputs: Vec<(Vec<u8>, usize, u8, u8)> = records
                    .par_iter()
                    .enumerate()
                    .map(|(i, b)| {
                        let index = first + i as u64;
                        progress.inc(1);
                        datagen_records(b, index, opts)
                    })
                    .collect();
                for (i, (bytes, n, white_result, split)) in outputs.into_iter().enumerate() {
                    summary.positions_read += 1;
                    match white_result {
                        2 => summary.white_won += 1,
                        0 => summary.black_won += 1,
                        1 => summary.drawn += 1,
                        _ => summary.positions_unusable += 1,
                    }
                    if n > 0 {
                        let s = usize::from(split);
                        blocks[s].insert((first + i as u64) / DATAGEN_BLOCK);
                        summary.records[s] += n as u64;
                        if opts.kind == Kind::DeepChess {
                            summary.by_result[usize::from(white_result == 0)] += n as u64;
                        }
                        w.write_all(&bytes).map_err(werr)?;
                    }
                }
                first += records.len() as u64;
            }
            summary.games_used = [blocks[0].len() as u64, blocks[1].len() as u64];
            finish(w, out, summary)
        })(),
    )
}

/// What one datagen record gives: its data set records, their count, White's result (0 lost,
/// 1 drawn, 2 won; 3: the position could not be recovered) and its split.
fn datagen_records(
    b: &crate::chess::bullet::ChessBoard,
    index: u64,
    opts: &DatasetOptions,
) -> (Vec<u8>, usize, u8, u8) {
    use rand::Rng;
    let split = u8::from(is_validation(
        opts.seed,
        index / DATAGEN_BLOCK,
        opts.val_fraction,
    ));
    let Some((p, best)) = crate::chess::bullet::position(b) else {
        return (Vec::new(), 0, 3, split);
    };
    let white_result = if p.turn() == Color::White {
        b.result
    } else {
        2 - b.result.min(2)
    };
    let mut rng = game_rng(opts.seed, index);
    if !rng.random_bool(opts.sample.clamp(0.0, 1.0)) {
        return (Vec::new(), 0, white_result, split);
    }
    let mut out = Vec::new();
    let tail = |out: &mut Vec<u8>| out.extend_from_slice(&(index as u32).to_le_bytes());
    match opts.kind {
        Kind::DeepChess => {
            let result = match white_result {
                2 => 1,
                0 => 2,
                _ => return (out, 0, white_result, split),
            };
            out.extend_from_slice(&encode(&p));
            out.push(result);
            out.push(split);
            tail(&mut out);
        }
        Kind::DeepPink => {
            let others: Vec<Move> = p
                .legal_moves()
                .into_iter()
                .filter(|&m| m != best && !m.is_capture() && !m.is_promotion())
                .collect();
            let Some(&other) = others.choose(&mut rng) else {
                return (out, 0, white_result, split);
            };
            let (mut q, mut r) = (p.clone(), p.clone());
            q.play_unchecked(best);
            r.play_unchecked(other);
            let (q, r) = (encode(&q), encode(&r));
            if opts.equal_material && !equal_material(&q, &r) {
                return (out, 0, white_result, split);
            }
            out.extend_from_slice(&encode(&p));
            out.extend_from_slice(&q);
            out.extend_from_slice(&r);
            out.push(split);
            out.push(0);
            tail(&mut out);
        }
        Kind::Learned => return (out, 0, white_result, split),
    }
    (out, 1, white_result, split)
}

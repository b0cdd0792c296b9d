//! Syzygy endgame tablebases through shakmaty-syzygy: the table files of a list of directories
//! (each checked by name, size and magic bytes; a bad one is reported by name and left out), WDL
//! and DTZ probes, the scores of tablebase results, and the ranking of the root moves that keeps
//! the tablebase result.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{Dtz, Metric, ProbeError, Syzygy, SyzygyError, Tablebase};

pub use shakmaty_syzygy::Wdl;

use super::error::Error;
use super::rules::is_rule_draw;
use super::score::TB_WIN;
use super::zobrist::{hash_of, play};

/// Most pieces a Syzygy table of standard chess holds.
pub const MAX_PIECES: usize = 7;

/// Separator of the directories of a path list (as Stockfish's `SyzygyPath`: `;` on Windows,
/// `:` elsewhere).
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The kind of a table file, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Wdl,
    Dtz,
}

/// A set of Syzygy tables. Files are opened when first probed; probing is thread-safe.
pub struct Tablebases {
    tb: Tablebase<Chess>,
    /// Table files by name (`KQvK.rtbw`), to name the file in a probe error.
    files: HashMap<String, PathBuf>,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tablebases({} WDL, {} DTZ, up to {} pieces)",
            self.wdl_tables(),
            self.dtz_tables(),
            self.max_pieces()
        )
    }
}

/// What loading a path list found: the tables (`None` when no table could be used) and every
/// problem (a directory that cannot be listed, a file that cannot be used).
#[derive(Debug)]
pub struct Loaded {
    pub tables: Option<Tablebases>,
    pub errors: Vec<Error>,
}

/// The directories of a path list (`dir1:dir2` on Unix); empty entries and the UCI `<empty>`
/// are skipped.
pub fn split_paths(list: &str) -> Vec<PathBuf> {
    let list = list.trim();
    if list.is_empty() || list == "<empty>" {
        return Vec::new();
    }
    list.split(PATH_SEPARATOR)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// The kind of table a file name (`KQvKP.rtbw`) names, `None` for any other file.
fn table_kind(name: &str) -> Option<Kind> {
    let (stem, ext) = name.rsplit_once('.')?;
    let kind = match ext {
        "rtbw" => Kind::Wdl,
        "rtbz" => Kind::Dtz,
        _ => return None,
    };
    let (white, black) = stem.split_once('v')?;
    let side = |s: &str| s.starts_with('K') && s[1..].chars().all(|c| "QRBNP".contains(c));
    (side(white) && side(black) && white.len() + black.len() <= MAX_PIECES).then_some(kind)
}

/// Checks that `path` can be a table of `kind`: a regular file, readable, of a Syzygy table's
/// size (16 more than a multiple of 64), starting with the table type's magic bytes.
fn check_file(path: &Path, kind: Kind) -> Result<(), String> {
    let meta = fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    if meta.len() % 64 != 16 {
        return Err(format!(
            "{} bytes is not the size of a Syzygy table (16 more than a multiple of 64)",
            meta.len()
        ));
    }
    let mut magic = [0u8; 4];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map_err(|e| format!("cannot be read ({e})"))?;
    let (want, name) = match kind {
        Kind::Wdl => (Chess::TBW.magic, "WDL"),
        Kind::Dtz => (Chess::TBZ.magic, "DTZ"),
    };
    if magic != want {
        return Err(format!(
            "not a Syzygy {name} table (it starts with {magic:02x?}, a table with {want:02x?})"
        ));
    }
    Ok(())
}

impl Tablebases {
    /// Finds the tables of the directories of `list` (see [`split_paths`]); a table in two
    /// folders is the first folder's. A directory that cannot be listed, or a table file that
    /// cannot be used, is an error in the answer and is left out; the other tables are used.
    pub fn load(list: &str) -> Loaded {
        let mut tb = Tablebase::new();
        let mut files = HashMap::new();
        let mut errors = Vec::new();
        for dir in split_paths(list) {
            let entries = match fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) => {
                    errors.push(Error::SyzygyDir {
                        dir: dir.display().to_string(),
                        reason: e.to_string(),
                    });
                    continue;
                }
            };
            let mut paths: Vec<PathBuf> =
                entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
            paths.sort();
            for path in paths {
                let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                let Some(kind) = table_kind(name) else {
                    continue;
                };
                // A table found again in a later folder: the first folder's is used (as
                // Stockfish does), not replaced.
                if files.contains_key(name) {
                    continue;
                }
                let checked = check_file(&path, kind)
                    .and_then(|()| tb.add_file(&path).map_err(|e| e.to_string()));
                match checked {
                    Ok(()) => {
                        files.insert(name.to_string(), path.clone());
                    }
                    Err(reason) => errors.push(Error::SyzygyTable {
                        file: path.display().to_string(),
                        reason,
                    }),
                }
            }
        }
        let tables = (!files.is_empty()).then_some(Tablebases { tb, files });
        Loaded { tables, errors }
    }

    /// Most pieces of any table.
    #[inline]
    pub fn max_pieces(&self) -> usize {
        self.tb.max_pieces()
    }

    pub fn wdl_tables(&self) -> usize {
        self.files.keys().filter(|n| n.ends_with(".rtbw")).count()
    }

    pub fn dtz_tables(&self) -> usize {
        self.files.keys().filter(|n| n.ends_with(".rtbz")).count()
    }

    /// A failed probe as an error (`None` where the tables simply do not cover the position: a
    /// missing table, castling rights, too many pieces).
    fn problem(&self, e: SyzygyError) -> Option<Error> {
        match e {
            SyzygyError::ProbeFailed {
                metric,
                material,
                error,
            } => {
                let name = format!(
                    "{material}.{}",
                    match metric {
                        Metric::Wdl => Chess::TBW.ext,
                        Metric::Dtz => Chess::TBZ.ext,
                    }
                );
                let what = self
                    .files
                    .get(&name)
                    .map_or(name, |p| p.display().to_string());
                let reason = match *error {
                    ProbeError::Read { error } => format!("read error ({error})"),
                    ProbeError::Magic { magic } => format!("bad magic bytes {magic:02x?}"),
                    ProbeError::CorruptedTable { .. } => "corrupted table".to_string(),
                };
                Some(Error::SyzygyProbe { what, reason })
            }
            _ => None,
        }
    }

    /// The WDL value of `pos` for the side to move, as reached right after a capture or pawn
    /// move (the halfmove clock is not looked at). `Ok(None)` where the tables do not cover it.
    pub fn probe_wdl(&self, pos: &Chess) -> Result<Option<Wdl>, Error> {
        match self.tb.probe_wdl_after_zeroing(pos) {
            Ok(w) => Ok(Some(w)),
            Err(e) => self.problem(e).map_or(Ok(None), Err),
        }
    }

    /// The DTZ50'' value of `pos` for the side to move (plies to the next capture or pawn move
    /// with best play, positive when winning; may be one ply too high, see shakmaty-syzygy's
    /// `MaybeRounded`). `Ok(None)` where the tables do not cover it.
    pub fn probe_dtz(&self, pos: &Chess) -> Result<Option<i32>, Error> {
        match self.tb.probe_dtz(pos) {
            Ok(d) => Ok(Some(d.ignore_rounding().0)),
            Err(e) => self.problem(e).map_or(Ok(None), Err),
        }
    }

    /// The DTZ of the root move `m`: plies from the root to the next capture or pawn move with
    /// best play, for the root's side to move (positive when it wins). A mate scores 1, a move
    /// into a rule draw (`keys`: the game's keys up to the root) 0.
    fn root_dtz(&self, pos: &Chess, keys: &mut Vec<u64>, m: Move) -> Result<Option<i32>, Error> {
        let hash = keys.last().copied().unwrap_or(0);
        let (child, h) = play(pos, hash, m);
        keys.push(h);
        let draw = is_rule_draw(&child, keys);
        keys.pop();
        if child.is_checkmate() {
            return Ok(Some(1));
        }
        if draw {
            return Ok(Some(0));
        }
        if child.halfmoves() == 0 {
            return Ok(self.probe_wdl(&child)?.map(|w| Dtz::before_zeroing(-w).0));
        }
        Ok(self.probe_dtz(&child)?.map(|d| match -d {
            d if d > 0 => d + 1,
            d if d < 0 => d - 1,
            _ => 0,
        }))
    }

    /// Ranks the legal moves of `pos` by the result they keep for the side to move, with DTZ
    /// tables where there are (see [`RootProbe`]), else with WDL tables alone. `keys`: the
    /// Zobrist keys of the game up to and including `pos` (repetitions). `Ok(None)` where the
    /// tables do not cover the position or it has no legal move.
    pub fn rank_root(
        &self,
        pos: &Chess,
        keys: &[u64],
        rule50: bool,
    ) -> Result<Option<RootProbe>, Error> {
        let moves = pos.legal_moves();
        if moves.is_empty()
            || !pos.castles().is_empty()
            || pos.board().occupied().count() > MAX_PIECES
        {
            return Ok(None);
        }
        let clock = pos.halfmoves();
        let mut keys = keys.to_vec();
        let root_key = hash_of(pos);
        if keys.last() != Some(&root_key) {
            keys.push(root_key);
        }
        // With DTZ: every move's distance to zeroing.
        let mut ranked = Vec::with_capacity(moves.len());
        let mut dtz_problem = None;
        for &m in &moves {
            match self.root_dtz(pos, &mut keys, m) {
                Ok(Some(d)) => ranked.push(RootMove {
                    mv: m,
                    wdl: wdl_of_dtz(d, clock, rule50),
                    dtz: Some(d),
                }),
                Ok(None) => break,
                Err(e) => {
                    dtz_problem = Some(e);
                    break;
                }
            }
        }
        let by_dtz = ranked.len() == moves.len();
        if !by_dtz {
            // WDL alone (no DTZ table, or a DTZ table that failed).
            ranked.clear();
            for &m in &moves {
                let hash = keys.last().copied().unwrap_or(0);
                let (child, h) = play(pos, hash, m);
                keys.push(h);
                let draw = is_rule_draw(&child, &keys);
                keys.pop();
                let wdl = if child.is_checkmate() {
                    Wdl::Win
                } else if draw {
                    Wdl::Draw
                } else {
                    match self.probe_wdl(&child) {
                        Ok(Some(w)) => under_rule50(-w, rule50),
                        Ok(None) => return Ok(None),
                        Err(e) => return Err(dtz_problem.unwrap_or(e)),
                    }
                };
                ranked.push(RootMove {
                    mv: m,
                    wdl,
                    dtz: None,
                });
            }
        }
        ranked.sort_by_key(|r| std::cmp::Reverse(r.rank()));
        let best = ranked[0];
        let keep = ranked
            .iter()
            .filter(|r| {
                r.wdl == best.wdl
                    && (!matches!(r.wdl, Wdl::Win | Wdl::Loss) || r.rank() == best.rank())
            })
            .map(|r| r.mv)
            .collect();
        Ok(Some(RootProbe {
            probes: moves.len() as u64,
            wdl: best.wdl,
            keep,
            moves: ranked,
            by_dtz,
            dtz_problem,
        }))
    }
}

/// The tablebase view of one root move, for the root's side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMove {
    pub mv: Move,
    /// The result the move keeps (with the 50-move rule when it is on: a win that needs more
    /// plies than the halfmove clock leaves is a cursed win).
    pub wdl: Wdl,
    /// Plies from the root to the next capture or pawn move (positive: winning); `None` when
    /// only WDL tables ranked the moves.
    pub dtz: Option<i32>,
}

impl RootMove {
    /// Better moves rank higher: by result, then the shortest way to zeroing when winning and
    /// the longest when losing.
    fn rank(&self) -> (i32, i32) {
        (self.wdl as i32, -self.dtz.unwrap_or(0))
    }
}

/// The root moves ranked by the tablebases.
#[derive(Clone, Debug)]
pub struct RootProbe {
    /// Every legal move, best first.
    pub moves: Vec<RootMove>,
    /// The moves that keep the best result: when winning (or losing) the ones with the best
    /// DTZ (shortest win, longest defence), when the best is a draw (or a cursed win, a blessed
    /// loss) every move with that result.
    pub keep: Vec<Move>,
    /// The root's result for its side to move.
    pub wdl: Wdl,
    /// True when DTZ tables ranked the moves, false when WDL tables alone did.
    pub by_dtz: bool,
    /// Positions probed.
    pub probes: u64,
    /// A DTZ table that failed (the moves were then ranked by WDL).
    pub dtz_problem: Option<Error>,
}

/// The result of a root move whose DTZ from the root is `d`, with a halfmove clock of `clock`
/// at the root.
fn wdl_of_dtz(d: i32, clock: u32, rule50: bool) -> Wdl {
    if rule50 {
        Wdl::from_dtz(Dtz(d).add_plies_saturating(clock))
    } else {
        match d.signum() {
            1 => Wdl::Win,
            -1 => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }
}

/// `wdl` as it counts for play: without the 50-move rule a cursed win is a win and a blessed
/// loss a loss.
#[inline]
pub fn under_rule50(wdl: Wdl, rule50: bool) -> Wdl {
    match wdl {
        Wdl::CursedWin if !rule50 => Wdl::Win,
        Wdl::BlessedLoss if !rule50 => Wdl::Loss,
        w => w,
    }
}

/// The score of a tablebase result `ply` plies from the root, for the side to move: a win is
/// [`TB_WIN`]` - ply` (below every mate score, above every evaluation), a loss its negation; a
/// cursed win (a win the 50-move rule turns into a draw) 1, a blessed loss -1, a draw 0.
#[inline]
pub fn score_of(wdl: Wdl, ply: usize) -> i32 {
    match wdl {
        Wdl::Win => TB_WIN - ply as i32,
        Wdl::CursedWin => 1,
        Wdl::Draw => 0,
        Wdl::BlessedLoss => -1,
        Wdl::Loss => -TB_WIN + ply as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names() {
        assert_eq!(table_kind("KQvK.rtbw"), Some(Kind::Wdl));
        assert_eq!(table_kind("KRPvKP.rtbz"), Some(Kind::Dtz));
        assert_eq!(table_kind("KQQQQvKQQ.rtbw"), None);
        assert_eq!(table_kind("SOURCE.txt"), None);
        assert_eq!(table_kind("KXvK.rtbw"), None);
        assert_eq!(table_kind("QvK.rtbw"), None);
        assert_eq!(table_kind("vK.rtbw"), None);
    }

    #[test]
    fn path_lists() {
        assert!(split_paths("").is_empty());
        assert!(split_paths("<empty>").is_empty());
        let sep = PATH_SEPARATOR;
        assert_eq!(
            split_paths(&format!("a{sep}{sep} b ")),
            vec![PathBuf::from("a"), PathBuf::from("b")]
        );
    }

    #[test]
    fn results_under_the_fifty_move_rule() {
        assert_eq!(wdl_of_dtz(5, 0, true), Wdl::Win);
        assert_eq!(wdl_of_dtz(5, 95, true), Wdl::Win);
        assert_eq!(wdl_of_dtz(5, 96, true), Wdl::CursedWin);
        assert_eq!(wdl_of_dtz(5, 96, false), Wdl::Win);
        assert_eq!(wdl_of_dtz(-5, 96, true), Wdl::BlessedLoss);
        assert_eq!(wdl_of_dtz(-5, 95, true), Wdl::Loss);
        assert_eq!(wdl_of_dtz(0, 99, true), Wdl::Draw);
        assert_eq!(score_of(Wdl::Win, 3), TB_WIN - 3);
        assert_eq!(score_of(Wdl::Loss, 3), -(TB_WIN - 3));
    }
}

//! The UCI options: their values, the `option` lines of the `uci` answer, and `setoption`
//! checked and applied (a bad value is refused and the previous one stays).

use std::path::PathBuf;
use std::sync::Arc;

use super::Error;
use crate::chess::syzygy::{MAX_PIECES, Tablebases};
use crate::eval::EvalKind;
use crate::experience::location;
use crate::experience::memory::QParams;
use crate::player::LearnSettings;
use crate::player::evaluator::{EvalChoice, StoreOf};
use crate::player::learner::BiasSettings;
use crate::search::SyzygySettings;
use crate::search::params::{SPECS, Tunables};
use crate::search::skill::{self, Skill};

/// Option limits (also used by the command line).
pub const HASH_MAX_MB: i64 = 32768;
pub const THREADS_MAX: i64 = 256;
pub const MULTIPV_MAX: i64 = 256;
/// The `EvalFile` value that means the net embedded in the binary, and the `ExperienceFile`
/// value that means the store in Deep Red's data folder.
pub const AUTO: &str = "auto";

/// Values of the UCI options.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead: u64,
    pub chess960: bool,
    /// `ExperienceFile`: the store (`auto`: [`location::default_store`]).
    pub experience_file: PathBuf,
    pub learning: bool,
    pub experience_book: bool,
    pub experience_min_games: u32,
    /// `ExperienceMargin` (cp): with `Learning`, a root move whose record is significantly
    /// good for the mover is preferred when its score is within this margin of the best.
    pub experience_margin: i32,
    /// `ExperiencePenalty` (cp): with `Learning`, taken off the score of a root move whose
    /// record is significantly bad for the mover.
    pub experience_penalty: i32,
    /// `LearningRate`, `LearningDiscount` (percent) and `LearningReward` (cp): the constants of
    /// the Q-learning step that carries a game's result back through its positions.
    pub q: QParams,
    /// The search's tunable parameters (one `spin` option each, named as in [`SPECS`]).
    pub tunables: Arc<Tunables>,
    /// `UCI_ShowWDL`: win/draw/loss per mille on info lines.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`: play at `UCI_Elo`.
    pub limit_strength: bool,
    pub uci_elo: i64,
    /// `Skill Level` 0..20 (20: full strength; `UCI_LimitStrength` takes precedence).
    pub skill_level: i64,
    /// `SyzygyPath` as given (`<empty>`: no tables).
    pub syzygy_path: String,
    /// The tables found there (`None`: none).
    pub tablebases: Option<Arc<Tablebases>>,
    /// `SyzygyProbeDepth`, `Syzygy50MoveRule`, `SyzygyProbeLimit`.
    pub syzygy: SyzygySettings,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead: 20,
            chess960: false,
            experience_file: location::default_store(),
            learning: false,
            experience_book: false,
            experience_min_games: 10,
            experience_margin: 30,
            experience_penalty: 100,
            q: QParams::default(),
            tunables: Arc::new(Tunables::default()),
            show_wdl: false,
            limit_strength: false,
            uci_elo: skill::ELO_MAX,
            skill_level: 20,
            syzygy_path: "<empty>".to_string(),
            tablebases: None,
            syzygy: SyzygySettings::default(),
        }
    }
}

/// What the engine must do to its transposition table after an option changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashChange {
    Keep,
    /// Scores of another evaluator must not mix with the old ones.
    Clear,
    /// A table of this many MB.
    Resize(usize),
}

/// What setting an option did besides changing its value.
#[derive(Debug)]
pub struct Applied {
    /// Lines for the user (`info string`).
    pub notes: Vec<String>,
    /// Problems that did not stop the option from being set (`info string error: ...`), e.g.
    /// a table file left out.
    pub errors: Vec<Error>,
    pub hash: HashChange,
}

impl Options {
    /// The strength to play at, if below full (`seed` draws the move among the lines).
    pub fn skill(&self, eval: EvalKind, seed: u64) -> Option<Skill> {
        let calibration = skill::Calibration::of(eval.name());
        if self.limit_strength {
            Skill::from_elo(self.uci_elo, seed, calibration)
        } else {
            Skill::from_level(self.skill_level as f64, seed, calibration)
        }
    }

    /// The experience store, for the evaluators that read it.
    pub fn store(&self) -> StoreOf<'_> {
        StoreOf {
            path: &self.experience_file,
            min_games: self.experience_min_games,
        }
    }

    /// What learning from the games played needs (`Learning` and its options), with the
    /// evaluator in use.
    pub fn learn_settings(&self, eval: &EvalChoice) -> LearnSettings {
        LearnSettings {
            learning: self.learning,
            store: self.experience_file.clone(),
            q: self.q,
            bias: BiasSettings {
                min_games: self.experience_min_games,
                margin: self.experience_margin,
                penalty: self.experience_penalty,
                reward: self.q.reward,
            },
            experience: eval.experience().cloned(),
        }
    }

    /// `setoption name <name> value <value>`: checks and sets one option (`Evaluator`,
    /// `EvalFile` and the store's options change `eval`, the player's evaluator).
    pub fn set(
        &mut self,
        eval: &mut EvalChoice,
        name: &str,
        value: Option<&str>,
    ) -> Result<Applied, Error> {
        let mut applied = Applied {
            notes: Vec::new(),
            errors: Vec::new(),
            hash: HashChange::Keep,
        };
        let spin = |min: i64, max: i64| -> Result<i64, Error> {
            let v = value.ok_or_else(|| Error::NeedsValue {
                name: name.to_string(),
            })?;
            let t = v.trim();
            let out_of_range = || Error::OutOfRange {
                name: name.to_string(),
                value: t.to_string(),
                min,
                max,
            };
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            let n: i64 = match t.parse() {
                Ok(n) => n,
                // A whole number that does not fit is out of range, not "not a number".
                Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    return Err(out_of_range());
                }
                Err(_) => {
                    return Err(Error::NotANumber {
                        name: name.to_string(),
                        value: v.to_string(),
                    });
                }
            };
            if n < min || n > max {
                return Err(out_of_range());
            }
            Ok(n)
        };
        let check = || -> Result<bool, Error> {
            match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                Some("true") => Ok(true),
                Some("false") => Ok(false),
                _ => Err(Error::NotABool {
                    name: name.to_string(),
                }),
            }
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "hash" => {
                let mb = spin(1, HASH_MAX_MB)? as usize;
                if let Some(available) = available_memory_mb()
                    && mb as u64 > available * 8 / 10
                {
                    return Err(Error::HashTooLarge { mb, available });
                }
                if mb != self.hash_mb {
                    applied.hash = HashChange::Resize(mb);
                    self.hash_mb = mb;
                }
            }
            "threads" => self.threads = spin(1, THREADS_MAX)? as usize,
            "multipv" => self.multipv = spin(1, MULTIPV_MAX)? as usize,
            "clear hash" => applied.hash = HashChange::Clear,
            "ponder" => self.ponder = check()?,
            "move overhead" => self.move_overhead = spin(0, 5000)? as u64,
            "uci_chess960" => self.chess960 = check()?,
            "uci_limitstrength" => self.limit_strength = check()?,
            "uci_showwdl" => self.show_wdl = check()?,
            "uci_elo" => self.uci_elo = spin(skill::ELO_MIN, skill::ELO_MAX)?,
            "skill level" => self.skill_level = spin(0, skill::MAX_LEVEL as i64)?,
            key @ ("evaluator" | "evalfile" | "experiencefile") => {
                self.set_evaluation(eval, key, value, &mut applied)?
            }
            "learning" => {
                self.learning = check()?;
                if self.learning {
                    applied.notes.push(format!(
                        "Learning into the {}",
                        crate::experience::store::describe(&self.experience_file)
                    ));
                    self.check_learning_store(&mut applied);
                }
            }
            "experiencemargin" => self.experience_margin = spin(0, 1000)? as i32,
            "experiencepenalty" => self.experience_penalty = spin(0, 1000)? as i32,
            "learningrate" => self.q.rate = spin(0, 100)? as f64 / 100.0,
            "learningdiscount" => self.q.discount = spin(0, 100)? as f64 / 100.0,
            "learningreward" => self.q.reward = spin(0, 10_000)? as i32,
            "experiencebook" => self.experience_book = check()?,
            "syzygypath" => self.load_tablebases(value.unwrap_or(""), &mut applied),
            "syzygyprobedepth" => self.syzygy.probe_depth = spin(1, 100)? as u32,
            "syzygy50moverule" => self.syzygy.rule50 = check()?,
            "syzygyprobelimit" => self.syzygy.probe_limit = spin(0, MAX_PIECES as i64)? as usize,
            "experiencemingames" => {
                self.experience_min_games = spin(1, 1_000_000)? as u32;
                let store = StoreOf {
                    path: &self.experience_file,
                    min_games: self.experience_min_games,
                };
                applied.notes.extend(eval.reload_data(store)?);
            }
            other => match SPECS.iter().find(|s| s.name.eq_ignore_ascii_case(other)) {
                Some(spec) => {
                    let v = spin(i64::from(spec.min), i64::from(spec.max))?;
                    Arc::make_mut(&mut self.tunables)
                        .set(spec.name, v as i32)
                        .map_err(|_| Error::UnknownOption {
                            name: name.to_string(),
                        })?;
                }
                None => {
                    return Err(Error::UnknownOption {
                        name: name.to_string(),
                    });
                }
            },
        }
        Ok(applied)
    }

    /// `Evaluator`, `EvalFile` and `ExperienceFile` (`key`, lowercase): what the player's
    /// evaluator is made of.
    fn set_evaluation(
        &mut self,
        eval: &mut EvalChoice,
        key: &str,
        value: Option<&str>,
        applied: &mut Applied,
    ) -> Result<(), Error> {
        match key {
            "evaluator" => {
                let v = value.ok_or_else(|| Error::NeedsValue {
                    name: "Evaluator".to_string(),
                })?;
                let kind = EvalKind::parse(v).map_err(Error::from)?;
                // Scores of different evaluators do not mix in the hash table (cleared even
                // when the new evaluator cannot be had: the experience evaluator then falls back
                // to the default).
                applied.hash = HashChange::Clear;
                let store = StoreOf {
                    path: &self.experience_file,
                    min_games: self.experience_min_games,
                };
                applied.notes.extend(eval.set_kind(kind, store)?);
            }
            "evalfile" => {
                let v = value.map(str::trim).unwrap_or("");
                let file = if v.is_empty() || v.eq_ignore_ascii_case(AUTO) || v == "<empty>" {
                    None
                } else {
                    Some(PathBuf::from(v))
                };
                let store = StoreOf {
                    path: &self.experience_file,
                    min_games: self.experience_min_games,
                };
                let (notes, changed) = eval.set_file(file, store)?;
                applied.notes.extend(notes);
                if changed {
                    applied.hash = HashChange::Clear;
                }
            }
            "experiencefile" => {
                let v = value
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .ok_or(Error::NeedsFileName)?;
                self.experience_file = if v.eq_ignore_ascii_case(AUTO) {
                    location::default_store()
                } else {
                    v.into()
                };
                if self.learning && eval.kind() != EvalKind::Experience {
                    applied
                        .notes
                        .push(crate::experience::store::describe(&self.experience_file));
                }
                if self.learning {
                    self.check_learning_store(applied);
                }
                let store = StoreOf {
                    path: &self.experience_file,
                    min_games: self.experience_min_games,
                };
                applied.notes.extend(eval.reload_data(store)?);
            }
            _ => {}
        }
        Ok(())
    }

    /// With `Learning` on, says now, not at the end of the first game, that the store cannot
    /// be made: the data folder cannot be created, or the file's folder does not exist.
    fn check_learning_store(&self, applied: &mut Applied) {
        if let Err(e) = location::prepare(&self.experience_file) {
            applied.errors.push(Error::Store(e));
        }
    }

    /// `SyzygyPath`: finds the tables of its directories. Directories and files that cannot be
    /// used are reported and left out; the tables that could be used are kept.
    fn load_tablebases(&mut self, path: &str, applied: &mut Applied) {
        let path = path.trim();
        let loaded = Tablebases::load(path);
        applied
            .errors
            .extend(loaded.errors.into_iter().map(Error::from));
        self.syzygy_path = if path.is_empty() { "<empty>" } else { path }.to_string();
        self.tablebases = loaded.tables.map(Arc::new);
        applied.notes.push(match &self.tablebases {
            Some(t) => format!(
                "Syzygy: {} tables found ({} WDL, {} DTZ), up to {} pieces",
                t.wdl_tables() + t.dtz_tables(),
                t.wdl_tables(),
                t.dtz_tables(),
                t.max_pieces()
            ),
            None if crate::chess::syzygy::split_paths(path).is_empty() => {
                "Syzygy: no tables (SyzygyPath is empty)".to_string()
            }
            None => "Syzygy: 0 tables found".to_string(),
        });
    }
}

/// `MemAvailable` from /proc/meminfo in MB (None where there is no such file).
#[cfg(target_os = "linux")]
fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Unknown outside Linux: the hash size is not checked against free memory.
#[cfg(not(target_os = "linux"))]
fn available_memory_mb() -> Option<u64> {
    None
}

/// The `option` lines of the `uci` answer: the engine's options, then the search's tunables.
pub fn option_lines() -> Vec<String> {
    let d = Options::default();
    let mut lines = vec![
        format!(
            "option name Hash type spin default {} min 1 max {HASH_MAX_MB}",
            d.hash_mb
        ),
        format!("option name Threads type spin default 1 min 1 max {THREADS_MAX}"),
        "option name Clear Hash type button".to_string(),
        format!("option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}"),
        "option name Ponder type check default false".to_string(),
        format!(
            "option name Move Overhead type spin default {} min 0 max 5000",
            d.move_overhead
        ),
        "option name UCI_Chess960 type check default false".to_string(),
        "option name UCI_ShowWDL type check default false".to_string(),
        "option name UCI_LimitStrength type check default false".to_string(),
        format!(
            "option name UCI_Elo type spin default {} min {} max {}",
            d.uci_elo,
            skill::ELO_MIN,
            skill::ELO_MAX
        ),
        format!(
            "option name Skill Level type spin default {} min 0 max {}",
            d.skill_level,
            skill::MAX_LEVEL as i64
        ),
        format!("option name ExperienceFile type string default {AUTO}"),
        "option name Learning type check default false".to_string(),
        "option name ExperienceBook type check default false".to_string(),
        format!(
            "option name ExperienceMinGames type spin default {} min 1 max 1000000",
            d.experience_min_games
        ),
        format!(
            "option name ExperienceMargin type spin default {} min 0 max 1000",
            d.experience_margin
        ),
        format!(
            "option name ExperiencePenalty type spin default {} min 0 max 1000",
            d.experience_penalty
        ),
        format!(
            "option name LearningRate type spin default {} min 0 max 100",
            (d.q.rate * 100.0).round() as i64
        ),
        format!(
            "option name LearningDiscount type spin default {} min 0 max 100",
            (d.q.discount * 100.0).round() as i64
        ),
        format!(
            "option name LearningReward type spin default {} min 0 max 10000",
            d.q.reward
        ),
        format!("option name EvalFile type string default {AUTO}"),
        format!(
            "option name SyzygyPath type string default {}",
            d.syzygy_path
        ),
        format!(
            "option name SyzygyProbeDepth type spin default {} min 1 max 100",
            d.syzygy.probe_depth
        ),
        format!(
            "option name Syzygy50MoveRule type check default {}",
            d.syzygy.rule50
        ),
        format!(
            "option name SyzygyProbeLimit type spin default {} min 0 max {MAX_PIECES}",
            d.syzygy.probe_limit
        ),
        format!(
            "option name Evaluator type combo default {} {}",
            EvalKind::DEFAULT,
            EvalKind::ALL
                .iter()
                .map(|n| format!("var {n}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ];
    lines.extend(SPECS.iter().map(|t| {
        format!(
            "option name {} type spin default {} min {} max {}",
            t.name, t.default, t.min, t.max
        )
    }));
    lines
}

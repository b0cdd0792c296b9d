//! The evaluator a player plays with, as one typed choice: the kind (`Evaluator`), its net
//! (`EvalFile`: a file, else the newest promoted net, else the embedded one), and for the
//! experience evaluator the records it reads. Changing any of them loads what is needed, or
//! leaves the choice as it was and says why.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::eval::experience::ExperienceEval;
use crate::eval::{self, EvalContext, EvalKind, Evaluator};

/// Why a change of evaluator was refused (the previous choice stays) or undone.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An evaluator that cannot be had; the current one stays.
    #[error("{source}; Evaluator stays {current}")]
    EvaluatorKept {
        source: eval::Error,
        current: EvalKind,
    },
    /// A net file that cannot be used; the current evaluator and file stay.
    #[error("{source}; EvalFile unchanged, Evaluator stays {current}")]
    EvalFileKept {
        source: eval::Error,
        current: EvalKind,
    },
    /// The experience evaluator's store could not be read: back to the default evaluator.
    #[error("{source}; Evaluator is {now}")]
    EvaluatorReset { source: eval::Error, now: EvalKind },
}

/// The evaluator in use and what it was made from.
#[derive(Clone, Debug)]
pub struct EvalChoice {
    kind: EvalKind,
    evaluator: Evaluator,
    /// The experience evaluator when it is the one chosen (learned games are added to it).
    experience: Option<Arc<ExperienceEval>>,
    /// `EvalFile`: the net file of a neural evaluator (`None`: the newest promoted net, else the
    /// embedded one).
    file: Option<PathBuf>,
    /// A neural evaluator asked for whose net could not be loaded: a new file retries it.
    pending: Option<EvalKind>,
}

impl Default for EvalChoice {
    /// The default evaluator ([`EvalKind::DEFAULT`]) with its automatic net.
    fn default() -> Self {
        let evaluator = eval::default_evaluator();
        EvalChoice {
            kind: EvalKind::parse(evaluator.name()).unwrap_or(EvalKind::Pst),
            evaluator,
            experience: None,
            file: None,
            pending: None,
        }
    }
}

/// Where the store is, for the evaluators that read it.
#[derive(Clone, Copy, Debug)]
pub struct StoreOf<'a> {
    pub path: &'a Path,
    pub min_games: u32,
}

impl EvalChoice {
    /// The evaluator `kind` with the net `file` (`None`: automatic), reading `store`.
    pub fn of(
        kind: EvalKind,
        file: Option<PathBuf>,
        store: StoreOf<'_>,
    ) -> Result<EvalChoice, eval::Error> {
        let mut c = EvalChoice {
            file,
            ..EvalChoice::default()
        };
        let ctx = c.context(store);
        c.evaluator = eval::build(kind, &ctx)?;
        c.kind = kind;
        if kind == EvalKind::Experience {
            let e = eval::experience_evaluator(&ctx)?;
            c.evaluator = Evaluator::Scalar(e.clone());
            c.experience = Some(e);
        }
        Ok(c)
    }

    /// An evaluator already built (a command's `--evaluator`), its net file as it says.
    pub fn from_evaluator(evaluator: Evaluator) -> EvalChoice {
        EvalChoice {
            kind: EvalKind::parse(evaluator.name()).unwrap_or(EvalKind::Pst),
            evaluator,
            experience: None,
            file: None,
            pending: None,
        }
    }

    pub fn kind(&self) -> EvalKind {
        self.kind
    }

    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// The experience evaluator, when it is the one in use.
    pub fn experience(&self) -> Option<&Arc<ExperienceEval>> {
        self.experience.as_ref()
    }

    /// Where the evaluators find their data.
    pub fn context(&self, store: StoreOf<'_>) -> EvalContext {
        EvalContext {
            experience_file: store.path.to_path_buf(),
            experience_min_games: store.min_games,
            eval_file: self.file.clone(),
        }
    }

    /// `Evaluator`: switches to `kind`; returns what to tell the user. A neural evaluator
    /// whose net cannot be loaded is kept pending (a new `EvalFile` retries it) and the current
    /// evaluator stays.
    pub fn set_kind(&mut self, kind: EvalKind, store: StoreOf<'_>) -> Result<Vec<String>, Error> {
        match kind {
            EvalKind::Experience => {
                self.pending = None;
                self.kind = kind;
                self.reload_data(store)
            }
            EvalKind::Pst => {
                *self = EvalChoice {
                    kind,
                    evaluator: eval::pst_evaluator(),
                    experience: None,
                    file: self.file.take(),
                    pending: None,
                };
                Ok(Vec::new())
            }
            EvalKind::Learned | EvalKind::DeepPink | EvalKind::DeepChess => {
                match eval::build(kind, &self.context(store)) {
                    Ok(e) => Ok(self.use_net(e, kind, self.file.clone())),
                    Err(source) => {
                        self.pending = Some(kind);
                        Err(Error::EvaluatorKept {
                            source,
                            current: self.kind,
                        })
                    }
                }
            }
        }
    }

    /// `EvalFile`: a net file for the neural evaluator in use (or the one asked for last whose
    /// net was missing), loaded at once; `None` for the automatic net. A file that cannot be
    /// used leaves the evaluator and the file as they were. The second value: whether the
    /// evaluator changed (scores in the hash table no longer hold).
    pub fn set_file(
        &mut self,
        file: Option<PathBuf>,
        store: StoreOf<'_>,
    ) -> Result<(Vec<String>, bool), Error> {
        // The neural evaluator asked for last: one whose net was missing, else the current one.
        let target = self
            .pending
            .or_else(|| self.kind.net().is_some().then_some(self.kind));
        let Some(kind) = target else {
            // Used when a neural evaluator is chosen (which refuses a file that is no net, and
            // stays as it is); a file that is no net is said now already.
            let note = file
                .as_ref()
                .filter(|f| !is_torchscript(f))
                .and_then(|f| crate::nn::net::NetFile::load(f, None).err())
                .map(|e| {
                    format!("warning: EvalFile is no net ({e}): a neural Evaluator will refuse it")
                });
            self.file = file;
            return Ok((note.into_iter().collect(), false));
        };
        let mut ctx = self.context(store);
        ctx.eval_file = file.clone();
        match eval::build(kind, &ctx) {
            Ok(e) => Ok((self.use_net(e, kind, file), true)),
            Err(source) => {
                // A net of another neural evaluator (a GUI sends `EvalFile` before `Evaluator`,
                // in alphabetical order): kept for that evaluator, the current one unchanged.
                let other = EvalKind::ALL
                    .into_iter()
                    .find(|&k| k != kind && k.net().is_some() && eval::build(k, &ctx).is_ok());
                match (other, file) {
                    (Some(other), Some(path)) if self.pending.is_none() => {
                        let note = format!(
                            "EvalFile {} is a {other} net: Evaluator {other} will use it; Evaluator stays {}",
                            path.display(),
                            self.kind
                        );
                        self.file = Some(path);
                        Ok((vec![note], false))
                    }
                    _ => Err(Error::EvalFileKept {
                        source,
                        current: self.kind,
                    }),
                }
            }
        }
    }

    fn use_net(&mut self, e: Evaluator, kind: EvalKind, file: Option<PathBuf>) -> Vec<String> {
        let note = e.description().map(|d| format!("Evaluator {kind}: {d}"));
        *self = EvalChoice {
            kind,
            evaluator: e,
            experience: None,
            file,
            pending: None,
        };
        note.into_iter().collect()
    }

    /// Reloads an evaluator that reads the experience store after the store or its settings
    /// changed; returns what to tell the user. A store that cannot be read puts the default
    /// evaluator back.
    pub fn reload_data(&mut self, store: StoreOf<'_>) -> Result<Vec<String>, Error> {
        if self.kind != EvalKind::Experience {
            return Ok(Vec::new());
        }
        match eval::experience_evaluator(&self.context(store)) {
            Ok(e) => {
                let note = format!(
                    "experience evaluator: {} known positions from the {}",
                    e.positions(),
                    crate::experience::store::describe(store.path)
                );
                self.evaluator = Evaluator::Scalar(e.clone());
                self.experience = Some(e);
                Ok(vec![note])
            }
            Err(source) => {
                // Keep a working evaluator: back to the default.
                let file = self.file.take();
                *self = EvalChoice {
                    file,
                    ..EvalChoice::default()
                };
                Err(Error::EvaluatorReset {
                    source,
                    now: self.kind,
                })
            }
        }
    }

    /// The line that names the evaluator in use and its net.
    pub fn line(&self) -> String {
        match self.evaluator.description() {
            Some(d) => format!("Evaluator {}: {d}", self.kind),
            None => format!("Evaluator {}", self.kind),
        }
    }
}

/// Whether `path` is a TorchScript module (read by a build with the `torch` feature only).
fn is_torchscript(path: &std::path::Path) -> bool {
    #[cfg(feature = "torch")]
    {
        eval::torchscript::is_torchscript(path)
    }
    #[cfg(not(feature = "torch"))]
    {
        let _ = path;
        false
    }
}

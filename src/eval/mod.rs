//! Evaluators: the pluggable leaf scorers of the search.
//!
//! Two shapes exist, so that every evaluator Deep Red plans fits the one search:
//! - [`ScalarEvaluator`]: a number for a position, from the side to move's view, in centipawns
//!   (pst, the experience win ratio, Deep Pink, the learned value net). Searched with negamax
//!   alpha-beta; a net evaluator gives the search an [`Incremental`] state it updates move by
//!   move.
//! - [`ComparatorEvaluator`]: decides which of two positions is better for White (DeepChess).
//!   Searched with the alpha_pos/beta_pos alpha-beta of the DeepChess paper.
//!
//! The search receives an [`Evaluator`] and dispatches on its shape.

pub mod deepchess;
pub mod deeppink;
mod error;
pub mod experience;
pub mod learned;
pub mod memory;
pub mod pst;
pub mod report;
#[cfg(feature = "torch")]
pub mod torchscript;

use std::collections::TryReserveError;
use std::sync::{Arc, OnceLock};

use shakmaty::{Chess, Move};

pub use error::Error;

use crate::nn::net::{Kind as NetKind, NetSource};

/// A leaf scorer that returns a score in centipawns from the side to move's point of view.
pub trait ScalarEvaluator: Send + Sync {
    /// The name used by the `Evaluator` UCI option.
    fn name(&self) -> &'static str;
    /// Scores `pos` (not a terminal position) for the side to move. `hash` is the position's
    /// Zobrist key, for evaluators that cache by position.
    fn evaluate(&self, pos: &Chess, hash: u64) -> i32;
    /// A line about the evaluator's data (its net file), if it has any.
    fn description(&self) -> Option<String> {
        None
    }
    /// The state the search keeps instead of calling [`Self::evaluate`] at every leaf (the
    /// first-layer accumulators of a net, `plies` deep), if this evaluator has one; an error
    /// when its memory cannot be had (a memory limit).
    fn incremental(
        &self,
        _plies: usize,
    ) -> Result<Option<Box<dyn Incremental + '_>>, TryReserveError> {
        Ok(None)
    }
}

/// An evaluation the search updates move by move: a stack of states by ply.
pub trait Incremental: Send {
    /// The state of `pos` at `ply`, from scratch.
    fn refresh(&mut self, ply: usize, pos: &Chess);
    /// Ply `ply + 1` = ply `ply` after `m` (legal in `pos`, the position at `ply`).
    fn push(&mut self, ply: usize, pos: &Chess, m: Move);
    /// Ply `ply + 1` = ply `ply` with the other side to move (null move).
    fn push_null(&mut self, ply: usize);
    /// Centipawns at `ply` for the side to move of `pos`, the position at `ply`.
    fn evaluate_cp(&self, ply: usize, pos: &Chess) -> i32;
}

/// A leaf judge that compares two positions instead of scoring one.
pub trait ComparatorEvaluator: Send + Sync {
    /// The name used by the `Evaluator` UCI option.
    fn name(&self) -> &'static str;
    /// What the evaluator runs (its net file).
    fn description(&self) -> String;
    /// Length of the vectors that stand for positions.
    fn embed_len(&self) -> usize;
    /// Writes the vector of `pos` (Zobrist key `hash`) to `out[..embed_len]`.
    fn embed(&self, pos: &Chess, hash: u64, out: &mut [f32]);
    /// The vector of the colour-mirrored `pos` (ranks flipped, colours, side to move and
    /// castling rights swapped): as good for Black as `pos` is for White.
    fn embed_mirror(&self, pos: &Chess, hash: u64, out: &mut [f32]);
    /// Probability in [0, 1] that the position with vector `a` is better for White than `b`'s.
    fn compare(&self, a: &[f32], b: &[f32]) -> f32;
    /// Probability in [0, 1] that `a` is better for White than `b`.
    fn prob_first_better(&self, a: &Chess, b: &Chess) -> f32 {
        let mut va = vec![0.0; self.embed_len()];
        let mut vb = vec![0.0; self.embed_len()];
        self.embed(a, crate::chess::zobrist::hash_of(a), &mut va);
        self.embed(b, crate::chess::zobrist::hash_of(b), &mut vb);
        self.compare(&va, &vb)
    }
}

/// The evaluator a search runs with.
#[derive(Clone)]
pub enum Evaluator {
    Scalar(Arc<dyn ScalarEvaluator>),
    Comparator(Arc<dyn ComparatorEvaluator>),
}

impl Evaluator {
    pub fn name(&self) -> &'static str {
        match self {
            Evaluator::Scalar(e) => e.name(),
            Evaluator::Comparator(e) => e.name(),
        }
    }

    /// A line about the evaluator's data (the net file), if it has any.
    pub fn description(&self) -> Option<String> {
        match self {
            Evaluator::Scalar(e) => e.description(),
            Evaluator::Comparator(e) => Some(e.description()),
        }
    }
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Evaluator({})", self.name())
    }
}

/// The evaluators, as the `Evaluator` option names them: the typed choice that everything past
/// the option parser and the command line passes around.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvalKind {
    Pst,
    Experience,
    DeepChess,
    DeepPink,
    Learned,
}

impl EvalKind {
    /// Every evaluator, in the order the UCI `combo` lists them.
    pub const ALL: [EvalKind; 5] = [
        EvalKind::Pst,
        EvalKind::Experience,
        EvalKind::DeepChess,
        EvalKind::DeepPink,
        EvalKind::Learned,
    ];
    /// The strongest (BENCHMARKS.md): what the engine plays with unless told otherwise.
    pub const DEFAULT: EvalKind = EvalKind::Learned;

    pub fn name(self) -> &'static str {
        match self {
            EvalKind::Pst => "pst",
            EvalKind::Experience => "experience",
            EvalKind::DeepChess => "deepchess",
            EvalKind::DeepPink => "deeppink",
            EvalKind::Learned => "learned",
        }
    }

    /// The evaluator called `name` (case-insensitive, spaces around ignored).
    pub fn parse(name: &str) -> Result<EvalKind, Error> {
        let want = name.trim();
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(want))
            .ok_or_else(|| Error::Unknown {
                name: want.to_string(),
            })
    }

    /// The kind of net this evaluator runs (`EvalFile`), if it runs one.
    pub fn net(self) -> Option<NetKind> {
        match self {
            EvalKind::Pst | EvalKind::Experience => None,
            EvalKind::DeepChess => Some(NetKind::DeepChess),
            EvalKind::DeepPink => Some(NetKind::DeepPink),
            EvalKind::Learned => Some(NetKind::Learned),
        }
    }
}

impl std::fmt::Display for EvalKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for EvalKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        EvalKind::parse(s)
    }
}

/// Where evaluators that need data find it.
#[derive(Clone, Debug)]
pub struct EvalContext {
    pub experience_file: std::path::PathBuf,
    pub experience_min_games: u32,
    /// The net file of a neural evaluator (`EvalFile`); `None`: the net embedded in the binary.
    pub eval_file: Option<std::path::PathBuf>,
}

impl Default for EvalContext {
    fn default() -> Self {
        EvalContext {
            experience_file: crate::experience::location::default_store(),
            experience_min_games: 10,
            eval_file: None,
        }
    }
}

/// The evaluator called `name` (case-insensitive) with default data locations.
pub fn by_name(name: &str) -> Result<Evaluator, Error> {
    by_name_with(name, &EvalContext::default())
}

/// The evaluator called `name` (case-insensitive), or a message saying which names exist or why
/// its data cannot be loaded.
pub fn by_name_with(name: &str, ctx: &EvalContext) -> Result<Evaluator, Error> {
    build(EvalKind::parse(name)?, ctx)
}

/// Where the net of `kind` comes from: `ctx.eval_file` when given, else the newest net the
/// learning loop promoted on this machine (the data folder's `nets/`), else the one embedded in
/// the binary.
pub fn net_source(kind: NetKind, ctx: &EvalContext) -> NetSource {
    if let Some(f) = &ctx.eval_file {
        return NetSource::File(f.clone());
    }
    match crate::experience::location::newest_promoted(kind.name()) {
        Some((_, path)) => NetSource::File(path),
        None => NetSource::Embedded,
    }
}

/// The evaluator `kind` with its data from `ctx`: the net of [`net_source`] (the embedded one
/// is loaded once per process and shared).
pub fn build(kind: EvalKind, ctx: &EvalContext) -> Result<Evaluator, Error> {
    let source = kind
        .net()
        .map_or(NetSource::Embedded, |k| net_source(k, ctx));
    build_from(kind, source, ctx)
}

/// The evaluator `kind` with its net from `source`.
fn build_from(kind: EvalKind, source: NetSource, ctx: &EvalContext) -> Result<Evaluator, Error> {
    #[cfg(feature = "torch")]
    if let NetSource::File(path) = &source
        && torchscript::is_torchscript(path)
    {
        match kind {
            EvalKind::DeepChess => {
                let e = torchscript::ScriptChess::load(path)?;
                return Ok(Evaluator::Comparator(Arc::new(e)));
            }
            EvalKind::DeepPink => {
                let e = torchscript::ScriptPink::load(path)?;
                return Ok(Evaluator::Scalar(Arc::new(e)));
            }
            _ => {}
        }
    }
    static LEARNED: OnceLock<Arc<learned::LearnedEval>> = OnceLock::new();
    static DEEPPINK: OnceLock<Arc<deeppink::DeepPinkEval>> = OnceLock::new();
    static DEEPCHESS: OnceLock<Arc<deepchess::DeepChessEval>> = OnceLock::new();
    Ok(match kind {
        EvalKind::Pst => Evaluator::Scalar(Arc::new(pst::Pst)),
        EvalKind::Experience => Evaluator::Scalar(experience_evaluator(ctx)?),
        EvalKind::Learned => {
            Evaluator::Scalar(shared(&LEARNED, &source, learned::LearnedEval::open)?)
        }
        EvalKind::DeepPink => {
            Evaluator::Scalar(shared(&DEEPPINK, &source, deeppink::DeepPinkEval::open)?)
        }
        EvalKind::DeepChess => {
            Evaluator::Comparator(shared(&DEEPCHESS, &source, deepchess::DeepChessEval::open)?)
        }
    })
}

/// The evaluator of a net from `source`: built anew from a file, once per process (in `cell`)
/// from the embedded net.
fn shared<T>(
    cell: &'static OnceLock<Arc<T>>,
    source: &NetSource,
    open: impl Fn(&NetSource) -> Result<T, crate::nn::Error>,
) -> Result<Arc<T>, crate::nn::Error> {
    if *source != NetSource::Embedded {
        return open(source).map(Arc::new);
    }
    if let Some(e) = cell.get() {
        return Ok(e.clone());
    }
    let e = Arc::new(open(source)?);
    Ok(cell.get_or_init(|| e).clone())
}

/// The experience evaluator itself (the UCI engine keeps it to add games it learns).
pub fn experience_evaluator(ctx: &EvalContext) -> Result<Arc<experience::ExperienceEval>, Error> {
    Ok(Arc::new(experience::ExperienceEval::load(
        &ctx.experience_file,
        ctx.experience_min_games,
    )?))
}

/// The evaluator a search runs with unless told otherwise: [`EvalKind::DEFAULT`] with its
/// automatic net (the newest promoted one, else the embedded one). A promoted net that cannot
/// be read gives way to the embedded one, and [`default_net_problem`] says why (pst only if the
/// embedded net could not be read either, which the tests rule out).
pub fn default_evaluator() -> Evaluator {
    let ctx = EvalContext::default();
    build(EvalKind::DEFAULT, &ctx).unwrap_or_else(|e| {
        let _ = DEFAULT_NET_PROBLEM.set(format!(
            "{e}; Evaluator {} uses its embedded net instead",
            EvalKind::DEFAULT
        ));
        build_from(EvalKind::DEFAULT, NetSource::Embedded, &ctx).unwrap_or_else(|_| pst_evaluator())
    })
}

static DEFAULT_NET_PROBLEM: OnceLock<String> = OnceLock::new();

/// Why the default evaluator could not use the net it should have (a promoted net that cannot
/// be read), if that happened in this process: to be told to the user.
pub fn default_net_problem() -> Option<&'static str> {
    DEFAULT_NET_PROBLEM.get().map(String::as_str)
}

/// The hand-written evaluator (pst).
pub fn pst_evaluator() -> Evaluator {
    Evaluator::Scalar(Arc::new(pst::Pst))
}

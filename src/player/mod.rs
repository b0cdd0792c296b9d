//! One game played with Deep Red, whoever asks for the moves (a GUI over UCI, the terminal,
//! self-play, the learning loop, the browser): protocol-free. It owns what a game needs besides
//! the search itself:
//! - the evaluator as one typed choice ([`evaluator::EvalChoice`]: the kind, its net, the
//!   experience records it reads);
//! - following the game and learning it when it ends, the search memory, the root bias and the
//!   experience book ([`learner`]);
//!
//! and says what the user should hear as lines of text, for the caller to show. Nothing below
//! knows it; `uci`, `games` and `learn` drive it, never each other.

pub mod evaluator;
pub mod learner;

use std::path::PathBuf;
use std::sync::Arc;

use crate::eval::experience::ExperienceEval;
use crate::experience::memory::QParams;
use learner::BiasSettings;

/// The engine's name and version (`id name` over UCI, the players' names in games).
pub const ENGINE_NAME: &str = concat!("Deep Red ", env!("CARGO_PKG_VERSION"));

/// In a game against a human Deep Red accepts a draw offer when its own score is at most this
/// (centipawns, its point of view), or in a [`dead_draw`].
pub const DRAW_ACCEPT_CP: i32 = -150;

/// A position no one can win in practice: no pawns, queens or rooks, and at most one minor
/// piece a side (Deep Red accepts a draw offer there whatever its score).
pub fn dead_draw(pos: &shakmaty::Chess) -> bool {
    use shakmaty::Position;
    let b = pos.board();
    if (b.pawns() | b.queens() | b.rooks()).any() {
        return false;
    }
    let minors = b.knights() | b.bishops();
    (minors & b.white()).count() <= 1 && (minors & b.black()).count() <= 1
}

/// What learning from games needs to know: whether to learn, where, and with which constants.
#[derive(Clone, Debug)]
pub struct LearnSettings {
    /// `Learning`: follow the game and learn it; search from the memory; bias the root moves.
    pub learning: bool,
    /// The experience store.
    pub store: PathBuf,
    /// The constants of the Q-learning step.
    pub q: QParams,
    /// The constants of the root bias (and the games the book and the records need).
    pub bias: BiasSettings,
    /// The experience evaluator in use, which takes each learned game at once.
    pub experience: Option<Arc<ExperienceEval>>,
}

impl LearnSettings {
    /// Games learned into `store` with the default constants; `learning`: also the search
    /// memory, the root bias and the Q-learning step (as `Learning` over UCI).
    pub fn new(store: PathBuf, learning: bool) -> LearnSettings {
        LearnSettings {
            learning,
            store,
            q: QParams::default(),
            bias: BiasSettings::default(),
            experience: None,
        }
    }
}

use shakmaty::{Chess, Move};

use crate::chess::zobrist::hash_of;
use crate::experience::records::GameRecord;
use crate::experience::store::Learned;
use crate::search::skill::Skill;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchParams, SearchResult, Shared, search};
use evaluator::EvalChoice;
use learner::{Found, Inbox, LastMove, Learner};

/// One game played with Deep Red: the evaluator, the hash table, and what learning from the
/// game needs. A caller (the UCI engine, self-play, terminal play...) tells it the game as it
/// goes and asks it for what each search needs.
pub struct Player {
    /// The evaluator in use.
    pub eval: EvalChoice,
    tt: Arc<TranspositionTable>,
    learner: Learner,
}

impl Player {
    /// A player with the default evaluator and a hash table of `hash_mb` MB.
    pub fn new(hash_mb: usize) -> Player {
        Player {
            eval: EvalChoice::default(),
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            learner: Learner::default(),
        }
    }

    /// A player with the default evaluator and a hash table of `hash_mb` MB, or why the memory
    /// for it cannot be had (a server making many games checks; an abort would end them all).
    pub fn try_new(hash_mb: usize) -> Result<Player, String> {
        let tt = TranspositionTable::try_new(hash_mb)
            .map_err(|e| format!("a hash table of {hash_mb} MB: {e}"))?;
        Ok(Player {
            eval: EvalChoice::default(),
            tt: Arc::new(tt),
            learner: Learner::default(),
        })
    }

    /// A player with `evaluator` (already built) and a hash table of `hash_mb` MB.
    pub fn with_evaluator(evaluator: crate::eval::Evaluator, hash_mb: usize) -> Player {
        Player {
            eval: EvalChoice::from_evaluator(evaluator),
            ..Player::new(hash_mb)
        }
    }

    /// The hash table the searches share.
    pub fn tt(&self) -> Arc<TranspositionTable> {
        self.tt.clone()
    }

    /// Empties the hash table (a new game, another evaluator: scores do not mix).
    pub fn clear_hash(&self) {
        self.tt.clear();
    }

    /// A hash table of `mb` MB instead (empty). When the memory cannot be had, even with the
    /// old table given back first, the player keeps an empty table of the old size and says
    /// why.
    pub fn resize_hash(&mut self, mb: usize) -> Result<(), String> {
        if let Ok(t) = TranspositionTable::try_new(mb) {
            self.tt = Arc::new(t);
            return Ok(());
        }
        let old = self.tt.mb().max(1);
        self.tt = Arc::new(TranspositionTable::new(1));
        match TranspositionTable::try_new(mb) {
            Ok(t) => {
                self.tt = Arc::new(t);
                Ok(())
            }
            Err(e) => {
                if let Ok(t) = TranspositionTable::try_new(old) {
                    self.tt = Arc::new(t);
                }
                Err(format!(
                    "a hash table of {mb} MB cannot be allocated ({e}); {} MB kept",
                    self.tt.mb().max(1)
                ))
            }
        }
    }

    /// A new game: the one followed is learned if it ended (`last`: this player's last move,
    /// which may have ended it), the search memory catches up with the store, the hash table
    /// is emptied.
    pub fn new_game(&mut self, s: &LearnSettings, last: LastMove) {
        self.learner.finish(s, last);
        self.learner.reload_memory();
        self.tt.clear();
    }

    /// The game as it stands: from `start`, `moves` (the next moves of the game followed, or
    /// another game, whose start ends the one followed).
    pub fn follow(&mut self, s: &LearnSettings, start: &Chess, moves: &[Move], last: LastMove) {
        self.learner.follow(s, start, moves, last);
    }

    /// The game followed ends here (the player leaves, another store is chosen).
    pub fn finish(&mut self, s: &LearnSettings, last: LastMove) {
        self.learner.finish(s, last);
    }

    /// With `Learning`, the store's memory starts being read now rather than at the first
    /// search.
    pub fn prefetch_memory(&mut self, s: &LearnSettings) {
        self.learner.memory(s);
    }

    /// The experience book's move in `pos`, with why (see [`learner::book`]).
    pub fn book_move(&self, s: &LearnSettings, pos: &Chess) -> Option<(Move, String)> {
        learner::book(s, pos)
    }

    /// The store's records of `pos`'s moves as (win, draw, loss) per mille for the side to
    /// move, for the moves it knows enough games of ([`learner::known_wdl`]).
    pub fn known_wdl(&self, s: &LearnSettings, pos: &Chess) -> Vec<(Move, (u32, u32, u32))> {
        learner::known_wdl(s, pos)
    }

    /// A search of `root` (after the positions `history`) under `limits` with this player's
    /// evaluator, search memory and root bias; the inbox, when the search's findings are to be
    /// remembered (`Learning`, full strength), takes them with [`hand_over`].
    pub fn prepare(
        &mut self,
        s: &LearnSettings,
        root: Chess,
        history: Vec<u64>,
        limits: Limits,
        full_strength: bool,
    ) -> (SearchParams, Option<Inbox>) {
        let memory = self.learner.memory(s);
        let root_bias = learner::root_bias(s, &root, memory.as_deref());
        let mut params = SearchParams::new(root, limits);
        params.history = history;
        params.evaluator = self.eval.evaluator().clone();
        params.root_bias = root_bias;
        params.memory = memory;
        // A search played weaker on purpose does not teach the memory its worse moves.
        let inbox = (params.memory.is_some() && full_strength).then(|| self.learner.inbox.clone());
        (params, inbox)
    }

    /// Searches `root` (after the positions `history`) here and now, stopped by `shared` or
    /// `limits`, at `skill` when given (weaker on purpose: nothing is remembered); what it
    /// found is kept with the game (`Learning`).
    pub fn think(
        &mut self,
        s: &LearnSettings,
        shared: &Shared,
        root: Chess,
        history: Vec<u64>,
        limits: Limits,
        skill: Option<Skill>,
    ) -> SearchResult {
        let (mut params, inbox) = self.prepare(s, root, history, limits, skill.is_none());
        params.skill = skill;
        shared
            .stop
            .store(false, std::sync::atomic::Ordering::SeqCst);
        shared.reset_clock();
        let r = search(&params, shared, &self.tt);
        if let Some(inbox) = inbox {
            hand_over(&inbox, &params, &r);
        }
        r
    }

    /// Learns a game the caller played and recorded: see [`Learner::learn_game`].
    pub fn learn_game(
        &mut self,
        s: &LearnSettings,
        record: &mut GameRecord,
        tree_plies: Option<usize>,
    ) -> Result<Learned, crate::experience::Error> {
        self.learner.learn_game(s, record, tree_plies)
    }

    /// With `Learning`, the search memory reads now what the store added since it last read
    /// (see [`Learner::sync_memory`]).
    pub fn sync_memory(&mut self, s: &LearnSettings) -> Result<(), crate::experience::Error> {
        self.learner.sync_memory(s)
    }

    /// What the user should hear since the last call (errors, games learned, the memory).
    pub fn take_notes(&mut self) -> Vec<String> {
        self.learner.take_notes()
    }

    /// The search memory's state, for people (`None` without one).
    pub fn memory_state(&self) -> Option<String> {
        self.learner.memory_state()
    }
}

/// Hands a finished search's findings to its player (from the search's thread): the rows to
/// remember and the root's result, kept with the game.
pub fn hand_over(inbox: &Inbox, params: &SearchParams, r: &SearchResult) {
    let mut found: std::sync::MutexGuard<'_, Found> =
        inbox.lock().unwrap_or_else(|e| e.into_inner());
    found.rows.extend(learner::findings(params, r));
    if let Some(best) = r.best {
        found.roots.push((
            hash_of(&params.root),
            crate::chess::notation::encode_move(&best),
            learner::search_eval(r),
        ));
    }
}

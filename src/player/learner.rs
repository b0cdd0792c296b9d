//! Learning from a game as it is played, whoever plays it (a GUI over UCI, the terminal, the
//! browser): with `Learning` on, the game is followed move by move and learned once it has
//! ended by the rules, the searches start from the search memory and what they find is
//! remembered (written with the game, when it ends or the player moves on), and the root moves'
//! records bias the choice; with the experience book on, the store's best move is played at
//! once. Nothing here prints: what the user should hear is handed out by [`Learner::take_notes`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use shakmaty::{Chess, Color, Move, Position};

use super::LearnSettings;
use crate::chess::notation::encode_move;
use crate::chess::rules::GameResult;
use crate::chess::zobrist::{hash_of, play};
use crate::eval::memory::SearchMemory;
use crate::experience::book::{book_move, ranked};
use crate::experience::live::Tracked;
use crate::experience::memory::{QParams, Remembered};
use crate::experience::records::wilson_lower_bound;
use crate::experience::records::{EvalSource, GameRecord, MoveEval};
use crate::experience::store::{GameSearches, Learned, Store};
use crate::search::tt::score_to_tt;
use crate::search::{SearchParams, SearchResult};

/// Positions of a search's principal variation remembered besides its root.
pub const PV_REMEMBERED: usize = 4;

/// What a search thread hands to the engine: the rows to remember, and the root's result (its
/// key, the move chosen and what the search said of it) to keep with the game.
#[derive(Default)]
pub struct Found {
    pub rows: Vec<Remembered>,
    pub roots: Vec<(u64, u16, MoveEval)>,
}

/// Findings a search thread hands to the engine.
pub type Inbox = Arc<Mutex<Found>>;

/// The engine's last `bestmove`: the key of the position searched and the move.
pub type LastMove = Option<(u64, Move)>;

/// Follows the game played over UCI to learn it.
#[derive(Default)]
pub struct Learner {
    tracked: Option<Tracked>,
    /// The search memory of a store (read from the first search with `Learning` on).
    memory: Option<(PathBuf, Arc<SearchMemory>)>,
    /// Whether the memory's first reading was told (`info string`).
    memory_told: bool,
    /// What the searches of the game followed found, not yet in the store.
    found: Vec<Remembered>,
    /// The root results of this game's searches by position key: (move code, evaluation).
    roots: std::collections::HashMap<u64, (u16, MoveEval)>,
    /// Findings the search thread handed over, taken in by [`Learner::drain`].
    pub inbox: Inbox,
    /// What the user should hear (said by the caller: an `info string` over UCI).
    notes: Vec<String>,
    /// Finished games the store refused, oldest first, tried again at the next game.
    refused: Vec<Refused>,
    /// The content hashes of the games whose last write failed: the next write of one is a
    /// retry ([`GameSearches::retry`]), here or by the caller (the web app). Oldest first, at
    /// most `2 * MAX_REFUSED` (a linear scan of them per written game costs nothing).
    failed: std::collections::VecDeque<[u8; 16]>,
}

/// A finished game the store refused (another writer held it past its busy timeout, a full
/// disk, a folder that cannot be made): kept with its searches' findings and the settings it
/// was played under, and tried again when the next game starts (and at quit), not lost.
struct Refused {
    settings: LearnSettings,
    record: GameRecord,
    found: Vec<Remembered>,
    /// Times it was refused.
    tries: u32,
}

/// The most refused games kept: past it, the oldest is dropped (and the user told).
const MAX_REFUSED: usize = 1000;
/// A game refused this many times is dropped (and the user told): a game the store refuses for
/// itself must not hold up the others for ever.
const MAX_TRIES: u32 = 20;

impl Learner {
    /// What happened since the last call that the user should hear: errors (`error: ...`)
    /// and what was learned.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// After a `position` command (with `Learning` on): goes on with the game followed, or
    /// finishes it and starts following the new one; learns it once it is over.
    pub fn follow(
        &mut self,
        settings: &LearnSettings,
        start: &Chess,
        moves: &[Move],
        last: LastMove,
    ) {
        self.drain();
        if !settings.learning {
            return;
        }
        let continued = self
            .tracked
            .as_ref()
            .is_some_and(|t| t.continued_by(start, moves));
        if continued {
            if let Some(t) = self.tracked.as_mut() {
                t.moves = moves.to_vec();
            }
        } else {
            self.finish(settings, last);
            self.tracked = Some(Tracked {
                start: start.clone(),
                moves: moves.to_vec(),
                learned: false,
            });
        }
        self.learn_if_over(settings, None);
    }

    /// The game followed ends here (new game, unrelated position, another store, quit): it is
    /// learned if it is over, with the engine's last move when that ended it.
    pub fn finish(&mut self, settings: &LearnSettings, last: LastMove) {
        self.drain();
        self.retry_refused(settings);
        if settings.learning && self.tracked.is_some() {
            self.learn_if_over(settings, last);
        }
        if !self.found.is_empty() {
            // The game goes no further without a result on the board: what its searches found
            // is kept, and the last value found is the target of the learning step.
            let path = self
                .tracked
                .as_ref()
                .map(|t| path_of(&t.start, &t.moves))
                .unwrap_or_default();
            let _ = self.write_or_note(settings, None, &path, None);
        }
        self.tracked = None;
        self.roots.clear();
    }

    /// A new game: the memory catches up with what other processes sharing the store learned
    /// meanwhile, on a thread of its own (the next search does not wait for it).
    pub fn reload_memory(&mut self) {
        if let Some((p, m)) = &self.memory {
            m.catch_up_in_background(p.clone());
        }
    }

    /// The search memory for the next search (`None` without `Learning`). A store met for the
    /// first time is read on a thread of its own while the searches go on with what it has read
    /// so far: no `go` waits for it. What the reading says (done, or failed) is told once, at
    /// a `go`.
    pub fn memory(&mut self, settings: &LearnSettings) -> Option<Arc<SearchMemory>> {
        self.drain();
        if !settings.learning {
            return None;
        }
        let file = &settings.store;
        if self.memory.as_ref().is_none_or(|(p, _)| p != file) {
            let memory = Arc::new(SearchMemory::default());
            memory.catch_up_in_background(file.clone());
            self.memory = Some((file.clone(), memory));
            self.memory_told = false;
        }
        let (_, m) = self.memory.as_ref()?;
        if let Some(e) = m.take_error() {
            self.notes
                .push(format!("error: search memory not read: {e}"));
        } else if !self.memory_told && m.is_loaded() {
            self.memory_told = true;
            self.notes.push(format!(
                "search memory: {} positions from '{}'",
                m.len(),
                crate::experience::store::shown(file)
            ));
        }
        Some(m.clone())
    }

    /// For `d`: the search memory's state (`None` before `Learning` has used one).
    pub fn memory_state(&self) -> Option<String> {
        let (p, m) = self.memory.as_ref()?;
        Some(format!(
            "Search memory: {} positions{} ({})",
            m.len(),
            if m.is_loaded() { "" } else { ", reading" },
            crate::experience::store::shown(p)
        ))
    }

    /// Takes in what the last search found: into the game's findings and the memory.
    fn drain(&mut self) {
        let Found { rows, roots } =
            std::mem::take(&mut *self.inbox.lock().unwrap_or_else(|e| e.into_inner()));
        self.roots
            .extend(roots.into_iter().map(|(key, mv, eval)| (key, (mv, eval))));
        if rows.is_empty() {
            return;
        }
        if let Some((_, m)) = self.memory.as_ref() {
            for r in &rows {
                m.remember(r);
            }
        }
        self.found.extend(rows);
    }

    /// Writes the game's findings (and, with a record, its counts: of its first `tree_plies`
    /// plies, all of them for `None`) in one transaction; the memory takes the rows as they now
    /// stand. Returns what the counts did.
    fn write(
        &mut self,
        settings: &LearnSettings,
        (record, tree_plies): (Option<&GameRecord>, Option<usize>),
        path: &[(u64, bool)],
        result: Option<GameResult>,
    ) -> Result<Option<Learned>, crate::experience::Error> {
        let found = std::mem::take(&mut self.found);
        let hash = record.map(GameRecord::content_hash);
        let written = Store::open(&settings.store).and_then(|mut s| {
            s.learn_searches(&GameSearches {
                record,
                found: &found,
                path,
                result,
                q: settings.q,
                tree_plies,
                retry: hash.is_some_and(|h| self.failed.contains(&h)),
            })
        });
        // A store that refused them (busy, a full disk) gets them with the next write: a
        // refused game is tried again (here, and by the web app).
        let (learned, rows) = match written {
            Ok(w) => w,
            Err(e) => {
                self.found = found;
                if let Some(h) = hash
                    && !self.failed.contains(&h)
                {
                    if self.failed.len() >= 2 * MAX_REFUSED {
                        self.failed.pop_front();
                    }
                    self.failed.push_back(h);
                }
                return Err(e);
            }
        };
        if let Some(h) = hash {
            self.failed.retain(|f| *f != h);
        }
        if let Some((p, m)) = self.memory.as_ref()
            && *p == settings.store
        {
            m.update(&rows);
        }
        Ok(learned)
    }

    /// [`Self::write`], the error told as a note.
    fn write_or_note(
        &mut self,
        settings: &LearnSettings,
        record: Option<&GameRecord>,
        path: &[(u64, bool)],
        result: Option<GameResult>,
    ) -> Result<Option<Learned>, crate::experience::Error> {
        let written = self.write(settings, (record, None), path, result);
        if let Err(e) = &written {
            self.notes.push(format!(
                "error: could not remember the game's searches: {e}"
            ));
        }
        written
    }

    /// A whole game its caller played and recorded (self-play, the terminal, the loop), with
    /// the win/draw/loss counts of its first `tree_plies` plies (`None`: all): with `Learning`,
    /// also what its searches found, the Q-learning step and the searches' evaluations of the
    /// moves they chose (where the record has none). The game followed, if any, is dropped.
    pub fn learn_game(
        &mut self,
        settings: &LearnSettings,
        record: &mut GameRecord,
        tree_plies: Option<usize>,
    ) -> Result<Learned, crate::experience::Error> {
        self.drain();
        self.tracked = None;
        let roots = std::mem::take(&mut self.roots);
        if !settings.learning {
            self.found.clear();
            return Store::open(&settings.store)?.learn_first_plies(record, tree_plies);
        }
        let searched = evals_of(&record.start, &record.moves, &roots);
        record.evals.resize(record.moves.len(), None);
        for (e, s) in record.evals.iter_mut().zip(searched) {
            *e = e.or(s);
        }
        let path = path_of(&record.start, &record.moves);
        let learned = self
            .write(
                settings,
                (Some(record), tree_plies),
                &path,
                Some(record.result),
            )?
            .unwrap_or(Learned::AlreadyKnown);
        if learned != Learned::AlreadyKnown
            && let Some(e) = &settings.experience
        {
            e.add_game(record);
        }
        Ok(learned)
    }

    /// With `Learning`: the memory reads now what the store added since it last read it (all
    /// of it the first time), before the next search: the searches that follow do not depend
    /// on a reading's timing (self-play between games).
    pub fn sync_memory(
        &mut self,
        settings: &LearnSettings,
    ) -> Result<(), crate::experience::Error> {
        self.drain();
        if !settings.learning {
            return Ok(());
        }
        if self
            .memory
            .as_ref()
            .is_none_or(|(p, _)| *p != settings.store)
        {
            self.memory = Some((settings.store.clone(), Arc::new(SearchMemory::default())));
            // Nothing to tell: the caller asked for the reading.
            self.memory_told = true;
        }
        if let Some((_, m)) = &self.memory {
            m.catch_up(&Store::open_read_only(&settings.store)?)?;
        }
        Ok(())
    }

    /// Learns the game followed if it has ended by the rules (`our_move` counted as played).
    fn learn_if_over(&mut self, settings: &LearnSettings, our_move: LastMove) {
        let Some(t) = self.tracked.as_mut() else {
            return;
        };
        if t.learned {
            return;
        }
        let Some(mut record) = t.ended(our_move) else {
            return;
        };
        record.evals = evals_of(&record.start, &record.moves, &self.roots);
        t.learned = true;
        let path = path_of(&record.start, &record.moves);
        match self.write_or_note(settings, Some(&record), &path, Some(record.result)) {
            Ok(learned) => self.learned(settings, &record, learned),
            Err(_) => {
                let found = std::mem::take(&mut self.found);
                self.keep_refused(Refused {
                    settings: settings.clone(),
                    record,
                    found,
                    tries: 1,
                });
            }
        }
    }

    /// A game the store refused, kept to be tried again.
    fn keep_refused(&mut self, refused: Refused) {
        self.notes.push(format!(
            "the game ({} plies, {}) is kept and tried again when the next game starts",
            refused.record.moves.len(),
            refused.record.result.as_pgn()
        ));
        self.refused.push(refused);
        if self.refused.len() > MAX_REFUSED {
            let lost = self.refused.remove(0);
            self.notes.push(format!(
                "error: more than {MAX_REFUSED} games wait for the store: the oldest ({} plies, {}) is dropped",
                lost.record.moves.len(),
                lost.record.result.as_pgn()
            ));
        }
    }

    /// The refused games again, oldest first. A store that refuses one again is not asked
    /// for its later games this time (each try may wait for its busy timeout). Each is written
    /// with its own searches' findings, not the current game's, and handed to the experience
    /// evaluator now in use when it is the same store.
    fn retry_refused(&mut self, now: &LearnSettings) {
        let mut refusing: Vec<PathBuf> = Vec::new();
        for mut r in std::mem::take(&mut self.refused) {
            if refusing.contains(&r.settings.store) {
                self.refused.push(r);
                continue;
            }
            if r.settings.store == now.store {
                r.settings.experience.clone_from(&now.experience);
            }
            let current = std::mem::replace(&mut self.found, std::mem::take(&mut r.found));
            let path = path_of(&r.record.start, &r.record.moves);
            let written = self.write(
                &r.settings,
                (Some(&r.record), None),
                &path,
                Some(r.record.result),
            );
            r.found = std::mem::replace(&mut self.found, current);
            match written {
                Ok(learned) => self.learned(&r.settings, &r.record, learned),
                Err(e) if r.tries + 1 >= MAX_TRIES => self.notes.push(format!(
                    "error: the store refused a finished game ({} plies, {}) {MAX_TRIES} times: dropped ({e})",
                    r.record.moves.len(),
                    r.record.result.as_pgn()
                )),
                Err(e) => {
                    self.notes.push(format!(
                        "error: the store still refuses a finished game ({e}); kept"
                    ));
                    r.tries += 1;
                    refusing.push(r.settings.store.clone());
                    self.refused.push(r);
                }
            }
        }
    }

    /// Tells what became of a finished game the store took, and hands it to the experience
    /// evaluator in use when it is new.
    fn learned(&mut self, settings: &LearnSettings, record: &GameRecord, learned: Option<Learned>) {
        let (plies, result) = (record.moves.len(), record.result);
        if learned != Some(Learned::AlreadyKnown)
            && let Some(e) = &settings.experience
        {
            e.add_game(record);
        }
        // A game the store already holds (the same moves played again) adds nothing.
        self.notes.push(if learned == Some(Learned::AlreadyKnown) {
            format!(
                "the game ({plies} plies, {}) is already in '{}': not counted again",
                result.as_pgn(),
                crate::experience::store::shown(&settings.store)
            )
        } else {
            format!(
                "learned the game ({plies} plies, {}) into '{}'",
                result.as_pgn(),
                crate::experience::store::shown(&settings.store)
            )
        })
    }
}

/// The evaluations of a game's moves that this engine's searches chose: `roots` by position
/// key (move code, evaluation), kept where the move played is the one the search chose.
fn evals_of(
    start: &Chess,
    moves: &[Move],
    roots: &std::collections::HashMap<u64, (u16, MoveEval)>,
) -> Vec<Option<MoveEval>> {
    let mut pos = start.clone();
    let mut key = hash_of(&pos);
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        out.push(
            roots
                .get(&key)
                .filter(|(mv, _)| *mv == encode_move(&m))
                .map(|&(_, e)| e),
        );
        (pos, key) = play(&pos, key, m);
    }
    out
}

/// The keys of a followed game's positions in order, with their sides to move (`true`: White).
pub fn path_of(start: &Chess, moves: &[Move]) -> Vec<(u64, bool)> {
    let mut pos = start.clone();
    let mut key = hash_of(&pos);
    let mut path = vec![(key, pos.turn() == Color::White)];
    for &m in moves {
        if !pos.is_legal(m) {
            break;
        }
        (pos, key) = play(&pos, key, m);
        path.push((key, pos.turn() == Color::White));
    }
    path
}

/// What a finished search found, as rows to remember: its root (best move, score, depth) and
/// the first [`PV_REMEMBERED`] positions of its principal variation, each a ply less deep and
/// scored for its own side to move (mates counted from that position). Nothing for a search
/// that finished no iteration.
pub fn findings(params: &SearchParams, result: &SearchResult) -> Vec<Remembered> {
    let Some(line) = result.lines.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut pos = params.root.clone();
    let mut key = hash_of(&pos);
    let mut score = line.score;
    for (k, &m) in line.pv.iter().enumerate().take(PV_REMEMBERED + 1) {
        let depth = result.depth as i32 - k as i32;
        if depth < 1 || !pos.is_legal(m) {
            break;
        }
        out.push(Remembered {
            key,
            mv: encode_move(&m),
            score: score_to_tt(score, k),
            depth,
            learned: 0,
        });
        (pos, key) = play(&pos, key, m);
        score = -score;
    }
    out
}

/// What a finished search of Deep Red's says of its root, kept with the move it chose.
pub fn search_eval(result: &SearchResult) -> MoveEval {
    MoveEval {
        score: result.score.clamp(-32_000, 32_000) as i16,
        depth: result.depth.min(255) as u8,
        source: EvalSource::DeepRed,
    }
}

/// The root moves' biases (with `Learning`), in centipawns:
/// - what results taught: a move whose next position the memory knows gets the negative of that
///   position's `learned` correction (it is the opponent's to move there), so a line that lost
///   is left and one that won is kept even when the search now goes deeper than it remembers
///   (at most `LearningReward` either way);
/// - the record (`ExperienceMargin`/`ExperiencePenalty`): each root move with at least
///   `ExperienceMinGames` games whose mover's score is significantly below one half (the upper
///   end of its 95% Wilson interval under 0.5) loses the penalty; one significantly above (the
///   lower end over 0.5) gains the margin.
pub fn root_bias(
    settings: &LearnSettings,
    pos: &Chess,
    memory: Option<&SearchMemory>,
) -> Vec<(Move, i32)> {
    if !settings.learning {
        return Vec::new();
    }
    let store = Store::open_read_only(&settings.store).ok();
    root_bias_in(store.as_ref(), &settings.bias, pos, memory)
}

/// The constants of the root bias (see [`root_bias`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BiasSettings {
    pub min_games: u32,
    pub margin: i32,
    pub penalty: i32,
    /// The most what results taught may add or take (`LearningReward`).
    pub reward: i32,
}

impl Default for BiasSettings {
    /// The defaults of `ExperienceMinGames`, `ExperienceMargin`, `ExperiencePenalty` and
    /// `LearningReward`.
    fn default() -> Self {
        BiasSettings {
            min_games: 10,
            margin: 30,
            penalty: 100,
            reward: QParams::default().reward,
        }
    }
}

/// [`root_bias`] from an open store (`None`: no records) and the memory.
pub fn root_bias_in(
    store: Option<&Store>,
    settings: &BiasSettings,
    pos: &Chess,
    memory: Option<&SearchMemory>,
) -> Vec<(Move, i32)> {
    let mut bias: Vec<(Move, i32)> = Vec::new();
    let mut add = |m: Move, b: i32| match bias.iter_mut().find(|(mv, _)| *mv == m) {
        Some((_, old)) => *old += b,
        None => bias.push((m, b)),
    };
    if let Some(memory) = memory.filter(|m| !m.is_empty()) {
        let key = hash_of(pos);
        for m in pos.legal_moves() {
            let (_, child) = play(pos, key, m);
            if let Some(e) = memory.get(child)
                && e.learned != 0
            {
                let cap = settings.reward.abs();
                add(m, (-e.learned).clamp(-cap, cap));
            }
        }
    }
    let turn = pos.turn();
    let known = store
        .map(|store| ranked(store, pos).unwrap_or_default())
        .unwrap_or_default();
    for k in known
        .iter()
        .filter(|k| k.stats.games() >= u64::from(settings.min_games))
    {
        let (p, n) = (k.stats.score_for(turn), k.stats.games());
        if 1.0 - wilson_lower_bound(1.0 - p, n) < 0.5 {
            add(k.mv, -settings.penalty);
        } else if wilson_lower_bound(p, n) > 0.5 {
            add(k.mv, settings.margin);
        }
    }
    bias.retain(|&(_, b)| b != 0);
    bias
}

/// `UCI_ShowWDL`'s experience: for each move of `pos` the store's games played with at least
/// `ExperienceMinGames` times, the (win, draw, loss) per mille of those games for the side to
/// move at `pos`: one query, the position's move rows (which count the games that ended on the
/// move too). Each line of a search gets its first move's record (the root's own record, on
/// every line, said the same of moves the games never played).
pub fn known_wdl(settings: &LearnSettings, pos: &Chess) -> Vec<(Move, (u32, u32, u32))> {
    let Some(known) = Store::open_read_only(&settings.store)
        .ok()
        .and_then(|store| ranked(&store, pos).ok())
    else {
        return Vec::new();
    };
    let min = u64::from(settings.bias.min_games).max(1);
    known
        .into_iter()
        .filter(|k| k.stats.games() >= min)
        .map(|k| {
            let n = k.stats.games();
            let (won, lost) = match pos.turn() {
                shakmaty::Color::White => (k.stats.white_wins, k.stats.black_wins),
                shakmaty::Color::Black => (k.stats.black_wins, k.stats.white_wins),
            };
            let w = (1000 * won + n / 2) / n;
            // Both rounded up only at two halves (1 win and 15 losses: 62.5 and 937.5).
            let l = ((1000 * lost + n / 2) / n).min(1000 - w);
            (k.mv, (w as u32, (1000 - w - l) as u32, l as u32))
        })
        .collect()
}

/// `ExperienceBook`: the best known move by the confidence-aware score when the position has at
/// least `ExperienceMinGames` games, with why (its games, score and confidence; the position's
/// games).
pub fn book(settings: &LearnSettings, pos: &Chess) -> Option<(Move, String)> {
    let store = Store::open_read_only(&settings.store).ok()?;
    let b = book_move(&store, pos, settings.bias.min_games)?;
    let turn = pos.turn();
    let why = format!(
        "{} games, score {:.1}%, confidence {:.1}%; {} games in this position",
        b.stats.games(),
        100.0 * b.stats.score_for(turn),
        100.0 * b.stats.confidence_score(turn),
        b.position_games
    );
    Some((b.mv, why))
}

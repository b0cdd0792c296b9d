//! A finished game into the store: once, and again later when the store refused it (another
//! writer held it past its busy timeout, a full disk), so that no finished game is lost.

use std::sync::Arc;

use super::{Game, LEARN_RETRIES, lock};
use crate::chess::pgn::pgn_date;
use crate::experience::records::GameRecord;
use crate::experience::store::Learned;

/// The game ended: learned into the store unless a move was taken back.
pub(super) fn finish(game: &Arc<Game>) {
    let (record, takebacks) = {
        let mut st = lock(&game.state);
        let Some(result) = st.ending.as_ref().map(|e| e.0) else {
            return;
        };
        if st.learned.is_some() {
            return;
        }
        // Claimed here, under the lock: one request learns the game.
        st.learned = Some("being learned".into());
        let [white, black] = st.names();
        let record = GameRecord {
            source: crate::experience::source::WEB.to_string(),
            white,
            black,
            date: pgn_date(),
            result,
            start: st.start.clone(),
            moves: st.moves.clone(),
            evals: Vec::new(),
        };
        (record, st.takebacks)
    };
    let note = if takebacks > 0 {
        "not learned: a move was taken back".to_string()
    } else if record.moves.is_empty() {
        "not learned: no move was played".to_string()
    } else {
        let mut record = record;
        match learn(game, &mut record) {
            Ok(note) => note,
            Err(e) => {
                // A store another writer holds for longer than its busy timeout, a full disk:
                // the game is kept and tried again, not lost. Its note first (a retry that
                // succeeds at once has the last word), and the game's hash table given back
                // (the game is over; its searches' findings are kept by the learner).
                lock(&game.state).learned = Some(format!(
                    "not learned yet ({e}); tried again every {} s",
                    game.learn_retry.as_secs_f64()
                ));
                let _ = lock(&game.player).resize_hash(1);
                let g = game.clone();
                std::thread::spawn(move || learn_later(&g, record));
                return;
            }
        }
    };
    lock(&game.state).learned = Some(note);
}

/// Tries to learn again after a failure: [`LEARN_RETRIES`] times, [`Game::learn_retry`] apart.
fn learn_later(game: &Game, mut record: GameRecord) {
    for attempt in 1..=LEARN_RETRIES {
        std::thread::sleep(game.learn_retry);
        match learn(game, &mut record) {
            Ok(note) => {
                lock(&game.state).learned = Some(note);
                return;
            }
            Err(e) if attempt == LEARN_RETRIES => {
                lock(&game.state).learned =
                    Some(format!("not learned: {e} (tried {LEARN_RETRIES} times)"));
            }
            Err(_) => {}
        }
    }
}

/// The game into the store (one transaction): what became of it, or why it failed.
fn learn(game: &Game, record: &mut GameRecord) -> Result<String, String> {
    let mut player = lock(&game.player);
    match player.learn_game(&game.settings, record, None) {
        Ok(Learned::New { .. }) => Ok(format!(
            "learned into {}",
            crate::experience::store::shown(&game.settings.store)
        )),
        Ok(Learned::AlreadyKnown) => Ok("already in the store: nothing new to learn".into()),
        Err(e) => Err(e.to_string()),
    }
}

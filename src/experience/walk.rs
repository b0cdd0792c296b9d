//! The one walk over the store's tree: breadth first from the roots of the store's games (the
//! known positions that no known move leads to: the start position, or the openings the games
//! began from), through the known moves, each position once, with its distance in plies from
//! the nearest root. The Polyglot/EPD export, `prune` and the book-depth plot are walks.

use std::collections::{HashSet, VecDeque};

use shakmaty::{Chess, Color, Position};

use super::Error;
use super::book::{KnownMove, ranked};
use super::codec::{compact_key, decode_key};
use super::store::Store;

/// The roots of the store's games as compact keys, the start position first when it is one.
pub fn root_keys(store: &Store) -> Result<Vec<Vec<u8>>, Error> {
    let mut parents = HashSet::new();
    let mut children = HashSet::new();
    for mover in [Color::White, Color::Black] {
        for (parent, _, child, ..) in store.all_rows(mover)? {
            parents.insert(parent);
            children.insert(child);
        }
    }
    let start = compact_key(&Chess::default());
    let mut roots: Vec<Vec<u8>> = parents
        .into_iter()
        .filter(|p| !children.contains(p))
        .collect();
    roots.sort_by(|a, b| (*a != start).cmp(&(*b != start)).then(a.cmp(b)));
    Ok(roots)
}

/// Visits every position within `max_ply` plies of a root, once, with its ply and its known
/// moves of at least `min_games` games (best first, as the book ranks them; possibly none);
/// the walk goes on through those moves only.
pub fn walk(
    store: &Store,
    max_ply: usize,
    min_games: u64,
    mut visit: impl FnMut(&Chess, usize, &[KnownMove]),
) -> Result<(), Error> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    for key in root_keys(store)? {
        if seen.insert(key.clone()) {
            queue.push_back((decode_key(&key)?, 0usize));
        }
    }
    while let Some((pos, ply)) = queue.pop_front() {
        let mut known = ranked(store, &pos)?;
        known.retain(|k| k.stats.games() >= min_games);
        visit(&pos, ply, &known);
        if ply >= max_ply {
            continue;
        }
        for k in known {
            let mut child = pos.clone();
            child.play_unchecked(k.mv);
            if seen.insert(compact_key(&child)) {
                queue.push_back((child, ply + 1));
            }
        }
    }
    Ok(())
}

/// The positions within `plies` plies of a root (compact keys).
pub fn positions_near_roots(store: &Store, plies: usize) -> Result<HashSet<Vec<u8>>, Error> {
    let mut near = HashSet::new();
    walk(store, plies, 0, |pos, _, _| {
        near.insert(compact_key(pos));
    })?;
    Ok(near)
}

/// The learned book's depth: positions with known moves by their ply, up to `max_ply`.
pub fn book_depths(store: &Store, max_ply: usize) -> Result<Vec<u64>, Error> {
    let mut by_ply = vec![0u64; max_ply + 1];
    walk(store, max_ply, 0, |_, ply, known| {
        if !known.is_empty() {
            by_ply[ply] += 1;
        }
    })?;
    while by_ply.len() > 1 && by_ply.last() == Some(&0) {
        by_ply.pop();
    }
    Ok(by_ply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::rules::GameResult;
    use crate::experience::records::test_game;

    #[test]
    fn the_tree_from_its_roots_and_a_prune_that_still_adds_up() {
        let p = std::env::temp_dir().join(format!("deepred-walk-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let mut s = Store::open(&p).unwrap();
        // Two games share 1.e4 e5 2.Nf3; then they part.
        s.learn_game(test_game(
            &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"],
            GameResult::WhiteWins,
        ))
        .unwrap();
        s.learn_game(test_game(
            &["e2e4", "e7e5", "g1f3", "g8f6", "f3e5"],
            GameResult::Draw,
        ))
        .unwrap();
        assert_eq!(root_keys(&s).unwrap(), vec![compact_key(&Chess::default())]);
        let near = positions_near_roots(&s, 2).unwrap();
        assert_eq!(near.len(), 3);
        // Known positions by ply: the start, after 1.e4, after 1...e5, after 2.Nf3 (the games
        // part there), then after 2...Nc6 and 2...Nf6.
        assert_eq!(book_depths(&s, 10).unwrap(), vec![1, 1, 1, 1, 2]);
        // Only moves of 2 games or more: the walk stops after 2.Nf3.
        let mut visited = Vec::new();
        walk(&s, 10, 2, |_, ply, known| visited.push((ply, known.len()))).unwrap();
        assert_eq!(visited, vec![(0, 1), (1, 1), (2, 1), (3, 0)]);
        // Rows with fewer than 2 games beyond ply 2: b8c6, f1b5, g8f6, f3e5.
        let r = s.prune(&near, 2).unwrap();
        assert_eq!(
            r,
            crate::experience::store::Pruned {
                rows_before: 7,
                rows_removed: 4,
                kept_positions: 3
            }
        );
        let start = s.moves_from(&Chess::default()).unwrap();
        assert_eq!(start.len(), 1);
        assert_eq!(start[0].games(), 2);
        let st = s.stats().unwrap();
        assert_eq!(st.white_rows + st.black_rows, 3);
        // The pruned counts make up the difference: moves + pruned = learned games' rows.
        let pruned = s.pruned_counts().unwrap();
        for (i, (moves, games)) in s.consistency().unwrap().into_iter().enumerate() {
            assert_eq!(moves + pruned[i], games);
        }
        let growth = s.growth().unwrap();
        assert_eq!(growth.len(), 2);
        assert_eq!((growth[1].1, growth[1].2), (2, 10));
        let (before, after) = s.vacuum().unwrap();
        assert!(after <= before, "{before} -> {after}");
        drop(s);
        let _ = std::fs::remove_file(&p);
    }
}

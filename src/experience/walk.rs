//! The one walk over the store's tree: breadth first from the roots of the store's games (the
//! start position and the known positions that no known move leads to, such as the openings the
//! games began from; see [`root_keys`] for games that come back to their start), through the
//! known moves, each position once, with its distance in plies from
//! the nearest root. The Polyglot/EPD export, `prune` and the book-depth plot are walks.

use std::collections::{HashMap, HashSet, VecDeque};

use shakmaty::{Chess, Color, Position};

use super::Error;
use super::book::{KnownMove, ranked};
use super::codec::{compact_key, decode_key};
use super::store::Store;

/// The roots of the store's games as compact keys, the start position first when it is one.
///
/// The roots are the known positions no known move leads to, and the start position whenever
/// it has known moves. A game can come back to where it began (1.Nf3 Nf6 2.Ng1 Ng8), so a
/// position a move leads to may still be a game's start: every known position that no root
/// reaches makes a root of its own (the first by key of each such part of the tree), so that
/// the walk, and with it the book and what `prune` keeps, still covers every game.
pub fn root_keys(store: &Store) -> Result<Vec<Vec<u8>>, Error> {
    let mut edges: HashMap<Vec<u8>, Vec<Vec<u8>>> = HashMap::new();
    let mut children = HashSet::new();
    for mover in [Color::White, Color::Black] {
        for (parent, _, child, ..) in store.all_rows(mover)? {
            children.insert(child.clone());
            edges.entry(parent).or_default().push(child);
        }
    }
    let start = compact_key(&Chess::default());
    let mut parents: Vec<&Vec<u8>> = edges.keys().collect();
    parents.sort_by(|a, b| (**a != start).cmp(&(**b != start)).then(a.cmp(b)));
    let firsts: Vec<&Vec<u8>> = parents
        .iter()
        .filter(|p| ***p == start || !children.contains(**p))
        .copied()
        .collect();
    let mut reached = HashSet::new();
    reach(&edges, firsts.clone(), &mut reached);
    let mut roots: Vec<Vec<u8>> = firsts.into_iter().cloned().collect();
    for p in &parents {
        if !reached.contains(*p) {
            roots.push((*p).clone());
            reach(&edges, vec![*p], &mut reached);
        }
    }
    Ok(roots)
}

/// Marks every position `stack`'s positions lead to (themselves included) as reached.
fn reach<'a>(
    edges: &'a HashMap<Vec<u8>, Vec<Vec<u8>>>,
    mut stack: Vec<&'a Vec<u8>>,
    reached: &mut HashSet<&'a Vec<u8>>,
) {
    while let Some(k) = stack.pop() {
        if let Some((key, next)) = edges.get_key_value(k)
            && reached.insert(key)
        {
            stack.extend(next.iter());
        }
    }
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
        // A threshold past any count the store keeps (2^63 and more) prunes every row not
        // kept; it wrapped to a negative number, and pruned none.
        let all = s.prune(&HashSet::new(), u64::MAX).unwrap();
        assert_eq!((all.rows_before, all.rows_removed), (3, 3));
        let (before, after) = s.vacuum().unwrap();
        assert!(after <= before, "{before} -> {after}");
        drop(s);
        let _ = std::fs::remove_file(&p);
    }

    /// A game that comes back to the start position (and one that goes round a loop away
    /// from it) leaves every game's tree reachable: the book and `prune` still see them.
    #[test]
    fn a_game_back_at_its_start_keeps_the_tree_rooted() {
        let p =
            std::env::temp_dir().join(format!("deepred-walk-loop-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let mut s = Store::open(&p).unwrap();
        let dance = ["g1f3", "g8f6", "f3g1", "f6g8"];
        s.learn_game(test_game(&dance, GameResult::Draw)).unwrap();
        let mate = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"];
        s.learn_game(test_game(&mate, GameResult::WhiteWins))
            .unwrap();
        let start = compact_key(&Chess::default());
        assert_eq!(root_keys(&s).unwrap(), vec![start.clone()]);
        // Every known position is walked once: the start, 3 more of the dance, 7 of the mate.
        let mut visited = 0;
        walk(&s, 30, 0, |_, _, _| visited += 1).unwrap();
        assert_eq!(visited, 1 + 3 + 7);
        // A prune of single games keeping 2 plies keeps the moves from the positions within
        // them: 1.Nf3 Nf6 2.Ng1 and 1.e4 e5 2.Qh5.
        let near = positions_near_roots(&s, 2).unwrap();
        let r = s.prune(&near, 2).unwrap();
        assert_eq!((r.rows_before, r.rows_removed), (11, 5), "{r:?}");
        assert_eq!(s.moves_from(&Chess::default()).unwrap().len(), 2);
        drop(s);
        let _ = std::fs::remove_file(&p);
        // A loop away from the start position, in a store without it: the loop's first
        // position by key roots it.
        let mut s = Store::open(&p).unwrap();
        let from = crate::chess::fen::parse_fen("4k3/8/8/8/8/8/8/4K2N w - - 0 1", false).unwrap();
        let mut g = test_game(&[], GameResult::Draw);
        g.moves = crate::chess::notation::uci_line(&from, "h1g3 e8d8 g3h1 d8e8");
        g.start = from;
        s.learn_game(g).unwrap();
        let roots = root_keys(&s).unwrap();
        assert_eq!(roots.len(), 1);
        let mut visited = 0;
        walk(&s, 30, 0, |_, _, _| visited += 1).unwrap();
        assert_eq!(visited, 4);
        drop(s);
        let _ = std::fs::remove_file(&p);
    }
}

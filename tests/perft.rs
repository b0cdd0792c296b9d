//! Move generation against the published perft counts in tests/data/perft.
//! Each position is checked at every depth whose count fits a node budget, so the suite stays
//! within CI's time.

use deepred::chess::fen::parse_fen;
use deepred::chess::perft::{divide, perft};

mod common;

fn suite(name: &str) -> String {
    let p = common::data(&format!("perft/{name}"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// (fen, [(depth, count)]) from `fen ;D1 20 ;D2 400` lines.
fn parse_epd_counts(text: &str) -> Vec<(String, Vec<(u32, u64)>)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| {
                    let mut w = p.split_whitespace();
                    let d = w.next().unwrap().trim_start_matches('D').parse().unwrap();
                    let n = w.next().unwrap().parse().unwrap();
                    (d, n)
                })
                .collect();
            (fen, counts)
        })
        .collect()
}

/// (id, fen, [(depth, count)]).
type Case = (String, String, Vec<(u32, u64)>);

/// (id, fen, [(depth, count)]) from shakmaty's `id / epd / perft d n` files.
fn parse_shakmaty(text: &str) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(id) = line.strip_prefix("id ") {
            out.push((id.to_string(), String::new(), Vec::new()));
        } else if let Some(epd) = line.strip_prefix("epd ") {
            out.last_mut().unwrap().1 = epd.to_string();
        } else if let Some(p) = line.strip_prefix("perft ") {
            let mut w = p.split_whitespace();
            let d = w.next().unwrap().parse().unwrap();
            let n = w.next().unwrap().parse().unwrap();
            out.last_mut().unwrap().2.push((d, n));
        }
    }
    out
}

fn check(fen: &str, counts: &[(u32, u64)], budget: u64, chess960: bool) -> usize {
    let pos = parse_fen(fen, chess960).unwrap_or_else(|e| panic!("{e}"));
    let mut checked = 0;
    for &(d, n) in counts {
        if n > budget {
            continue;
        }
        assert_eq!(perft(&pos, d), n, "perft({d}) of {fen}");
        checked += 1;
    }
    checked
}

#[test]
fn perftsuite() {
    let all = parse_epd_counts(&suite("perftsuite.epd"));
    assert_eq!(all.len(), 126);
    let mut checked = 0;
    for (fen, counts) in &all {
        checked += check(fen, counts, 5_000_000, false);
    }
    assert!(checked > 400, "{checked}");
}

#[test]
fn cpw_standard_positions() {
    let all = parse_epd_counts(&suite("cpw_standard_positions.epd"));
    assert_eq!(all.len(), 7);
    for (fen, counts) in &all {
        // Deeper here: these are the classic six.
        assert!(check(fen, counts, 200_000_000, false) >= 4);
    }
}

#[test]
fn shakmaty_tricky() {
    let all = parse_shakmaty(&suite("shakmaty_tricky.perft"));
    assert!(all.len() >= 20);
    for (id, fen, counts) in &all {
        // Some positions use Chess960 castling (Shredder-FEN).
        let n = check(fen, counts, 20_000_000, false);
        assert!(n >= 1 || counts.is_empty(), "{id}");
    }
}

#[test]
fn chess960_starts() {
    let all = parse_shakmaty(&suite("shakmaty_chess960.perft"));
    assert_eq!(all.len(), 960);
    for (id, fen, counts) in &all {
        assert!(check(fen, counts, 300_000, true) >= 3, "{id}");
    }
}

#[test]
fn divide_sums_to_perft() {
    let pos = parse_fen(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        false,
    )
    .unwrap();
    let mut parts = Vec::new();
    let total = divide(&pos, 3, |m, n| parts.push((m, n)));
    assert_eq!(parts.len(), 48);
    assert_eq!(total, 97862);
    assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), total);
}

//! The store as an opening book for GUIs: a Polyglot `.bin` book (16-byte entries, big-endian:
//! key, move, weight, learn; sorted by key) and an EPD list of the known positions with their
//! best known move. The positions are those reachable through known moves, up to a ply,
//! breadth first, from the roots of the store's games (the start position, or the openings the
//! games started from: see [`super::walk::root_keys`]). The weight of a move
//! is its confidence-aware score (the lower bound of the Wilson interval of the mover's score,
//! as the book ranks moves).
//! Deep Red's Zobrist keys are Polyglot's (shakmaty's `Zobrist64`).

use std::io::Write;
use std::path::Path;

use shakmaty::{Chess, Move, Position, Role};

use super::Error;
use super::store::Store;
use super::walk::walk;
use crate::chess::fen::fen_of;
use crate::chess::notation::move_text;
use crate::chess::zobrist::hash_of;

/// One book entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    pub key: u64,
    pub mv: Move,
    /// Polyglot weight (1..=65001): the confidence-aware score times 65,000, plus one.
    pub weight: u16,
    pub games: u64,
}

/// A position of the book with its entries, the store's best first.
pub type KnownPosition = (Chess, Vec<BookEntry>);

/// The book: every known move with at least `min_games` games of every position reachable
/// from a root of the store's games through such moves, up to `max_ply` plies from it. Also
/// the positions, in the order found, for the EPD export.
pub fn book_entries(
    store: &Store,
    min_games: u64,
    max_ply: usize,
) -> Result<(Vec<BookEntry>, Vec<KnownPosition>), Error> {
    let mut entries = Vec::new();
    let mut positions = Vec::new();
    if max_ply == 0 {
        return Ok((entries, positions));
    }
    walk(store, max_ply - 1, min_games.max(1), |pos, _, known| {
        if known.is_empty() {
            return;
        }
        let key = hash_of(pos);
        let here: Vec<BookEntry> = known
            .iter()
            .map(|k| BookEntry {
                key,
                mv: k.mv,
                weight: (k.stats.confidence_score(pos.turn()).clamp(0.0, 1.0) * 65_000.0).round()
                    as u16
                    + 1,
                games: k.stats.games(),
            })
            .collect();
        entries.extend(here.iter().cloned());
        positions.push((pos.clone(), here));
    })?;
    entries.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)));
    Ok((entries, positions))
}

/// Polyglot's 16-bit move: to file, to rank, from file, from rank (3 bits each, from the low
/// bits), promotion piece (knight 1 .. queen 4). Castling is the king taking its own rook.
pub fn polyglot_move(m: &Move) -> u16 {
    let (from, to) = match *m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(m.to()), m.to()),
    };
    let promo = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    u16::from(to.file() as u8)
        | (u16::from(to.rank() as u8) << 3)
        | (u16::from(from.file() as u8) << 6)
        | (u16::from(from.rank() as u8) << 9)
        | (promo << 12)
}

/// Writes `entries` (sorted by key) as a Polyglot book, whole or not at all.
pub fn write_polyglot(path: &Path, entries: &[BookEntry]) -> std::io::Result<()> {
    crate::chess::files::write_replacing_with(path, |out| {
        for e in entries {
            out.write_all(&e.key.to_be_bytes())?;
            out.write_all(&polyglot_move(&e.mv).to_be_bytes())?;
            out.write_all(&e.weight.to_be_bytes())?;
            out.write_all(&0u32.to_be_bytes())?;
        }
        Ok(())
    })
}

/// Writes the positions as EPD: the position, `bm` the best known move (SAN; the book's
/// choice, `experience show`'s first line), `c0` its games and confidence-aware score; whole
/// or not at all.
pub fn write_epd(path: &Path, positions: &[KnownPosition]) -> std::io::Result<()> {
    crate::chess::files::write_replacing_with(path, |out| write_epd_lines(out, positions))
}

fn write_epd_lines(out: &mut dyn Write, positions: &[KnownPosition]) -> std::io::Result<()> {
    for (pos, here) in positions {
        // The store's own ranking: its best move first.
        let Some(best) = here.first() else {
            continue;
        };
        let fen = fen_of(pos);
        let epd: Vec<&str> = fen.split_whitespace().take(4).collect();
        // With its check or mate sign, as SAN and EPD write a move (`Bb5+`, not `Bb5`).
        let san = shakmaty::san::SanPlus::from_move(pos.clone(), best.mv);
        writeln!(
            out,
            "{} bm {san}; c0 \"{} {} games, confidence {:.1}%\";",
            epd.join(" "),
            move_text(pos, best.mv),
            best.games,
            f64::from(best.weight - 1) / 650.0
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    /// `bm` is the move in SAN with its check or mate sign (it had none).
    #[test]
    fn epd_best_moves_carry_their_check_signs() {
        let entry = |pos: &Chess, uci: &str| BookEntry {
            key: hash_of(pos),
            mv: mv(pos, uci),
            weight: 40_000,
            games: 3,
        };
        let check = crate::chess::fen::parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", false).unwrap();
        let mate =
            crate::chess::fen::parse_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", false).unwrap();
        let quiet = Chess::default();
        let positions = vec![
            (check.clone(), vec![entry(&check, "a1a8")]),
            (mate.clone(), vec![entry(&mate, "a1a8")]),
            (quiet.clone(), vec![entry(&quiet, "e2e4")]),
        ];
        let mut out = Vec::new();
        write_epd_lines(&mut out, &positions).unwrap();
        let text = String::from_utf8(out).unwrap();
        let bms: Vec<&str> = text
            .lines()
            .map(|l| l.split(" bm ").nth(1).unwrap().split(';').next().unwrap())
            .collect();
        assert_eq!(bms, ["Ra8+", "Ra8#", "e4"], "{text}");
    }

    #[test]
    fn moves_in_polyglot_form() {
        let start = Chess::default();
        // e2e4: to e4 (file 4, rank 3), from e2 (file 4, rank 1).
        assert_eq!(
            polyglot_move(&mv(&start, "e2e4")),
            4 | (3 << 3) | (4 << 6) | (1 << 9)
        );
        // White castles short: e1 takes h1.
        let castle =
            crate::chess::fen::parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
        assert_eq!(polyglot_move(&mv(&castle, "e1g1")), 7 | (4 << 6));
        let promo = crate::chess::fen::parse_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1", false).unwrap();
        assert_eq!(
            polyglot_move(&mv(&promo, "a7a8n")),
            (7 << 3) | (6 << 9) | (1 << 12)
        );
    }
}

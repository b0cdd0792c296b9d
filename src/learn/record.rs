//! What each promoted generation is worth: its gate against its parent, and matches against
//! fixed references (pst, and any UCI engine named), written to `generations.csv` (the format
//! `deepred curve-plot --generations` reads) and drawn as `generations.png`; `log.csv` keeps the
//! details of every round.

use std::io::Write;
use std::path::Path;

use super::gate::{GateResult, learned_engine, loop_match};
use super::{Error, LearnOptions, Net};
use crate::games::matchrun::{EngineSpec, MoveLimit};

/// A fixed engine the generations are measured against.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The name in the CSV (`pst`, `stockfish`...).
    pub name: String,
    pub engine: EngineSpec,
}

impl Reference {
    /// This Deep Red with the hand-written evaluation.
    pub fn pst() -> Reference {
        Reference {
            name: "pst".to_string(),
            engine: EngineSpec {
                cmd: None,
                options: vec![("Evaluator".into(), "pst".into())],
            },
        }
    }
}

/// The CSV header of `generations.csv`.
const HEADER: &str = "generation,opponent,games,score_pct,elo,elo_95";

/// Appends a row to `generations.csv` (with its header when new), replacing an earlier row of
/// the same generation and opponent (a round recorded again after a restart).
fn add_row(dir: &Path, row: String) -> Result<(), Error> {
    let path = dir.join("generations.csv");
    // A file that cannot be read is not taken for an empty one (its rows would be lost).
    let old = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io("cannot read", &path)(e)),
    };
    let key: Vec<&str> = row.split(',').take(2).collect();
    let mut lines: Vec<String> = old
        .lines()
        .skip(1)
        .filter(|l| l.split(',').take(2).collect::<Vec<_>>() != key)
        .map(str::to_string)
        .collect();
    lines.push(row);
    let text = std::iter::once(HEADER.to_string())
        .chain(lines)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    crate::chess::files::write_replacing(&path, text.as_bytes())
        .map_err(Error::io("cannot write", &path))
}

fn row(generation: i64, opponent: &str, games: u32, score: f64, elo: f64, err: f64) -> String {
    format!(
        "{generation},{opponent},{games},{:.1},{elo:.0},{err:.0}",
        100.0 * score
    )
}

/// Whether `log.csv` of the work folder has generation `g`'s line (written last by
/// [`record`]).
fn recorded(dir: &Path, g: i64) -> bool {
    std::fs::read_to_string(dir.join("log.csv"))
        .unwrap_or_default()
        .lines()
        .any(|l| l.split(',').next() == Some(&g.to_string()))
}

/// Records `net` if this work folder promoted it and the loop was stopped before its record
/// was finished (it would never come back to it: the next round starts from `net`).
pub fn catch_up(
    opts: &LearnOptions,
    net: &Net,
    status: &(dyn Fn(&str) + Sync),
) -> Result<(), Error> {
    let g = net.generation;
    if g < 1 || recorded(&opts.dir, g) {
        return Ok(());
    }
    let Some(gate) = super::gate::promoting_gate(&opts.dir, g - 1) else {
        return Ok(()); // promoted elsewhere (another trainer, --from, the embedded net)
    };
    status(&format!(
        "record: generation {g} was promoted, but the loop stopped before its record: recording it"
    ));
    record(opts, g - 1, net, &gate, status)
}

/// Records a promoted generation: its gate, its matches against the references, the CSV and
/// the plot, and a line of `log.csv`.
pub fn record(
    opts: &LearnOptions,
    parent: i64,
    promoted: &Net,
    gate: &GateResult,
    status: &(dyn Fn(&str) + Sync),
) -> Result<(), Error> {
    let g = promoted.generation;
    add_row(
        &opts.dir,
        row(
            g,
            &format!("generation {parent}"),
            gate.games,
            gate.score,
            gate.elo,
            gate.error,
        ),
    )?;
    if opts.reference_games > 0 {
        for r in &opts.references {
            status(&format!(
                "record: generation {g} against {}, {} games at {} nodes",
                r.name, opts.reference_games, opts.gate.nodes
            ));
            let pgn = opts
                .dir
                .join("gates")
                .join(format!("gen{g}-vs-{}.pgn", r.name));
            let m = loop_match(
                opts,
                (learned_engine(&promoted.path), r.engine.clone()),
                MoveLimit::Nodes(opts.gate.nodes),
                (opts.reference_games, None),
                &pgn,
                false,
            )?;
            let (elo, err) = m.pentanomial.elo();
            status(&format!(
                "record: generation {g} against {}: {}",
                r.name,
                m.summary().lines().nth(1).unwrap_or("")
            ));
            add_row(
                &opts.dir,
                row(g, &r.name, m.tally.games(), m.tally.score(), elo, err),
            )?;
        }
    }
    let log = opts.dir.join("log.csv");
    let new = !log.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .map_err(Error::io("cannot write", &log))?;
    if new {
        let _ = writeln!(f, "generation,parent,date,gate");
    }
    let _ = writeln!(
        f,
        "{g},{parent},{},\"{}\"",
        crate::chess::pgn::pgn_date(),
        gate.describe()
    );
    plot(&opts.dir)
}

/// Draws `generations.png` from `generations.csv`.
pub fn plot(dir: &Path) -> Result<(), Error> {
    let csv = dir.join("generations.csv");
    let text = std::fs::read_to_string(&csv).map_err(Error::io("cannot read", &csv))?;
    let series = match crate::tools::curve::read_generations(&text) {
        Ok(s) => s,
        // Nothing with a finite Elo yet (a 100% gate): no plot this time.
        Err(_) => return Ok(()),
    };
    crate::tools::curve::plot_against(
        &dir.join("generations.png"),
        "Deep Red learning: each generation against its parent and fixed references",
        "generation",
        &series,
    )
    .map_err(|e| Error::Other(format!("cannot draw the generations: {e}")))
}

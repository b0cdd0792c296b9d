//! `deepred sts`: runs an EPD test suite (Strategic Test Suite points in `c8`/`c9`, or `bm` worth
//! 10 points) on Deep Red or on any UCI engine, and reports per-theme and total scores.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess};

use super::Error;
use crate::games::client::EngineProcess;

#[derive(Debug, Clone)]
pub struct EpdPosition {
    pub fen: String,
    pub id: String,
    pub theme: String,
    /// Scored moves in UCI notation with their points.
    pub moves: Vec<(String, u32)>,
}

/// Splits `s` at `;` outside double quotes.
fn split_ops(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Parses one EPD line. Errors name what is wrong.
pub fn parse_line(line: &str) -> Result<EpdPosition, Error> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(Error::FenFields);
    }
    let fen = format!(
        "{} {} {} {} 0 1",
        fields[0], fields[1], fields[2], fields[3]
    );
    let pos: Chess = crate::chess::fen::parse_fen(&fen, false)?;
    // The operations start after the fourth field, or after the sixth when the line carries
    // a whole FEN's move counters (`... w - - 0 1 bm e4;`: its `bm` was not seen).
    let counters = fields.len() >= 6 && fields[4..6].iter().all(|f| f.parse::<u32>().is_ok());
    let mut rest = line.trim_start();
    for _ in 0..if counters { 6 } else { 4 } {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    let mut id = String::new();
    let mut c8: Option<Vec<u32>> = None;
    let mut c9: Option<Vec<String>> = None;
    let mut bm: Vec<String> = Vec::new();
    for op in split_ops(rest) {
        let op = op.trim();
        let Some((code, operand)) = op.split_once(char::is_whitespace) else {
            continue;
        };
        let operand = operand.trim().trim_matches('"');
        match code {
            "id" => id = operand.to_string(),
            "c8" => {
                c8 = Some(
                    operand
                        .split_whitespace()
                        .map(|p| p.parse::<u32>().map_err(|_| Error::Points(p.to_string())))
                        .collect::<Result<_, _>>()?,
                )
            }
            // Each move checked (an illegal or misspelt one counted towards the most points and
            // never matched) and written in UCI, as the engine answers.
            "c9" => {
                c9 = Some(
                    operand
                        .split_whitespace()
                        .map(|m| {
                            crate::chess::notation::parse_move(&pos, m)
                                .map(|mv| mv.to_uci(CastlingMode::Standard).to_string())
                                .map_err(|_| Error::IllegalPointsMove(m.to_string()))
                        })
                        .collect::<Result<_, _>>()?,
                )
            }
            "bm" => {
                for san in operand.split_whitespace() {
                    let m = san
                        .parse::<San>()
                        .map_err(|_| Error::BadBestMove(san.to_string()))
                        .and_then(|s| {
                            s.to_move(&pos)
                                .map_err(|_| Error::IllegalBestMove(san.to_string()))
                        })?;
                    bm.push(m.to_uci(CastlingMode::Standard).to_string());
                }
            }
            _ => {}
        }
    }
    let moves = match (c8, c9) {
        (Some(points), Some(moves)) if points.len() == moves.len() && !moves.is_empty() => {
            moves.into_iter().zip(points).collect()
        }
        (Some(_), Some(_)) => return Err(Error::PointsMismatch),
        _ if !bm.is_empty() => bm.into_iter().map(|m| (m, 10)).collect(),
        _ => return Err(Error::NoAnswer),
    };
    let theme = match id.rsplit_once('.') {
        Some((t, _)) => t.to_string(),
        None if id.is_empty() => "all".to_string(),
        None => id.clone(),
    };
    Ok(EpdPosition {
        fen,
        id,
        theme,
        moves,
    })
}

/// Parses a whole suite; lines that fail are returned with their line number.
pub fn parse_suite(text: &str) -> (Vec<EpdPosition>, Vec<String>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        match parse_line(l) {
            Ok(p) => ok.push(p),
            Err(e) => bad.push(format!("line {}: {e}", i + 1)),
        }
    }
    (ok, bad)
}

#[derive(Debug, Clone)]
pub struct StsOptions {
    /// Shell command of the engine; `None` runs this Deep Red binary.
    pub engine: Option<String>,
    pub movetime_ms: u64,
    pub threads: usize,
    pub hash_mb: usize,
    pub concurrency: usize,
    /// Extra `setoption` pairs.
    pub options: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct ThemeScore {
    pub theme: String,
    pub points: u32,
    pub max: u32,
    pub positions: usize,
}

#[derive(Debug, Clone)]
pub struct StsReport {
    pub engine: String,
    pub themes: Vec<ThemeScore>,
    pub points: u32,
    pub max: u32,
    pub errors: Vec<String>,
    /// Positions without an answer (the engine failed them twice, or the run stopped).
    pub unanswered: usize,
}

impl StsReport {
    pub fn percent(&self) -> f64 {
        100.0 * f64::from(self.points) / f64::from(self.max.max(1))
    }
    /// CCRL 40/4 estimate from fsmosca/STS-Rating (calibrated at about 200 ms a position).
    pub fn elo_estimate(&self) -> f64 {
        44.523 * self.percent() - 242.85
    }
}

fn start_engine(opts: &StsOptions) -> Result<EngineProcess, crate::games::Error> {
    let mut e = match &opts.engine {
        Some(cmd) => EngineProcess::start_shell(cmd)?,
        None => {
            let exe = std::env::current_exe().map_err(crate::games::Error::NoExecutable)?;
            EngineProcess::start(&exe.to_string_lossy(), &["uci"])?
        }
    };
    // Threads and Hash where the engine has them, within its bounds; the options asked for
    // must all exist and take their values.
    let mut options: Vec<(String, String)> = [
        ("Threads", opts.threads as i64),
        ("Hash", opts.hash_mb as i64),
    ]
    .into_iter()
    .filter(|(k, _)| e.has_option(k))
    .map(|(k, v)| (k.to_string(), e.fit_spin(k, v).to_string()))
    .collect();
    options.extend(opts.options.iter().cloned());
    e.set_options(&options, Duration::from_secs(30))?;
    Ok(e)
}

/// Runs the suite with a progress bar on stderr.
pub fn run(positions: &[EpdPosition], opts: &StsOptions) -> Result<StsReport, Error> {
    let first = start_engine(opts)?;
    let engine_name = first.name.clone();
    let bar = ProgressBar::new(positions.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} positions, {msg} [{elapsed_precise} < {eta}]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let next = AtomicUsize::new(0);
    let got = Mutex::new(vec![None::<u32>; positions.len()]);
    let errors = Mutex::new(Vec::new());
    let points_so_far = std::sync::atomic::AtomicU32::new(0);
    // An engine that fails this many positions in a row (each tried twice) will fail the
    // rest: the run stops rather than wait out every position's timeout.
    const FAILED_IN_A_ROW: usize = 5;
    let failed_in_a_row = AtomicUsize::new(0);
    let stopped = std::sync::atomic::AtomicBool::new(false);
    let concurrency = opts.concurrency.max(1);
    let mut engines = vec![Some(first)];
    for _ in 1..concurrency {
        engines.push(Some(start_engine(opts)?));
    }
    std::thread::scope(|s| {
        for slot in engines.iter_mut() {
            let mut engine = slot.take();
            let (next, got, errors, bar, points_so_far) =
                (&next, &got, &errors, &bar, &points_so_far);
            let (failed_in_a_row, stopped) = (&failed_in_a_row, &stopped);
            s.spawn(move || {
                loop {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= positions.len() {
                        break;
                    }
                    let p = &positions[i];
                    let (mut answer, mut last_error) = (None, None);
                    for _attempt in 0..2 {
                        if engine.is_none() {
                            match start_engine(opts) {
                                Ok(e) => engine = Some(e),
                                Err(err) => {
                                    last_error = Some(err.to_string());
                                    break;
                                }
                            }
                        }
                        let Some(e) = engine.as_mut() else { break };
                        let r = e
                            .send("ucinewgame")
                            .and_then(|_| e.is_ready(Duration::from_secs(30)))
                            .and_then(|_| {
                                e.go(
                                    &format!("position fen {}", p.fen),
                                    &format!("go movetime {}", opts.movetime_ms),
                                    Duration::from_millis(opts.movetime_ms + 10_000),
                                )
                            });
                        match r {
                            Ok(a) => {
                                // No move (`bestmove (none)`) scores nothing.
                                answer = Some(a.bestmove.unwrap_or_default());
                                break;
                            }
                            Err(err) => {
                                last_error = Some(err.to_string());
                                engine = None; // restart it for the next try
                            }
                        }
                    }
                    // One line a position that failed, with the error of its last try.
                    if let (None, Some(err)) = (&answer, last_error) {
                        errors
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(format!("{}: {err}", p.id));
                    }
                    if answer.is_some() {
                        failed_in_a_row.store(0, Ordering::SeqCst);
                    } else if failed_in_a_row.fetch_add(1, Ordering::SeqCst) + 1 >= FAILED_IN_A_ROW
                        && !stopped.swap(true, Ordering::SeqCst)
                    {
                        errors
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(format!(
                                "{FAILED_IN_A_ROW} positions failed in a row: the run stopped"
                            ));
                    }
                    let pts = answer.map(|mv| {
                        p.moves
                            .iter()
                            .find(|(m, _)| *m == mv)
                            .map_or(0, |(_, pts)| *pts)
                    });
                    got.lock().unwrap_or_else(|e| e.into_inner())[i] = pts;
                    let total = points_so_far.fetch_add(pts.unwrap_or(0), Ordering::SeqCst)
                        + pts.unwrap_or(0);
                    bar.set_message(format!("{total} points"));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let got = got.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut themes: Vec<ThemeScore> = Vec::new();
    for (p, pts) in positions.iter().zip(&got) {
        let max = p.moves.iter().map(|(_, v)| *v).max().unwrap_or(0);
        let t = match themes
            .iter_mut()
            .find(|t| theme_key(&t.theme) == theme_key(&p.theme))
        {
            Some(t) => t,
            None => {
                themes.push(ThemeScore {
                    theme: p.theme.clone(),
                    points: 0,
                    max: 0,
                    positions: 0,
                });
                themes.last_mut().expect("just pushed")
            }
        };
        t.points += pts.unwrap_or(0);
        t.max += max;
        t.positions += 1;
    }
    let points = themes.iter().map(|t| t.points).sum();
    let unanswered = got.iter().filter(|p| p.is_none()).count();
    let max = themes.iter().map(|t| t.max).sum();
    Ok(StsReport {
        engine: engine_name,
        themes,
        points,
        max,
        errors: errors.into_inner().unwrap_or_else(|e| e.into_inner()),
        unanswered,
    })
}

/// The report as printed by `deepred sts`.
pub fn format_report(r: &StsReport, opts: &StsOptions) -> String {
    let mut s = format!(
        "Engine: {}  ({} ms/position, {} thread(s))\n",
        r.engine, opts.movetime_ms, opts.threads
    );
    for t in &r.themes {
        s.push_str(&format!(
            "{:<40} {:>5} / {:<5} ({:5.1}%)  {} positions\n",
            t.theme,
            t.points,
            t.max,
            100.0 * f64::from(t.points) / f64::from(t.max.max(1)),
            t.positions
        ));
    }
    s.push_str(&format!(
        "Total: {} / {} ({:.2}%), estimated CCRL 40/4 Elo {:.0}\n",
        r.points,
        r.max,
        r.percent(),
        r.elo_estimate()
    ));
    if !r.errors.is_empty() {
        s.push_str(&format!("{} engine error(s):\n", r.errors.len()));
        for e in &r.errors {
            s.push_str(&format!("  {e}\n"));
        }
    }
    s
}

/// The row a theme counts in. STS ids are "STS(vN.0) Theme.NNN": the version tag names the
/// theme even where the text after it is spelled differently. Other ids are themes as they are
/// ("Mate in one" and "Mate blunder" were one row).
fn theme_key(theme: &str) -> &str {
    match theme.split_whitespace().next() {
        Some(tag) if tag.starts_with("STS(") => tag,
        _ => theme,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c9_moves_are_checked_and_themes_kept_apart() {
        // SAN in c9 is read as its UCI move; an illegal one is refused (both were counted
        // towards the most points and never matched).
        let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -";
        let p = parse_line(&format!(r#"{fen} c8 "10 5"; c9 "Rd8# d1d7";"#)).unwrap();
        assert_eq!(
            p.moves,
            vec![("d1d8".to_string(), 10), ("d1d7".to_string(), 5)]
        );
        let e = parse_line(&format!(r#"{fen} c8 "10 5"; c9 "a1a8 d1d8";"#)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "illegal c9 move 'a1a8' (c9 gives moves in UCI, or SAN)"
        );
        assert_eq!(
            theme_key("STS(v1.0) Undermine"),
            theme_key("STS(v1.0) Undermining")
        );
        assert_ne!(theme_key("Mate in one"), theme_key("Mate blunder"));
    }

    #[test]
    fn parses_sts_line() {
        let l = r#"1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id "STS(v1.0) Undermine.001"; c0 "f5=10, Be5+=2, Bf2=3, Bg4=2"; c7 "f5 Be5+ Bf2 Bg4"; c8 "10 2 3 2"; c9 "f4f5 d4e5 d4f2 f3g4";"#;
        let p = parse_line(l).unwrap();
        assert_eq!(p.theme, "STS(v1.0) Undermine");
        assert_eq!(p.moves[0], ("f4f5".to_string(), 10));
        assert_eq!(p.moves[3], ("f3g4".to_string(), 2));
    }

    #[test]
    fn bm_only_is_worth_ten() {
        let p = parse_line(r#"6k1/8/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id "mate.1";"#).unwrap();
        assert_eq!(p.moves, vec![("d1d8".to_string(), 10)]);
        // A whole FEN, its move counters before the operations.
        let p = parse_line(r#"6k1/8/8/8/8/8/5PPP/3R2K1 w - - 0 1 bm Rd8#; id "mate.1";"#).unwrap();
        assert_eq!(p.moves, vec![("d1d8".to_string(), 10)]);
    }

    #[test]
    fn bad_lines_are_reported() {
        assert!(parse_line("8/8/8 w").is_err());
        assert!(parse_line("8/8/8/8/8/8/8/8 w - - bm e4;").is_err());
        let (ok, bad) = parse_suite("garbage\n6k1/8/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#;\n");
        assert_eq!(ok.len(), 1);
        assert_eq!(bad.len(), 1);
    }
}

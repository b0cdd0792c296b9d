//! Learning curves as pictures: Elo (and the score it stands for) with 95% error bars against
//! games learned, one series per setting, drawn with `plotters` into a PNG. Reads the CSV of
//! `scripts/learn-curve.sh` (`deepred curve-plot`).

use std::path::Path;

use plotters::prelude::*;

use crate::train::plot::{COLORS, decimals, draw_png, legend, use_font};

/// One measured point: x (games learned), Elo and the half-width of its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloPoint {
    pub x: f64,
    pub elo: f64,
    pub err: f64,
}

impl EloPoint {
    /// A point a chart can hold: finite, within a billion (an infinite or 1e308 value made the
    /// axis ranges endless and the plot never finished), an error bar not negative.
    fn plottable(&self) -> bool {
        [self.x, self.elo, self.err]
            .iter()
            .all(|v| v.is_finite() && v.abs() <= 1e9)
            && self.err >= 0.0
    }
}

/// A named series of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<EloPoint>,
}

/// The expected score of an Elo difference.
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The fields of CSV line `i` (0-based), at least the 6 both curve files have.
fn fields(line: &str, i: usize) -> Result<Vec<&str>, super::Error> {
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    if f.len() < 6 {
        return Err(super::Error::Curve(format!(
            "line {}: fewer than 6 fields",
            i + 1
        )));
    }
    Ok(f)
}

/// The header of a learning curve's CSV (`scripts/learn-curve.sh`, `scripts/explore-curve.sh`;
/// more columns may follow) and of a generations CSV (`deepred learn`,
/// `scripts/learned-generations.sh`).
const CURVE_HEADER: &str = "block,games_learned,learning,score_pct,elo,elo_95";
const GENERATIONS_HEADER: &str = "generation,opponent,games,score_pct,elo,elo_95";

/// The CSV `text` begins with `want` (its header), or the error says which file it is not (a
/// CSV of the other kind was drawn as this one: games learned became opponents).
fn header_is(text: &str, want: &str, what: &str, hint: &str) -> Result<(), super::Error> {
    let header = text.lines().next().unwrap_or_default().trim();
    if header.replace(' ', "").starts_with(want) {
        return Ok(());
    }
    Err(super::Error::Curve(format!(
        "the first line is '{header}', not the header of {what} ('{want}'){hint}"
    )))
}

/// Reads the CSV of `scripts/learn-curve.sh` (`block,games_learned,learning,score_pct,elo,
/// elo_95,...`): the rows with learning on, and the learning-off row as a flat series across
/// the same games. Rows whose Elo cannot be read (a 0% or 100% block) are left out.
pub fn read_curve(text: &str) -> Result<Vec<Series>, super::Error> {
    let hint = if header_is(text, GENERATIONS_HEADER, "", "").is_ok() {
        ": a generations CSV is drawn with --generations"
    } else {
        ""
    };
    header_is(text, CURVE_HEADER, "a learning curve's CSV", hint)?;
    let mut on = Vec::new();
    let mut off: Option<(f64, f64)> = None;
    for (i, line) in text.lines().enumerate().skip(1) {
        let f = fields(line, i)?;
        let (Ok(x), Ok(elo), Ok(err)) = (f[1].parse(), f[4].parse(), f[5].parse::<f64>()) else {
            continue;
        };
        if !(EloPoint { x, elo, err }).plottable() {
            continue;
        }
        match f[2] {
            "off" => off = Some((elo, err)),
            _ => on.push(EloPoint { x, elo, err }),
        }
    }
    if on.is_empty() {
        return Err(super::Error::Curve("no block with learning on".into()));
    }
    let mut series = vec![Series {
        name: "learning on".into(),
        points: on.clone(),
    }];
    if let Some((elo, err)) = off {
        series.push(Series {
            name: "learning off".into(),
            points: on.iter().map(|p| EloPoint { x: p.x, elo, err }).collect(),
        });
    }
    Ok(series)
}

/// Reads the CSV of `scripts/learned-generations.sh` (`generation,opponent,games,score_pct,
/// elo,elo_95`): one series per opponent, against the generation; the rows of generation k
/// against "generation k-1" make one series, against the previous generation (a fixed
/// generation as a reference is another opponent: "generation 3 (fixed)"). Rows whose Elo
/// cannot be read (a 0% or 100% match) are left out.
pub fn read_generations(text: &str) -> Result<Vec<Series>, super::Error> {
    let hint = if header_is(text, CURVE_HEADER, "", "").is_ok() {
        ": a learning curve's CSV is drawn without --generations"
    } else {
        ""
    };
    header_is(text, GENERATIONS_HEADER, "a generations CSV", hint)?;
    let mut series: Vec<Series> = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f = fields(line, i)?;
        let (Ok(x), Ok(elo), Ok(err)) = (f[0].parse(), f[4].parse::<f64>(), f[5].parse::<f64>())
        else {
            continue;
        };
        if !(EloPoint { x, elo, err }).plottable() {
            continue;
        }
        let parent = f[0].parse::<i64>().map(|g| format!("generation {}", g - 1));
        let name = if parent.is_ok_and(|p| p == f[1]) {
            "against the previous generation".to_string()
        } else {
            format!("against {}", f[1])
        };
        let point = EloPoint { x, elo, err };
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    if series.is_empty() {
        return Err(super::Error::Curve(
            "no generation with a finite Elo and error bar (an error bar is not negative)".into(),
        ));
    }
    Ok(series)
}

/// Draws `series` into `out` (PNG): Elo above, the score it stands for below, each point with
/// its 95% error bar, against games learned.
pub fn plot(out: &Path, title: &str, series: &[Series]) -> Result<(), super::Error> {
    plot_against(out, title, "games learned", series)
}

/// [`plot`] with another name for the x axis.
pub fn plot_against(
    out: &Path,
    title: &str,
    x_desc: &str,
    series: &[Series],
) -> Result<(), super::Error> {
    draw_png(out, (900, 700), |root| {
        use_font()?;
        let points = || series.iter().flat_map(|s| s.points.iter());
        let (x0, x1) = points().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
        let (x0, x1) = if x0 <= x1 {
            (x0, x1.max(x0 + 1.0))
        } else {
            (0.0, 1.0)
        };
        let pad = (x1 - x0) * 0.03;
        // A short axis (generations 1..k) gets one label per whole number and none between
        // them; a long one (games learned) the usual ten.
        let whole = x1 - x0 <= 10.0;
        let x_labels = if whole { (x1 - x0) as usize + 1 } else { 10 };
        let x_label = |x: &f64| {
            if whole && (x - x.round()).abs() > 1e-6 {
                String::new()
            } else {
                format!("{x:.0}")
            }
        };
        let (lo, hi) = points().fold((0f64, 0f64), |(a, b), p| {
            (a.min(p.elo - p.err), b.max(p.elo + p.err))
        });
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(380);
        for (panel, score) in [(&top, false), (&bottom, true)] {
            let (ylo, yhi) = if score {
                (100.0 * score_of(lo) - 2.0, 100.0 * score_of(hi) + 2.0)
            } else {
                (lo - 10.0, hi + 10.0)
            };
            // Headroom above the highest bar for the legend, so that it hides no point.
            let yhi = yhi + (yhi - ylo) * 0.08 * (series.len() + 1) as f64;
            let decimals = decimals(yhi - ylo);
            let mut chart = ChartBuilder::on(panel)
                .caption(if score { "Score" } else { title }, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(x0 - pad..x1 + pad, ylo..yhi)?;
            chart
                .configure_mesh()
                .light_line_style(WHITE)
                .x_labels(x_labels)
                .x_label_formatter(&x_label)
                .y_label_formatter(&|y| format!("{:.*}", decimals, y))
                .x_desc(x_desc)
                .y_desc(if score { "score (%)" } else { "Elo" })
                .label_style(("sans-serif", 14))
                .draw()?;
            for (i, s) in series.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let y = |v: f64| if score { 100.0 * score_of(v) } else { v };
                // Series side by side at one x, so that their bars do not hide each other.
                let shift = pad * 0.4 * i as f64;
                chart
                    .draw_series(LineSeries::new(
                        s.points.iter().map(|p| (p.x + shift, y(p.elo))),
                        color.stroke_width(2),
                    ))?
                    .label(format!("{} (95% error bars)", s.name))
                    .legend(move |(x, yy)| {
                        PathElement::new(vec![(x, yy), (x + 20, yy)], color.stroke_width(2))
                    });
                chart.draw_series(s.points.iter().map(|p| {
                    ErrorBar::new_vertical(
                        p.x + shift,
                        y(p.elo - p.err),
                        y(p.elo),
                        y(p.elo + p.err),
                        color.filled(),
                        6,
                    )
                }))?;
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    })
    .map_err(|e| super::Error::Plot(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "block,games_learned,learning,score_pct,elo,elo_95,remembered_pct,known_pct
-,0,off,49.0,-7,65,,
0,0,on,40.5,-67,65,,
1,100,on,52.5,17,67,12.0,30.1
2,200,on,100.0,inf,inf,14.0,31.0
";

    #[test]
    fn the_csv_becomes_two_series_and_a_picture() {
        let s = read_curve(CSV).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0].points,
            vec![
                EloPoint {
                    x: 0.0,
                    elo: -67.0,
                    err: 65.0
                },
                EloPoint {
                    x: 100.0,
                    elo: 17.0,
                    err: 67.0
                }
            ]
        );
        assert!(s[1].points.iter().all(|p| p.elo == -7.0 && p.err == 65.0));
        assert!((score_of(0.0) - 0.5).abs() < 1e-12);
        assert!((score_of(-400.0) - 1.0 / 11.0).abs() < 1e-12);
        assert!(read_curve("header\n1,2,on\n").is_err());
        // Values no axis can hold are left out, as an infinite Elo is (they made the plot
        // loop for ever): an infinite or huge x, Elo or error bar, a NaN.
        for bad in [
            "inf,on,50,14,60",
            "1,on,50,inf,60",
            "1,on,50,1e308,1e308",
            "1,on,50,nan,60",
        ] {
            let text = format!("block,games_learned,learning,score_pct,elo,elo_95\n0,{bad}\n");
            assert!(read_curve(&text).is_err(), "{bad}");
        }
        assert!(
            read_generations(&format!("{GENERATIONS_HEADER}\ninf,pst,400,60,70,30\n")).is_err()
        );
        // A CSV of the other kind is refused, naming the flag that reads it (the games learned
        // of a learning curve were drawn as opponents).
        let curve = format!("{CURVE_HEADER}\n0,100,on,55,35,30\n");
        let e = read_generations(&curve).unwrap_err().to_string();
        assert!(e.contains("drawn without --generations"), "{e}");
        let generations = format!("{GENERATIONS_HEADER}\n1,pst,400,60,70,30\n");
        let e = read_curve(&generations).unwrap_err().to_string();
        assert!(e.contains("drawn with --generations"), "{e}");
        assert!(read_curve(&curve).is_ok() && read_generations(&generations).is_ok());
        let g = read_generations(
            "generation,opponent,games,score_pct,elo,elo_95\n1,pst,400,60.0,70,30\n2,pst,400,65,108,31\n2,generation 1,400,55,35,30\n3,generation 2,400,49,-6,28\n3,generation 1 (fixed),200,60,70,40\n",
        )
        .unwrap();
        assert_eq!(g.len(), 3);
        assert_eq!(g[2].name, "against generation 1 (fixed)");
        assert_eq!(
            g[2].points,
            vec![EloPoint {
                x: 3.0,
                elo: 70.0,
                err: 40.0
            }]
        );
        assert_eq!(g[0].name, "against pst");
        assert_eq!(g[0].points.len(), 2);
        assert_eq!(g[1].name, "against the previous generation");
        assert_eq!(
            g[1].points,
            vec![
                EloPoint {
                    x: 2.0,
                    elo: 35.0,
                    err: 30.0
                },
                EloPoint {
                    x: 3.0,
                    elo: -6.0,
                    err: 28.0
                }
            ]
        );
        assert!(read_generations("h\n1,pst,0,100,inf,inf\n").is_err());
        assert!(read_curve("header\n-,0,off,50,0,10\n").is_err());
        let out = std::env::temp_dir().join(format!("deepred-curve-{}.png", std::process::id()));
        plot(&out, "Deep Red against Stockfish", &s).unwrap();
        let png = std::fs::read(&out).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // 900 x 700 (the IHDR chunk's width and height).
        assert_eq!(&png[16..24], &[0, 0, 3, 132, 0, 0, 2, 188]);
        let _ = std::fs::remove_file(&out);
    }
}

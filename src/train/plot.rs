//! Line plots as PNG pictures, drawn with `plotters` (the font in assets/fonts) and written whole
//! or not at all: a training run's loss and accuracy per epoch, the store's growth
//! (`experience stats --plot`), and, through the helpers here, the learning curves and the
//! generations of `tools::curve`.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

/// The font of the labels (assets/fonts: DejaVu Sans cut to ASCII).
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");

/// The lines' colours, in turn.
pub const COLORS: [RGBColor; 3] = [
    RGBColor(200, 30, 30),
    RGBColor(60, 60, 200),
    RGBColor(30, 140, 30),
];

/// Gives the plots their font (registering it again is harmless; it fails only on a broken font).
pub fn use_font() -> Result<(), Box<dyn std::error::Error>> {
    register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "the plot font could not be read".into())
}

/// The picture `draw` makes on a `width` × `height` canvas, written to `out` as PNG whole or
/// not at all (a plot cut short by a full disk would be a broken file).
pub fn draw_png(
    out: &Path,
    (width, height): (u32, u32),
    draw: impl FnOnce(
        &DrawingArea<BitMapBackend, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), super::Error> {
    use image::ImageEncoder;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        draw(&root)
            .and_then(|()| root.present().map_err(Into::into))
            .map_err(|e| super::Error::Plot(format!("cannot draw '{}': {e}", out.display())))?;
    }
    crate::chess::files::write_replacing_with(out, |w| {
        image::codecs::png::PngEncoder::new(w)
            .write_image(&pixels, width, height, image::ColorType::Rgb8)
            .map_err(std::io::Error::other)
    })
    .map_err(|e| super::Error::Plot(format!("cannot write '{}': {e}", out.display())))
}

/// Enough decimals on an axis of this range that neighbouring ticks differ.
pub fn decimals(range: f64) -> usize {
    match range {
        r if r < 1.0 => 2,
        r if r < 10.0 => 1,
        _ => 0,
    }
}

pub type Chart<'a, 'b> =
    ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The legend of a panel's lines, framed, at `position`.
pub fn legend<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    position: SeriesLabelPosition,
) -> Result<(), Box<dyn std::error::Error>> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(position)
        .draw()?;
    Ok(())
}

/// One panel of [`plot_lines`]: a title, axis names and named lines of points.
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
}

/// Draws `panels` one above the other into `out` (PNG).
pub fn plot_lines(out: &Path, panels: &[Panel]) -> Result<(), super::Error> {
    draw_png(out, (900, 340 * panels.len().max(1) as u32), |root| {
        use_font()?;
        root.fill(&WHITE)?;
        for (area, panel) in root
            .split_evenly((panels.len().max(1), 1))
            .iter()
            .zip(panels)
        {
            // Points that are not numbers (an infinite loss) are left out of the ranges and
            // the lines: plotters would never finish its ticks.
            let finite = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
            let pts = || {
                panel
                    .lines
                    .iter()
                    .flat_map(|(_, p)| p.iter())
                    .filter(finite)
            };
            let (x0, x1) = span(pts().map(|p| p.0), 0.0);
            let (y0, y1) = span(pts().map(|p| p.1), 0.05);
            let (dx, dy) = (decimals(x1 - x0), decimals(y1 - y0));
            // Whole numbers on a short axis (epochs 1..k): one label each, none between.
            let whole = x1 - x0 <= 20.0 && pts().all(|p| p.0.fract() == 0.0);
            let x_labels = if whole { (x1 - x0) as usize + 1 } else { 10 };
            let x_label = |x: &f64| match whole {
                true if x.fract().abs() > 1e-6 => String::new(),
                true => format!("{x:.0}"),
                false => format!("{:.*}", dx, x),
            };
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .build_cartesian_2d(x0..x1, y0..y1)?;
            chart
                .configure_mesh()
                .light_line_style(WHITE)
                .x_labels(x_labels)
                .x_label_formatter(&x_label)
                .y_label_formatter(&|y| format!("{:.*}", dy, y))
                .x_desc(panel.x_label.as_str())
                .y_desc(panel.y_label.as_str())
                .label_style(("sans-serif", 14))
                .draw()?;
            for (i, (name, points)) in panel.lines.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let points = || points.iter().filter(finite).copied();
                // Each point marked too: a line of one point (the first epoch) is still seen.
                chart.draw_series(points().map(|p| Circle::new(p, 3, color.filled())))?;
                chart
                    .draw_series(LineSeries::new(points(), color.stroke_width(2)))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
            legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        }
        Ok(())
    })
}

/// The axis range of `values`: their smallest to their largest, widened by `pad` of the range
/// on each side (not below 0 for values that are not), a unit around a single value, and 0..1
/// for none.
fn span(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if lo > hi {
        return (0.0, 1.0);
    }
    if lo == hi {
        return ((lo - 1.0).max(lo.min(0.0)), hi + 1.0);
    }
    let widen = (hi - lo) * pad;
    ((lo - widen).max(lo.min(0.0)), hi + widen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The picture as pixels: a PNG of the asked size, read back by an independent decoder.
    fn pixels(path: &Path) -> image::RgbImage {
        image::open(path).unwrap().to_rgb8()
    }

    /// Each panel scaled to its data (accuracy between 0.85 and 0.91 fills the panel), not
    /// below 0 for counts, and a usable range for one value or none.
    #[test]
    fn axes_span_the_data() {
        let (lo, hi) = span([0.85, 0.91, 0.88].into_iter(), 0.05);
        assert!(
            (lo - 0.847).abs() < 1e-9 && (hi - 0.913).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(span([1.0, 4567.0].into_iter(), 0.05).0, 0.0);
        assert_eq!(span([-2.0, 2.0].into_iter(), 0.0), (-2.0, 2.0));
        assert_eq!(span([3.0].into_iter(), 0.0), (2.0, 4.0));
        assert_eq!(span([0.5].into_iter(), 0.0), (0.0, 1.5));
        assert_eq!(span(std::iter::empty(), 0.05), (0.0, 1.0));
    }

    /// Two panels, each with two lines in their colours, and text (titles, ticks, legend) in
    /// black; the file is a PNG of the panels' size.
    #[test]
    fn panels_have_their_lines_and_labels() {
        let dir = std::env::temp_dir().join(format!("deepred-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("curves.png");
        let line = |name: &str, ys: &[f64]| {
            let points = ys.iter().enumerate().map(|(i, &y)| (i as f64 + 1.0, y));
            (name.to_string(), points.collect())
        };
        let panel = |title: &str, lines| Panel {
            title: title.into(),
            x_label: "epoch".into(),
            y_label: "value".into(),
            lines,
        };
        let panels = [
            panel(
                "Loss",
                vec![
                    line("train", &[0.6, 0.5, 0.45]),
                    line("validation", &[0.62, 0.55, 0.56]),
                ],
            ),
            panel(
                "Accuracy",
                vec![
                    line("train", &[0.5, 0.6, 0.7]),
                    line("validation", &[0.5, 0.55, 0.6]),
                ],
            ),
        ];
        // One panel: 900 x 340 (the header's width and height, as any reader takes them).
        plot_lines(&path, &panels[..1]).unwrap();
        let png = std::fs::read(&path).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[16..24], &[0, 0, 3, 132, 0, 0, 1, 84]);
        plot_lines(&path, &panels).unwrap();
        let img = pixels(&path);
        assert_eq!(img.dimensions(), (900, 680));
        let count = |img: &image::RgbImage, rows: std::ops::Range<u32>, c: RGBColor| {
            rows.flat_map(|y| (0..900).map(move |x| (x, y)))
                .filter(|&(x, y)| img.get_pixel(x, y).0 == [c.0, c.1, c.2])
                .count()
        };
        for rows in [0..340, 340..680] {
            assert!(count(&img, rows.clone(), COLORS[0]) > 100, "{rows:?}");
            assert!(count(&img, rows.clone(), COLORS[1]) > 100, "{rows:?}");
            assert!(count(&img, rows, BLACK) > 500);
        }
        // A panel of one point, one with none and one with an infinite value: drawn, the point
        // marked (a one-epoch run showed an empty panel).
        let odd = [
            panel("One epoch", vec![line("train", &[0.5])]),
            panel("No epoch yet", vec![line("train", &[])]),
            panel("Diverged", vec![line("train", &[0.5, f64::INFINITY, 0.4])]),
        ];
        plot_lines(&path, &odd).unwrap();
        let img = pixels(&path);
        // (the empty panel's red is its legend's swatch alone)
        let legend_only = count(&img, 340..680, COLORS[0]);
        assert!(count(&img, 0..340, COLORS[0]) > legend_only + 20);
        assert!(count(&img, 680..1020, COLORS[0]) > legend_only + 100);
        // Nothing beside the picture: it was written whole, by its own name.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // A folder where the picture should go: a clear error naming it, nothing written.
        let err = plot_lines(&dir, &panels).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("cannot write '{}'", dir.display())),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

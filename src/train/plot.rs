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
            let pts = || panel.lines.iter().flat_map(|(_, p)| p.iter());
            let (x0, x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
            let (y0, y1) = pts().fold((0f64, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
            let (x0, x1) = if x0 < x1 {
                (x0, x1)
            } else {
                (x0.min(0.0), x0.max(0.0) + 1.0)
            };
            let y1 = if y1 > y0 { y1 * 1.05 } else { y0 + 1.0 };
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
                chart
                    .draw_series(LineSeries::new(
                        points.iter().copied(),
                        color.stroke_width(2),
                    ))?
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The picture as pixels: a PNG of the asked size, read back by an independent decoder.
    fn pixels(path: &Path) -> image::RgbImage {
        image::open(path).unwrap().to_rgb8()
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
        let count = |rows: std::ops::Range<u32>, c: RGBColor| {
            rows.flat_map(|y| (0..900).map(move |x| (x, y)))
                .filter(|&(x, y)| img.get_pixel(x, y).0 == [c.0, c.1, c.2])
                .count()
        };
        for rows in [0..340, 340..680] {
            assert!(count(rows.clone(), COLORS[0]) > 100, "{rows:?}");
            assert!(count(rows.clone(), COLORS[1]) > 100, "{rows:?}");
            assert!(count(rows, BLACK) > 500);
        }
        // Nothing beside the picture: it was written whole, by its own name.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // A folder where the picture should go: a clear error naming it, nothing written.
        let err = plot_lines(&dir, &panels).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("cannot write '{}'", dir.display())),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

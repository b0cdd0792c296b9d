//! A small PNG line plot of training curves (per-epoch loss and accuracy), written without a
//! plotting library: lines and 5x7 bitmap text (tick values, the axis name, a legend) are drawn
//! into an RGB bitmap and stored as a PNG with uncompressed deflate blocks, which every viewer
//! reads.

use std::io::Write;
use std::path::Path;

/// One curve: a name, a colour and its points (x = epoch, y = value).
pub struct Series {
    pub name: String,
    pub color: [u8; 3],
    pub points: Vec<(f64, f64)>,
}

const W: usize = 800;
const H: usize = 300;
/// Plot area margins: left (tick values), right, top (legend), bottom (epochs, axis name).
const LEFT: usize = 64;
const RIGHT: usize = 20;
const TOP: usize = 28;
const BOTTOM: usize = 40;
const INK: [u8; 3] = [0, 0, 0];

/// 5x7 glyphs, one row per byte, bit 4 the leftmost column.
fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_lowercase() {
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 2, 4, 8, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        '%' => [24, 25, 2, 4, 8, 19, 3],
        ':' => [0, 12, 12, 0, 12, 12, 0],
        '(' => [2, 4, 8, 8, 8, 4, 2],
        ')' => [8, 4, 2, 2, 2, 4, 8],
        'a' => [0, 0, 14, 1, 15, 17, 15],
        'b' => [16, 16, 22, 25, 17, 17, 30],
        'c' => [0, 0, 14, 16, 16, 17, 14],
        'd' => [1, 1, 13, 19, 17, 17, 15],
        'e' => [0, 0, 14, 17, 31, 16, 14],
        'f' => [6, 9, 8, 28, 8, 8, 8],
        'g' => [0, 15, 17, 17, 15, 1, 14],
        'h' => [16, 16, 22, 25, 17, 17, 17],
        'i' => [4, 0, 12, 4, 4, 4, 14],
        'j' => [2, 0, 6, 2, 2, 18, 12],
        'k' => [16, 16, 18, 20, 24, 20, 18],
        'l' => [12, 4, 4, 4, 4, 4, 14],
        'm' => [0, 0, 26, 21, 21, 17, 17],
        'n' => [0, 0, 22, 25, 17, 17, 17],
        'o' => [0, 0, 14, 17, 17, 17, 14],
        'p' => [0, 0, 30, 17, 30, 16, 16],
        'q' => [0, 0, 13, 19, 15, 1, 1],
        'r' => [0, 0, 22, 25, 16, 16, 16],
        's' => [0, 0, 14, 16, 14, 1, 30],
        't' => [8, 8, 28, 8, 8, 9, 6],
        'u' => [0, 0, 17, 17, 17, 19, 13],
        'v' => [0, 0, 17, 17, 17, 10, 4],
        'w' => [0, 0, 17, 17, 21, 21, 10],
        'x' => [0, 0, 17, 10, 4, 10, 17],
        'y' => [0, 0, 17, 17, 15, 1, 14],
        'z' => [0, 0, 31, 2, 4, 8, 31],
        _ => [0; 7],
    }
}

/// Width in pixels of `text` drawn by `Canvas::text` (6 per character, the last without gap).
fn text_width(text: &str) -> i64 {
    (text.chars().count() as i64 * 6 - 1).max(0)
}

/// A tick value with as many decimals as the panel's range needs.
fn tick_label(v: f64, range: f64) -> String {
    let decimals = (2.0 - range.log10().floor()).clamp(0.0, 6.0) as usize;
    format!("{v:.decimals$}")
}

struct Canvas {
    px: Vec<u8>,
}

impl Canvas {
    fn new() -> Self {
        Canvas {
            px: vec![255; W * H * 3],
        }
    }

    fn set(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if (0..W as i64).contains(&x) && (0..H as i64).contains(&y) {
            let i = (y as usize * W + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    /// Draws `text` with its top-left corner at (x, y).
    fn text(&mut self, x: i64, y: i64, text: &str, c: [u8; 3]) {
        for (i, ch) in text.chars().enumerate() {
            for (row, bits) in glyph(ch).iter().enumerate() {
                for col in 0..5 {
                    if bits & (16 >> col) != 0 {
                        self.set(x + i as i64 * 6 + col, y + row as i64, c);
                    }
                }
            }
        }
    }

    fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), c: [u8; 3]) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        loop {
            self.set(x, y, c);
            self.set(x, y + 1, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }
}

/// Draws `panels` side by side vertically (e.g. loss above, accuracy below), each scaled to its
/// own data, with a light grid at tenths, and writes the PNG to `path`.
pub fn write_png(path: &Path, panels: &[Vec<Series>]) -> Result<(), super::Error> {
    let n = panels.len().max(1);
    let mut rows: Vec<u8> = Vec::new();
    for panel in panels {
        let mut c = Canvas::new();
        let pts = panel.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts {
            if y.is_finite() {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if x1 - x0 < 1e-9 {
            x1 = x0 + 1.0;
        }
        if y1 - y0 < 1e-9 {
            y1 = y0 + 1.0;
        }
        let map = |x: f64, y: f64| -> (i64, i64) {
            let px = LEFT as f64 + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT) as f64;
            let py = (H - BOTTOM) as f64 - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM) as f64;
            (px.round() as i64, py.round() as i64)
        };
        // Grid at tenths of the value range, with the value at every other line.
        for i in 0..=10 {
            let y = y0 + (y1 - y0) * f64::from(i) / 10.0;
            let (_, py) = map(x0, y);
            c.line((LEFT as i64, py), ((W - RIGHT) as i64, py), [225, 225, 225]);
            if i % 2 == 0 {
                let label = tick_label(y, y1 - y0);
                c.text(LEFT as i64 - 6 - text_width(&label), py - 3, &label, INK);
            }
        }
        let (ax, ay) = map(x0, y0);
        c.line((ax, ay), (map(x1, y0).0, ay), INK);
        c.line((ax, ay), (ax, map(x0, y1).1), INK);
        // Epoch ticks: whole epochs, at most about 20 labels.
        let step = ((x1 - x0) / 20.0).ceil().max(1.0);
        let mut e = x0.ceil();
        while e <= x1 + 1e-9 {
            let (px, _) = map(e, y0);
            c.line((px, ay), (px, ay + 4), INK);
            let label = format!("{e:.0}");
            c.text(px - text_width(&label) / 2, ay + 8, &label, INK);
            e += step;
        }
        let name = "epoch";
        let mid = (LEFT + (W - LEFT - RIGHT) / 2) as i64;
        c.text(mid - text_width(name) / 2, (H - 14) as i64, name, INK);
        // Legend along the top: a colour swatch and the series name.
        let mut lx = LEFT as i64;
        for s in panel {
            for d in 0..4 {
                c.line((lx, 10 + d), (lx + 16, 10 + d), s.color);
            }
            c.text(lx + 22, 9, &s.name, INK);
            lx += 22 + text_width(&s.name) + 24;
        }
        for s in panel {
            for w in s.points.windows(2) {
                c.line(map(w[0].0, w[0].1), map(w[1].0, w[1].1), s.color);
            }
            for &(x, y) in &s.points {
                let (px, py) = map(x, y);
                for d in -2..=2 {
                    c.set(px + d, py, s.color);
                    c.set(px, py + d, s.color);
                }
            }
        }
        rows.extend_from_slice(&c.px);
    }
    let height = H * n;
    let mut raw = Vec::with_capacity(height * (W * 3 + 1));
    for row in rows.chunks_exact(W * 3) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let mut png = Vec::new();
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(W as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(&png))
        .map_err(|source| super::Error::Write {
            path: path.to_path_buf(),
            source,
        })
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    while let Some(b) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = b.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(b);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_adler_match_known_values() {
        // The CRC-32 of "123456789" is the standard check value.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let z = zlib_stored(b"Wikipedia");
        // Adler-32 of "Wikipedia" is 0x11E60398.
        assert_eq!(&z[z.len() - 4..], &0x11E6_0398u32.to_be_bytes());
    }

    #[test]
    fn writes_a_png_with_the_right_header() {
        let path = std::env::temp_dir().join(format!("deepred-plot-{}.png", std::process::id()));
        let s = Series {
            name: "acc".into(),
            color: [200, 0, 0],
            points: vec![(1.0, 0.5), (2.0, 0.7), (3.0, 0.8)],
        };
        write_png(&path, &[vec![s]]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&bytes[12..16], b"IHDR");
        assert_eq!(
            u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
            W as u32
        );
        assert_eq!(
            u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
            H as u32
        );
        let _ = std::fs::remove_file(&path);
    }

    /// The RGB rows of a PNG written by `write_png` (one IDAT of stored deflate blocks).
    fn decode(bytes: &[u8]) -> Vec<Vec<[u8; 3]>> {
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap()) as usize;
        let mut at = 8;
        let mut idat = Vec::new();
        while at < bytes.len() {
            let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            if &bytes[at + 4..at + 8] == b"IDAT" {
                idat.extend_from_slice(&bytes[at + 8..at + 8 + len]);
            }
            at += 12 + len;
        }
        let mut raw = Vec::new();
        let mut p = 2;
        loop {
            let last = idat[p] & 1 == 1;
            let len = u16::from_le_bytes([idat[p + 1], idat[p + 2]]) as usize;
            raw.extend_from_slice(&idat[p + 5..p + 5 + len]);
            p += 5 + len;
            if last {
                break;
            }
        }
        raw.chunks_exact(width * 3 + 1)
            .map(|r| {
                assert_eq!(r[0], 0, "filter byte");
                r[1..].chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
            })
            .collect()
    }

    #[test]
    fn plot_has_curves_tick_values_epochs_and_legend() {
        let path = std::env::temp_dir().join(format!("deepred-plot2-{}.png", std::process::id()));
        let red = [200, 40, 40];
        let blue = [40, 40, 200];
        let series = |name: &str, color, ys: &[f64]| Series {
            name: name.into(),
            color,
            points: ys
                .iter()
                .enumerate()
                .map(|(i, &y)| (i as f64 + 1.0, y))
                .collect(),
        };
        write_png(
            &path,
            &[vec![
                series("train loss", red, &[0.6, 0.5, 0.45]),
                series("validation loss", blue, &[0.62, 0.55, 0.56]),
            ]],
        )
        .unwrap();
        let px = decode(&std::fs::read(&path).unwrap());
        let _ = std::fs::remove_file(&path);
        assert_eq!((px.len(), px[0].len()), (H, W));
        let count = |xs: std::ops::Range<usize>, ys: std::ops::Range<usize>, c: [u8; 3]| {
            ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
                .filter(|&(x, y)| px[y][x] == c)
                .count()
        };
        // Both curves inside the plot area.
        assert!(count(LEFT..W - RIGHT, TOP..H - BOTTOM, red) > 100);
        assert!(count(LEFT..W - RIGHT, TOP..H - BOTTOM, blue) > 100);
        // Tick values left of the axis, epoch numbers and the axis name below it, the legend
        // (swatches and names) above the plot area.
        assert!(count(0..LEFT - 2, TOP - 4..H - BOTTOM + 4, INK) > 60);
        assert!(count(LEFT..W - RIGHT, H - BOTTOM + 6..H, INK) > 40);
        assert!(count(LEFT..W - RIGHT, 0..TOP - 4, INK) > 60);
        assert!(count(LEFT..W - RIGHT, 0..TOP - 4, red) >= 60);
        // The glyph of '1' drawn where the first epoch's label goes.
        let mut c = Canvas::new();
        c.text(10, 10, "1", INK);
        let lit: Vec<(usize, usize)> = (0..7)
            .flat_map(|r| (0..5).map(move |k| (r, k)))
            .filter(|&(r, k)| c.px[((10 + r) * W + 10 + k) * 3] == 0)
            .collect();
        assert_eq!(lit.len(), 10, "{lit:?}");
    }

    #[test]
    fn tick_labels_carry_the_decimals_the_range_needs() {
        assert_eq!(tick_label(0.7766, 0.3), "0.777");
        assert_eq!(tick_label(0.5, 0.02), "0.5000");
        assert_eq!(tick_label(1234.4, 500.0), "1234");
        assert_eq!(tick_label(12.25, 8.0), "12.25");
    }
}

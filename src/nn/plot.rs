//! A small PNG line plot of training curves (per-epoch loss and accuracy), written without a
//! plotting library: lines are drawn into an RGB bitmap and stored as a PNG with uncompressed
//! deflate blocks, which every viewer reads.

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
const MARGIN: usize = 30;

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
pub fn write_png(path: &Path, panels: &[Vec<Series>]) -> Result<(), String> {
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
            let px = MARGIN as f64 + (x - x0) / (x1 - x0) * (W - 2 * MARGIN) as f64;
            let py = (H - MARGIN) as f64 - (y - y0) / (y1 - y0) * (H - 2 * MARGIN) as f64;
            (px.round() as i64, py.round() as i64)
        };
        for i in 0..=10 {
            let y = y0 + (y1 - y0) * f64::from(i) / 10.0;
            let (_, py) = map(x0, y);
            c.line(
                (MARGIN as i64, py),
                ((W - MARGIN) as i64, py),
                [225, 225, 225],
            );
        }
        let (ax, ay) = map(x0, y0);
        c.line((ax, ay), (map(x1, y0).0, ay), [0, 0, 0]);
        c.line((ax, ay), (ax, map(x0, y1).1), [0, 0, 0]);
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
        .map_err(|e| format!("cannot write '{}': {e}", path.display()))
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
}

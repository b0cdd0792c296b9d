//! The board drawn in plain ASCII: for the `d` command of the UCI loop and the terminal game;
//! and a message made one short printable line, for the UCI channel and the web's errors.

use shakmaty::{Chess, Color, File, Position, Rank, Square};

/// Board diagram for the `d` command.
pub fn diagram(pos: &Chess) -> String {
    diagram_from(pos, Color::White, &[])
}

/// Board diagram in plain ASCII seen from `bottom`'s side (White: rank 1 at the bottom, files a
/// to h; Black: rank 8 at the bottom, files h to a); the `marked` squares (e.g. the last move's)
/// are shown in brackets, `[P]`, `[ ]`. Uppercase letters are White's pieces.
pub fn diagram_from(pos: &Chess, bottom: Color, marked: &[Square]) -> String {
    let flip = bottom == Color::Black;
    let files: Vec<u32> = if flip {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    let ranks: Vec<u32> = if flip {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let mut s = String::new();
    s.push_str(" +---+---+---+---+---+---+---+---+\n");
    for &rank in &ranks {
        s.push_str(" |");
        for &file in &files {
            let sq = Square::from_coords(File::new(file), Rank::new(rank));
            let c = pos.board().piece_at(sq).map_or(' ', |p| p.char());
            if marked.contains(&sq) {
                s.push_str(&format!("[{c}]|"));
            } else {
                s.push_str(&format!(" {c} |"));
            }
        }
        s.push_str(&format!(" {}\n", rank + 1));
        s.push_str(" +---+---+---+---+---+---+---+---+\n");
    }
    s.push(' ');
    for &file in &files {
        s.push_str(&format!("  {} ", File::new(file).char()));
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

/// `text` as one printable line of at most `max_chars` characters and a note of how many more
/// there were: control characters escaped (`\u{0}`, `\n`). For messages that quote their input
/// (an unknown command of NUL bytes, a FEN of 200 KB): they must not break a line-based
/// protocol, flood a GUI's log or send back a body's worth of the request.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max_chars {
            out.push_str(&format!(
                "... ({} more characters)",
                text.chars().count() - n
            ));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    #[test]
    fn board_orientation_and_marks() {
        let p = parse_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            false,
        )
        .unwrap();
        let white = diagram_from(&p, Color::White, &[Square::E2, Square::E4]);
        let lines: Vec<&str> = white.lines().collect();
        assert_eq!(lines[1], " | r | n | b | q | k | b | n | r | 8");
        assert_eq!(lines[9], " |   |   |   |   |[P]|   |   |   | 4");
        assert_eq!(lines[13], " | P | P | P | P |[ ]| P | P | P | 2");
        assert_eq!(lines[17], "   a   b   c   d   e   f   g   h");
        let black = diagram_from(&p, Color::Black, &[]);
        let lines: Vec<&str> = black.lines().collect();
        assert_eq!(lines[1], " | R | N | B | K | Q | B | N | R | 1");
        assert_eq!(lines[7], " |   |   |   | P |   |   |   |   | 4");
        assert_eq!(lines[17], "   h   g   f   e   d   c   b   a");
        assert_eq!(diagram(&p), diagram_from(&p, Color::White, &[]));
    }

    #[test]
    fn one_line_escapes_and_cuts() {
        assert_eq!(super::one_line("a\u{0}b\nc", 10), "a\\u{0}b\\nc");
        assert_eq!(super::one_line("ééééé", 5), "ééééé");
        assert_eq!(
            super::one_line("ééééééé", 5),
            "ééééé... (2 more characters)"
        );
        assert_eq!(super::one_line("", 0), "");
    }
}

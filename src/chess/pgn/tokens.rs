//! A check of the movetext's tokens on their way to pgn-reader. pgn-reader skips, without a
//! word, a token it cannot read as a move (`Qxf7Q`, `a8Q`, `e4+-`, `Nf3†`): the game would be
//! read with that move missing, and scored by its result all the same, or cut at the next move,
//! which no longer fits. The reader has no callback for it, so this one passes the bytes
//! through and turns each such token into a comment that starts with [`MARKER`], which the
//! visitor reports as an error of its game at that ply.
//!
//! Only a token that looks like a move (it names a square, or starts as castling, a piece's
//! move or a pawn's capture) and is not one counts; the input cut in a move's first letters is
//! left for the reader to call cut short. The annotations pgn-reader skips on purpose stay as
//! they are: `e.p.`, `+-`, `N`, move numbers, results, NAGs. Tag lines, comments and escape
//! lines are passed untouched.

use std::io::{self, Read};

use pgn_reader::SanPlus;

/// How a rewritten token's comment starts: a NUL, which no real comment holds.
pub(super) const MARKER: &[u8] = b"\0not a move: ";

/// No move is longer: a longer token is decided at this length.
const LONGEST: usize = 32;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a line: a `[` starts a tag line, a `%` an escape line.
    LineStart,
    /// Between tokens.
    Between,
    /// In a token that might be a move, held back until it ends.
    Token,
    /// In a token that passes unchecked (a number, a NAG, non-ASCII text).
    Unchecked,
    /// In a token that is not a move, longer than [`LONGEST`]: dropped to its end.
    Dropped,
    /// To the end of the line: a tag, an escape, a `;` comment.
    Line,
    /// In a `{}` comment.
    Comment,
}

/// The byte ends a token, as pgn-reader's movetext reader has it.
fn is_token_end(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
    )
}

/// The token names a square or starts as castling: it was meant as a move.
fn looks_like_a_move(t: &[u8]) -> bool {
    t.starts_with(b"O-O")
        || t.windows(2)
            .any(|w| matches!(w, [b'a'..=b'h', b'1'..=b'8']))
}

/// The token starts as a piece's move or a pawn's capture (`Nxf`, `Qh`, `exf`) and holds
/// nothing but a move's letters: it was meant as a move, unless the input ends in it (a file
/// cut short, which its reader reports as that). A lone `N` (a novelty) is not, nor a name or
/// a word left in the movetext (`Kasparov`, `Nakamura`), which the reader passes over.
fn begins_a_move(t: &[u8]) -> bool {
    matches!(
        t,
        [b'K' | b'Q' | b'R' | b'B' | b'N', b'a'..=b'h' | b'1'..=b'8' | b'x', ..]
            | [b'a'..=b'h', b'x', ..]
    ) && t.iter().all(|&b| {
        matches!(b, b'K' | b'Q' | b'R' | b'B' | b'N' | b'a'..=b'h' | b'1'..=b'8')
            || b"x=+#".contains(&b)
    })
}

/// `inner`'s bytes, with each token meant as a move but not one turned into a marked comment.
pub(super) struct TokenCheck<R> {
    inner: R,
    state: State,
    token: Vec<u8>,
    chunk: Box<[u8]>,
    out: Vec<u8>,
    /// The next byte of `out` to give.
    given: usize,
    eof: bool,
}

impl<R> TokenCheck<R> {
    pub(super) fn new(inner: R) -> Self {
        TokenCheck {
            inner,
            state: State::LineStart,
            token: Vec::new(),
            chunk: vec![0; 1 << 14].into_boxed_slice(),
            out: Vec::new(),
            given: 0,
            eof: false,
        }
    }

    /// The held-back token, ended (`by_end`: by a byte that ends tokens, not by the end of
    /// the input): given as it is, or as a marked comment.
    fn end_token(&mut self, by_end: bool) {
        let bad = self.state == State::Dropped
            || (self.state == State::Token
                && (looks_like_a_move(&self.token) || by_end && begins_a_move(&self.token))
                && SanPlus::from_ascii(&self.token).is_err());
        if bad {
            self.out.push(b'{');
            self.out.extend_from_slice(MARKER);
            self.out.extend_from_slice(&self.token);
            self.out.push(b'}');
        } else {
            self.out.extend_from_slice(&self.token);
        }
        self.token.clear();
        self.state = State::Between;
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            State::Comment => {
                self.out.push(b);
                if b == b'}' {
                    self.state = State::Between;
                }
            }
            State::Line => {
                self.out.push(b);
                if b == b'\n' {
                    self.state = State::LineStart;
                }
            }
            State::Token | State::Dropped if is_token_end(b) => {
                self.end_token(true);
                self.byte(b);
            }
            State::Token => {
                self.token.push(b);
                if self.token.len() > LONGEST {
                    if looks_like_a_move(&self.token) {
                        self.state = State::Dropped;
                    } else {
                        self.out.append(&mut self.token);
                        self.state = State::Unchecked;
                    }
                }
            }
            State::Dropped => {}
            State::Unchecked if !is_token_end(b) && b != b'[' => self.out.push(b),
            State::Unchecked | State::LineStart | State::Between => {
                let next = match b {
                    b'\n' => State::LineStart,
                    // A tag line (also after a byte order mark, or indented), and pgn-reader's
                    // escape line: never read as moves.
                    b'[' => State::Line,
                    b'%' if self.state == State::LineStart => State::Line,
                    b'{' => State::Comment,
                    b';' => State::Line,
                    b'$' | b'0'..=b'9' | 0x80.. => State::Unchecked,
                    _ if is_token_end(b) => State::Between,
                    _ => State::Token,
                };
                if next == State::Token {
                    self.token.push(b);
                } else {
                    self.out.push(b);
                }
                self.state = next;
            }
        }
    }
}

impl<R> TokenCheck<R> {
    /// The first `n` bytes of the chunk: comments and lines whole, the movetext byte by byte.
    fn bytes(&mut self, n: usize) {
        let mut i = 0;
        while i < n {
            let rest = &self.chunk[i..n];
            let (end, next) = match self.state {
                State::Comment => (memchr::memchr(b'}', rest), State::Between),
                State::Line => (memchr::memchr(b'\n', rest), State::LineStart),
                _ => {
                    self.byte(rest[0]);
                    i += 1;
                    continue;
                }
            };
            let take = end.map_or(rest.len(), |e| e + 1);
            self.out.extend_from_slice(&rest[..take]);
            if end.is_some() {
                self.state = next;
            }
            i += take;
        }
    }
}

impl<R: Read> Read for TokenCheck<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.given == self.out.len() {
            if self.eof {
                return Ok(0);
            }
            self.out.clear();
            self.given = 0;
            let n = self.inner.read(&mut self.chunk)?;
            if n == 0 {
                self.eof = true;
                if matches!(self.state, State::Token | State::Dropped) {
                    self.end_token(false);
                }
            }
            self.bytes(n);
        }
        let n = buf.len().min(self.out.len() - self.given);
        buf[..n].copy_from_slice(&self.out[self.given..self.given + n]);
        self.given += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` through the check, read from an inner reader that gives `step` bytes at a time.
    fn checked(text: &str, step: usize) -> String {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(self.0.len()).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        TokenCheck::new(Trickle(text.as_bytes(), step))
            .read_to_end(&mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn moves_and_annotations_pass_unchanged() {
        let text = "\u{feff}[Event \"a1 {x} ;y\"]\n  [Round \"e4e5\"]\n\n1.e4 e5 2. Nf3!? Nc6 \
                    {a8Q [%clk 0:01]} 3... Bb5 $1 (3. Bc4 ; Qxf7Q\n) exd6 e.p. O-O-O+ 0-0 \
                    e8=Q# +- N 12.Kh1 --\n%Qxf7Q\n1/2-1/2 *\n";
        for step in [1, 2, 7, 1000] {
            assert_eq!(checked(text, step), text, "step {step}");
        }
    }

    #[test]
    fn a_token_meant_as_a_move_becomes_a_marked_comment() {
        for step in [1, 3, 1000] {
            assert_eq!(
                checked("4. Qxf7Q 1-0", step),
                "4. {\0not a move: Qxf7Q} 1-0",
                "step {step}"
            );
            assert_eq!(checked("a8Q", step), "{\0not a move: a8Q}");
            assert_eq!(checked("1.e4+-{c}", step), "1.{\0not a move: e4+-}{c}");
            assert_eq!(
                checked("Nf3† O-O-O-O", step),
                "{\0not a move: Nf3†} {\0not a move: O-O-O-O}"
            );
            // Cut short: no square named, but a piece's move or a pawn's capture begun.
            assert_eq!(
                checked("Nxf exf Qh N", step),
                "{\0not a move: Nxf} {\0not a move: exf} {\0not a move: Qh} N"
            );
            assert_eq!(checked("3. Nc", step), "3. Nc");
            // Words and names are not moves begun.
            let prose = "Kasparov Nakamura Black Qualified axiom 1-0";
            assert_eq!(checked(prose, step), prose);
        }
        // A long token: cut at the longest a move can be.
        let long = format!("e4{}", "x".repeat(100));
        assert_eq!(
            checked(&format!("{long} e5"), 1000),
            format!("{{\0not a move: {}}} e5", &long[..LONGEST + 1])
        );
        let prose = "y".repeat(100);
        assert_eq!(checked(&format!("{prose} e5"), 7), format!("{prose} e5"));
    }
}

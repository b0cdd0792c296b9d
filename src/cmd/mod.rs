//! One function per subcommand, grouped by subject, and the little they share: how a failure is
//! reported, `--fen` and `NAME=VALUE` arguments.

pub mod engine;
pub mod experience;
pub mod games;
pub mod learn;
pub mod nets;
pub mod tools;
pub mod web;

use std::process::ExitCode;

use deepred::chess::fen::parse_fen;
use shakmaty::Chess;

/// Prints `deepred: <msg>` on stderr; the exit code of a failed command.
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("deepred: {msg}");
    ExitCode::FAILURE
}

/// An output file that cannot be written is an error before the work, not after it (a game
/// played to its end, then lost), for a file written in place (appended to): an existing file
/// must open for writing (it is not changed), a new one needs a folder that takes a new file.
/// See [`check_output`] for what else holds.
pub fn writable(path: &std::path::Path) -> Result<(), String> {
    check_output(path, false)
}

/// `--max-plies N` of every command that plays games: 0 is no limit (the rules and the
/// adjudication end the game), as in cutechess and fastchess.
pub fn ply_limit(n: usize) -> usize {
    if n == 0 { usize::MAX } else { n }
}

/// A PGN that games are added to (`--pgn` of play, selfplay, match): [`writable`], and not one
/// of the command's `inputs` (the store, the book, an engine's binary): games appended to a
/// store or a book spoil it.
pub fn games_record(
    pgn: Option<&std::path::Path>,
    inputs: &[Option<&std::path::Path>],
) -> Result<(), String> {
    let Some(pgn) = pgn else { return Ok(()) };
    writable(pgn)?;
    not_an_input(pgn, inputs.iter().flatten().copied())
}

/// [`writable`] for a file written whole (a temporary file beside it, renamed over it): its
/// folder must take a new file, whether or not the file exists.
pub fn replaceable(path: &std::path::Path) -> Result<(), String> {
    check_output(path, true)
}

/// A folder and a read-only file are refused; a pipe or a device is taken as it is (opening
/// one here would block, or end its reader's input); a file is checked as [`writable`] and
/// [`replaceable`] say, through links (a link to a missing file: the target's folder).
/// Nothing is changed and nothing is left behind.
fn check_output(path: &std::path::Path, whole: bool) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write '{}': {e}", path.display());
    if path
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
    {
        return Err(format!(
            "cannot write '{}': it names a folder",
            path.display()
        ));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(format!("cannot write '{}': it is a folder", path.display()));
        }
        Ok(m) if !m.is_file() => return Ok(()),
        // Marked read-only: kept so, by whoever may write it anyway (root, or the rename of a
        // whole write, which needs only the folder).
        Ok(m) if m.permissions().readonly() => {
            return Err(format!(
                "cannot write '{}': it is read-only",
                path.display()
            ));
        }
        Ok(_) if !whole => {
            return std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map(drop)
                .map_err(cannot);
        }
        Ok(_) => {}
        // A file not made yet (a dangling link too) is checked by its folder below; anything
        // else (a loop of links, a folder that may not be read) is the error it is.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(cannot(e)),
    }
    deepred::chess::files::folder_takes_files(path).map_err(cannot)
}

/// An output that is one of the command's inputs (the same file by another name too: a link,
/// a hard link) would be destroyed by writing it: refused before anything is read or written.
/// An SQLite input's log files (`-wal`, `-shm`, `-journal`) count as the input, whether or not
/// they exist yet (SQLite would take the output for its log). A store named by an SQLite URI
/// (`file:store.sqlite?mode=ro`) is its file.
pub fn not_an_input<'a>(
    out: &std::path::Path,
    inputs: impl IntoIterator<Item = &'a std::path::Path>,
) -> Result<(), String> {
    let sidecars = |i: &std::path::Path| {
        ["", "-wal", "-shm", "-journal"].map(|s| {
            let mut p = i.as_os_str().to_owned();
            p.push(s);
            std::path::PathBuf::from(p)
        })
    };
    if inputs.into_iter().any(|i| {
        deepred::experience::location::store_file(i).is_some_and(|file| {
            sidecars(&file)
                .iter()
                .any(|p| deepred::chess::files::one_file(out, p))
        })
    }) {
        return Err(format!(
            "'{}' is also an input of this command: writing it would destroy it; choose another output",
            out.display()
        ));
    }
    Ok(())
}

/// Each input named once: a file named twice (by one name or two: a link, a hard link) would
/// be read twice, and its records counted twice.
pub fn named_once<'a>(inputs: impl IntoIterator<Item = &'a std::path::Path>) -> Result<(), String> {
    let mut seen: Vec<&std::path::Path> = Vec::new();
    for p in inputs {
        if let Some(q) = seen.iter().find(|q| deepred::chess::files::one_file(q, p)) {
            return Err(format!(
                "'{}' and '{}' are one file: name each input once",
                q.display(),
                p.display()
            ));
        }
        seen.push(p);
    }
    Ok(())
}

/// The position of a `--fen` argument, the start position without one.
pub fn position_arg(fen: Option<String>, chess960: bool) -> Result<Chess, deepred::chess::Error> {
    fen.map_or_else(|| Ok(Chess::default()), |f| parse_fen(&f, chess960))
}

/// The evaluator of a command line with `--evaluator` and `--eval-file`: a net file given to an
/// evaluator that runs none would be ignored without a word, so it is refused.
pub fn evaluator_with_net(
    kind: deepred::eval::EvalKind,
    ctx: &deepred::eval::EvalContext,
) -> Result<deepred::eval::Evaluator, String> {
    if let (None, Some(f)) = (kind.net(), &ctx.eval_file) {
        return Err(format!(
            "--eval-file '{}': the {kind} evaluator runs no net (--evaluator learned, deepchess or deeppink)",
            f.display()
        ));
    }
    deepred::eval::build(kind, ctx).map_err(|e| e.to_string())
}

/// The evaluator `kind`, reading the experience store `db` where it needs one.
pub fn evaluator_arg(
    kind: deepred::eval::EvalKind,
    db: &std::path::Path,
) -> Result<deepred::eval::Evaluator, deepred::eval::Error> {
    let ctx = deepred::eval::EvalContext {
        experience_file: db.to_path_buf(),
        ..Default::default()
    };
    deepred::eval::build(kind, &ctx)
}

/// `NAME=VALUE` option arguments.
pub fn parse_options(list: &[String]) -> Result<Vec<(String, String)>, String> {
    list.iter()
        .map(|o| match o.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(format!("option '{o}' is not NAME=VALUE")),
        })
        .collect()
}

//! Where a user's Deep Red keeps what it learns, the same from any working directory: a GUI may
//! start the engine from its own folder, a tournament manager from another.
//!
//! The data folder is `$DEEPRED_HOME` when set, else the platform's user data folder (through
//! `directories`): `$XDG_DATA_HOME/deepred` or `~/.local/share/deepred` on Linux,
//! `~/Library/Application Support/deepred` on macOS, `%APPDATA%\deepred\data` on Windows.
//! The experience store is `experience.sqlite` there.

use std::path::{Path, PathBuf};

use super::Error;

/// Set to a folder, it replaces the user data folder (farms, tests, a portable install).
pub const HOME_ENV: &str = "DEEPRED_HOME";
/// The store's file name in the data folder.
pub const STORE_NAME: &str = "experience.sqlite";
/// Where the store was created before it had a data folder: the working directory.
pub const LEGACY_STORE: &str = "deepred-experience.sqlite";

/// Deep Red's data folder (see the module's documentation); `None` where the platform has no
/// home folder to put it in.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(home));
    }
    directories::ProjectDirs::from("", "", "deepred").map(|d| d.data_dir().to_path_buf())
}

/// The experience store used when none is named (`ExperienceFile auto`, no `--db`): the data
/// folder's `experience.sqlite`. A store left in the old default place (`LEGACY_STORE` in the
/// working directory) is still used while the data folder has none, and [`super::store::describe`] says how
/// to move it.
pub fn default_store() -> PathBuf {
    let legacy = Path::new(LEGACY_STORE);
    match data_dir() {
        Some(dir) => {
            let store = dir.join(STORE_NAME);
            if !store.exists() && legacy.is_file() {
                legacy.to_path_buf()
            } else {
                store
            }
        }
        None => legacy.to_path_buf(),
    }
}

/// Whether `location` names a PostgreSQL server (`postgresql://...` or `postgres://...`)
/// rather than an SQLite file.
pub fn is_server_url(location: &Path) -> bool {
    location
        .to_str()
        .is_some_and(|s| s.starts_with("postgresql://") || s.starts_with("postgres://"))
}

/// Whether a store location is an SQLite URI (`file:store.sqlite?mode=ro`), which names its
/// file in its own syntax ([`store_file`]).
pub fn is_sqlite_uri(location: &Path) -> bool {
    location.to_str().is_some_and(|s| s.starts_with("file:"))
}

/// The file a store location names: itself, or the file of an SQLite URI
/// (`file:store.sqlite?mode=ro`, `file:///home/me/store.sqlite`: the path between the scheme,
/// with its empty or `localhost` authority, and the query, percent-decoded); `None` for a
/// PostgreSQL server. The guards that keep an output off a command's inputs compare this file.
pub fn store_file(location: &Path) -> Option<PathBuf> {
    if is_server_url(location) {
        return None;
    }
    let Some(rest) = location.to_str().and_then(|s| s.strip_prefix("file:")) else {
        return Some(location.to_path_buf());
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let rest = match rest.strip_prefix("//") {
        Some(after) => {
            let slash = after.find('/').unwrap_or(after.len());
            &after[slash..]
        }
        None => rest,
    };
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(rest).collect();
    #[cfg(unix)]
    let path = PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&bytes));
    #[cfg(not(unix))]
    let path = PathBuf::from(String::from_utf8_lossy(&bytes).into_owned());
    Some(path)
}

/// Creates the data folder when `path` lies in it and it is missing (before a store is created
/// there). Other folders are the user's to make: a missing one is an error that names the store.
pub fn prepare(path: &Path) -> Result<(), Error> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let uri = is_sqlite_uri(path) || is_server_url(path);
    not_a_file(path, uri)?;
    let Some(dir) = data_dir() else {
        return missing_folder(path, parent, uri);
    };
    if parent == dir && !dir.is_dir() {
        std::fs::create_dir_all(&dir).map_err(|source| Error::DataDir {
            path: dir.clone(),
            source,
        })?;
    }
    missing_folder(path, parent, uri)
}

/// A store path that exists but is no regular file: a folder, or a device such as `/dev/null`,
/// where SQLite would "write" every game into nothing (and make `/dev/null-wal` beside it).
fn not_a_file(path: &Path, uri: bool) -> Result<(), Error> {
    match std::fs::metadata(path) {
        Ok(m) if !uri && !m.is_file() => Err(Error::NotAFile {
            path: path.to_path_buf(),
            what: if m.is_dir() {
                "a folder"
            } else {
                "a device, pipe or socket"
            },
        }),
        _ => Ok(()),
    }
}

/// A store in a folder that does not exist (other than the data folder, made above) is an
/// error that names the folder; SQLite would only say "unable to open database file".
fn missing_folder(path: &Path, parent: &Path, uri: bool) -> Result<(), Error> {
    if uri || parent.as_os_str().is_empty() || parent.is_dir() {
        return Ok(());
    }
    Err(Error::NoFolder {
        path: path.to_path_buf(),
    })
}

/// The folder of the nets the learning loop promoted on this machine: `nets` in the data folder.
pub fn nets_dir() -> Option<PathBuf> {
    data_dir().map(|d| d.join("nets"))
}

/// The file of generation `generation`'s promoted net of evaluator `kind` in `dir`.
pub fn promoted_file(dir: &Path, kind: &str, generation: i64) -> PathBuf {
    dir.join(format!("{kind}-gen{generation}.safetensors"))
}

/// The newest promoted net of evaluator `kind` in `dir` (the highest generation), if any:
/// what `EvalFile auto` runs instead of the net embedded in the binary.
pub fn newest_promoted_in(dir: &Path, kind: &str) -> Option<(i64, PathBuf)> {
    let prefix = format!("{kind}-gen");
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let g: i64 = name
                .strip_prefix(&prefix)?
                .strip_suffix(".safetensors")?
                .parse()
                .ok()?;
            Some((g, dir.join(name)))
        })
        .max_by_key(|(g, _)| *g)
}

/// [`newest_promoted_in`] the data folder's [`nets_dir`].
pub fn newest_promoted(kind: &str) -> Option<(i64, PathBuf)> {
    newest_promoted_in(&nets_dir()?, kind)
}

/// Installs a promoted net in `dir` (created if missing) as generation `generation` of `kind`:
/// written beside its place and renamed into it, so that no reader ever sees half a file.
/// Returns its path.
pub fn install_net(
    dir: &Path,
    kind: &str,
    generation: i64,
    bytes: &[u8],
) -> Result<PathBuf, std::io::Error> {
    std::fs::create_dir_all(dir)?;
    let path = promoted_file(dir, kind, generation);
    crate::chess::files::write_replacing(&path, bytes)?;
    Ok(path)
}

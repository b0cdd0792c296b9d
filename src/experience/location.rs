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

/// Creates the data folder when `path` lies in it and it is missing (before a store is created
/// there). Other folders are the user's to make.
pub fn prepare(path: &Path) -> Result<(), Error> {
    let Some(dir) = data_dir() else {
        return Ok(());
    };
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    if parent == dir && !dir.is_dir() {
        std::fs::create_dir_all(&dir).map_err(|source| Error::DataDir {
            path: dir.clone(),
            source,
        })?;
    }
    Ok(())
}

//! Files written whole or not at all: a net, a data set, a CSV of results, an export, a
//! progress record. Every layer that writes such a file comes here (the bottom layer, so that
//! all of them may), and every layer that must not write over one of its inputs asks
//! [`one_file`] whether two paths name one file.

use std::path::Path;

/// Writes `bytes` to `path` whole or not at all: [`write_replacing_with`].
pub fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_replacing_with(path, |w| w.write_all(bytes))
}

/// Writes `path` whole or not at all (a net, a data set, a CSV of results, an export): `write`
/// fills a new file beside it (`<path>.tmp<pid>-<n>`, made new, so that two writers never
/// share one), which is then renamed over it. A full disk or a kill leaves the file there
/// before whole. A link is followed: its target is replaced so, and the link kept. A pipe or a
/// device is written in place.
///
/// Hand-written rather than `tempfile`: that crate makes its files mode 0600, and a net or an
/// export must keep the mode the umask gives (read by other users and by a farm's players).
pub fn write_replacing_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let fill = |file: std::fs::File| {
        let mut w = std::io::BufWriter::new(file);
        write(&mut w)?;
        w.flush()
    };
    // Asked of the path as the system follows it, before its links are read by hand: a
    // process's magic links (`/dev/stdout`, `/dev/fd/1`) read as `pipe:[N]`, not as a path.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return fill(std::fs::File::create(path)?);
    }
    let target = link_target(path);
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_symlink()) {
        // Still a link after as many as the system follows: a loop, never replaced by a file.
        return Err(std::io::Error::other("too many levels of links"));
    }
    remove_dead_writers_files(&target);
    let (tmp, file) = new_beside(&target)?;
    let written = fill(file).and_then(|_| std::fs::rename(&tmp, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new file beside `target` (`<target>.tmp<pid>-<n>`, made new, so that two writers never
/// share one): where a whole write fills its file before the rename.
fn new_beside(target: &Path) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut tmp = target.as_os_str().to_owned();
        tmp.push(format!(".tmp{}-{n}", std::process::id()));
        let tmp = std::path::PathBuf::from(tmp);
        match std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The files [`new_beside`] made for `target` by processes that have died since (a kill, a
/// crash, a power cut before the rename): removed, so that each kill does not leave a net's
/// worth of disk behind. Only a file untouched for [`STALE_TEMP`] whose process `/proc` does
/// not show: a process this machine cannot see (another host sharing the folder, another PID
/// namespace, `/proc` mounted with `hidepid`) still writes its file within that time. On Linux,
/// with `/proc` mounted; elsewhere they stay.
fn remove_dead_writers_files(target: &Path) {
    #[cfg(target_os = "linux")]
    {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
            return;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let prefix = format!("{}.tmp", name.to_string_lossy());
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        for e in entries.flatten() {
            let file = e.file_name();
            let file = file.to_string_lossy();
            let Some((pid, n)) = file
                .strip_prefix(prefix.as_str())
                .and_then(|rest| rest.split_once('-'))
            else {
                continue;
            };
            let untouched = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_TEMP);
            if digits(pid) && digits(n) && untouched && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = target;
}

/// How long a whole write's file must have been left untouched before a dead writer's is
/// removed.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(3600);

/// Whether a whole write of `path` could make its file: the one [`write_replacing_with`]
/// makes beside it (through links) is made and removed again.
pub fn folder_takes_files(path: &Path) -> std::io::Result<()> {
    let (tmp, _) = new_beside(&link_target(path))?;
    std::fs::remove_file(tmp)
}

/// The file a path names through its links (up to 40 of them), whether or not that file
/// exists: a link to a file not made yet names the file to make.
pub fn link_target(path: &Path) -> std::path::PathBuf {
    let mut target = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&target) {
            Ok(to) => target = target.parent().map_or(to.clone(), |p| p.join(&to)),
            Err(_) => break,
        }
    }
    target
}

/// Whether two paths name one file: the same device and inode, the same canonical path, or
/// (for files not made yet) the same absolute path.
pub fn one_file(a: &Path, b: &Path) -> bool {
    let meta = |p| std::fs::metadata(p).ok();
    let canonical = |p| std::fs::canonicalize(p).ok();
    let absolute = |p| std::path::absolute(p).ok();
    meta(a).zip(meta(b)).is_some_and(|(x, y)| same_file(&x, &y))
        || canonical(a).is_some_and(|x| canonical(b) == Some(x))
        || absolute(a).is_some_and(|x| absolute(b) == Some(x))
}

/// Whether two files' metadata are of one file (device and inode; where there are none, never).
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails leaves the file that was there whole (it used to be cut short).
    #[test]
    fn a_failed_write_keeps_the_old_net() {
        let dir = std::env::temp_dir().join(format!("deepred-net-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let net = dir.join("x.safetensors");
        write_replacing(&net, b"old net").unwrap();
        write_replacing(&net, b"new net").unwrap();
        assert_eq!(std::fs::read(&net).unwrap(), b"new net");
        // A write that fails half way (as a full disk does): the old file stays, and nothing
        // is left beside it.
        let failed = write_replacing_with(&net, |w| {
            w.write_all(b"a net cut")?;
            Err(std::io::Error::other("disk full"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert_eq!(std::fs::read(&net).unwrap(), b"new net");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // The file of a write killed before its rename goes with the next write of the same
        // file (no process has a number above Linux's 2^22); one of a live process stays.
        #[cfg(target_os = "linux")]
        {
            let dead = dir.join("x.safetensors.tmp999999999-3");
            let live = dir.join(format!("x.safetensors.tmp{}-999", std::process::id()));
            let other = dir.join("y.safetensors.tmp999999999-3");
            let recent = dir.join("x.safetensors.tmp999999998-4");
            let old = std::time::SystemTime::now() - 2 * STALE_TEMP;
            for f in [&dead, &live, &other, &recent] {
                let file = std::fs::File::create(f).unwrap();
                if f != &recent {
                    file.set_modified(old).unwrap();
                }
            }
            write_replacing(&net, b"new net").unwrap();
            // A recent one may be a writer this machine cannot see (another host's).
            assert!(!dead.exists() && live.exists() && other.exists() && recent.exists());
            for f in [&live, &other, &recent] {
                std::fs::remove_file(f).unwrap();
            }
        }
        // Through a link: the target is replaced whole, the link stays a link.
        #[cfg(unix)]
        {
            let link = dir.join("link.safetensors");
            std::os::unix::fs::symlink(&net, &link).unwrap();
            write_replacing(&link, b"through the link").unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
            assert_eq!(std::fs::read(&net).unwrap(), b"through the link");
            assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
            // A loop of links is an error, and stays a loop.
            let (la, lb) = (dir.join("la"), dir.join("lb"));
            std::os::unix::fs::symlink(&lb, &la).unwrap();
            std::os::unix::fs::symlink(&la, &lb).unwrap();
            assert!(write_replacing(&la, b"x").is_err());
            assert!(std::fs::symlink_metadata(&la).unwrap().is_symlink());
            // A link to a file not made yet, by a relative name: the file is made, the link
            // kept.
            let dangling = dir.join("dangling.net");
            std::os::unix::fs::symlink("made.net", &dangling).unwrap();
            write_replacing(&dangling, b"made").unwrap();
            assert!(std::fs::symlink_metadata(&dangling).unwrap().is_symlink());
            assert_eq!(std::fs::read(dir.join("made.net")).unwrap(), b"made");
        }
        // A pipe by a process's magic link (as `/dev/stdout` is): written in place. The link
        // reads as `pipe:[N]`, which is no file's name (the write made one beside it).
        #[cfg(target_os = "linux")]
        {
            use std::io::Read;
            use std::os::fd::AsRawFd;
            let (mut reader, writer) = std::io::pipe().unwrap();
            let magic = format!("/proc/self/fd/{}", writer.as_raw_fd());
            write_replacing(Path::new(&magic), b"through a pipe").unwrap();
            drop(writer);
            let mut got = String::new();
            reader.read_to_string(&mut got).unwrap();
            assert_eq!(got, "through a pipe");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// One file by one name, by a relative and an absolute name, through a link and a hard
    /// link, and a file not made yet by two spellings; two files are two.
    #[test]
    fn one_file_sees_through_names() {
        let dir = std::env::temp_dir().join(format!("deepred-one-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let a = dir.join("a.pgn");
        let b = dir.join("b.pgn");
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        assert!(one_file(&a, &a));
        assert!(one_file(&a, &dir.join("sub/../a.pgn")));
        assert!(!one_file(&a, &b));
        let new = dir.join("new.pgn");
        assert!(one_file(&new, &dir.join("./new.pgn")));
        assert!(!one_file(&new, &dir.join("other.pgn")));
        #[cfg(unix)]
        {
            let link = dir.join("link.pgn");
            std::os::unix::fs::symlink(&a, &link).unwrap();
            assert!(one_file(&link, &a));
            let hard = dir.join("hard.pgn");
            std::fs::hard_link(&b, &hard).unwrap();
            assert!(one_file(&b, &hard));
            assert!(!one_file(&hard, &a));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

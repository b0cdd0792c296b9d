//! Stores that cannot be used: bad files, a full disk, a read-only store; each a clear error
//! that loses nothing.

use super::*;

#[test]
fn bad_store_files_are_clear_errors() {
    let db = temp_db("bad");
    std::fs::write(
        &db,
        b"definitely not sqlite, definitely not sqlite, definitely not sqlite",
    )
    .unwrap();
    let out = deepred(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        games(TCEC).to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a Deep Red experience database"), "{err}");
    // The file was not touched.
    assert!(
        std::fs::read(&db)
            .unwrap()
            .starts_with(b"definitely not sqlite")
    );
    let out = deepred(&["experience", "stats", "--db", "/nonexistent/x.sqlite"]);
    assert!(!out.status.success());
    // A store to be made in a folder that does not exist: said so, naming the store.
    let tcec = games(TCEC);
    let out = deepred(&[
        "import",
        "--db",
        "/nonexistent/x.sqlite",
        tcec.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("'/nonexistent/x.sqlite': its folder does not exist"),
        "{err}"
    );
    let folder = db.parent().unwrap().to_str().unwrap().to_string();
    let out = deepred(&["experience", "stats", "--db", &folder]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("it is a folder"),
        "{err}"
    );
    #[cfg(unix)]
    {
        // An export over the store by another name (a hard link), over its log, or two exports
        // in one file: refused, the store untouched.
        let linked = db.with_file_name("linked.sqlite");
        std::fs::hard_link(&db, &linked).unwrap();
        let before = std::fs::read(&db).unwrap();
        let wal = db.with_file_name(format!("{}-wal", db.file_name().unwrap().to_str().unwrap()));
        // (no log there: SQLite would still take a file of that name for one)
        let two = db.with_file_name("two.out");
        for (args, want) in [
            (vec!["--bullet", linked.to_str().unwrap()], "also an input"),
            (vec!["--bullet", wal.to_str().unwrap()], "also an input"),
            (
                vec![
                    "--bullet",
                    two.to_str().unwrap(),
                    "--pgn",
                    two.to_str().unwrap(),
                ],
                "named for two exports",
            ),
        ] {
            let out = deepred(
                &[
                    &["experience", "export", "--db", db.to_str().unwrap()][..],
                    &args[..],
                ]
                .concat(),
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && err.contains(want),
                "{args:?}: {err}"
            );
        }
        assert_eq!(std::fs::read(&db).unwrap(), before);
        std::fs::remove_file(&linked).unwrap();
    }
    // One output that cannot be written (in a missing folder, a name that ends as a folder's,
    // a loop of links): refused before any is written (not a PGN made and the EPD refused
    // after it).
    let made = db.with_file_name("made.pgn");
    let (la, lb) = (
        db.with_file_name("loop-a.epd"),
        db.with_file_name("loop-b.epd"),
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&lb, &la).unwrap();
        std::os::unix::fs::symlink(&la, &lb).unwrap();
    }
    // A read-only file is kept as it is (the whole write's rename needed only its folder).
    let kept = db.with_file_name("kept.epd");
    std::fs::write(&kept, "kept\n").unwrap();
    let mut perms = std::fs::metadata(&kept).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&kept, perms).unwrap();
    for (bad, want) in [
        (
            "/nonexistent/x.epd".to_string(),
            "cannot write '/nonexistent/x.epd'",
        ),
        (kept.display().to_string(), "it is read-only"),
        (
            format!("{}/", db.with_file_name("newdir").display()),
            "it names a folder",
        ),
        (la.display().to_string(), "cannot write"),
    ] {
        let out = deepred(&[
            "experience",
            "export",
            "--db",
            db.to_str().unwrap(),
            "--pgn",
            made.to_str().unwrap(),
            "--epd",
            &bad,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{bad}: {err}");
        assert!(!made.exists(), "{bad}: the PGN was written");
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "kept\n");
    // A pipe is written as it is (the check before the export used to open and close it: the
    // reader saw the end of its input and the export then waited for another for ever), and
    // a link to a file not made yet stays a link, its target made by the export.
    #[cfg(unix)]
    {
        let good = db.with_file_name("good.sqlite");
        let out = deepred(&[
            "import",
            "--db",
            good.to_str().unwrap(),
            tcec.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let fifo = db.with_file_name("book.fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let mut export = common::command()
            .args([
                "experience",
                "export",
                "--db",
                good.to_str().unwrap(),
                "--epd",
            ])
            .arg(&fifo)
            .spawn()
            .unwrap();
        let t = std::time::Instant::now();
        while export.try_wait().unwrap().is_none() && t.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let done = export.try_wait().unwrap();
        if done.is_none() {
            let _ = export.kill();
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        assert!(
            done.is_some_and(|s| s.success()),
            "export into a pipe: {done:?}"
        );
        let epd = reader.join().unwrap();
        assert!(epd.lines().count() > 10 && epd.contains(" bm "), "{epd}");
        // `/dev/stdout` as the output, stdout a pipe: written there (the magic link was read
        // by hand as `pipe:[N]`, and the export failed after its work).
        let out = deepred(&[
            "experience",
            "export",
            "--db",
            good.to_str().unwrap(),
            "--epd",
            "/dev/stdout",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.lines().filter(|l| l.contains(" bm ")).count() > 10,
            "{out:?}"
        );
        let link = db.with_file_name("book-link.epd");
        let target = db.with_file_name("book-target.epd");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let out = deepred(&[
            "experience",
            "export",
            "--db",
            good.to_str().unwrap(),
            "--epd",
            link.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            epd,
            "the export through the link"
        );
    }
    // A plot into a folder: refused before the statistics, with the folder named.
    let out = deepred(&[
        "experience",
        "stats",
        "--db",
        db.to_str().unwrap(),
        "--plot",
        &folder,
    ]);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        !out.status.success()
            && err.contains(&format!("cannot write '{folder}'"))
            && text.is_empty(),
        "{text}{err}"
    );
    // No move enters a book or a coverage count with 0 games: 0 is refused, not read as 1.
    for args in [
        vec!["experience", "export", "--epd", "x.epd", "--min-games", "0"],
        vec![
            "experience",
            "coverage",
            "--pgn",
            tcec.to_str().unwrap(),
            "--min-games",
            "0",
        ],
    ] {
        let out = deepred(&[&args[..], &["--db", db.to_str().unwrap()][..]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("'0' for '--min-games"),
            "{args:?}: {err}"
        );
    }
    // Nor is a folder or a device a store to learn into: SQLite would take `/dev/null` and
    // learn every game into nothing.
    #[cfg(unix)]
    for (not_a_store, what) in [(folder.as_str(), "a folder"), ("/dev/null", "a device")] {
        let out = deepred(&["import", "--db", not_a_store, tcec.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(&format!("it is {what}")),
            "{err}"
        );
    }
    // A mistyped store for prune or vacuum is an error, not a new empty store; a bad merge
    // source leaves no new --into behind.
    let typo = db.with_file_name("typo.sqlite");
    let into = db.with_file_name("new.sqlite");
    for args in [
        vec![
            "experience",
            "prune",
            "--min-games",
            "2",
            "--db",
            typo.to_str().unwrap(),
        ],
        vec!["experience", "vacuum", "--db", typo.to_str().unwrap()],
        vec![
            "experience",
            "merge",
            db.to_str().unwrap(),
            "--into",
            into.to_str().unwrap(),
        ],
    ] {
        let out = deepred(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.starts_with("deepred: "),
            "{args:?}: {err}"
        );
        assert!(!typo.exists() && !into.exists(), "{args:?} made a store");
    }
    // An empty file (what a first import killed before its first commit leaves): reading it
    // says it is empty, and importing into it makes it a store.
    std::fs::write(&db, b"").unwrap();
    let out = deepred(&["experience", "stats", "--db", db.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("is empty"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(import(db.as_path(), games(TCEC).as_path()).status.success());
    assert!(consistent(&db) > 0);
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

#[cfg(unix)]
#[test]
fn a_full_disk_is_a_clear_error_and_loses_nothing() {
    // A file size limit (RLIMIT_FSIZE) makes writes past it fail as on a full disk; SIGXFSZ is
    // ignored so that the write fails instead of the process being killed.
    let db = temp_db("full");
    let pgn = games("Nakamura_first500.pgn");
    let out = Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 4000; exec \"$0\" import --batch 50 --db \"$1\" \"$2\"",
            env!("CARGO_BIN_EXE_deepred"),
            db.to_str().unwrap(),
            pgn.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the limit was never reached: {err}");
    assert!(
        err.contains("a write failed") || err.contains("disk is full"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // Whole games only, and some of them made it before the disk filled: the error says how
    // many.
    let learned = consistent(&db);
    assert!(learned > 0, "no batch landed before the limit");
    assert!(
        err.contains(&format!(
            "the import stopped there: {learned} games were learned before it"
        )),
        "{err}"
    );
    // With room again, the import completes exactly.
    let reference = temp_db("full-reference");
    assert!(import(reference.as_path(), pgn.as_path()).status.success());
    assert!(import(db.as_path(), pgn.as_path()).status.success());
    assert_eq!(consistent(&db), consistent(&reference));
    assert_eq!(store_counts(&db), store_counts(&reference));
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
    let _ = std::fs::remove_dir_all(reference.parent().unwrap());
}

#[test]
fn a_read_only_store_is_a_clear_error_and_is_left_unchanged() {
    let db = temp_db("ro");
    let first = games(TCEC);
    assert!(import(db.as_path(), first.as_path()).status.success());
    let before = store_counts(&db);
    let more = games(ALPHAZERO);
    // Read-only through an SQLite URI (works for every user, root included).
    let uri = format!("file:{}?mode=ro", db.display());
    let out = deepred(&["import", "--db", &uri, more.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(store_counts(&db), before);
    // The commands that only read take the URI as they take the file.
    let by_file = deepred(&["experience", "stats", "--db", db.to_str().unwrap()]);
    let by_uri = deepred(&["experience", "stats", "--db", &uri]);
    assert!(
        by_uri.status.success(),
        "{}",
        String::from_utf8_lossy(&by_uri.stderr)
    );
    let out = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).replace(&uri, "");
    assert_eq!(
        out(&by_uri),
        out(&by_file).replace(db.to_str().unwrap(), "")
    );
    // Read-only by permissions, where they bind (root ignores them).
    #[cfg(unix)]
    {
        let mut perm = std::fs::metadata(&db).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o444);
        std::fs::set_permissions(&db, perm.clone()).unwrap();
        if std::fs::OpenOptions::new().write(true).open(&db).is_err() {
            let out = import(db.as_path(), more.as_path());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success());
            assert!(err.contains("read-only"), "{err}");
            assert_eq!(store_counts(&db), before);
        }
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o644);
        std::fs::set_permissions(&db, perm).unwrap();
    }
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

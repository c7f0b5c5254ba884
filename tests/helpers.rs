//! What every integration test module shares: running the real `checkers-zero` binary (its
//! output, success, and no panic), the Python with the test packages, paths as arguments, and the
//! shipped configs as values to change and write, an untrained net to play, and a small HTTP
//! client for the servers.

use runconfig::RunConfig;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, run from the repository root (where `configs/` is).
pub fn checkers_zero() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_checkers-zero"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).env("RUST_BACKTRACE", "1");
    command
}

/// Runs `command` to the end with `input` (text, or any bytes) on its standard input.
pub fn output_with_input(command: &mut Command, input: impl AsRef<[u8]>) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_ref()).unwrap();
    child.wait_with_output().unwrap()
}

/// Runs the binary to the end; returns its output (stdout and stderr as text) and whether it succeeded.
pub fn run_to_end(args: &[&str]) -> (bool, String, String) {
    let Output { status, stdout, stderr } =
        checkers_zero().args(args).output().expect("the binary runs");
    (
        status.success(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// Runs the binary and requires success.
pub fn succeed(args: &[&str]) -> String {
    let (ok, out, err) = run_to_end(args);
    assert!(ok, "checkers-zero {args:?} failed:\n{out}{err}");
    assert_no_panic(&err);
    format!("{out}{err}")
}

/// A failure must be a message, not a crash: no panic, no backtrace.
pub fn assert_no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked") && !stderr.contains("stack backtrace"),
        "a panic:\n{stderr}"
    );
}

/// The Python with the test packages (`CHECKERS_ZERO_PYTHON`, which `make test` sets up). A test
/// that needs it fails without it: it never passes by skipping.
pub fn python() -> String {
    std::env::var("CHECKERS_ZERO_PYTHON").expect(
        "CHECKERS_ZERO_PYTHON is not set: run the tests with `make test` (scripts/test installs \
         the Python packages and sets it), or point it at a Python with numpy, onnx, onnxruntime, \
         tensorboard and pydraughts",
    )
}

/// `path` as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// The entries of `dir`, sorted (none when it does not exist).
pub fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    paths.sort();
    paths
}

/// A freshly initialised sparse net saved as `dir/sparse.safetensors` (training step `step`).
pub fn untrained_sparse_net(dir: &Path, step: u64) -> PathBuf {
    let path = dir.join("sparse.safetensors");
    let net = model::PolicyValueNet::new(&model::NetConfig::sparse(), tch::Device::Cpu).unwrap();
    model::checkpoint::save(&path, &net, step, None, &model::Extras::default()).unwrap();
    path
}

/// The shipped config `configs/NAME`, read and checked.
pub fn shipped_config(name: &str) -> RunConfig {
    RunConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs").join(name))
        .unwrap_or_else(|e| panic!("configs/{name}: {e:#}"))
}

/// Writes `config` as `dir/NAME` and returns the path, for `--config`.
pub fn write_config(dir: &Path, name: &str, config: &RunConfig) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, config.to_toml()).unwrap();
    path
}

/// One HTTP/1.1 request to `address` (`host:port`) with a JSON body: the status and the body, read
/// by its length or its chunks (the server need not close the connection).
pub fn http(address: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    use std::io::{BufRead, Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        address,
        body.len()
    )
    .unwrap();
    let mut reader = std::io::BufReader::new(stream);
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        head.push(line.trim_end().to_ascii_lowercase());
    }
    let status = head[0].split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap();
    let header = |name: &str| {
        head.iter().find_map(|l| l.strip_prefix(name).map(|v| v.trim_start_matches(':').trim()))
    };
    let mut body = Vec::new();
    if header("transfer-encoding") == Some("chunked") {
        // Chunk by chunk to the last one: the server need not close the connection.
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = header("content-length") {
        body.resize(length.parse().unwrap(), 0);
        reader.read_exact(&mut body).unwrap();
    } else {
        reader.read_to_end(&mut body).unwrap();
    }
    (status, String::from_utf8(body).unwrap())
}

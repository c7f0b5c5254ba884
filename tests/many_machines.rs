//! One run on S3-compatible storage (a real SeaweedFS server) shared by separate OS processes,
//! each with a cache of its own as if on separate machines: two self-play processes, one trainer
//! and one evaluator. The server is stopped for 20 s and started again during the run, and
//! meanwhile one self-play process, with finished shards waiting in its outbox, is SIGKILLed and
//! restarted on its cache. At the end each role is stopped by SIGINT or SIGTERM, and every shard
//! played reads back. Also: two evaluators racing to promote on both backends, and the bad
//! `s3://` inputs.

use crate::helpers::{arg, assert_no_panic, checkers_zero};
use crate::seaweed::{self, Seaweed};
use rundata::{BestNet, Store};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The tiny config with a gate every candidate passes unless it loses every game, so that the
/// run promotes often: the test is about the plumbing, not the nets.
fn promoting_config(dir: &Path) -> PathBuf {
    let mut tiny = crate::helpers::shipped_config("tiny.toml");
    tiny.gate.threshold = 0.01;
    crate::helpers::write_config(dir, "promoting.toml", &tiny)
}

/// One role's process, its command line and its logs (one pair per start).
struct Role {
    name: &'static str,
    args: Vec<String>,
    env: Vec<(String, String)>,
    logs: PathBuf,
    starts: usize,
    child: Child,
}

impl Role {
    fn start(name: &'static str, args: Vec<String>, env: &[(String, String)], logs: &Path) -> Role {
        let env = env.to_vec();
        let child = spawn(name, 0, &args, &env, logs);
        Role { name, args, env, logs: logs.to_path_buf(), starts: 1, child }
    }

    fn kill_and_restart(&mut self) {
        self.child.kill().unwrap(); // SIGKILL
        self.child.wait().unwrap();
        self.child = spawn(self.name, self.starts, &self.args, &self.env, &self.logs);
        self.starts += 1;
    }

    /// A stop signal (`INT` as Ctrl-C, or `TERM` as a process manager), then its end, which must be
    /// a success: either signal is the clean stop.
    fn interrupt(&mut self, signal: &str, patience: Duration) {
        let pid = self.child.id().to_string();
        let signal = format!("-{signal}");
        assert!(Command::new("kill").args([&signal, &pid]).status().unwrap().success());
        let deadline = Instant::now() + patience;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{} ended with {status}:\n{}", self.name, self.stderr());
                assert_no_panic(&self.stderr());
                return;
            }
            assert!(Instant::now() < deadline, "{} did not stop:\n{}", self.name, self.stderr());
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log(&self, stream: &str) -> String {
        (0..self.starts)
            .map(|start| {
                let path = self.logs.join(format!("{}-{start}.{stream}", self.name));
                std::fs::read_to_string(path).unwrap_or_default()
            })
            .collect()
    }

    fn stdout(&self) -> String {
        self.log("out")
    }

    fn stderr(&self) -> String {
        self.log("err")
    }
}

/// A test that fails leaves no role running behind it.
impl Drop for Role {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(
    name: &str,
    start: usize,
    args: &[String],
    env: &[(String, String)],
    logs: &Path,
) -> Child {
    let file = |stream: &str| std::fs::File::create(logs.join(format!("{name}-{start}.{stream}")));
    checkers_zero()
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(file("out").unwrap())
        .stderr(file("err").unwrap())
        .spawn()
        .unwrap()
}

/// Polls `done` every half second for at most `limit`; on timeout panics with the roles' logs.
fn wait_until(what: &str, limit: Duration, roles: &[&Role], mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() > deadline {
            let logs: Vec<String> = roles
                .iter()
                .map(|r| {
                    let err = r.stderr();
                    let tail: Vec<&str> = err.lines().rev().take(15).collect();
                    format!(
                        "--- {}:\n{}",
                        r.name,
                        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                    )
                })
                .collect();
            panic!("timed out after {limit:?} waiting for {what}\n{}", logs.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The shards in the store (empty while it is unreachable).
fn shard_keys(store: &Store) -> Vec<String> {
    store.list("shards").unwrap_or_default()
}

fn best(store: &Store) -> Option<BestNet> {
    store.best().ok().flatten()
}

/// `NAME` from the lines `PREFIX NAME SUFFIX...` of `text`, with what follows the name.
fn named_lines<'a>(text: &'a str, prefix: &str) -> Vec<(&'a str, &'a str)> {
    text.lines()
        .filter_map(|line| line.strip_prefix(prefix))
        .filter_map(|rest| rest.split_once([':', ' ']))
        .collect()
}

#[test]
fn an_s3_run_of_separate_processes_survives_a_kill_and_a_store_outage() {
    let started = Instant::now();
    let server = Seaweed::start();
    let dir = tempfile::tempdir().unwrap();
    let config = promoting_config(dir.path());
    let location = format!("s3://{}/run", seaweed::BUCKET);
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let role_args = |role: &str, cache: &str, extra: &[&str]| -> Vec<String> {
        let cache = dir.path().join(cache);
        let base = [role, "--config", arg(&config), "--run-dir", &location, "--cache", arg(&cache)];
        base.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let env = server.env();
    let selfplay = |cache| role_args("selfplay", cache, &["--follow", "--games", "2"]);
    let mut players = [
        Role::start("selfplay-a", selfplay("cache-a"), &env, &logs),
        Role::start("selfplay-b", selfplay("cache-b"), &env, &logs),
    ];
    let mut trainer =
        Role::start("train", role_args("train", "cache-t", &["--follow"]), &env, &logs);
    let mut evaluator =
        Role::start("gate", role_args("gate", "cache-g", &["--follow"]), &env, &logs);
    let store = Store::open_with_env(&location, server.env()).unwrap();
    let long = Duration::from_secs(240);

    // The store away for 20 s (or more) while everyone works; meanwhile a self-play process, whose
    // finished shards wait in its outbox, is SIGKILLed and started again on its cache.
    // Both self-play processes at work first (on a loaded machine one may take a while to
    // start).
    wait_until("the first shards of both", long, &[&players[0], &players[1]], || {
        shard_keys(&store).len() >= 4 && players.iter().all(|p| p.stdout().contains("shard "))
    });
    server.stop();
    let outage = Instant::now();
    let outbox = dir.path().join("cache-b").join("shards");
    wait_until("a shard in selfplay-b's outbox", long, &[&players[1]], || {
        shard::list_shards(&outbox).is_ok_and(|s| !s.is_empty())
    });
    players[1].kill_and_restart();
    std::thread::sleep(Duration::from_secs(20).saturating_sub(outage.elapsed()));
    server.restart();

    wait_until("three promotions", long, &[&players[0], &players[1], &trainer, &evaluator], || {
        best(&store).is_some_and(|b| b.generation >= 3)
    });
    for (player, signal) in players.iter_mut().zip(["INT", "TERM"]) {
        player.interrupt(signal, Duration::from_secs(120));
    }
    let shards = shard_keys(&store);
    let wanted = format!("replay: {} shards read", shards.len());
    wait_until(&wanted, long, &[&trainer], || trainer.stdout().contains(&wanted));
    trainer.interrupt("TERM", Duration::from_secs(120));
    evaluator.interrupt("INT", Duration::from_secs(300));

    // Every shard reads back, with its games, each announced by exactly one writer.
    let play_out: String = players.iter().map(Role::stdout).collect();
    let mut announced: BTreeMap<&str, u64> = BTreeMap::new();
    for (name, rest) in named_lines(&play_out, "shard ") {
        let games = rest.trim().strip_suffix(" games").unwrap().parse().unwrap();
        assert!(announced.insert(name, games).is_none(), "{name} announced twice");
    }
    let recovered: BTreeSet<&str> =
        named_lines(&play_out, "outbox: shard ").into_iter().map(|(name, _)| name).collect();
    let scratch = dir.path().join("check");
    std::fs::create_dir(&scratch).unwrap();
    let (mut games, mut recovered_games) = (0, 0);
    for key in &shards {
        let name = key.strip_prefix("shards/").unwrap();
        let path = scratch.join(name);
        std::fs::write(&path, store.get(key).unwrap().unwrap()).unwrap();
        shard::read_shard(&path).unwrap_or_else(|e| panic!("{key}: {e}"));
        let stem = name.strip_suffix(".shard").unwrap();
        let pdn = store.get(&format!("games/{stem}.pdn")).unwrap().expect("its games");
        let in_shard = draughts::read_pdn(&String::from_utf8(pdn).unwrap()).unwrap().len() as u64;
        match announced.get(name) {
            Some(&n) => assert_eq!(n, in_shard, "{name}: games announced vs in the store"),
            None => {
                assert!(recovered.contains(name), "{name}: in the store, announced by nobody");
                recovered_games += in_shard;
            }
        }
        games += in_shard;
    }
    let missing: Vec<_> =
        announced.keys().filter(|n| !shards.contains(&format!("shards/{n}"))).collect();
    assert!(missing.is_empty(), "announced but not in the store: {missing:?}");
    assert_eq!(games, announced.values().sum::<u64>() + recovered_games);
    assert!(!recovered.is_empty(), "the killed process left no shard in its outbox");
    for cache in ["cache-a", "cache-b"] {
        let left = shard::list_shards(&dir.path().join(cache).join("shards")).unwrap();
        assert!(left.is_empty(), "{cache} kept {left:?}");
    }
    let waited = players.iter().all(|p| p.stderr().contains("store unreachable"));
    assert!(waited, "a self-play process never said it was waiting for the store");

    // The pointer names a net that loads, every promotion was recorded once, and the ladder
    // rates the run from the store.
    let best = store.best().unwrap().expect("a best net");
    let net_path = scratch.join("best.safetensors");
    let key = best.checkpoint.to_str().unwrap();
    std::fs::write(&net_path, store.get(key).unwrap().expect("the best net")).unwrap();
    let text = String::from_utf8(store.get("config.toml").unwrap().unwrap()).unwrap();
    let run_config = runconfig::RunConfig::parse(&text).unwrap();
    model::checkpoint::load(&net_path, Some(&run_config.net), tch::Device::Cpu).unwrap();
    let mut promoted = 0;
    for key in store.list("gates").unwrap() {
        let text = String::from_utf8(store.get(&key).unwrap().unwrap()).unwrap();
        for line in text.lines() {
            promoted += serde_json::from_str::<arena::GateRecord>(line).unwrap().promoted as u32;
        }
    }
    assert_eq!(promoted, best.generation, "gate records that promoted");
    let ladder = checkers_zero()
        .args(["ladder", &location, "--cache", arg(&dir.path().join("cache-l"))])
        .envs(server.env())
        .output()
        .unwrap();
    let ladder_out = String::from_utf8_lossy(&ladder.stdout);
    assert!(ladder.status.success(), "{}", String::from_utf8_lossy(&ladder.stderr));
    assert!(ladder_out.contains("Bradley-Terry"), "{ladder_out}");
    println!(
        "many machines: {} shards, {games} games ({} shards kept by the killed process and \
         uploaded after its restart), generation {}, {:.0} s",
        shards.len(),
        recovered.len(),
        best.generation,
        started.elapsed().as_secs_f64()
    );
}

/// Runs the binary with `env` as its only AWS variables; returns success and standard error.
fn run_with_env(args: &[&str], env: &[(String, String)]) -> (bool, String) {
    let mut command = checkers_zero();
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("AWS_")) {
        command.env_remove(name);
    }
    let out = command.args(args).envs(env.iter().map(|(k, v)| (k, v))).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_s3_locations_fail_in_one_line_without_a_local_folder() {
    let server = seaweed::server();
    let no_credentials: Vec<_> =
        server.env().into_iter().filter(|(name, _)| !name.contains("KEY")).collect();
    type Case<'a> = (&'a str, &'a [(String, String)], &'a str);
    let cases: [Case; 4] = [
        ("s3://", &server.env(), "no bucket"),
        ("s3://bu cket/run", &server.env(), "not a valid bucket name"),
        ("s3://no-such-bucket/run", &server.env(), "the bucket no-such-bucket does not exist"),
        ("s3://test/no-credentials", &no_credentials, "no credentials"),
    ];
    for (location, env, says) in cases {
        for role in ["selfplay", "train", "gate"] {
            let args = ["--config", "configs/tiny.toml", "--run-dir", location];
            let (ok, err) = run_with_env(&[&[role][..], &args].concat(), env);
            assert!(!ok, "{role} {location} succeeded");
            assert_no_panic(&err);
            let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("warning")).collect();
            assert_eq!(lines.len(), 1, "{role} {location}: {err}");
            assert!(lines[0].starts_with("error: ") && lines[0].contains(says), "{err}");
            assert!(!err.contains(crate::seaweed::SECRET_KEY), "{err}");
        }
        let (ok, err) = run_with_env(&["ladder", location], env);
        assert!(!ok && err.lines().count() == 1 && err.contains(says), "ladder {location}: {err}");
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(!repo.join("s3:").exists(), "a local folder named s3:");
}

#[test]
fn two_evaluators_racing_promote_once_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let config = promoting_config(dir.path());
    let local = dir.path().join("run");
    let s3 = format!("s3://{}/gate-race", seaweed::BUCKET);
    for location in [arg(&local), &s3] {
        let env = seaweed::server().env();
        let run = |role: &str, extra: &[&str]| {
            let cache = dir.path().join(format!("cache-{role}"));
            let base = ["--config", arg(&config), "--run-dir", location, "--cache", arg(&cache)];
            let args: Vec<&str> = [&[role][..], &base, extra].concat();
            let (ok, err) = run_with_env(&args, &env);
            assert!(ok, "{role} on {location}: {err}");
        };
        run("selfplay", &["--games", "6"]);
        run("train", &[]);
        let evaluators: Vec<Child> = ["a", "b"]
            .iter()
            .map(|name| {
                let cache = dir.path().join(format!("cache-gate-{name}"));
                checkers_zero()
                    .args(["gate", "--config", arg(&config), "--run-dir", location])
                    .args(["--cache", arg(&cache)])
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in evaluators {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let store = Store::open_with_env(location, env.clone()).unwrap();
        let pointers = store.list("best").unwrap();
        assert_eq!(pointers, ["best/gen-000000.json", "best/gen-000001.json"], "{location}");
        let gates = match store.get("gates.jsonl").unwrap() {
            Some(text) => String::from_utf8(text).unwrap(),
            None => store
                .list("gates")
                .unwrap()
                .iter()
                .map(|key| String::from_utf8(store.get(key).unwrap().unwrap()).unwrap())
                .collect(),
        };
        let records: Vec<arena::GateRecord> =
            gates.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        let promoted = records.iter().filter(|r| r.promoted).count();
        assert_eq!(promoted, 1, "{location}: {} gates, {promoted} promoted", records.len());
    }
}

#[test]
fn a_trainer_moves_to_a_fresh_cache_and_resumes_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let location = format!("s3://{}/moving-trainer", seaweed::BUCKET);
    let env = seaweed::server().env();
    let run = |role: &str, cache: &str, extra: &[&str]| -> String {
        let cache = dir.path().join(cache);
        let base =
            ["--config", "configs/tiny.toml", "--run-dir", &location, "--cache", arg(&cache)];
        let (ok, err) = run_with_env(&[&[role][..], &base, extra].concat(), &env);
        assert!(ok, "{role} in {}: {err}", cache.display());
        assert_no_panic(&err);
        err
    };
    let store = Store::open_with_env(&location, env.clone()).unwrap();
    let states = || store.list("train").unwrap();
    let state = |step: u64| format!("train/state-{step:010}.safetensors");
    run("selfplay", "cache-s", &["--games", "32"]); // pays for about 60 steps

    // Trainer A, on its machine: 20 steps, a checkpoint every 10, each in the store.
    run("train", "cache-a", &["--steps", "20"]);
    assert_eq!(states(), [state(10), state(20)]);
    assert!(!store.list("tb/train").unwrap().is_empty(), "its TensorBoard events");

    // Trainer B, elsewhere: it continues from A's step 20, not from 0; the store keeps what its
    // cache keeps.
    let b = run("train", "cache-b", &["--steps", "10"]);
    assert!(b.contains("resumed training at step 20"), "{b}");
    assert_eq!(states(), [state(20), state(30)]);

    // The newest state damaged in the store: trainer C refuses it by name and takes the one before.
    let mut bytes = store.get(&state(30)).unwrap().unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x10;
    store.put(&state(30), &bytes).unwrap();
    let c = run("train", "cache-c", &["--steps", "0"]);
    let warning = c.lines().find(|l| l.starts_with("warning: ") && l.contains("state-0000000030"));
    assert!(warning.is_some(), "no warning names the damaged state: {c}");
    assert!(c.contains("resumed training at step 20"), "{c}");
}

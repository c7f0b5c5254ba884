//! The store on both backends, a local folder and a real S3 server (SeaweedFS, see `seaweed/`):
//! round trips, create-if-absent, racing promotions, the old pointer layout, and errors that fit
//! on one line, name what failed and never show a secret.

mod seaweed;

use rundata::{BestNet, Created, Problem, Promotion, RunDir, Store, StoreError, MAX_OBJECT_BYTES};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// A local store in a fresh folder (kept while the `TempDir` lives).
fn local() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("run").to_str().unwrap()).unwrap();
    (dir, store)
}

/// A store in the test bucket, under a prefix of the test's own.
fn s3(prefix: &str) -> Store {
    let location = format!("s3://{}/{prefix}", seaweed::BUCKET);
    Store::open_with_env(&location, seaweed::server().env()).unwrap()
}

/// Runs `check` on a local store, then on an S3 one under `prefix`.
fn on_both_backends(prefix: &str, check: impl Fn(&Store)) {
    let (_dir, store) = local();
    check(&store);
    check(&s3(prefix));
}

fn net(generation: u32, step: u64) -> BestNet {
    let checkpoint = format!("nets/step-{step:06}.safetensors").into();
    BestNet { checkpoint, step, generation, promoted_at: 1_700_000_000 + step, promoted_by: None }
}

fn json(best: &BestNet) -> Vec<u8> {
    serde_json::to_vec(best).unwrap()
}

/// The error's message, checked to be one line.
fn message(e: &StoreError) -> String {
    let message = e.to_string();
    assert!(!message.contains('\n'), "{message}");
    message
}

/// `env` with the variable `name` set to `value`.
fn set(mut env: Vec<(String, String)>, name: &str, value: &str) -> Vec<(String, String)> {
    env.retain(|(n, _)| n != name);
    env.push((name.into(), value.into()));
    env
}

/// The AWS variables for the test server, with this secret key instead of its own.
fn with_secret(secret: &str) -> Vec<(String, String)> {
    set(seaweed::server().env(), "AWS_SECRET_ACCESS_KEY", secret)
}

/// The AWS variables for an endpoint where nobody listens, and that endpoint. The port is a
/// privileged one that refuses connections now: no free-port pick (ours or another test's
/// server's, which may take a port just released) ever hands out a port below 1024.
fn unreachable_env() -> (Vec<(String, String)>, String) {
    let refuses = |port: u16| {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        std::net::TcpStream::connect_timeout(&address, Duration::from_secs(1))
            .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionRefused)
    };
    let port = (1..1024).find(|&port| refuses(port)).expect("a privileged port that refuses");
    let endpoint = format!("http://127.0.0.1:{port}");
    (set(seaweed::server().env(), "AWS_ENDPOINT_URL", &endpoint), endpoint)
}

#[test]
fn round_trips_on_both_backends() {
    on_both_backends("round-trip", |store| {
        assert_eq!(store.get("shards/1.shard").unwrap(), None);
        assert!(store.list("shards").unwrap().is_empty());
        for (key, bytes) in [
            ("shards/2.shard", &b"two"[..]),
            ("shards/1.shard", b"one"),
            ("shards/old/3.shard", b"three"),
            ("shardsX", b"not in shards/"),
            ("empty", b""),
            ("shards/1.shard", b"one, replaced"),
        ] {
            store.put(key, bytes).unwrap();
        }
        assert_eq!(store.get("shards/1.shard").unwrap().unwrap(), b"one, replaced");
        assert_eq!(store.get("empty").unwrap().unwrap(), b"");
        let shards = ["shards/1.shard", "shards/2.shard", "shards/old/3.shard"];
        assert_eq!(store.list("shards").unwrap(), shards);
        assert_eq!(store.list("").unwrap().len(), 5);
        store.delete("shards/2.shard").unwrap();
        store.delete("shards/2.shard").unwrap();
        assert_eq!(store.get("shards/2.shard").unwrap(), None);
        assert_eq!(store.list("shards").unwrap(), ["shards/1.shard", "shards/old/3.shard"]);
        for bad in ["", "/a", "a//b", "../a", "a/./b"] {
            let e = store.put(bad, b"x").unwrap_err();
            assert_eq!(e.problem(), &Problem::BadKey, "{e}");
        }
    });
}

#[test]
fn create_writes_only_if_absent_on_both_backends() {
    on_both_backends("create", |store| {
        assert_eq!(store.create("best/x.json", b"first").unwrap(), Created::New);
        assert_eq!(store.create("best/x.json", b"second").unwrap(), Created::AlreadyExists);
        assert_eq!(store.get("best/x.json").unwrap().unwrap(), b"first");
    });
}

#[test]
fn racing_evaluators_promote_once_per_generation_on_both_backends() {
    let (_dir, store) = local();
    race(&store, 8, 20);
    // SeaweedFS holds each contended conditional write for a second or more: fewer rounds.
    race(&s3("race"), 4, 10);
}

/// `evaluators` threads promote their own net for each generation at once; exactly one wins each
/// round, and every one of them then reads the winner as the best net.
fn race(store: &Store, evaluators: u64, generations: u32) {
    let barrier = Barrier::new(evaluators as usize);
    // Per evaluator, per generation: its net, what promoting it did, and the best net then.
    let outcomes: Vec<Vec<(BestNet, Promotion, BestNet)>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..evaluators)
            .map(|evaluator| {
                let barrier = &barrier;
                scope.spawn(move || {
                    (1..=generations)
                        .map(|generation| {
                            let mine = net(generation, u64::from(generation) * 100 + evaluator);
                            barrier.wait();
                            let promotion = store.promote(&mine).unwrap();
                            (mine, promotion, store.best().unwrap().unwrap())
                        })
                        .collect()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for generation in 0..generations as usize {
        let round: Vec<_> = outcomes.iter().map(|o| &o[generation]).collect();
        let winners: Vec<_> =
            round.iter().filter(|(mine, p, _)| *p == Promotion::Promoted(mine.clone())).collect();
        assert_eq!(winners.len(), 1, "{store:?}, generation {}: {round:?}", generation + 1);
        let winner = &winners[0].0;
        for (_, promotion, best) in &round {
            assert_eq!(best, winner);
            if let Promotion::AlreadyTaken { by } = promotion {
                assert_eq!(by, winner);
            }
        }
    }
}

#[test]
fn the_old_best_json_still_reads_on_both_backends() {
    on_both_backends("legacy", |store| {
        store.put("best.json", &json(&net(5, 500))).unwrap();
        assert_eq!(store.best().unwrap(), Some(net(5, 500)));
        assert_eq!(store.promote(&net(6, 600)).unwrap(), Promotion::Promoted(net(6, 600)));
        assert_eq!(store.best().unwrap(), Some(net(6, 600)));
    });
}

#[test]
fn an_old_run_directory_reads_through_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunDir::create(dir.path()).unwrap();
    std::fs::write(run.best_file(), json(&net(3, 300))).unwrap();
    assert_eq!(run.best().unwrap(), Some(net(3, 300)));
    let store = Store::open(dir.path().to_str().unwrap()).unwrap();
    assert_eq!(store.best().unwrap(), Some(net(3, 300)));
}

#[test]
fn best_is_the_newest_pointer_that_parses_on_both_backends() {
    on_both_backends("newest", |store| {
        assert_eq!(store.best().unwrap(), None);
        for generation in [1, 2] {
            let mine = net(generation, u64::from(generation));
            assert_eq!(store.promote(&mine).unwrap(), Promotion::Promoted(mine));
        }
        // Damaged, naming another generation, or not a pointer at all: passed over.
        store.put("best/gen-000004.json", b"{\"checkpoint\":").unwrap();
        store.put("best/gen-000003.json", &json(&net(9, 9))).unwrap();
        store.put("best/notes.txt", b"not a pointer").unwrap();
        assert_eq!(store.best().unwrap(), Some(net(2, 2)));
        // A retried promotion that finds its own pointer went through.
        assert_eq!(store.promote(&net(2, 2)).unwrap(), Promotion::Promoted(net(2, 2)));
        let taken = store.promote(&net(2, 22)).unwrap();
        assert_eq!(taken, Promotion::AlreadyTaken { by: net(2, 2) });
    });
}

#[test]
fn a_damaged_newest_pointer_does_not_block_the_next_promotion_on_both_backends() {
    on_both_backends("damaged", |store| {
        for generation in [1, 2] {
            let mine = net(generation, u64::from(generation) * 100);
            assert_eq!(store.promote(&mine).unwrap(), Promotion::Promoted(mine));
        }
        store.put("best/gen-000003.json", b"\x00 torn").unwrap();
        store.put("best/gen-000004.json", &json(&net(7, 700))).unwrap();
        assert_eq!(store.best().unwrap(), Some(net(2, 200)), "the newest valid pointer");
        // The gate of the next candidate asks for generation 3 and gets the first free one.
        let promoted = store.promote(&net(3, 300)).unwrap();
        assert_eq!(promoted, Promotion::Promoted(net(5, 300)));
        assert_eq!(store.best().unwrap(), Some(net(5, 300)));
        // A rival gated against generation 2 too finds generation 5 taken, not a free one.
        let rival = store.promote(&net(3, 301)).unwrap();
        assert_eq!(rival, Promotion::AlreadyTaken { by: net(5, 300) });
        let next = store.promote(&net(6, 600)).unwrap();
        assert_eq!(next, Promotion::Promoted(net(6, 600)));
    });
}

/// A local store's file that is a FIFO blocked every reader of the run (opening it waits for a
/// writer), and an object was read whole whatever its size: each is refused by name, unread.
#[test]
fn a_local_object_that_is_a_fifo_or_too_big_is_refused_by_name_unread() {
    let (dir, store) = local();
    let best = dir.path().join("run/best");
    std::fs::create_dir_all(&best).unwrap();
    let fifo = best.join("gen-000001.json");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let e = message(&store.get("best/gen-000001.json").unwrap_err());
    assert!(e.contains("reading best/gen-000001.json: not a regular file (a FIFO)"), "{e}");
    // Listings pass over what is not a file; the old layout's pointer is read by its name.
    assert_eq!(store.best().unwrap(), None);
    let legacy = dir.path().join("run/best.json");
    assert!(std::process::Command::new("mkfifo").arg(&legacy).status().unwrap().success());
    let e = message(&store.best().unwrap_err());
    assert!(e.contains("reading best.json: not a regular file (a FIFO)"), "{e}");
    let big = dir.path().join("run/big.shard");
    std::fs::File::create(&big).unwrap().set_len(MAX_OBJECT_BYTES + 1).unwrap();
    let e = message(&store.get("big.shard").unwrap_err());
    assert!(
        e.contains("reading big.shard: 1073741825 bytes is more than the 1073741824-byte limit of a stored object (raise it with CHECKERS_ZERO_MAX_FILE_MB=MIB)"),
        "{e}"
    );
    assert_eq!(store.get("missing").unwrap(), None);
}

#[test]
fn malformed_locations_are_refused_in_one_line() {
    for location in [
        "s3://",
        "s3:///run",
        "s3:bucket",
        "s3:/bucket/run",
        "S3://bucket/run",
        "gs://bucket/run",
        "s3://bu cket/run",
        "s3://bucket//run",
        "s3://bucket/../run",
        "",
    ] {
        let e = Store::open_with_env(location, seaweed_free_env()).unwrap_err();
        let text = message(&e);
        assert!(matches!(e.problem(), Problem::BadLocation(_)), "{location}: {text}");
        assert!(text.starts_with(location), "{location}: {text}");
    }
    // Never a local folder named after the scheme (tests run in the package's folder).
    assert!(!std::path::Path::new("s3:").exists());
    let file = tempfile::NamedTempFile::new().unwrap();
    let e = Store::open(file.path().to_str().unwrap()).unwrap_err();
    assert!(message(&e).contains(file.path().to_str().unwrap()), "{e}");
}

/// AWS variables with credentials but no server, for errors found before any request.
fn seaweed_free_env() -> Vec<(String, String)> {
    [("AWS_ACCESS_KEY_ID", "id"), ("AWS_SECRET_ACCESS_KEY", "secret")]
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .into()
}

#[test]
fn missing_credentials_are_named() {
    let env = [("AWS_ENDPOINT_URL".to_string(), "http://127.0.0.1:1".to_string())];
    let e = Store::open_with_env("s3://runs/exp1", env).unwrap_err();
    assert_eq!(e.problem(), &Problem::NoCredentials);
    let text = message(&e);
    assert!(text.starts_with("s3://runs/exp1: ") && text.contains("AWS_ACCESS_KEY_ID"), "{text}");
}

#[test]
fn unusable_endpoints_are_refused_at_open() {
    let with = |name, value| set(seaweed_free_env(), name, value);
    for (env, what) in [
        (with("AWS_ENDPOINT_URL", "not a url"), "is not an http(s) URL"),
        (with("AWS_ENDPOINT_URL", "http://127.0.0.1:1"), "set AWS_ALLOW_HTTP=true"),
    ] {
        let e = Store::open_with_env("s3://runs/exp1", env).unwrap_err();
        assert!(matches!(e.problem(), Problem::BadEndpoint(_)), "{e}");
        assert!(message(&e).contains(what), "{e}");
    }
}

#[test]
fn a_missing_bucket_is_named_with_the_key() {
    let store = Store::open_with_env("s3://no-such-bucket/run", seaweed::server().env()).unwrap();
    let errors = [
        store.get("shards/1.shard").unwrap_err(),
        store.put("shards/1.shard", b"x").unwrap_err(),
        store.list("shards").unwrap_err(),
    ];
    for e in errors {
        assert_eq!(e.problem(), &Problem::NoBucket("no-such-bucket".into()), "{e}");
        let text = message(&e);
        assert!(text.starts_with("s3://no-such-bucket/run: ") && text.contains("shards"), "{text}");
    }
}

#[test]
fn an_https_endpoint_is_spoken_to_in_tls() {
    // A listener that answers the client's first bytes with plain text: the TLS handshake fails,
    // and the store says so as an error (not a panic over a missing crypto provider).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (first_bytes, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buffer = [0u8; 512];
            let read = std::io::Read::read(&mut stream, &mut buffer).unwrap_or(0);
            let _ = first_bytes.send(buffer[..read].to_vec());
            let _ = std::io::Write::write_all(&mut stream, b"HTTP/1.1 400 not TLS\r\n\r\n");
        }
    });
    let endpoint = format!("https://127.0.0.1:{port}");
    let env = set(seaweed_free_env(), "AWS_ENDPOINT_URL", &endpoint);
    let store = Store::open_with_env("s3://runs/exp1", env).unwrap();
    let text = message(&store.get("best.json").unwrap_err());
    assert!(text.starts_with("s3://runs/exp1: ") && text.contains("best.json"), "{text}");
    let hello = received.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(hello.first(), Some(&0x16), "a TLS handshake record first: {hello:?}");
}

#[test]
fn an_unreachable_endpoint_fails_in_seconds() {
    let (env, endpoint) = unreachable_env();
    let store = Store::open_with_env("s3://runs/exp1", env).unwrap();
    let start = Instant::now();
    let errors =
        [store.get("best.json").unwrap_err(), store.create("best.json", b"x").unwrap_err()];
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    for e in errors {
        assert!(matches!(e.problem(), Problem::Unreachable { .. }), "{e}");
        let text = message(&e);
        assert!(text.starts_with("s3://runs/exp1: ") && text.contains("best.json"), "{text}");
        assert!(text.contains(&endpoint), "{text}");
    }
}

#[test]
fn wrong_credentials_are_denied() {
    let location = format!("s3://{}/denied", seaweed::BUCKET);
    let store = Store::open_with_env(&location, with_secret("not-the-secret")).unwrap();
    let e = store.put("shards/1.shard", b"x").unwrap_err();
    assert!(matches!(e.problem(), Problem::AccessDenied(_)), "{e}");
    assert!(message(&e).contains("shards/1.shard"), "{e}");
}

#[test]
fn secrets_never_appear_in_errors() {
    const SECRET: &str = "SECRET-must-not-leak-7Q2x";
    const TOKEN: &str = "TOKEN-must-not-leak-5Z9y";
    let mut seen = Vec::new();
    let mut check = |text: String| {
        assert!(!text.contains(SECRET) && !text.contains(TOKEN), "a secret leaked: {text}");
        seen.push(text);
    };
    let with_token =
        |env| set(set(env, "AWS_SECRET_ACCESS_KEY", SECRET), "AWS_SESSION_TOKEN", TOKEN);
    let known_id = with_token(seaweed::server().env());
    let unknown_id = set(known_id.clone(), "AWS_ACCESS_KEY_ID", "unknown-key-id");
    for env in [known_id, unknown_id] {
        for location in ["s3://test/secret", "s3://no-such-bucket/secret"] {
            let store = Store::open_with_env(location, env.clone()).unwrap();
            check(format!("{store:?}"));
            for e in [
                store.get("a/b").unwrap_err(),
                store.put("a/b", b"x").unwrap_err(),
                store.create("a/b", b"x").unwrap_err(),
                store.list("a").unwrap_err(),
                store.delete("a/b").unwrap_err(),
            ] {
                check(format!("{e} / {e:?}"));
            }
        }
    }
    let store = Store::open_with_env("s3://test/secret", with_token(unreachable_env().0)).unwrap();
    let e = store.get("a/b").unwrap_err();
    check(format!("{e} / {e:?}"));
    let e = Store::open_with_env(&format!("s3://id:{SECRET}@test/run"), with_secret(SECRET));
    let e = e.unwrap_err();
    check(format!("{e} / {e:?}"));
    assert_eq!(seen.len(), 26);
}

#[test]
fn a_stopped_server_is_unreachable_and_its_data_is_back_after_a_restart() {
    let server = seaweed::Seaweed::start();
    let location = format!("s3://{}/restart", seaweed::BUCKET);
    let store = Store::open_with_env(&location, server.env()).unwrap();
    store.put("shards/1.shard", b"one").unwrap();
    server.stop();
    let e = store.get("shards/1.shard").unwrap_err();
    assert!(matches!(e.problem(), Problem::Unreachable { .. }), "{e}");
    assert!(message(&e).contains("shards/1.shard"), "{e}");
    server.restart();
    // Just after its start SeaweedFS may answer 500 for a moment (its volume not loaded yet): a
    // transient error, which the roles wait out as well.
    let deadline = Instant::now() + Duration::from_secs(30);
    let bytes = loop {
        match store.get("shards/1.shard") {
            Err(e) if e.is_transient() && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200))
            }
            read => break read.unwrap(),
        }
    };
    assert_eq!(bytes.unwrap(), b"one");
}

//! The binary as a whole: which commands load the net library and libtorch (none for the
//! built-in players and a sparse net), OpenMP's waiting, and failures that are messages.

use crate::helpers::{arg, assert_no_panic, checkers_zero, run_to_end, sorted_files};
#[test]
fn openmp_threads_sleep_when_idle_unless_the_user_chose_a_policy() {
    // libgomp prints the settings it read at start-up when asked to. Its `OMP_WAIT_POLICY` line
    // says 'PASSIVE' for an unset policy too; the spin count tells them apart: 0 for a passive
    // policy, 300000 for none, 30000000000 for an active one.
    let spin_count = |policy: Option<&str>| {
        let mut command = checkers_zero();
        // `ladder` runs in the net library, which brings libtorch and its OpenMP.
        command
            .args(["ladder", "/nonexistent-run"])
            .env("OMP_DISPLAY_ENV", "VERBOSE")
            .env_remove("OMP_WAIT_POLICY")
            .env_remove("GOMP_SPINCOUNT");
        if let Some(policy) = policy {
            command.env("OMP_WAIT_POLICY", policy);
        }
        let out = command.output().expect("the binary runs");
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.lines().find(|l| l.contains("GOMP_SPINCOUNT")).map(str::trim).map(str::to_string)
    };
    assert_eq!(spin_count(None).as_deref(), Some("GOMP_SPINCOUNT = '0'"));
    assert_eq!(spin_count(Some("ACTIVE")).as_deref(), Some("GOMP_SPINCOUNT = '30000000000'"));
}

/// The shared libraries the dynamic loader loaded for `args` (from `LD_DEBUG=libs`), and the
/// command's stderr without the loader's lines.
fn libraries_loaded(args: &[&str], net_library: Option<&str>) -> (Vec<String>, String) {
    let mut command = checkers_zero();
    command.args(args).env("LD_DEBUG", "libs");
    if let Some(path) = net_library {
        command.env("CHECKERS_ZERO_NET_LIBRARY", path);
    }
    let out = command.output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let (loader, rest): (Vec<&str>, Vec<&str>) = stderr.lines().partition(|l| {
        l.trim_start().split(':').next().is_some_and(|pid| pid.parse::<u32>().is_ok())
    });
    let loaded = loader
        .iter()
        .filter_map(|l| l.split("calling init: ").nth(1))
        .map(|lib| lib.trim().to_string())
        .collect();
    (loaded, rest.join("\n"))
}

#[test]
fn the_net_library_brings_libtorch_cuda_when_its_libtorch_has_cuda() {
    // Nothing in the net library calls into libtorch_cuda, so a plain link drops it; without it
    // libtorch registers no CUDA backend and sees no GPU on a GPU machine.
    let libtorch = std::env::var("LIBTORCH").expect("LIBTORCH is set (scripts/libtorch-env.sh)");
    let has_cuda = std::path::Path::new(&libtorch).join("lib/libtorch_cuda.so").exists();
    let (libs, _) = libraries_loaded(&["ladder", "/nonexistent-run"], None);
    assert!(libs.iter().any(|l| l.contains("libtorch_cpu")), "no libtorch loaded: {libs:?}");
    let cuda_loaded = libs.iter().any(|l| l.contains("libtorch_cuda.so"));
    assert_eq!(cuda_loaded, has_cuda, "{libtorch} has CUDA: {has_cuda}; loaded: {libs:?}");
}

#[test]
fn commands_without_a_net_never_load_libtorch_or_the_net_library() {
    let torch = |libs: &[String]| libs.iter().any(|l| l.contains("libtorch_cpu"));
    for args in [
        &["perft", "3"][..],
        &["match", "alphabeta:1", "random", "--games", "2", "--pdn", "/dev/null"],
    ] {
        let (libs, _) = libraries_loaded(args, None);
        assert!(!libs.is_empty(), "LD_DEBUG=libs printed nothing for {args:?}");
        assert!(!torch(&libs), "{args:?} loaded libtorch: {libs:?}");
        // ...and they run where the net library is missing.
        let (_, stderr) = libraries_loaded(args, Some("/nonexistent/libcheckers_zero_torch.so"));
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
    let (libs, _) = libraries_loaded(&["ladder", "/nonexistent-run"], None);
    assert!(torch(&libs), "a net command must load libtorch: {libs:?}");
}

#[test]
fn a_sparse_net_plays_matches_without_libtorch() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = crate::helpers::untrained_sparse_net(dir.path(), 3);
    let player = format!("mcts:{}:32", arg(&ckpt));
    let args = ["match", &player, "random", "--games", "2", "--pdn", "/dev/null"];
    let (libs, stderr) = libraries_loaded(&args, None);
    assert!(!libs.is_empty(), "LD_DEBUG=libs printed nothing");
    assert!(!libs.iter().any(|l| l.contains("libtorch_cpu")), "loaded libtorch: {libs:?}");
    assert!(!stderr.contains("error"), "{stderr}");
    let (_, stderr) = libraries_loaded(&args, Some("/nonexistent/libcheckers_zero_torch.so"));
    assert!(!stderr.contains("error"), "{stderr}");
    // A ResNet still needs the net library, and says so.
    let resnet = dir.path().join("resnet.safetensors");
    let net = model::PolicyValueNet::new(&model::NetConfig::new(1, 8), tch::Device::Cpu).unwrap();
    model::checkpoint::save(&resnet, &net, 3, None, &model::Extras::default()).unwrap();
    let player = format!("mcts:{}:32", arg(&resnet));
    let args = ["match", &player, "random", "--games", "2", "--pdn", "/dev/null"];
    let (_, stderr) = libraries_loaded(&args, Some("/nonexistent/libcheckers_zero_torch.so"));
    assert!(stderr.contains("/nonexistent/libcheckers_zero_torch.so"), "{stderr}");
}

#[test]
fn a_missing_or_foreign_net_library_is_one_clear_error() {
    let (_, stderr) =
        libraries_loaded(&["ladder", "/nonexistent-run"], Some("/nonexistent/libnet.so"));
    assert!(stderr.contains("/nonexistent/libnet.so") && stderr.contains("make setup"), "{stderr}");
    // A shared library that is not ours: libtorch's own libc10, which this test process maps.
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let c10 = maps.split_whitespace().find(|w| w.ends_with("/libc10.so")).expect("libc10 mapped");
    let (_, stderr) = libraries_loaded(&["ladder", "/nonexistent-run"], Some(c10));
    assert!(stderr.contains("is not the net library"), "{stderr}");
    assert_no_panic(&stderr);
}

#[test]
fn match_time_gives_every_player_without_a_budget_that_time_and_no_pdn_lands_in_the_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("results.jsonl");
    let out = checkers_zero()
        .current_dir(dir.path())
        .args(["match", "alphabeta", "random", "--time", "0.01", "--games", "2"])
        .args(["--record", arg(&record)])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("alphabeta:0.01s (A) vs random (B)"), "{text}");
    assert!(text.contains("not saved as PDN"), "{text}");
    let records = std::fs::read_to_string(&record).unwrap();
    assert_eq!(records.matches("\"alphabeta:0.01s\"").count(), 2, "{records}");
    assert_eq!(sorted_files(dir.path()), [record], "the match wrote into its working folder");

    let (ok, _, err) = run_to_end(&["match", "alphabeta", "random", "--games", "2"]);
    assert!(!ok && err.contains("alphabeta") && err.contains("--time"), "{err}");
    assert_no_panic(&err);
}

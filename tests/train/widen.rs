//! A run that grows its net: a sparse state resumed under a config with a wider accumulator is
//! widened (the same outputs) and trains on, its new units' outgoing weights leaving zero; a
//! trainer with `train.grow` widens its net itself once the data reaches a widening; a trainer
//! warm-started by `train.init` begins with that net (widened to the config's width); a state of
//! one value stack resumed under a config of several splits it (the same outputs) and trains on.

use super::*;
use model::encoding::Input;
use model::sample::random_observations;
use model::SparseConfig;
use runconfig::{GrowSchedule, Widening};
use tch::nn::ModuleT;
use tch::Kind;
use train::state::state_path;

fn sparse(accumulator: usize) -> NetConfig {
    NetConfig::Sparse(SparseConfig { accumulator, hidden: 8, layers: 1, buckets: 1 })
}

#[test]
fn a_state_resumed_with_a_wider_accumulator_keeps_its_outputs_and_trains_on() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let config = TrainConfig { ema_decay: 0.9, ..quick_config(5) };
    let open = |net: &NetConfig| Trainer::open(paths.clone(), net, config.clone(), Device::Cpu);
    let (mut narrow, _) = open(&sparse(16)).unwrap();
    assert_eq!(train_to(dir.path(), &mut narrow, 5), 5);
    let xs = Input::Features.encode_batch(&random_observations(100, 4));
    let before = tch::no_grad(|| narrow.net().forward_t(&xs, false));
    drop(narrow);

    let (mut wide, opened) = open(&sparse(48)).unwrap();
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 5)));
    let from = Some(sparse(16));
    assert_eq!((opened.widened_from, opened.fresh_average, wide.step()), (from, false, 5));
    assert_eq!(wide.net().config(), &sparse(48));
    let after = tch::no_grad(|| wide.net().forward_t(&xs, false));
    let diff = (&before - &after).abs().max().double_value(&[]);
    assert!(diff < 1e-5, "the widened net's outputs differ by {diff}");
    let new_columns = |trainer: &Trainer| {
        let policy = &trainer.net().var_store().variables()["policy.weight"];
        policy.narrow(1, 16, 32).abs().sum(Kind::Float).double_value(&[])
    };
    assert_eq!(new_columns(&wide), 0.0);
    assert_eq!(train_to(dir.path(), &mut wide, 10), 5);
    assert!(new_columns(&wide) > 0.0, "the new units' outgoing weights learn");
    let candidate =
        model::checkpoint::load(&paths.nets.join("step-0000000010.safetensors"), None, Device::Cpu)
            .unwrap();
    assert_eq!(candidate.meta.config, sparse(48));
    drop(wide);

    // Resumed again at the wider width: an ordinary resume. A narrower one is refused.
    let (_, opened) = open(&sparse(48)).unwrap();
    assert_eq!(
        (opened.widened_from, opened.resumed_from),
        (None, Some(state_path(&paths.states, 10)))
    );
    let (_, opened) = open(&sparse(8)).unwrap();
    assert!(opened.resumed_from.is_none(), "a narrower net does not resume");
    let refused: Vec<String> = opened.refused.iter().map(|e| e.to_string()).collect();
    assert!(
        refused.len() == 2 && refused.iter().all(|e| e.contains("does not match")),
        "{refused:?}"
    );
}

#[test]
fn a_state_resumed_with_buckets_of_material_splits_its_value_stack_and_trains_on() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 1000);
    let open = |net: &NetConfig| Trainer::open(paths.clone(), net, quick_config(5), Device::Cpu);
    let (mut one, _) = open(&sparse(16)).unwrap();
    assert_eq!(train_to(dir.path(), &mut one, 5), 5);
    let xs = Input::Features.encode_batch(&random_observations(200, 4));
    let before = tch::no_grad(|| one.net().forward_t(&xs, false));
    drop(one);

    let four =
        NetConfig::Sparse(SparseConfig { accumulator: 16, hidden: 8, layers: 1, buckets: 4 });
    let (mut split, opened) = open(&four).unwrap();
    assert_eq!((opened.widened_from, split.step()), (Some(sparse(16)), 5));
    let after = tch::no_grad(|| split.net().forward_t(&xs, false));
    let diff = (&before - &after).abs().max().double_value(&[]);
    assert!(diff < 1e-5, "the split net's outputs differ by {diff}");
    assert_eq!(train_to(dir.path(), &mut split, 10), 5);
    // The stacks learned apart: the WDL head's four copies are no longer equal.
    let wdl = &split.net().var_store().variables()["wdl.weight"];
    let first = wdl.narrow(0, 0, 3);
    let apart = (1..4)
        .filter(|&b| (wdl.narrow(0, 3 * b, 3) - &first).abs().max().double_value(&[]) > 0.0)
        .count();
    assert!(apart >= 1, "every stack still equals the first");
    let candidate =
        model::checkpoint::load(&paths.nets.join("step-0000000010.safetensors"), None, Device::Cpu)
            .unwrap();
    assert_eq!(candidate.meta.config, four);
}

#[test]
fn a_growth_schedule_widens_the_net_once_the_data_reaches_it_and_the_grown_state_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 500);
    let grow = GrowSchedule(vec![Widening { at: 600, accumulator: 48 }]);
    let config = TrainConfig { ema_decay: 0.9, grow, ..quick_config(5) };
    let open = |config: &TrainConfig| {
        Trainer::open(paths.clone(), &sparse(16), config.clone(), Device::Cpu).unwrap()
    };
    let (mut trainer, _) = open(&config);
    let first = trainer.refresh().unwrap();
    assert_eq!((first.positions, first.grown), (500, None), "500 positions read: not yet");
    assert_eq!(train_to(dir.path(), &mut trainer, 5), 5);
    let xs = Input::Features.encode_batch(&random_observations(100, 4));
    let before = tch::no_grad(|| trainer.net().forward_t(&xs, false));

    let more = synthetic_samples(500, 6);
    write_shard(&paths.shards, &ShardHeader::now(7, None), &more).unwrap();
    let grown = trainer.refresh().unwrap().grown;
    assert_eq!(grown, Some(train::Growth { from: 16, to: 48, positions: 1000 }));
    assert_eq!(trainer.net().config(), &sparse(48));
    assert_eq!(trainer.refresh().unwrap().grown, None, "it grows once");
    let after = tch::no_grad(|| trainer.net().forward_t(&xs, false));
    let diff = (&before - &after).abs().max().double_value(&[]);
    assert!(diff < 1e-5, "the grown net's outputs differ by {diff}");
    assert_eq!(train_to(dir.path(), &mut trainer, 10), 5);
    let candidate = paths.nets.join("step-0000000010.safetensors");
    let candidate = model::checkpoint::load(&candidate, None, Device::Cpu).unwrap();
    assert_eq!(candidate.meta.config, sparse(48), "the candidates are the grown net");
    drop(trainer);

    // The grown state resumes as it is under the same config. Without the schedule it is a net
    // of another size, refused by name, and the trainer falls back to the narrow state before.
    let (trainer, opened) = open(&config);
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 10)));
    assert_eq!((opened.widened_from, trainer.net().config()), (None, &sparse(48)));
    let (_, opened) = open(&TrainConfig { grow: GrowSchedule::default(), ..config });
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 5)));
    let refused: Vec<String> = opened.refused.iter().map(|e| e.to_string()).collect();
    assert!(refused.len() == 1 && refused[0].contains("does not match"), "{refused:?}");
}

#[test]
fn a_warm_started_trainer_begins_with_the_init_net_widened_and_a_wrong_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let paths = run_with_shards(dir.path(), 500);
    tch::manual_seed(77);
    let trained = model::PolicyValueNet::new(&sparse(16), Device::Cpu).unwrap();
    let init = dir.path().join("trained.safetensors");
    model::checkpoint::save(&init, &trained, 1234, None, &model::Extras::default()).unwrap();
    let xs = Input::Features.encode_batch(&random_observations(100, 4));
    let expected = tch::no_grad(|| trained.forward_t(&xs, false));
    let differs = |trainer: &Trainer| {
        let out = tch::no_grad(|| trainer.net().forward_t(&xs, false));
        (&expected - &out).abs().max().double_value(&[])
    };

    let config = TrainConfig { init: init.to_str().unwrap().into(), ..quick_config(5) };
    let (mut trainer, opened) =
        Trainer::open(paths.clone(), &sparse(48), config.clone(), Device::Cpu).unwrap();
    assert_eq!((opened.resumed_from, trainer.step()), (None, 0), "a fresh state");
    assert_eq!(trainer.net().config(), &sparse(48));
    assert!(differs(&trainer) < 1e-5, "the warm start's outputs differ by {}", differs(&trainer));
    let elsewhere = |name: &str| {
        let root = dir.path().join(name);
        TrainPaths {
            states: root.join("train"),
            nets: root.join("nets"),
            tb: root.join("tb"),
            ..paths.clone()
        }
    };
    let (seeded, _) =
        Trainer::open(elsewhere("seeded"), &sparse(48), quick_config(5), Device::Cpu).unwrap();
    assert!(differs(&seeded) > 1e-2, "without `init` the net is a random one");
    assert_eq!(train_to(dir.path(), &mut trainer, 5), 5);
    drop(trainer);

    // The state now resumes; `init` is not read again (even when the file is gone).
    std::fs::remove_file(&init).unwrap();
    let (_, opened) =
        Trainer::open(paths.clone(), &sparse(48), config.clone(), Device::Cpu).unwrap();
    assert_eq!(opened.resumed_from, Some(state_path(&paths.states, 5)));

    // A fresh state with an init net of another architecture: an error naming the file.
    let resnet = model::PolicyValueNet::new(&NetConfig::new(1, 8), Device::Cpu).unwrap();
    model::checkpoint::save(&init, &resnet, 1, None, &model::Extras::default()).unwrap();
    let err = Trainer::open(elsewhere("other"), &sparse(48), config, Device::Cpu)
        .err()
        .expect("a ResNet does not start a sparse run");
    let err = format!("{err}: {}", std::error::Error::source(&err).expect("a cause"));
    assert!(err.contains("trained.safetensors") && err.contains("does not match"), "{err}");
}

//! The net and the inference API: shapes, stable names, batch-norm modes, batching, bf16.

use super::{forward, max_abs_diff, positions, small_config, warmed_net};
use model::encoding::{encode_batch_into, INPUT_SIZE};
use model::{Inference, PolicyValueNet, OUTPUT_SIZE, WDL_OFFSET};
use tch::nn::ModuleT;
use tch::Device;

#[test]
fn variables_live_under_stable_names() {
    let net = PolicyValueNet::new(&small_config(), Device::Cpu).unwrap();
    let vars = net.var_store().variables();
    let expected = [
        ("stem.conv.weight", vec![16, 10, 3, 3]),
        ("stem.bn.running_var", vec![16]),
        ("tower.1.conv2.weight", vec![16, 16, 3, 3]),
        ("tower.1.bn2.bias", vec![16]),
        ("policy.conv.weight", vec![8, 16, 1, 1]),
        ("policy.fc.weight", vec![128, 8 * 64]),
        ("value.fc.weight", vec![64, 4 * 64]),
        ("value.wdl.weight", vec![3, 64]),
        ("value.moves_left.bias", vec![1]),
    ];
    for (name, shape) in expected {
        assert_eq!(vars.get(name).map(|t| t.size()), Some(shape), "{name}");
    }
    // stem (conv + 4 bn) + 2 blocks x 2 x (conv + 4 bn) + 2 heads x (conv + 4 bn + fc 2) + 2 x fc 2
    assert_eq!(vars.len(), 5 + 20 + 14 + 4);
}

#[test]
fn train_mode_updates_running_statistics_and_eval_mode_does_not() {
    let net = PolicyValueNet::new(&small_config(), Device::Cpu).unwrap();
    let (_, xs) = positions(32);
    let mean = || net.var_store().variables()["tower.0.bn1.running_mean"].copy();
    let before = mean();
    let out = forward(&net, &xs);
    assert_eq!(out.size(), [32, OUTPUT_SIZE as i64]);
    assert!(mean().equal(&before), "eval mode must not touch running statistics");
    let _ = tch::no_grad(|| net.forward_t(&xs, true));
    assert!(!mean().equal(&before), "train mode updates running statistics");
    let heads = tch::no_grad(|| net.forward_heads(&xs, false));
    assert_eq!(
        (heads.policy.size(), heads.wdl.size(), heads.moves_left.size()),
        (vec![32, 128], vec![32, 3], vec![32, 1])
    );
}

#[test]
fn evaluate_matches_the_forward_pass_whatever_the_batch() {
    let net = warmed_net(&small_config());
    let (obs, xs) = positions(40);
    let expected = forward(&net, &xs);
    let inference = Inference::new(net, false);
    let evals = inference.evaluate(&obs).unwrap();
    assert_eq!(evals.len(), 40);
    let rows = Vec::<Vec<f32>>::try_from(expected).unwrap();
    for (i, (eval, row)) in evals.iter().zip(&rows).enumerate() {
        let diff =
            eval.policy_logits.iter().zip(row).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-5, "row {i}: policy differs by {diff}");
        assert!((eval.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(eval.value().abs() <= 1.0);
        let wdl_argmax = |v: &[f32]| (0..3).max_by(|&a, &b| v[a].total_cmp(&v[b]));
        assert_eq!(wdl_argmax(&eval.wdl), wdl_argmax(&row[WDL_OFFSET..WDL_OFFSET + 3]));
    }
    // One position alone gives (nearly) what it gave inside the batch.
    let single = inference.evaluate(&obs[7..8]).unwrap();
    let diff = single[0]
        .policy_logits
        .iter()
        .zip(&evals[7].policy_logits)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(diff < 1e-4, "batch of one differs by {diff}");
    // The fast path and priors over legal steps.
    let mut input = vec![0.0; 3 * INPUT_SIZE];
    encode_batch_into(&obs[..3], &mut input);
    assert_eq!(inference.forward_encoded(&input).unwrap().len(), 3 * OUTPUT_SIZE);
    assert!(inference.evaluate(&[]).unwrap().is_empty());
    // A malformed input is an error naming the device, not a panic.
    let err = inference.forward_encoded(&input[1..]).unwrap_err().to_string();
    assert!(err.contains("on cpu") && err.contains("not whole positions"), "{err}");
    let turn = draughts::Turn::new(draughts::Position::start());
    let priors = evals[0].priors(&turn.legal_steps(), draughts::Color::Black);
    assert_eq!(priors.len(), 7);
    assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

#[test]
fn bf16_inference_stays_close_to_f32() {
    let (obs, xs) = positions(16);
    let expected = forward(&warmed_net(&small_config()), &xs);
    let inference = Inference::new(warmed_net(&small_config()), true);
    let got: Vec<f32> =
        inference.evaluate(&obs).unwrap().iter().flat_map(|e| e.policy_logits).collect();
    let got = tch::Tensor::from_slice(&got).view([16, 128]);
    let diff = max_abs_diff(&got, &expected.narrow(1, 0, 128));
    assert!(diff < 0.1, "bf16 policy logits differ by {diff}");
}

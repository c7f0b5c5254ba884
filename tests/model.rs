//! The model crate with libtorch: checkpoints, inference, and exports checked in the real runtimes
//! (the quantised one in its reference reader).

mod average;
mod checkpoint;
mod export;
mod inference;
mod quantised;
mod sparse;

use draughts::Observation;
use model::encoding::encode_batch;
use model::sample::random_observations;
use model::{NetConfig, PolicyValueNet};
use tch::nn::ModuleT;
use tch::{Device, Tensor};

/// A small net whose batch-norm running statistics are no longer the initial 0/1 (a few
/// train-mode passes over real positions), so eval mode and BN folding are really exercised.
fn warmed_net(config: &NetConfig) -> PolicyValueNet {
    tch::manual_seed(11);
    let net = PolicyValueNet::new(config, Device::Cpu).unwrap();
    let xs = model::encoding::Input::of(config).encode_batch(&random_observations(64, 3));
    tch::no_grad(|| {
        for _ in 0..5 {
            let _ = net.forward_t(&xs, true);
        }
    });
    net
}

fn small_config() -> NetConfig {
    NetConfig::new(2, 16)
}

/// `n` real positions from random games (mid-capture steps included) and their encoding.
fn positions(n: usize) -> (Vec<Observation>, Tensor) {
    let obs = random_observations(n, 99);
    let xs = encode_batch(&obs);
    (obs, xs)
}

/// Eval-mode output `[B, 132]` of `net`.
fn forward(net: &PolicyValueNet, xs: &Tensor) -> Tensor {
    tch::no_grad(|| net.forward_t(xs, false))
}

fn max_abs_diff(a: &Tensor, b: &Tensor) -> f64 {
    (a - b).abs().max().double_value(&[])
}

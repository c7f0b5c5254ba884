//! Building blocks of the net: convolution + batch norm, and the residual block.

use tch::nn::{self, ModuleT};
use tch::Tensor;

/// A bias-free `k x k` convolution (same padding) followed by batch norm.
/// `[B, in, 8, 8]` -> `[B, out, 8, 8]`. Variables: `conv.weight` `[out, in, k, k]`;
/// `bn.weight`, `bn.bias`, `bn.running_mean`, `bn.running_var`, each `[out]`.
#[derive(Debug)]
pub struct ConvBn {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
}

/// Batch-norm epsilon (tch's default); the ONNX export folds it into the convolutions.
pub const BN_EPS: f64 = 1e-5;

impl ConvBn {
    /// Variables under `vs / conv_name` and `vs / bn_name`.
    pub fn new(
        vs: &nn::Path,
        conv_name: &str,
        bn_name: &str,
        inputs: i64,
        outputs: i64,
        kernel: i64,
    ) -> ConvBn {
        let conv_cfg = nn::ConvConfig { padding: kernel / 2, bias: false, ..Default::default() };
        let bn_cfg = nn::BatchNormConfig {
            eps: BN_EPS,
            ws_init: nn::Init::Const(1.0),
            ..Default::default()
        };
        ConvBn {
            conv: nn::conv2d(vs / conv_name, inputs, outputs, kernel, conv_cfg),
            bn: nn::batch_norm2d(vs / bn_name, outputs, bn_cfg),
        }
    }

    pub fn conv(&self) -> &nn::Conv2D {
        &self.conv
    }

    pub fn bn(&self) -> &nn::BatchNorm {
        &self.bn
    }
}

impl ModuleT for ConvBn {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply(&self.conv).apply_t(&self.bn, train)
    }
}

/// `relu(x + bn2(conv2(relu(bn1(conv1(x))))))`, `[B, C, 8, 8]` -> `[B, C, 8, 8]`.
/// Variables under `tower / i / {conv1, bn1, conv2, bn2}`.
#[derive(Debug)]
pub struct ResBlock {
    pub first: ConvBn,
    pub second: ConvBn,
}

impl ResBlock {
    pub fn new(vs: &nn::Path, channels: i64) -> ResBlock {
        ResBlock {
            first: ConvBn::new(vs, "conv1", "bn1", channels, channels, 3),
            second: ConvBn::new(vs, "conv2", "bn2", channels, channels, 3),
        }
    }
}

impl ModuleT for ResBlock {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let ys = self.first.forward_t(xs, train).relu();
        (self.second.forward_t(&ys, train) + xs).relu()
    }
}

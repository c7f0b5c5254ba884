//! The ResNet family's body: a residual tower over the input planes and three heads.
//!
//! ```text
//! input [B, PLANES, 8, 8]
//!   stem:   conv3x3 + bn + relu                       -> [B, C, 8, 8]
//!   tower:  `blocks` residual blocks                   -> [B, C, 8, 8]
//!   policy: conv1x1 + bn + relu, flatten, fc           -> [B, 128] logits
//!   value:  conv1x1 + bn + relu, flatten, fc + relu    -> [B, H]
//!           wdl fc -> [B, 3] logits (win, draw, loss for the mover); moves_left fc -> [B, 1]
//! ```

use crate::encoding::PLANES;
use crate::layers::{ConvBn, ResBlock};
use crate::net::NetOutput;
use crate::policy::POLICY_SIZE;
use netfile::ResNetConfig;
use tch::nn::{self, ModuleT};
use tch::Tensor;

/// The ResNet's layers. Variables: `stem.{conv,bn}`, `tower.{i}.{conv1,bn1,conv2,bn2}`,
/// `policy.{conv,bn,fc}`, `value.{conv,bn,fc,wdl,moves_left}`.
#[derive(Debug)]
pub(crate) struct ResNetBody {
    pub(crate) stem: ConvBn,
    pub(crate) tower: Vec<ResBlock>,
    pub(crate) policy: Head,
    pub(crate) value: Head,
    pub(crate) wdl: nn::Linear,
    pub(crate) moves_left: nn::Linear,
}

/// A head's trunk: `conv1x1 + bn + relu`, flatten, `fc` (+ relu for the value head).
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) conv: ConvBn,
    pub(crate) fc: nn::Linear,
}

impl Head {
    pub(crate) fn new(vs: &nn::Path, channels: i64, head_channels: i64, outputs: i64) -> Head {
        Head {
            conv: ConvBn::new(vs, "conv", "bn", channels, head_channels, 1),
            fc: nn::linear(vs / "fc", head_channels * 64, outputs, Default::default()),
        }
    }

    /// `[B, C, 8, 8]` -> `[B, outputs]`.
    pub(crate) fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.conv.forward_t(xs, train).relu().flatten(1, -1).apply(&self.fc)
    }
}

impl ResNetBody {
    /// Freshly initialised layers under `root`.
    pub(crate) fn new(root: &nn::Path, config: &ResNetConfig) -> ResNetBody {
        let c = config.channels as i64;
        let value_path = root / "value";
        let hidden = config.value_hidden as i64;
        ResNetBody {
            stem: ConvBn::new(&(root / "stem"), "conv", "bn", PLANES as i64, c, 3),
            tower: (0..config.blocks).map(|i| ResBlock::new(&(root / "tower" / i), c)).collect(),
            policy: Head::new(
                &(root / "policy"),
                c,
                config.policy_channels as i64,
                POLICY_SIZE as i64,
            ),
            value: Head::new(&value_path, c, config.value_channels as i64, hidden),
            wdl: nn::linear(&value_path / "wdl", hidden, 3, Default::default()),
            moves_left: nn::linear(&value_path / "moves_left", hidden, 1, Default::default()),
        }
    }

    /// `xs`: `[B, PLANES, 8, 8]`.
    pub(crate) fn forward_heads(&self, xs: &Tensor, train: bool) -> NetOutput {
        let trunk = self
            .tower
            .iter()
            .fold(self.stem.forward_t(xs, train).relu(), |x, block| block.forward_t(&x, train));
        let hidden = self.value.forward_t(&trunk, train).relu();
        NetOutput {
            policy: self.policy.forward_t(&trunk, train),
            wdl: hidden.apply(&self.wdl),
            moves_left: hidden.apply(&self.moves_left),
            trunk,
        }
    }
}

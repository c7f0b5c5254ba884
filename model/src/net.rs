//! The policy-value net: a residual tower over the input planes and three heads, built from a
//! [`NetConfig`] with every variable under a stable path.
//!
//! ```text
//! input [B, PLANES, 8, 8]
//!   stem:   conv3x3 + bn + relu                       -> [B, C, 8, 8]
//!   tower:  `blocks` residual blocks                   -> [B, C, 8, 8]
//!   policy: conv1x1 + bn + relu, flatten, fc           -> [B, 128] logits
//!   value:  conv1x1 + bn + relu, flatten, fc + relu    -> [B, H]
//!           wdl fc -> [B, 3] logits (win, draw, loss for the mover); moves_left fc -> [B, 1]
//! output (concatenated) [B, 132] = policy 0..128, wdl 128..131, moves_left 131
//! ```

use crate::config::NetConfig;
use crate::encoding::PLANES;
use crate::error::ModelError;
use crate::layers::{ConvBn, ResBlock};
use crate::policy::POLICY_SIZE;
use tch::nn::{self, ModuleT};
use tch::{Device, Tensor};

/// Width of the concatenated output: policy logits, WDL logits, moves left.
pub const OUTPUT_SIZE: usize = POLICY_SIZE + 3 + 1;
/// Offset of the WDL logits (win, draw, loss from the mover's view) in the output.
pub const WDL_OFFSET: usize = POLICY_SIZE;
/// Offset of the moves-left prediction (plies to the end of the game) in the output.
pub const MOVES_LEFT_OFFSET: usize = POLICY_SIZE + 3;

/// The net with its variables. Owns its [`nn::VarStore`]; the trainer builds its optimizer from
/// [`PolicyValueNet::var_store`].
#[derive(Debug)]
pub struct PolicyValueNet {
    config: NetConfig,
    vs: nn::VarStore,
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
    fn new(vs: &nn::Path, channels: i64, head_channels: i64, outputs: i64) -> Head {
        Head {
            conv: ConvBn::new(vs, "conv", "bn", channels, head_channels, 1),
            fc: nn::linear(vs / "fc", head_channels * 64, outputs, Default::default()),
        }
    }

    /// `[B, C, 8, 8]` -> `[B, outputs]`.
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.conv.forward_t(xs, train).relu().flatten(1, -1).apply(&self.fc)
    }
}

/// The heads' outputs, separately.
#[derive(Debug)]
pub struct NetOutput {
    /// `[B, 128]` policy logits over step indices (illegal steps are not masked).
    pub policy: Tensor,
    /// `[B, 3]` WDL logits from the mover's view.
    pub wdl: Tensor,
    /// `[B, 1]` predicted plies to the end of the game.
    pub moves_left: Tensor,
}

impl PolicyValueNet {
    /// A freshly initialised net on `device`. Variables: `stem.{conv,bn}`,
    /// `tower.{i}.{conv1,bn1,conv2,bn2}`, `policy.{conv,bn,fc}`, `value.{conv,bn,fc,wdl,moves_left}`.
    pub fn new(config: &NetConfig, device: Device) -> Result<PolicyValueNet, ModelError> {
        config.validate()?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let c = config.channels as i64;
        let value_path = &root / "value";
        let hidden = config.value_hidden as i64;
        Ok(PolicyValueNet {
            stem: ConvBn::new(&(&root / "stem"), "conv", "bn", PLANES as i64, c, 3),
            tower: (0..config.blocks).map(|i| ResBlock::new(&(&root / "tower" / i), c)).collect(),
            policy: Head::new(
                &(&root / "policy"),
                c,
                config.policy_channels as i64,
                POLICY_SIZE as i64,
            ),
            value: Head::new(&value_path, c, config.value_channels as i64, hidden),
            wdl: nn::linear(&value_path / "wdl", hidden, 3, Default::default()),
            moves_left: nn::linear(&value_path / "moves_left", hidden, 1, Default::default()),
            config: config.clone(),
            vs,
        })
    }

    /// The architecture this net was built with.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// The variables (weights and batch-norm statistics), e.g. for saving.
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// The variables, mutable: for loading weights, the optimizer, or a change of precision.
    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The heads separately. `xs`: `[B, PLANES, 8, 8]` on the net's device. `train` selects batch
    /// statistics (and updates the running ones) instead of the running statistics.
    pub fn forward_heads(&self, xs: &Tensor, train: bool) -> NetOutput {
        let trunk = self
            .tower
            .iter()
            .fold(self.stem.forward_t(xs, train).relu(), |x, block| block.forward_t(&x, train));
        let hidden = self.value.forward_t(&trunk, train).relu();
        NetOutput {
            policy: self.policy.forward_t(&trunk, train),
            wdl: hidden.apply(&self.wdl),
            moves_left: hidden.apply(&self.moves_left),
        }
    }
}

/// `[B, PLANES, 8, 8]` -> `[B, OUTPUT_SIZE]`: the heads concatenated (the layout of every export).
impl ModuleT for PolicyValueNet {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let out = self.forward_heads(xs, train);
        Tensor::cat(&[out.policy, out.wdl, out.moves_left], 1)
    }
}

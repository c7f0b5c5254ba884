//! The policy-value net of either family, built from a [`NetConfig`] with every variable under a
//! stable path: the ResNet ([`crate::resnet`]) over input planes, or the sparse net
//! ([`crate::sparse`]) over piece-square features. Both have the same heads and the same output.
//!
//! ```text
//! input: [B, PLANES, 8, 8] (resnet) or [B, FEATURES] (sparse), see crate::encoding::Input
//! output (concatenated) [B, 132] = policy 0..128, wdl 128..131, moves_left 131
//! ```

use crate::error::ModelError;
use crate::policy::POLICY_SIZE;
use crate::resnet::ResNetBody;
use crate::sparse::SparseBody;
use netfile::NetConfig;
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
    pub(crate) body: Body,
}

/// The layers of one family.
#[derive(Debug)]
pub(crate) enum Body {
    Resnet(Box<ResNetBody>),
    Sparse(SparseBody),
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
    /// What the policy head reads: the sparse net's accumulator `[B, A]` or the ResNet's tower
    /// output `[B, C, 8, 8]`, for auxiliary heads ([`crate::AuxPolicyHead`]).
    pub trunk: Tensor,
}

impl PolicyValueNet {
    /// A freshly initialised net on `device`.
    pub fn new(config: &NetConfig, device: Device) -> Result<PolicyValueNet, ModelError> {
        config.validate()?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let body = match config {
            NetConfig::Resnet(c) => Body::Resnet(Box::new(ResNetBody::new(&root, c))),
            NetConfig::Sparse(c) => Body::Sparse(SparseBody::new(&root, c)),
        };
        Ok(PolicyValueNet { config: config.clone(), vs, body })
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

    /// The heads separately. `xs`: the family's input (see [`crate::encoding::Input`]) on the
    /// net's device. `train` selects batch statistics (and updates the running ones) instead of
    /// the running statistics, for the layers that have them.
    pub fn forward_heads(&self, xs: &Tensor, train: bool) -> NetOutput {
        match &self.body {
            Body::Resnet(body) => body.forward_heads(xs, train),
            Body::Sparse(body) => body.forward_heads(xs),
        }
    }
}

/// The family's input -> `[B, OUTPUT_SIZE]`: the heads concatenated (the layout of every export).
impl ModuleT for PolicyValueNet {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let out = self.forward_heads(xs, train);
        Tensor::cat(&[out.policy, out.wdl, out.moves_left], 1)
    }
}

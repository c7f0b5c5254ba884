//! An auxiliary policy head: a second policy over the same 128 step indices, trained on its own
//! target (e.g. KataGo's soft policy) from the body's trunk. It is not part of the net: its
//! variables live in the caller's var store (the trainer's), so checkpoints, exports and play
//! never see it, while its gradient still shapes the shared body.
//!
//! ```text
//! sparse: accumulator [B, A]       -> linear                               -> [B, 128] logits
//! resnet: tower output [B, C, 8, 8] -> conv1x1 + bn + relu, flatten, fc      -> [B, 128] logits
//! ```

use crate::policy::POLICY_SIZE;
use crate::resnet::Head;
use netfile::NetConfig;
use tch::nn;
use tch::Tensor;

/// The head's layers, shaped for one net family's trunk.
#[derive(Debug)]
pub struct AuxPolicyHead(Layers);

#[derive(Debug)]
enum Layers {
    /// On the sparse net's accumulator.
    Sparse(nn::Linear),
    /// On the ResNet's tower output, built as the net's own policy head is.
    Resnet(Box<Head>),
}

impl AuxPolicyHead {
    /// Freshly initialised layers under `path`, for the trunk of a net of `config`.
    pub fn new(path: &nn::Path, config: &NetConfig) -> AuxPolicyHead {
        match config {
            NetConfig::Sparse(c) => AuxPolicyHead(Layers::Sparse(nn::linear(
                path,
                c.accumulator as i64,
                POLICY_SIZE as i64,
                Default::default(),
            ))),
            NetConfig::Resnet(c) => AuxPolicyHead(Layers::Resnet(Box::new(Head::new(
                path,
                c.channels as i64,
                c.policy_channels as i64,
                POLICY_SIZE as i64,
            )))),
        }
    }

    /// `trunk` ([`crate::NetOutput::trunk`]) -> `[B, 128]` logits (illegal steps not masked).
    /// `train` as in [`crate::PolicyValueNet::forward_heads`].
    pub fn forward_t(&self, trunk: &Tensor, train: bool) -> Tensor {
        match &self.0 {
            Layers::Sparse(linear) => trunk.apply(linear),
            Layers::Resnet(head) => head.forward_t(trunk, train),
        }
    }
}

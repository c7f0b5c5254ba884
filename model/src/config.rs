//! The network's architecture as a serde config, validated once before a net is built.

use crate::error::ModelError;
use serde::{Deserialize, Serialize};

/// Architecture of the policy-value net. Stored in every checkpoint; a checkpoint loads only into
/// the architecture it was saved from.
///
/// ```toml
/// blocks = 4
/// channels = 32
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Residual blocks in the tower (each: two 3x3 convolutions with batch norm).
    pub blocks: usize,
    /// Channels of every tower convolution.
    pub channels: usize,
    /// Channels of the policy head's 1x1 convolution.
    #[serde(default = "default_policy_channels")]
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution.
    #[serde(default = "default_value_channels")]
    pub value_channels: usize,
    /// Width of the value head's hidden fully connected layer (shared by WDL and moves-left).
    #[serde(default = "default_value_hidden")]
    pub value_hidden: usize,
}

fn default_policy_channels() -> usize {
    8
}

fn default_value_channels() -> usize {
    4
}

fn default_value_hidden() -> usize {
    64
}

impl NetConfig {
    /// A net of `blocks` residual blocks of `channels` channels, default heads.
    pub fn new(blocks: usize, channels: usize) -> NetConfig {
        NetConfig {
            blocks,
            channels,
            policy_channels: default_policy_channels(),
            value_channels: default_value_channels(),
            value_hidden: default_value_hidden(),
        }
    }

    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), ModelError> {
        let checks: [(&'static str, usize, usize); 5] = [
            ("blocks", self.blocks, 64),
            ("channels", self.channels, 1024),
            ("policy_channels", self.policy_channels, 256),
            ("value_channels", self.value_channels, 256),
            ("value_hidden", self.value_hidden, 4096),
        ];
        for (field, value, max) in checks {
            support::check(field, value, (1..=max).contains(&value), &format!("in 1..={max}"))?;
        }
        Ok(())
    }

    /// The config as compact JSON (the form stored in checkpoints).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a NetConfig always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_refused() {
        let err = serde_json::from_str::<NetConfig>(r#"{"blocks":4,"channels":32,"chanels":8}"#)
            .unwrap_err();
        assert!(err.to_string().contains("chanels"), "{err}");
    }

    #[test]
    fn heads_have_defaults_and_json_round_trips() {
        let cfg: NetConfig = serde_json::from_str(r#"{"blocks":4,"channels":32}"#).unwrap();
        assert_eq!(cfg, NetConfig::new(4, 32));
        assert_eq!(serde_json::from_str::<NetConfig>(&cfg.to_json()).unwrap(), cfg);
    }

    #[test]
    fn validate_names_the_bad_field() {
        let mut cfg = NetConfig::new(4, 32);
        cfg.value_hidden = 0;
        let err = cfg.validate().unwrap_err().to_string();
        assert!(err.contains("value_hidden"), "{err}");
        assert!(NetConfig::new(4, 32).validate().is_ok());
    }
}

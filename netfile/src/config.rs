//! The net's architecture as a serde config: one of two families, chosen by `kind`, each with its
//! own sizes, validated once before a net is built.

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// Architecture of a policy-value net. Stored in every checkpoint; a checkpoint loads only into
/// the architecture it was saved from. `kind` picks the family (`resnet` when a config says
/// nothing, as every config and checkpoint did before there were two):
///
/// ```toml
/// kind = "sparse"   # or "resnet" (blocks = 4, channels = 32, ...)
/// accumulator = 128
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum NetConfig {
    /// A residual convolutional tower over 8x8 input planes: for GPU boxes.
    Resnet(ResNetConfig),
    /// A small net over sparse piece-square features: for CPUs.
    Sparse(SparseConfig),
}

/// The two net families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// [`NetConfig::Resnet`].
    Resnet,
    /// [`NetConfig::Sparse`].
    Sparse,
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::Resnet => "resnet",
            Family::Sparse => "sparse",
        })
    }
}

/// Sizes of the ResNet family.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResNetConfig {
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

/// Sizes of the sparse family: an accumulator (the sum of the active features' columns) read by
/// the policy head, and a stack of small dense layers after it read by the value heads. With
/// `buckets` above one the value stack (dense layers and value heads) is there once per bucket of
/// material, and a position uses the one of its piece count (`sparsenet::features::bucket`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparseConfig {
    /// Width of the accumulator.
    #[serde(default = "default_accumulator")]
    pub accumulator: usize,
    /// Width of each dense layer after the accumulator.
    #[serde(default = "default_hidden")]
    pub hidden: usize,
    /// Dense layers between the accumulator and the value heads (0: the heads read the
    /// accumulator).
    #[serde(default = "default_layers")]
    pub layers: usize,
    /// Value stacks, one per range of piece counts (1: one stack for every position). Left out
    /// of a checkpoint's config when 1, as every checkpoint was before there were buckets.
    #[serde(default = "default_buckets", skip_serializing_if = "is_one")]
    pub buckets: usize,
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

fn default_accumulator() -> usize {
    128
}

fn default_hidden() -> usize {
    32
}

fn default_layers() -> usize {
    2
}

fn default_buckets() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl Default for SparseConfig {
    fn default() -> SparseConfig {
        SparseConfig {
            accumulator: default_accumulator(),
            hidden: default_hidden(),
            layers: default_layers(),
            buckets: default_buckets(),
        }
    }
}

/// Reads `kind` (default `resnet`), then the family's own fields, unknown ones refused.
impl<'de> Deserialize<'de> for NetConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NetConfig, D::Error> {
        let mut table = Map::<String, Value>::deserialize(deserializer)?;
        let kind = match table.remove("kind") {
            None => "resnet".to_string(),
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(D::Error::custom(format!("`kind` = {other} is not a string")));
            }
        };
        let fields = Value::Object(table);
        match kind.as_str() {
            "resnet" => ResNetConfig::deserialize(fields).map(NetConfig::Resnet),
            "sparse" => SparseConfig::deserialize(fields).map(NetConfig::Sparse),
            other => {
                return Err(D::Error::custom(format!(
                    "unknown net kind `{other}`; expected `resnet` or `sparse`"
                )))
            }
        }
        .map_err(|e| D::Error::custom(format!("{kind} net: {e}")))
    }
}

impl NetConfig {
    /// A ResNet of `blocks` residual blocks of `channels` channels, default heads.
    pub fn new(blocks: usize, channels: usize) -> NetConfig {
        NetConfig::Resnet(ResNetConfig {
            blocks,
            channels,
            policy_channels: default_policy_channels(),
            value_channels: default_value_channels(),
            value_hidden: default_value_hidden(),
        })
    }

    /// A sparse net of the default sizes.
    pub fn sparse() -> NetConfig {
        NetConfig::Sparse(SparseConfig::default())
    }

    /// The family.
    pub fn family(&self) -> Family {
        match self {
            NetConfig::Resnet(_) => Family::Resnet,
            NetConfig::Sparse(_) => Family::Sparse,
        }
    }

    /// The version of the family's input encoding that this build writes and reads.
    pub fn encoding_version(&self) -> u32 {
        match self {
            NetConfig::Resnet(_) => crate::PLANES_VERSION,
            NetConfig::Sparse(_) => crate::SPARSE_FEATURES_VERSION,
        }
    }

    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), support::Invalid> {
        let checks: Vec<(&'static str, usize, usize, usize)> = match self {
            NetConfig::Resnet(c) => vec![
                ("blocks", c.blocks, 1, 64),
                ("channels", c.channels, 1, 1024),
                ("policy_channels", c.policy_channels, 1, 256),
                ("value_channels", c.value_channels, 1, 256),
                ("value_hidden", c.value_hidden, 1, 4096),
            ],
            NetConfig::Sparse(c) => vec![
                ("accumulator", c.accumulator, 1, 4096),
                ("hidden", c.hidden, 1, 1024),
                ("layers", c.layers, 0, 8),
                ("buckets", c.buckets, 1, 8),
            ],
        };
        for (field, value, min, max) in checks {
            support::check(
                field,
                value,
                (min..=max).contains(&value),
                &format!("in {min}..={max}"),
            )?;
        }
        Ok(())
    }

    /// The config as compact JSON (the form stored in checkpoints).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a NetConfig always serializes")
    }

    /// The config in a few words for progress lines (`resnet 4x32`, `sparse 128-32x2`).
    pub fn short_name(&self) -> String {
        match self {
            NetConfig::Resnet(c) => format!("resnet {}x{}", c.blocks, c.channels),
            NetConfig::Sparse(c) if c.buckets == 1 => {
                format!("sparse {}-{}x{}", c.accumulator, c.hidden, c.layers)
            }
            NetConfig::Sparse(c) => {
                format!("sparse {}-{}x{}x{}b", c.accumulator, c.hidden, c.layers, c.buckets)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<NetConfig, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn unknown_fields_are_refused_and_named() {
        let err = parse(r#"{"blocks":4,"channels":32,"chanels":8}"#).unwrap_err();
        assert!(err.contains("chanels"), "{err}");
        let err = parse(r#"{"kind":"sparse","acumulator":8}"#).unwrap_err();
        assert!(err.contains("acumulator") && err.contains("sparse"), "{err}");
        let err = parse(r#"{"kind":"mlp"}"#).unwrap_err();
        assert!(err.contains("unknown net kind `mlp`"), "{err}");
    }

    #[test]
    fn resnet_is_the_default_kind_and_json_round_trips() {
        let cfg = parse(r#"{"blocks":4,"channels":32}"#).unwrap();
        assert_eq!(cfg, NetConfig::new(4, 32));
        assert_eq!(parse(&cfg.to_json()).unwrap(), cfg);
        assert!(cfg.to_json().contains(r#""kind":"resnet""#), "{}", cfg.to_json());
        let sparse = parse(r#"{"kind":"sparse","accumulator":64}"#).unwrap();
        assert_eq!(
            sparse,
            NetConfig::Sparse(SparseConfig { accumulator: 64, ..Default::default() })
        );
        assert_eq!(parse(&sparse.to_json()).unwrap(), sparse);
    }

    #[test]
    fn one_bucket_is_left_out_of_the_json_and_more_are_kept() {
        let one = NetConfig::sparse();
        assert!(!one.to_json().contains("buckets"), "{}", one.to_json());
        let four = parse(r#"{"kind":"sparse","buckets":4}"#).unwrap();
        assert_eq!(four, NetConfig::Sparse(SparseConfig { buckets: 4, ..Default::default() }));
        assert_eq!(parse(&four.to_json()).unwrap(), four);
        assert_eq!(four.short_name(), "sparse 128-32x2x4b");
    }

    #[test]
    fn a_toml_net_section_reads_both_families() {
        let resnet: NetConfig = toml::from_str("blocks = 2\nchannels = 16\n").unwrap();
        assert_eq!(resnet, NetConfig::new(2, 16));
        let sparse: NetConfig = toml::from_str("kind = \"sparse\"\nlayers = 1\n").unwrap();
        assert_eq!(sparse.family(), Family::Sparse);
        let err = toml::from_str::<NetConfig>("kind = \"sparse\"\nblocks = 2\n").unwrap_err();
        assert!(err.to_string().contains("blocks"), "{err}");
    }

    #[test]
    fn validate_names_the_bad_field() {
        let NetConfig::Resnet(mut resnet) = NetConfig::new(4, 32) else { unreachable!() };
        resnet.value_hidden = 0;
        let err = NetConfig::Resnet(resnet).validate().unwrap_err().to_string();
        assert!(err.contains("value_hidden"), "{err}");
        let err = NetConfig::Sparse(SparseConfig { layers: 9, ..Default::default() })
            .validate()
            .unwrap_err();
        assert!(err.to_string().contains("layers"), "{err}");
        let err = NetConfig::Sparse(SparseConfig { buckets: 0, ..Default::default() })
            .validate()
            .unwrap_err();
        assert!(err.to_string().contains("buckets"), "{err}");
        assert!(NetConfig::new(4, 32).validate().is_ok());
        assert!(NetConfig::sparse().validate().is_ok());
    }
}

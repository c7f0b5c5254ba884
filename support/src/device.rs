//! Where a net runs, as written in configs and on the command line (`cpu`, `cuda`, `cuda:N`,
//! `auto`). Only the name lives here, with no tch, so that commands without a net can parse it;
//! the model crate turns it into a libtorch device (`model::resolve_device`).

use std::fmt;
use std::str::FromStr;

/// Where the net runs, as written in configs and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceSpec {
    /// The CPU, with libtorch's thread setting.
    Cpu,
    /// A CUDA device by ordinal (`cuda` is `cuda:0`).
    Cuda(usize),
    /// The first CUDA device when there is one, else the CPU.
    #[default]
    Auto,
}

/// A device name that is not `cpu`, `cuda`, `cuda:N` or `auto`.
#[derive(Debug, thiserror::Error)]
#[error("device `{spec}`: {problem}")]
pub struct DeviceSpecError {
    /// The name as written.
    pub spec: String,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl FromStr for DeviceSpec {
    type Err = DeviceSpecError;

    fn from_str(s: &str) -> Result<DeviceSpec, DeviceSpecError> {
        let bad = |problem| DeviceSpecError { spec: s.to_string(), problem };
        match s {
            "cpu" => Ok(DeviceSpec::Cpu),
            "cuda" => Ok(DeviceSpec::Cuda(0)),
            "auto" => Ok(DeviceSpec::Auto),
            _ => match s.strip_prefix("cuda:") {
                Some(n) => n
                    .parse()
                    .map(DeviceSpec::Cuda)
                    .map_err(|_| bad("the ordinal after `cuda:` is not a number")),
                None => Err(bad("expected cpu, cuda, cuda:N or auto")),
            },
        }
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Cpu => write!(f, "cpu"),
            DeviceSpec::Cuda(n) => write!(f, "cuda:{n}"),
            DeviceSpec::Auto => write!(f, "auto"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        for s in ["cpu", "cuda:0", "cuda:3", "auto"] {
            assert_eq!(s.parse::<DeviceSpec>().unwrap().to_string(), s);
        }
        assert_eq!("cuda".parse::<DeviceSpec>().unwrap(), DeviceSpec::Cuda(0));
        assert!("gpu".parse::<DeviceSpec>().unwrap_err().to_string().contains("`gpu`"));
        assert!("cuda:x".parse::<DeviceSpec>().is_err());
    }
}

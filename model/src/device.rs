//! Choosing the device at run time (`cpu`, `cuda`, `cuda:N`, `auto`) and libtorch's CPU threads.

use crate::error::ModelError;
use std::fmt;
use std::str::FromStr;
use tch::{Cuda, Device};

/// Where the net runs, as written in configs and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceSpec {
    /// The CPU, with libtorch's thread setting (see [`crate::set_cpu_threads`]).
    Cpu,
    /// A CUDA device by ordinal (`cuda` is `cuda:0`).
    Cuda(usize),
    /// The first CUDA device when there is one, else the CPU.
    #[default]
    Auto,
}

impl DeviceSpec {
    /// The tch device; asking for CUDA where there is none is an error, not a silent CPU run.
    pub fn resolve(self) -> Result<Device, ModelError> {
        match self {
            DeviceSpec::Cpu => Ok(Device::Cpu),
            DeviceSpec::Auto => Ok(Device::cuda_if_available()),
            DeviceSpec::Cuda(n) => {
                let count = Cuda::device_count().max(0) as usize;
                if n < count {
                    Ok(Device::Cuda(n))
                } else {
                    Err(ModelError::Device {
                        spec: self.to_string(),
                        problem: format!("libtorch sees {count} CUDA device(s)"),
                    })
                }
            }
        }
    }
}

impl FromStr for DeviceSpec {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<DeviceSpec, ModelError> {
        let bad = |problem: &str| ModelError::Device {
            spec: s.to_string(),
            problem: problem.to_string(),
        };
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

/// Sets libtorch's intra-op CPU threads for the whole process. Use all cores for one inference
/// thread; use 1 when several threads each run their own forward passes at once.
pub fn set_cpu_threads(threads: usize) {
    tch::set_num_threads(threads.clamp(1, i32::MAX as usize) as i32);
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
        assert!("gpu".parse::<DeviceSpec>().is_err());
        assert!("cuda:x".parse::<DeviceSpec>().is_err());
        assert_eq!(DeviceSpec::Cpu.resolve().unwrap(), Device::Cpu);
    }
}

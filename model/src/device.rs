//! Turning a device name ([`DeviceSpec`]: `cpu`, `cuda`, `cuda:N`, `auto`) into a libtorch device
//! at run time, and libtorch's CPU threads.

use crate::error::ModelError;
use support::DeviceSpec;
use tch::{Cuda, Device};

/// The tch device `spec` names; asking for CUDA where there is none is an error, not a silent CPU
/// run.
pub fn resolve_device(spec: DeviceSpec) -> Result<Device, ModelError> {
    match spec {
        DeviceSpec::Cpu => Ok(Device::Cpu),
        DeviceSpec::Auto => Ok(Device::cuda_if_available()),
        DeviceSpec::Cuda(n) => {
            let count = Cuda::device_count().max(0) as usize;
            if n < count {
                Ok(Device::Cuda(n))
            } else {
                Err(ModelError::Device {
                    spec: spec.to_string(),
                    problem: format!("libtorch sees {count} CUDA device(s)"),
                })
            }
        }
    }
}

/// Sets libtorch's intra-op CPU threads for the whole process. Use all cores for one inference
/// thread; use 1 when several threads each run their own forward passes at once.
pub fn set_cpu_threads(threads: usize) {
    tch::set_num_threads(threads.clamp(1, i32::MAX as usize) as i32);
}

/// Shares the cores among `parallel` threads that run forward passes at the same time: each
/// gets `cores / parallel` libtorch threads, at least one.
pub fn share_cpu_threads(parallel: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    set_cpu_threads((cores / parallel.max(1)).max(1));
}

/// libtorch's CPU threads: `configured` (a run config's `cpu_threads`), or when that is 0 the
/// cores shared among `parallel` users ([`share_cpu_threads`]). The calling thread takes it at
/// once; every other thread takes the setting in force at its first tensor operation, and keeps it.
pub fn configure_cpu_threads(configured: usize, parallel: usize) {
    match configured {
        0 => share_cpu_threads(parallel),
        threads => set_cpu_threads(threads),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_resolves_and_a_missing_cuda_device_is_named() {
        assert_eq!(resolve_device(DeviceSpec::Cpu).unwrap(), Device::Cpu);
        let absent = DeviceSpec::Cuda(Cuda::device_count().max(0) as usize);
        let err = resolve_device(absent).unwrap_err().to_string();
        assert!(err.contains(&absent.to_string()) && err.contains("CUDA device"), "{err}");
    }
}

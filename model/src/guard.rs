//! libtorch failures as errors: tch's tensor operations panic with libtorch's message when the
//! device fails (CUDA out of memory, a lost device). [`on_device`] runs such work and turns that
//! panic into [`ModelError::Forward`], naming the device and the batch, without printing the
//! panic: the caller reports the error once, as an error.

use crate::error::ModelError;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use tch::Device;

thread_local! {
    /// Set while this thread runs guarded work, whose panics the hook keeps quiet.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` (a batch of `batch` positions on `device`); a panic in it is the error.
pub fn on_device<T>(
    device: Device,
    batch: usize,
    work: impl FnOnce() -> T,
) -> Result<T, ModelError> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = GUARDED.with(|g| g.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    GUARDED.with(|g| g.set(was));
    result.map_err(|payload| {
        let message = support::panic_message(&*payload, "libtorch failed").to_string();
        ModelError::Forward { device: device_name(device), batch, message }
    })
}

/// `cpu`, `cuda(0)`: the device as errors name it.
pub fn device_name(device: Device) -> String {
    format!("{device:?}").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_guarded_work_is_an_error_naming_device_and_batch() {
        let err = on_device(Device::Cpu, 7, || -> u32 { panic!("CUDA out of memory (pretend)") })
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cpu") && err.contains("7 positions") && err.contains("out of memory"),
            "{err}"
        );
        assert_eq!(on_device(Device::Cpu, 1, || 5).unwrap(), 5);
    }
}

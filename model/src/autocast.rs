//! Mixed precision for training in bfloat16: libtorch's autocast with its lower-precision type
//! set to bf16, which tch 0.24 cannot do (its `tch::autocast` turns on CUDA autocast in libtorch's
//! default type for CUDA, fp16, and fp16 needs a loss scaler that tch lacks; bf16 has f32's
//! exponent range and needs none).
//!
//! Inside [`autocast_bf16`], matrix products and convolutions run in bf16 while the weights, their
//! gradients and the optimizer stay f32 (libtorch casts each weight once per region and caches the
//! cast until the region ends), so checkpoints are unchanged.
//!
//! tch does not wrap `at::autocast::set_autocast_dtype` and its siblings, so they are called
//! here by their C++ symbols in `libtorch_cpu`, which tch already links. Their arguments are
//! `c10::DeviceType` and `c10::ScalarType` (enums of one byte) and `bool`, and they return
//! `bool`, `int` or a `c10::ScalarType`: no type whose mangling or layout depends on the C++
//! library's ABI, so one name fits every libtorch 2.x build. Autocast state is per thread in
//! libtorch; the region sets it on the calling thread and restores it when it ends (a panic
//! included).

use tch::Device;

/// `c10::DeviceType::CPU`.
const DEVICE_CPU: i8 = 0;
/// `c10::DeviceType::CUDA`.
const DEVICE_CUDA: i8 = 1;
/// `c10::ScalarType::BFloat16`.
const SCALAR_BFLOAT16: i8 = 15;

extern "C" {
    /// `void at::autocast::set_autocast_enabled(c10::DeviceType, bool)`
    #[link_name = "_ZN2at8autocast20set_autocast_enabledEN3c1010DeviceTypeEb"]
    fn set_autocast_enabled(device_type: i8, enabled: bool);
    /// `bool at::autocast::is_autocast_enabled(c10::DeviceType)`
    #[link_name = "_ZN2at8autocast19is_autocast_enabledEN3c1010DeviceTypeE"]
    fn is_autocast_enabled(device_type: i8) -> bool;
    /// `void at::autocast::set_autocast_dtype(c10::DeviceType, c10::ScalarType)`
    #[link_name = "_ZN2at8autocast18set_autocast_dtypeEN3c1010DeviceTypeENS1_10ScalarTypeE"]
    fn set_autocast_dtype(device_type: i8, dtype: i8);
    /// `c10::ScalarType at::autocast::get_autocast_dtype(c10::DeviceType)`
    #[link_name = "_ZN2at8autocast18get_autocast_dtypeEN3c1010DeviceTypeE"]
    fn get_autocast_dtype(device_type: i8) -> i8;
    /// `int at::autocast::increment_nesting()`
    #[link_name = "_ZN2at8autocast17increment_nestingEv"]
    fn increment_nesting() -> i32;
    /// `int at::autocast::decrement_nesting()`
    #[link_name = "_ZN2at8autocast17decrement_nestingEv"]
    fn decrement_nesting() -> i32;
    /// `void at::autocast::clear_cache()`
    #[link_name = "_ZN2at8autocast11clear_cacheEv"]
    fn clear_cache();
}

/// Runs `f` with autocast in bfloat16 on for `device` (CPU or CUDA; any other device runs `f`
/// as it is), and restores the calling thread's previous autocast state afterwards. Tensors
/// that `f` returns from matrix products and convolutions are bf16: cast what needs f32 (the
/// losses) with `to_kind`.
pub fn autocast_bf16<T>(device: Device, f: impl FnOnce() -> T) -> T {
    let device_type = match device {
        Device::Cpu => DEVICE_CPU,
        Device::Cuda(_) => DEVICE_CUDA,
        _ => return f(),
    };
    let _region = Region::enter(device_type, SCALAR_BFLOAT16);
    f()
}

/// An autocast region on the calling thread; dropping it restores the state before it.
struct Region {
    device_type: i8,
    was_enabled: bool,
    was_dtype: i8,
}

impl Region {
    fn enter(device_type: i8, dtype: i8) -> Region {
        // SAFETY: setters and getters of libtorch's thread-local autocast state, for a device
        // type that has an autocast dispatch key (CPU or CUDA), so none of them throws.
        unsafe {
            let region = Region {
                device_type,
                was_enabled: is_autocast_enabled(device_type),
                was_dtype: get_autocast_dtype(device_type),
            };
            set_autocast_dtype(device_type, dtype);
            set_autocast_enabled(device_type, true);
            increment_nesting();
            region
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: as in `enter`.
        unsafe {
            if decrement_nesting() == 0 {
                // The weights' bf16 casts of this region: the next one casts the updated weights.
                clear_cache();
            }
            set_autocast_enabled(self.device_type, self.was_enabled);
            set_autocast_dtype(self.device_type, self.was_dtype);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::nn::{self, Module};
    use tch::Kind;

    /// `c10::ScalarType::Half`.
    const SCALAR_HALF: i8 = 5;

    /// The autocast type libtorch uses for `device` on this thread, if it is bf16 or fp16.
    fn autocast_kind(device: Device) -> Option<Kind> {
        let device_type = match device {
            Device::Cpu => DEVICE_CPU,
            Device::Cuda(_) => DEVICE_CUDA,
            _ => return None,
        };
        // SAFETY: a plain getter of thread-local state; the device type is one libtorch knows.
        match unsafe { get_autocast_dtype(device_type) } {
            SCALAR_BFLOAT16 => Some(Kind::BFloat16),
            SCALAR_HALF => Some(Kind::Half),
            _ => None,
        }
    }

    /// The same calls as on CUDA, on the CPU's autocast (each test has a thread, so its own
    /// autocast state): the symbols link, the type is set inside the region, products come out
    /// in bf16 from f32 weights, and everything is as it was afterwards.
    #[test]
    fn a_region_computes_in_bf16_from_f32_weights_and_restores_the_state() {
        let vs = nn::VarStore::new(Device::Cpu);
        let layer = nn::linear(vs.root(), 4, 3, Default::default());
        let xs = tch::Tensor::ones([2, 4], (Kind::Float, Device::Cpu));
        // Another type outside the region than the CPU's default (bf16), to see it set and reset.
        unsafe { set_autocast_dtype(DEVICE_CPU, SCALAR_HALF) };
        let before = (unsafe { is_autocast_enabled(DEVICE_CPU) }, autocast_kind(Device::Cpu));
        assert_eq!(before, (false, Some(Kind::Half)));
        let (kind, inside) =
            autocast_bf16(Device::Cpu, || (layer.forward(&xs).kind(), autocast_kind(Device::Cpu)));
        assert_eq!((kind, inside), (Kind::BFloat16, Some(Kind::BFloat16)));
        assert_eq!(layer.ws.kind(), Kind::Float, "the weights stay f32");
        assert_eq!(
            (unsafe { is_autocast_enabled(DEVICE_CPU) }, autocast_kind(Device::Cpu)),
            before
        );
        assert_eq!(layer.forward(&xs).kind(), Kind::Float, "no autocast outside the region");
    }

    #[test]
    fn a_region_ended_by_a_panic_restores_the_state() {
        let result = std::panic::catch_unwind(|| autocast_bf16(Device::Cpu, || panic!("inside")));
        assert!(result.is_err());
        assert!(!unsafe { is_autocast_enabled(DEVICE_CPU) });
    }

    #[test]
    fn gradients_of_a_bf16_region_reach_the_f32_weights() {
        let vs = nn::VarStore::new(Device::Cpu);
        let layer = nn::linear(vs.root(), 4, 1, Default::default());
        let xs = tch::Tensor::ones([2, 4], (Kind::Float, Device::Cpu));
        let out = autocast_bf16(Device::Cpu, || layer.forward(&xs));
        out.to_kind(Kind::Float).sum(Kind::Float).backward();
        let grad = layer.ws.grad();
        assert_eq!(grad.kind(), Kind::Float);
        assert_eq!(grad.abs().sum(Kind::Float).double_value(&[]), 8.0, "d(sum)/dw = 2 per weight");
    }
}

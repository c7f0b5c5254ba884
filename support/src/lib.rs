//! Small helpers every checkers-zero crate shares, with no heavy dependency (no tch), so the
//! rules engine, the search and run-data code can use them too.

pub mod atomic;
pub mod cases;
pub mod check;
pub mod clock;
pub mod device;
pub mod error;
pub mod naming;
pub mod read;
pub mod rng;
pub mod shown;

pub use atomic::{replace_atomic, temporary_owner, write_atomic, WriteError};
pub use cases::property_cases;
pub use check::{check, Invalid};
pub use clock::{process_cpu_time, since_epoch, unix_millis, unix_seconds};
pub use device::{DeviceSpec, DeviceSpecError};
pub use error::{one_line, panic_message, some_of, warn_once};
pub use naming::{process_token, unique_name};
pub use read::{
    check_regular, read_capped, read_line_capped, read_text_capped, utf8_text, BadLine, ReadError,
};
pub use rng::{mix, SplitMix64};
pub use shown::{escape_and_cut, shown, SHOWN_CHARS};

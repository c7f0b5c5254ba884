//! Run configs (TOML from users, and `RUN/config.toml` from other machines), as any bytes a file
//! holds: bytes that are not UTF-8 are refused as `RunConfig::load` refuses them, any text is read
//! or refused with one line naming the place or the key; a config read is written and reads back
//! the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runconfig::RunConfig;

fuzz_target!(|data: &[u8]| {
    let text = match support::utf8_text(data.to_vec()) {
        Ok(text) => text,
        Err(e) => return assert!(e.to_string().starts_with("not UTF-8 text"), "{e}"),
    };
    match RunConfig::parse(&text) {
        Ok(config) => {
            let written = config.to_toml();
            let again = RunConfig::parse(&written).unwrap_or_else(|e| {
                panic!("the config written does not read back: {e:#}\n{written}")
            });
            assert_eq!(again, config, "{written}");
        }
        Err(e) => assert!(
            !format!("{e:#}").chars().any(char::is_control),
            "an error of several lines or with control characters: {e:#}"
        ),
    }
});

//! Progress bars for long work, in one style.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting `total` units of `unit` (e.g. "games"), with a free-text message after it.
pub fn bar(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = format!("{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}  {{msg}}");
    bar.set_style(
        ProgressStyle::with_template(&template).expect("a valid template").progress_chars("=> "),
    );
    bar
}

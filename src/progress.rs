//! Progress bars: shown on a terminal (stderr), silent otherwise, so scripts and logs
//! never see cursor movement.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub fn bar(len: u64, message: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() && std::env::var_os("SLM_NO_PROGRESS").is_none() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        pb.set_style(
            ProgressStyle::with_template("{msg:>12} [{bar:30}] {pos}/{len} ({per_sec}, {eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
    }
    pb.set_message(message.to_string());
    pb
}

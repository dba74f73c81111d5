//! A spinner on stderr for work that takes more than a moment (fetching a git source).

use std::io::{self, IsTerminal};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before the spinner shows.
const QUIET_FOR: Duration = Duration::from_millis(300);

/// Runs `work`, showing `message` with a spinner on stderr once it has taken longer than a
/// moment, and clearing it when done. Nothing is drawn when stderr is not a terminal (a pipe,
/// a file, CI logs), so machine-read output never holds it.
pub(crate) fn while_working<T>(message: impl Into<String>, work: impl FnOnce() -> T) -> T {
    if !io::stderr().is_terminal() {
        return work();
    }
    let message = message.into();
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if finished.recv_timeout(QUIET_FOR) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
                spinner.set_style(style);
            }
            spinner.set_message(message);
            spinner.enable_steady_tick(Duration::from_millis(120));
            // Until the work is done (its sender dropped).
            let _ = finished.recv();
            spinner.finish_and_clear();
        });
        let result = work();
        drop(done);
        result
    })
}

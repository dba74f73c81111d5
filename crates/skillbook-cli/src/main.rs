//! The `skillbook` command: a thin layer over the `skillbook` library.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

mod cli;
mod commands;
mod output;
mod settings;

fn main() -> ExitCode {
    return_large_buffers_to_the_system();
    let cli = cli::Cli::parse();
    init_logging();
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        // The reader went away (`skillbook list | head`): nothing left to say to anyone.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// glibc keeps freed memory in per-thread arenas and, after a large buffer is freed, raises the
/// size from which it maps buffers directly. A server that reads a 15 MiB skill file on one
/// thread after another would then keep each thread's peak for good; a fixed threshold makes
/// every buffer over 1 MiB go back to the system when freed, so memory stays flat however many
/// large reads a client pipelines.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[expect(unsafe_code, reason = "mallopt is glibc's own, documented tuning call")]
fn return_large_buffers_to_the_system() {
    // SAFETY: mallopt only sets an allocator parameter; it is called before any other thread
    // exists. A failure (0) leaves glibc's default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn return_large_buffers_to_the_system() {}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        let kind = match cause.downcast_ref::<std::io::Error>() {
            Some(error) => Some(error.kind()),
            None => cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind),
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// Logs go to stderr only (stdout carries results, and is the MCP channel). `RUST_LOG` tunes it.
///
/// By default rmcp logs only errors: it warns about every error response it sends, which is the
/// client's business, not the server operator's. Colours only on a terminal (MCP clients often
/// write a server's stderr to a log file).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .init();
}

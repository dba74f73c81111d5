//! The `skillbook` command: a thin layer over the `skillbook` library.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

mod cli;
mod commands;
mod output;
mod settings;

fn main() -> ExitCode {
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

//! The `skillbook` command: a thin layer over the `skillbook` library.

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
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr only (stdout carries results, and is the MCP channel). `RUST_LOG` tunes it.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .init();
}

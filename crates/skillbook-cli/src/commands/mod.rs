//! One module per command. Each returns an [`Outcome`] or an error for `main` to report.

use crate::cli::{Cli, Command};
use crate::output::Outcome;

mod catalog;
mod check;
mod demo;
mod list;
mod mcp;
mod read;
mod show;
mod watch;

/// Runs the parsed command line.
pub(crate) fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match &cli.command {
        Command::Demo => demo::run(),
        Command::List => list::run(&cli.common),
        Command::Catalog(args) => catalog::run(&cli.common, args),
        Command::Show(args) => show::run(&cli.common, args),
        Command::Read(args) => read::run(&cli.common, args),
        Command::Watch => watch::run(&cli.common),
        Command::Check(args) => check::run(&cli.common, args),
        Command::Mcp => mcp::run(&cli.common),
    }
}

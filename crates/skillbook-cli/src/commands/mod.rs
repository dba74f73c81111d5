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
    // The demo reads only the skills built into the binary and completions read nothing; every
    // other command reads the workspace, which must be there.
    if !matches!(cli.command, Command::Demo | Command::Completions(_))
        && let Some(problem) = workspace_problem(&cli.common.workspace)
    {
        eprintln!("error: {problem}");
        return Ok(Outcome::UsageError);
    }
    match &cli.command {
        Command::Demo => demo::run(),
        Command::List => list::run(&cli.common),
        Command::Catalog(args) => catalog::run(&cli.common, args),
        Command::Show(args) => show::run(&cli.common, args),
        Command::Read(args) => read::run(&cli.common, args),
        Command::Watch => watch::run(&cli.common),
        Command::Check(args) => check::run(&cli.common, args),
        Command::Mcp => mcp::run(&cli.common),
        Command::Completions(args) => {
            let mut command = <crate::cli::Cli as clap::CommandFactory>::command();
            clap_complete::generate(
                args.shell,
                &mut command,
                "skillbook",
                &mut std::io::stdout(),
            );
            Ok(Outcome::Success)
        }
    }
}

/// What is wrong with `--workspace`, if anything: it must be an existing directory, and a
/// relative one needs a current directory to resolve against (never `/` in its place).
fn workspace_problem(workspace: &std::path::Path) -> Option<String> {
    if workspace.is_relative()
        && let Err(error) = std::env::current_dir()
    {
        return Some(format!(
            "the current directory cannot be read ({error}); it may have been deleted. Change to \
             an existing directory, or pass --workspace with an absolute path"
        ));
    }
    match std::fs::metadata(workspace) {
        Ok(metadata) if metadata.is_dir() => None,
        Ok(_) => Some(format!(
            "--workspace {}: not a directory; pass the directory that holds your skill folders",
            workspace.display()
        )),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(format!(
            "--workspace {}: no such directory; pass an existing directory (the default is the \
             current one)",
            workspace.display()
        )),
        Err(error) => Some(format!(
            "--workspace {}: cannot be read ({error}); check its permissions",
            workspace.display()
        )),
    }
}

//! One module per command. Each returns an [`Outcome`] or an error for `main` to report.

use crate::cli::{Cli, Command, CompletionsArgs, Format};
use crate::output::{self, Outcome};

mod agent;
mod catalog;
mod check;
mod demo;
mod list;
mod mcp;
mod packages;
mod packages_restore;
mod read;
mod search;
mod serve;
mod show;
mod token;
mod watch;

/// Runs the parsed command line.
pub(crate) fn run(cli: Cli) -> anyhow::Result<Outcome> {
    // The demo reads only the skills built into the binary, `serve` reads its configuration
    // file's sources, and completions and `token` read nothing; every other command reads the
    // workspace, which must be there.
    if !matches!(
        cli.command,
        Command::Demo | Command::Completions(_) | Command::Serve(_) | Command::Token
    ) && let Some(problem) = workspace_problem(&cli.common.workspace)
    {
        return output::fail(
            cli.common.format,
            "invalid_workspace",
            &problem,
            Outcome::UsageError,
        );
    }
    match &cli.command {
        Command::Demo => demo::run(cli.common.format),
        Command::List => list::run(&cli.common),
        Command::Catalog(args) => catalog::run(&cli.common, args),
        Command::Show(args) => show::run(&cli.common, args),
        Command::Search(args) => search::run(&cli.common, args),
        Command::Agent(args) => agent::run(&cli.common, args),
        Command::Read(args) => read::run(&cli.common, args),
        Command::Watch => watch::run(&cli.common),
        Command::Check(args) => check::run(&cli.common, args),
        Command::Mcp(args) => mcp::run(&cli.common, args),
        Command::Serve(args) => serve::run(cli.common.format, args),
        Command::Token => token::run(cli.common.format),
        Command::Add(args) => packages::add(&cli.common, args),
        Command::Verify(args) => packages::verify(&cli.common, args.global),
        Command::Remove(args) => packages::remove(&cli.common, args),
        Command::Install(args) => packages_restore::install(&cli.common, args),
        Command::Update(args) => packages_restore::update(&cli.common, args),
        Command::Completions(args) => completions(cli.common.format, args),
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

/// `skillbook completions SHELL`: the script on stdout; under `--format json` the document
/// `{"shell": …, "script": …}`.
fn completions(format: Format, args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "skillbook", &mut script);
    match format {
        Format::Json => output::json(&serde_json::json!({
            "shell": args.shell.to_string(),
            "script": String::from_utf8_lossy(&script),
        }))?,
        Format::Text => std::io::Write::write_all(&mut crate::output::stdout(), &script)?,
    }
    Ok(Outcome::Success)
}

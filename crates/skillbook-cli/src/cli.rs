//! Command-line arguments. Parsing only: `settings` turns them into library settings.

use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, Parser, Subcommand, ValueEnum};

/// Agent Skills for any LLM: find skills, show the catalog a model sees, read them safely.
#[derive(Debug, Parser)]
#[command(name = "skillbook", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run all three activation paths on the embedded example skills with a scripted model.
    Demo,
    /// List the discovered skills, read roots and diagnostics.
    List,
    /// Print the catalog exactly as a model sees it (nothing when no skill is model-visible).
    Catalog(CatalogArgs),
    /// Print one skill's SKILL.md.
    Show(ShowArgs),
    /// Find the skills that match a task, as the model's `search_skills` tool does.
    Search(SearchArgs),
    /// Run TASK with a real model that finds and uses the skills: the catalog in its system
    /// prompt, its `read_file` and `search_skills` calls answered, until it answers.
    ///
    /// `--provider openai` speaks Chat Completions to `OPENAI_BASE_URL` (default
    /// https://api.openai.com/v1; any compatible server) with `OPENAI_API_KEY`; `--provider
    /// anthropic` speaks Messages to `ANTHROPIC_BASE_URL` (default https://api.anthropic.com)
    /// with `ANTHROPIC_API_KEY`. A busy or failing API (429, 5xx) is tried again with pauses.
    /// The transcript goes to stdout; `--format json` prints the whole run instead, which
    /// `--resume FILE` goes on with.
    Agent(AgentArgs),
    /// Run the `read_file` tool as a model would and print its JSON result.
    Read(ReadArgs),
    /// Print skills added, removed or changed as it happens (`+`, `-`, `~`), until interrupted.
    Watch,
    /// Check skills against the Agent Skills format; exit 1 when there are errors.
    Check(CheckArgs),
    /// Serve the skills to an MCP client on stdin and stdout (Skills extension); logs go to
    /// stderr.
    Mcp(McpArgs),
    /// Serve skills to many users over streamable HTTP at `/mcp`, one tenant per bearer token.
    ///
    /// A TOML file (`--config`) names the tenants, each with its skill sources (directories and
    /// zip archives) and token digests; a tenant sees only its own skills, by `skill://`
    /// address. Stateless, so replicas scale out; `/healthz` and `/readyz` for probes; SIGTERM
    /// stops it gracefully. The common discovery options (`--workspace`, `--home`, …) are
    /// refused: the configuration file sets each tenant's sources.
    Serve(ServeArgs),
    /// Print a new bearer token for `skillbook serve` and the configuration line with its digest.
    Token,
    /// Install skills from a source into `.agents/skills` and record them in `skills-lock.json`.
    ///
    /// SOURCE is a local folder (an absolute path, or one starting with `./` or `../`), a git
    /// URL (`https://`, `ssh://`, `git@host:path`, `git://`, `file://`, with an optional `#ref`)
    /// or GitHub's `owner/repo[/path][@ref]`. A git source is fetched at one commit, which the
    /// lock records. Each skill is checked first
    /// and refused on errors unless `--force`; links, `.git` and special files inside a skill
    /// are left out and listed. The lock has the shape the `skills` npm tool reads too.
    Add(AddArgs),
    /// Compare installed skills with `skills-lock.json`; exit 1 listing each skill whose files
    /// were added, removed or changed.
    Verify(VerifyArgs),
    /// Remove installed skills and their entries in `skills-lock.json`.
    Remove(RemoveArgs),
    /// Restore every skill in `skills-lock.json` from its recorded source (for a fresh clone or
    /// CI).
    ///
    /// A skill whose files match the lock is left alone; a missing or changed one is installed
    /// again, never in another version than the lock pins: a source that changed since it was
    /// locked is an error naming the skill. With `--frozen`, nothing is changed and the command
    /// exits 1 listing what would be.
    Install(InstallArgs),
    /// Read locked skills from their sources again, install the ones that changed and record
    /// them in `skills-lock.json`, listing the files added, removed and changed in each.
    Update(UpdateArgs),
    /// Print a completion script for a shell (for example `skillbook completions bash >
    /// ~/.local/share/bash-completion/completions/skillbook`).
    Completions(CompletionsArgs),
}

/// Options of `skillbook add`.
#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// Where the skills are: a local folder holding skills, or a skill folder.
    #[arg(value_name = "SOURCE")]
    pub(crate) source: String,
    /// Install only this skill (repeatable) [default: every skill in SOURCE].
    #[arg(long = "skill", value_name = "NAME")]
    pub(crate) skills: Vec<String>,
    /// Install into the home's `.agents/skills`, locked in the home's `.agents/skills-lock.json`.
    #[arg(long)]
    pub(crate) global: bool,
    /// Install skills that `skillbook check` finds errors in.
    #[arg(long)]
    pub(crate) force: bool,
    /// Install without asking (needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub(crate) yes: bool,
    /// Also expose the skills to this client (repeatable): claude-code, codex, cursor,
    /// github-copilot, gemini-cli. A client that reads `.agents/skills` itself needs nothing;
    /// the others get a relative link in their folder (`.claude/skills`, …).
    #[arg(long = "agent", value_name = "NAME", value_delimiter = ',')]
    pub(crate) agents: Vec<String>,
    /// Expose the skills to `--agent` clients by a copy instead of a link.
    #[arg(long, requires = "agents")]
    pub(crate) copy: bool,
}

/// Options of `skillbook verify`.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Verify the home's skills (`.agents/skills-lock.json` in the home).
    #[arg(long)]
    pub(crate) global: bool,
}

/// Options of `skillbook remove`.
#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    /// The skills to remove, by name.
    #[arg(value_name = "NAME", required = true)]
    pub(crate) names: Vec<String>,
    /// Remove from the home's skills.
    #[arg(long)]
    pub(crate) global: bool,
}

/// Options of `skillbook install`.
#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// Restore the home's skills (`.agents/skills-lock.json` in the home).
    #[arg(long)]
    pub(crate) global: bool,
    /// Change nothing: exit 1 listing the skills that would be installed again.
    #[arg(long)]
    pub(crate) frozen: bool,
    /// Also expose every locked skill to this client (repeatable), and record it in the lock;
    /// the names are those of `add --agent`.
    #[arg(long = "agent", value_name = "NAME", value_delimiter = ',')]
    pub(crate) agents: Vec<String>,
    /// Expose the skills to `--agent` clients by a copy instead of a link.
    #[arg(long, requires = "agents")]
    pub(crate) copy: bool,
}

/// Options of `skillbook update`.
#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    /// The skills to update, by name [default: every skill in the lock].
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,
    /// Update the home's skills.
    #[arg(long)]
    pub(crate) global: bool,
}

/// Options of `skillbook completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// Options shared by every command (SPEC §9).
#[derive(Debug, Args)]
pub(crate) struct CommonArgs {
    /// The workspace; `.skillbook/skills`, `.agents/skills` and `.claude/skills` under it are
    /// searched first.
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    pub(crate) workspace: PathBuf,
    /// The home directory whose skill folders are searched [default: $HOME].
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "no_home")]
    pub(crate) home: Option<PathBuf>,
    /// Do not search the home directory.
    #[arg(long, global = true)]
    pub(crate) no_home: bool,
    /// A client namespace to search (`<dir>/<ns>/skills`); repeatable, replaces the default
    /// `.skillbook`, `.agents` and `.claude`.
    #[arg(long = "namespace", global = true, value_name = "NS")]
    pub(crate) namespaces: Vec<String>,
    /// An extra directory to search after the others; repeatable. Relative paths resolve
    /// against the workspace.
    #[arg(long = "extra", global = true, value_name = "DIR")]
    pub(crate) extra: Vec<PathBuf>,
    /// What to do with symbolic links.
    #[arg(long, global = true, value_enum, default_value_t = Symlinks::Skip)]
    pub(crate) symlinks: Symlinks,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// When to use colours: `auto` colours a terminal unless the `NO_COLOR` environment variable
    /// is set (and not empty).
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = Color::Auto)]
    pub(crate) color: Color,
    /// Print no warnings on stderr (errors still are; JSON output keeps every diagnostic).
    #[arg(long, short = 'q', global = true)]
    pub(crate) quiet: bool,
    /// Require the lock: a skill in the workspace's `.agents/skills` (or the home's, when its
    /// lock exists) whose files differ from `skills-lock.json`, or that the lock does not name,
    /// is reported (`lock_mismatch`, `not_locked`) and never listed, cataloged, read or served.
    #[arg(long, global = true)]
    pub(crate) locked: bool,
}

/// The options of [`CommonArgs`] that choose where skills are found (by argument id, and as
/// written), which a command finding no skills refuses.
const DISCOVERY_OPTIONS: [(&str, &str); 7] = [
    ("workspace", "--workspace"),
    ("home", "--home"),
    ("no_home", "--no-home"),
    ("namespaces", "--namespace"),
    ("extra", "--extra"),
    ("symlinks", "--symlinks"),
    ("locked", "--locked"),
];

/// Refuses, as a usage error, the discovery options ([`DISCOVERY_OPTIONS`]) written on the
/// command line of a command that does not use them: `serve`, whose tenants' sources are set in
/// its configuration file, and `token`, which finds no skills. `--format` and `--color` apply
/// to every command. (`completions` takes them quietly: they cannot change a completion script,
/// and a wrapper that always passes `--workspace` still makes one.) `command` is the one `matches` came from, already built.
///
/// # Errors
///
/// A clap error of kind `ArgumentConflict` (exit code 2) naming the options given.
pub(crate) fn refuse_unused_options(
    command: &mut clap::Command,
    matches: &ArgMatches,
) -> Result<(), clap::Error> {
    let Some((name, command_matches)) = matches.subcommand() else {
        return Ok(());
    };
    let why = match name {
        "serve" => "each tenant's skill sources are set in the configuration file (`--config`)",
        "token" => "it finds no skills",
        _ => return Ok(()),
    };
    let given: Vec<String> = DISCOVERY_OPTIONS
        .iter()
        .filter(|(id, _)| {
            [matches, command_matches]
                .iter()
                .any(|matches| matches.value_source(id) == Some(ValueSource::CommandLine))
        })
        .map(|(_, option)| format!("`{option}`"))
        .collect();
    let (noun, verb) = match given.len() {
        0 => return Ok(()),
        1 => ("option", "does"),
        _ => ("options", "do"),
    };
    let message = format!(
        "the discovery {noun} {} {verb} not apply to `skillbook {name}`: {why}",
        given.join(", ")
    );
    let kind = clap::error::ErrorKind::ArgumentConflict;
    let error = match command.find_subcommand_mut(name) {
        Some(subcommand) => subcommand.error(kind, message),
        None => command.error(kind, message),
    };
    Err(error)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    /// Colours on a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Colours, even into a pipe or file.
    Always,
    /// No colours.
    Never,
}

impl Color {
    /// Whether to colour a stream that is (or is not) a terminal.
    pub(crate) fn enabled(self, terminal: bool) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => terminal && !no_color(),
        }
    }

    /// The same choice for clap's own help and errors.
    pub(crate) fn for_clap(self) -> clap::ColorChoice {
        match self {
            Color::Always => clap::ColorChoice::Always,
            Color::Never => clap::ColorChoice::Never,
            Color::Auto if no_color() => clap::ColorChoice::Never,
            Color::Auto => clap::ColorChoice::Auto,
        }
    }
}

/// `NO_COLOR` is set to something (<https://no-color.org>).
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Symlinks {
    /// Skip links and report each one.
    Skip,
    /// Follow links; their targets join the read roots.
    Follow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people; diagnostics go to stderr.
    Text,
    /// One JSON document on stdout, diagnostics included.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct CatalogArgs {
    /// The reader tool the catalog tells the model to use.
    #[arg(long, value_name = "NAME", default_value = "read_file")]
    pub(crate) tool_name: String,
    /// The most characters the catalog may take: it shortens every entry alike (shortened
    /// descriptions, then names only, then no list and a search tool) until it fits.
    #[arg(long, value_name = "CHARS", default_value_t = skillbook::DEFAULT_CATALOG_BUDGET)]
    pub(crate) budget: usize,
    /// Print the whole catalog, however long.
    #[arg(long, conflicts_with = "budget")]
    pub(crate) no_budget: bool,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The most characters of the instructions (the catalog) sent at `initialize`: past it
    /// every entry is shortened alike, down to no list, and `search_skills` is offered.
    #[arg(long, value_name = "CHARS", default_value_t = skillbook_mcp::DEFAULT_INSTRUCTIONS_BUDGET)]
    pub(crate) budget: usize,
    /// Send the whole catalog, however long.
    #[arg(long, conflicts_with = "budget")]
    pub(crate) no_budget: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The configuration file: the tenants, their skill sources and token digests, and the
    /// server's settings.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: PathBuf,
    /// The address to listen on (an IP address and a port; port 0 picks a free one) [default:
    /// the file's `listen`, else 127.0.0.1:8931].
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: Option<String>,
    /// Where `/healthz`, `/readyz` and `/metrics` are served apart from `/mcp`, or `none`
    /// [default: the file's `admin_listen`, else 127.0.0.1 and the main port plus one].
    #[arg(long, value_name = "ADDR")]
    pub(crate) admin_listen: Option<String>,
    /// Check the configuration — read it, discover every tenant's skills — print what would
    /// be served, and exit without serving.
    #[arg(long)]
    pub(crate) check_config: bool,
    /// How log lines on stderr are written.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = LogFormat::Text)]
    pub(crate) log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// One line of text per event.
    Text,
    /// One JSON object per event, for log collectors.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The task, in a few words.
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    pub(crate) query: Vec<String>,
    /// The most skills to return (at most 20).
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=20))]
    pub(crate) limit: u64,
}

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// The task for the model (may be left out with --resume).
    #[arg(num_args = 1.., value_name = "TASK", required_unless_present = "resume")]
    pub(crate) task: Vec<String>,
    /// The API the model speaks [default: openai, or the resumed run's].
    #[arg(long, value_enum)]
    pub(crate) provider: Option<ModelProvider>,
    /// The model [default: $OPENAI_MODEL or gpt-4.1-mini; $ANTHROPIC_MODEL or
    /// claude-sonnet-4-5; or the resumed run's].
    #[arg(long, value_name = "MODEL")]
    pub(crate) model: Option<String>,
    /// The most model turns before stopping without an answer (exit 1).
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub(crate) max_turns: u64,
    /// The most characters of the catalog in the system prompt (see `catalog --budget`).
    #[arg(long, value_name = "CHARS", default_value_t = skillbook::DEFAULT_CATALOG_BUDGET)]
    pub(crate) budget: usize,
    /// Go on with a run that `--format json` printed: its conversation, then TASK if given.
    #[arg(long, value_name = "FILE")]
    pub(crate) resume: Option<PathBuf>,
}

/// The API a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModelProvider {
    /// OpenAI Chat Completions, or a server compatible with it.
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The skill's name (case does not matter).
    pub(crate) name: String,
}

#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// The file: relative to the workspace (with --restricted or --locked: to the skill's
    /// directory when there is only one skill), absolute, or a `skill://` URI. With --locked
    /// only the files of skills the lock admits are readable, not the rest of the workspace.
    pub(crate) path: PathBuf,
    /// The first line to return, 1-based.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) start_line: Option<u64>,
    /// The last line to return, inclusive.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) end_line: Option<u64>,
    /// The most characters to return.
    #[arg(long, value_name = "N")]
    pub(crate) max_chars: Option<usize>,
    /// Read only inside the model-visible skills' directories, as the agent runtime and the MCP
    /// tool do: the workspace and manual-only skills are not readable, and with several skills
    /// a relative path is refused as ambiguous.
    #[arg(long)]
    pub(crate) restricted: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Skill directories, SKILL.md files, or directories holding skills [default: the
    /// discovered roots].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Make every finding an error: unknown fields, repaired YAML, tabs, `\r\n`, …
    #[arg(long)]
    pub(crate) strict: bool,
    /// Accept a front matter field the format does not define (repeatable); the fields
    /// skillbook and major clients read (`disable-model-invocation`, `argument-hint`, `model`,
    /// …) are accepted already.
    #[arg(long = "allow-field", value_name = "NAME")]
    pub(crate) allow_fields: Vec<String>,
}

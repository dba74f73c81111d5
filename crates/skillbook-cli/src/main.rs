//! The `skillbook` command: a thin layer over the `skillbook` library.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

mod cli;
mod commands;
mod logging;
mod output;
mod progress;
mod settings;

fn main() -> ExitCode {
    return_large_buffers_to_the_system();
    let color = color_requested(std::env::args_os().skip(1));
    let mut command = cli::Cli::command().color(color.for_clap());
    let parsed = command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|matches| {
            cli::refuse_unused_options(&mut command, &matches)?;
            cli::Cli::from_arg_matches(&matches)
        });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => return argument_error(&error),
    };
    logging::init(&cli);
    if cli.common.quiet {
        output::be_quiet();
    }
    let format = cli.common.format;
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        // The reader went away (`skillbook list | head`): nothing left to say to anyone.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            let (code, message) = (error_code(&error), format!("{error:#}"));
            if output::error(format, code, &message).is_err() {
                // Stdout cannot take the error document (full, or closed): say it on stderr.
                let _ = output::error(cli::Format::Text, code, &message);
            }
            ExitCode::FAILURE
        }
    }
}

/// Reports a command line clap could not parse (or `--help`/`--version`), with clap's exit
/// code. Under `--format json` it is a JSON document on stdout like every other error:
/// `{"error": "usage", "message": …}`, `{"help": …}` or `{"version": …}`.
fn argument_error(error: &clap::Error) -> ExitCode {
    if !json_requested(std::env::args_os().skip(1)) {
        error.exit();
    }
    let text = error.render().to_string();
    let document = match error.kind() {
        clap::error::ErrorKind::DisplayHelp => serde_json::json!({ "help": text }),
        clap::error::ErrorKind::DisplayVersion => {
            serde_json::json!({ "version": env!("CARGO_PKG_VERSION") })
        }
        _ => {
            let message = text.trim_end();
            let message = message.strip_prefix("error: ").unwrap_or(message);
            serde_json::json!({ "error": "usage", "message": message })
        }
    };
    let _ = output::json(&document);
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

/// The `--color` the arguments ask for, read before parsing so that clap's own help and errors
/// follow it too (`auto` when absent or not one of the choices; the parser reports that).
fn color_requested(arguments: impl Iterator<Item = std::ffi::OsString>) -> cli::Color {
    let mut previous_was_color = false;
    let mut color = cli::Color::Auto;
    for argument in arguments {
        if argument == "--" {
            break;
        }
        let value = match argument.to_str() {
            Some(value) if previous_was_color => Some(value),
            Some(value) => value.strip_prefix("--color="),
            None => None,
        };
        if let Some(value) = value {
            color = <cli::Color as clap::ValueEnum>::from_str(value, false).unwrap_or(color);
        }
        previous_was_color = argument == "--color";
    }
    color
}

/// Whether the arguments ask for `--format json`, read without the parser (which has just
/// refused them): `--format json` or `--format=json` anywhere before a lone `--`.
fn json_requested(arguments: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let mut previous_was_format = false;
    for argument in arguments {
        if argument == "--" {
            break;
        }
        if (previous_was_format && argument == "json") || argument == "--format=json" {
            return true;
        }
        previous_was_format = argument == "--format";
    }
    false
}

/// The stable code of an error no command reported itself: `io` for an input or output
/// failure, `failed` for anything else.
fn error_code(error: &anyhow::Error) -> &'static str {
    if error
        .chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some())
    {
        "io"
    } else {
        "failed"
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

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::{cli::Color, color_requested, json_requested};

    fn arguments(line: &str) -> impl Iterator<Item = OsString> {
        line.split(' ')
            .map(OsString::from)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn json_is_requested_in_either_spelling_anywhere_before_a_lone_double_dash() {
        assert!(json_requested(arguments("--format json lsit")));
        assert!(json_requested(arguments("lsit --nope --format=json")));
        assert!(!json_requested(arguments("list --format text")));
        assert!(!json_requested(arguments("list json")));
        assert!(!json_requested(arguments("read -- --format json")));
    }

    #[test]
    fn the_last_valid_color_choice_wins_before_parsing() {
        assert_eq!(color_requested(arguments("list")), Color::Auto);
        assert_eq!(
            color_requested(arguments("--color never list")),
            Color::Never
        );
        assert_eq!(
            color_requested(arguments("--color=always list --color never")),
            Color::Never
        );
        assert_eq!(
            color_requested(arguments("--color purple list")),
            Color::Auto
        );
    }
}

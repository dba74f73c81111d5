//! `skillbook read PATH`: the model's read tool, run by hand.
//!
//! The result is always one JSON document on stdout: the tool's result, or an error object with
//! a stable `error` code (exit 1). Discovery diagnostics go to stderr.

use skillbook::{KnownSkill, ReadBoundary, ReadFile, ReadRequest};

use crate::cli::{CommonArgs, ReadArgs};
use crate::output::{self, Outcome};
use crate::settings;

pub(crate) fn run(common: &CommonArgs, args: &ReadArgs) -> anyhow::Result<Outcome> {
    let discovery = settings::discovery(common);
    let found = discovery.discover();
    output::diagnostics(&found.diagnostics);
    let boundary = if args.restricted {
        // The skill reader's boundary, as the agent runtime and the MCP tool build it.
        Ok(ReadBoundary::skills(
            found
                .skills
                .iter()
                .filter(|skill| skill.is_model_visible())
                .map(|skill| &skill.directory),
        ))
    } else {
        ReadBoundary::new(discovery.workspace(), &found.read_roots)
    };
    let boundary = match boundary {
        Ok(boundary) => boundary,
        Err(error) => {
            output::json(
                &serde_json::json!({"error": error.code(), "message": error.to_string()}),
            )?;
            return Ok(Outcome::Failure);
        }
    };
    let mut tool = ReadFile::new(&boundary);
    tool.skills(found.skills.iter().map(KnownSkill::from));
    let mut request = ReadRequest::new(&args.path);
    if let Some(start_line) = args.start_line {
        request.start_line = start_line;
    }
    request.end_line = args.end_line;
    request.max_chars = args.max_chars;
    match tool.read(&request) {
        Ok(result) => {
            output::json(&result.to_json())?;
            Ok(Outcome::Success)
        }
        Err(error) => {
            output::json(&error.to_json())?;
            Ok(Outcome::Failure)
        }
    }
}

//! `skillbook read PATH`: the model's read tool, run by hand.
//!
//! The result is always one JSON document on stdout: the tool's result, or an error object with
//! a stable `error` code (exit 1). Discovery diagnostics go to stderr.

use skillbook::{KnownSkill, ReadBoundary, ReadRequest, SkillReader};

use crate::cli::{CommonArgs, ReadArgs};
use crate::output::{self, Outcome};
use crate::settings;

pub(crate) fn run(common: &CommonArgs, args: &ReadArgs) -> anyhow::Result<Outcome> {
    let discovery = settings::discovery(common);
    let found = discovery.discover();
    output::diagnostics(found.diagnostics());
    let mut request = ReadRequest::new(&args.path);
    if let Some(start_line) = args.start_line {
        request.start_line = start_line;
    }
    request.end_line = args.end_line;
    request.max_chars = args.max_chars;
    let result = if args.restricted {
        // The skill reader of the agent runtime and the MCP tool: model-visible skills only.
        SkillReader::new(&found)
            .only(|_, model_visible| model_visible)
            .read(&request)
    } else if args.path.starts_with("skill://") || common.locked {
        // A skill's URI names a skill, not a place in the workspace: every found skill's. Under
        // `--locked` only the skills the lock admits are readable, never the workspace around
        // them (which holds the refused ones).
        SkillReader::new(&found).read(&request)
    } else {
        let boundary = match ReadBoundary::discovered(discovery.workspace(), &found) {
            Ok(boundary) => boundary,
            Err(error) => {
                output::json(&error.to_json())?;
                return Ok(Outcome::Failure);
            }
        };
        // The workspace and the skill roots, the found skills' SKILL.md marked.
        SkillReader::over_boundary(boundary, found.skills().iter().map(KnownSkill::from))
            .read(&request)
    };
    match result {
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

//! (rev 2) Runs you can store: what a run sent, as data, and resuming it later.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::Fingerprint;

use super::{ContextItem, PreparedRun, RunRequest, RuntimeError, SkillRuntime, ToolDefinition};

/// What one run sent to the model, to store, log as JSON, and resume with
/// [`SkillRuntime::resume`] — in another process, after a restart.
///
/// ```
/// use skillbook::runtime::{Resolver, RunRecord, RunRequest, Scope, SkillRuntime};
/// use skillbook::sources::ProvidedSkill;
///
/// let workspace = tempfile::tempdir()?;
/// let skill = ProvidedSkill::parse("---\nname: haiku\ndescription: Answer in a haiku.\n---\n5-7-5.\n")?;
/// let runtime = SkillRuntime::new(Resolver::fixed(
///     Scope::workspace(workspace.path()).with_provided([skill]),
/// ));
/// let run = runtime.prepare(RunRequest::new("You are terse."))?;
/// let stored = serde_json::to_string(&run.record())?;
///
/// // Later, with the model's next tool calls:
/// let record: RunRecord = serde_json::from_str(&stored)?;
/// let run = runtime.resume(&record)?;
/// assert_eq!(run.system_prompt, record.system_prompt);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunRecord {
    /// The host's request: its own system prompt and tools, the selected skills, the tenant.
    pub request: RunRequest,
    /// The system prompt sent, the catalog appended.
    pub system_prompt: String,
    /// The tools sent, in OpenAI Chat shape ([`PreparedRun::tools`]).
    pub tools: Vec<Value>,
    /// The run's own tools, in no provider's shape ([`PreparedRun::tool_definitions`]).
    #[serde(default)]
    pub tool_definitions: Vec<ToolDefinition>,
    /// The context items sent before the history (the selected skills' content).
    pub items: Vec<ContextItem>,
    /// The fingerprint of the catalog the model saw, if it saw one.
    pub catalog_fingerprint: Option<Fingerprint>,
    /// The reader's name (`read_file` or `read_skill_file`), if one was offered.
    pub reader_name: Option<String>,
    /// The search tool's name, if one was offered.
    pub search_name: Option<String>,
}

impl PreparedRun {
    /// What this run sends, as data to store or log.
    pub fn record(&self) -> RunRecord {
        RunRecord {
            request: self.request.clone(),
            system_prompt: self.system_prompt.clone(),
            tools: self.tools.clone(),
            tool_definitions: self.definitions.clone(),
            items: self.items.clone(),
            catalog_fingerprint: self.catalog.as_ref().map(|catalog| catalog.fingerprint),
            reader_name: self.reader_name().map(str::to_owned),
            search_name: self.search_name().map(str::to_owned),
        }
    }
}

impl SkillRuntime {
    /// Prepares the recorded run again to go on with it: its request's scope is resolved afresh
    /// (as [`SkillRuntime::prepare`] does), and the run must show the catalog the model saw.
    ///
    /// # Errors
    ///
    /// Those of [`SkillRuntime::prepare`] (a selected skill that is gone, say), and
    /// [`RuntimeError::CatalogChanged`] when the catalog's fingerprint is not the recorded one:
    /// skills were added, removed or edited since, or this runtime's catalog budget differs.
    pub fn resume(&self, record: &RunRecord) -> Result<PreparedRun, RuntimeError> {
        let run = self.prepare(record.request.clone())?;
        let current = run.catalog.as_ref().map(|catalog| catalog.fingerprint);
        if current != record.catalog_fingerprint {
            return Err(RuntimeError::CatalogChanged {
                recorded: record.catalog_fingerprint,
                current,
            });
        }
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::disallowed_methods,
        reason = "tests write the skills they read"
    )]

    use std::fs;
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::runtime::{Provider, Resolver};

    fn skill(workspace: &Path, name: &str, description: &str) {
        let directory = workspace.join(".agents/skills").join(name);
        fs::create_dir_all(&directory).unwrap();
        fs::write(
            directory.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
        )
        .unwrap();
    }

    fn request() -> RunRequest {
        RunRequest::new("Host.")
            .with_tools([json!({"type": "function", "function": {"name": "read_file"}})])
            .with_selected(["pdf"])
            .with_tenant("acme")
    }

    #[test]
    fn a_record_round_trips_and_resumes_to_the_same_run() {
        let workspace = tempfile::tempdir().unwrap();
        skill(workspace.path(), "pdf", "Fill PDF forms.");
        let runtime = SkillRuntime::new(Resolver::workspace(workspace.path()));
        let run = runtime.prepare(request()).unwrap();
        let record = run.record();
        assert_eq!(record.request, request());
        assert_eq!(record.reader_name.as_deref(), Some("read_skill_file"));
        assert_eq!(record.search_name, None);
        assert_eq!(record.items, run.items);
        assert_eq!(record.tool_definitions, run.tool_definitions());
        let text = serde_json::to_string(&record).unwrap();
        let stored: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = stored
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "request",
                "system_prompt",
                "tools",
                "tool_definitions",
                "items",
                "catalog_fingerprint",
                "reader_name",
                "search_name"
            ]
        );
        let fingerprint = run.catalog.as_ref().unwrap().fingerprint;
        assert_eq!(stored["catalog_fingerprint"], fingerprint.to_string());
        let record: RunRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(record, run.record());
        // A fresh runtime (another process, say) resumes it.
        let resumed = SkillRuntime::new(Resolver::workspace(workspace.path()))
            .resume(&record)
            .unwrap();
        assert_eq!(resumed.record(), record);
        assert_eq!(
            resumed.tools_for(Provider::Anthropic).unwrap(),
            run.tools_for(Provider::Anthropic).unwrap()
        );
    }

    #[test]
    fn resuming_after_the_catalog_changed_fails_and_says_what_to_do() {
        let workspace = tempfile::tempdir().unwrap();
        skill(workspace.path(), "pdf", "Fill PDF forms.");
        let runtime = SkillRuntime::new(Resolver::workspace(workspace.path()));
        let record = runtime.prepare(request()).unwrap().record();
        skill(workspace.path(), "pdf", "Fill and sign PDF forms.");
        let current = runtime
            .prepare(request())
            .unwrap()
            .catalog
            .unwrap()
            .fingerprint;
        let error = runtime.resume(&record).unwrap_err();
        let RuntimeError::CatalogChanged {
            recorded,
            current: now,
        } = &error
        else {
            panic!("{error:?}");
        };
        assert_eq!(
            (*recorded, *now),
            (record.catalog_fingerprint, Some(current))
        );
        assert_eq!(
            error.to_string(),
            format!(
                "the skill catalog changed since this run was recorded (fingerprint {}, now \
                 {current}): the model's earlier turns chose from the old one, so the run cannot \
                 be resumed; prepare a new run with `SkillRuntime::prepare` (carrying the history \
                 over if you like) and send its system prompt and tools",
                record.catalog_fingerprint.unwrap()
            )
        );
        // No catalog then, one now.
        let empty = tempfile::tempdir().unwrap();
        let runtime = SkillRuntime::new(Resolver::workspace(empty.path()));
        let record = runtime.prepare(RunRequest::new("Host.")).unwrap().record();
        assert_eq!(record.catalog_fingerprint, None);
        skill(empty.path(), "new", "Appeared later.");
        let error = runtime.resume(&record).unwrap_err();
        assert!(
            error.to_string().contains("(fingerprint none, now "),
            "{error}"
        );
    }

    #[test]
    fn a_stored_fingerprint_is_its_hex_digits() {
        let text = "\"00abcdef01234567\"";
        let fingerprint = serde_json::from_str::<Fingerprint>(text).unwrap();
        assert_eq!(fingerprint.as_u64(), 0x00ab_cdef_0123_4567);
        assert_eq!(serde_json::to_string(&fingerprint).unwrap(), text);
        let computed = Fingerprint::of("a catalog");
        let round_trip = serde_json::to_string(&computed).unwrap();
        assert_eq!(
            serde_json::from_str::<Fingerprint>(&round_trip).unwrap(),
            computed
        );
        for bad in [
            "\"abc\"",
            "\"00abcdef0123456g\"",
            "\"+0abcdef01234567\"",
            "12",
        ] {
            assert!(serde_json::from_str::<Fingerprint>(bad).is_err(), "{bad}");
        }
    }
}

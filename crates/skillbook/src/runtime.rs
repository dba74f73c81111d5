//! The agent runtime: one prepared run per host request, for any LLM client.
//!
//! The library never talks to a model. [`SkillRuntime::prepare`] resolves the run's skills and
//! returns what the host sends: the system prompt with the catalog, the tools with the skill
//! reader appended, and context items to place before the history. The host runs its model loop
//! and hands the reader's tool calls to [`PreparedRun::execute`]. Skills reach the model three
//! ways:
//!
//! 1. **Model-selected** (the default). The catalog is appended to the system prompt and a
//!    reader tool, `read_file` (or `read_skill_file` when the host already owns `read_file`), is
//!    appended to the tools. The reader only reads the directories of the exposed skills.
//! 2. **Host-named.** [`RunRequest::selected_skills`] injects those skills' bodies as a user
//!    message before the history — never into the system prompt, which stays byte-identical so a
//!    provider's prompt cache survives. Manual-only skills can be selected this way.
//! 3. **Host-provided.** Skills held in memory ([`crate::sources`]) are listed as
//!    `skill://<name>/SKILL.md` and served from memory.
//!
//! Each run resolves its scope afresh through a [`DiscoveryCache`]: when nothing on disk
//! changed, a run costs one `stat` per recorded path instead of a walk.
//!
//! [`PreparedRun::tools`] and the `to_message` methods speak OpenAI Chat Completions; a
//! [`Provider`] gives the same run for OpenAI Responses, Anthropic Messages or Gemini —
//! [`PreparedRun::tools_for`], [`PreparedRun::items_for`], [`Provider::parse_tool_calls`] and
//! [`Provider::result_messages`]. A run is stored as its [`RunRecord`] ([`PreparedRun::record`])
//! and goes on later with [`SkillRuntime::resume`].
//!
//! A complete tool loop with a scripted model:
//!
//! ```
//! use serde_json::json;
//! use skillbook::runtime::{Resolver, RunRequest, Scope, SkillRuntime, ToolCall};
//! use skillbook::sources::ProvidedSkill;
//!
//! let workspace = tempfile::tempdir()?;
//! let skill = ProvidedSkill::parse(
//!     "---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5 syllables.\n",
//! )?;
//! let runtime = SkillRuntime::new(Resolver::fixed(
//!     Scope::workspace(workspace.path()).with_provided([skill]),
//! ));
//! let run = runtime.prepare(RunRequest::new("You are terse."))?;
//! assert!(run.system_prompt.contains("skill://haiku/SKILL.md"));
//!
//! // Send run.system_prompt, run.tools and run.items (then the history) to the model.
//! let mut messages = vec![json!({"role": "system", "content": run.system_prompt})];
//! messages.extend(run.items.iter().map(|item| item.to_message()));
//! messages.push(json!({"role": "user", "content": "Describe autumn."}));
//!
//! // The model answers with a tool call; the host routes reader calls to the run.
//! let call = ToolCall::new("call_1", "read_file", json!({"path": "skill://haiku/SKILL.md"}));
//! assert!(run.handles(&call.name));
//! let result = run.execute(&call);
//! assert!(result.content.contains("Write 5-7-5 syllables."));
//! assert_eq!(result.skill.as_deref(), Some("haiku")); // keep it when compacting
//! messages.push(result.to_message());
//! // …and the loop goes on until the model answers without tool calls.
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::{RenderedCatalog, append_to_prompt};
use crate::diagnostic::Diagnostic;
use crate::discovery::DiscoveryCache;
use crate::error::{ErrorCode, error_json};

mod error;
mod executor;
mod memo;
mod messages;
mod provider;
mod record;
mod resolver;
mod scope;
mod search_tool;
mod selected;
mod tools;

pub use error::RuntimeError;
pub use executor::{ACTIVATE_SKILL, PolicyCall, PolicyDecision, READ_SKILL_FILE, ReadPolicy};
pub use messages::{ContextItem, ToolCall, ToolResult};
pub use provider::{Provider, ResponseError, ToolDefinition, portable_tool_name};
pub use record::RunRecord;
pub use resolver::{Resolver, Scope};
pub use scope::{DiskSkill, ResolvedScope, ScopedSkill};
pub use search_tool::{SEARCH_SKILL_CATALOG, search_call};
pub use tools::ToolSet;

use crate::catalog::{READ_FILE, SEARCH_SKILLS};

use executor::Executor;

/// Size limits for host-selected skills (path 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SelectedLimits {
    /// Most characters of one skill's body. Default 12,000.
    pub max_chars: usize,
    /// Most bytes of one skill's body. Default 48,000.
    pub max_bytes: usize,
}

impl Default for SelectedLimits {
    fn default() -> Self {
        SelectedLimits {
            max_chars: 12_000,
            max_bytes: 48_000,
        }
    }
}

/// One request from the host. It serializes both ways, as part of a [`RunRecord`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct RunRequest {
    /// The host's system prompt.
    pub system_prompt: String,
    /// The host's tools, in any provider's shape: OpenAI Chat (`{"type": "function",
    /// "function": {"name", …}}`) for [`PreparedRun::tools`], or the shape of the provider the
    /// host sends [`PreparedRun::tools_for`] to (see [`Provider`]). Their names, in every
    /// shape — a Gemini `Tool`'s `functionDeclarations` included — decide the reader's name.
    pub host_tools: Vec<Value>,
    /// Skills the host names for this run (path 2).
    pub selected_skills: Vec<String>,
    /// An identifier a [`Resolver::custom`] can use to pick the scope (a tenant, a user).
    pub tenant: Option<String>,
}

impl RunRequest {
    /// A request with this system prompt, no host tools and no selection.
    pub fn new(system_prompt: impl Into<String>) -> Self {
        RunRequest {
            system_prompt: system_prompt.into(),
            ..RunRequest::default()
        }
    }

    /// The host's tools.
    #[must_use]
    pub fn with_tools(mut self, tools: impl IntoIterator<Item = Value>) -> Self {
        self.host_tools = tools.into_iter().collect();
        self
    }

    /// Skills the host selects for this run.
    #[must_use]
    pub fn with_selected<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.selected_skills = names.into_iter().map(Into::into).collect();
        self
    }

    /// The tenant a custom resolver sees.
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }
}

/// Prepares runs. Cheap to clone; share one across requests.
#[derive(Clone)]
pub struct SkillRuntime {
    resolver: Resolver,
    cache: Arc<DiscoveryCache>,
    catalog_budget: Option<usize>,
    selected_limits: SelectedLimits,
    activate_tool: bool,
    policy: Option<Arc<dyn ReadPolicy>>,
    /// Resolved scopes, kept while their discovery results stay the same.
    memo: Arc<memo::Memo>,
}

impl std::fmt::Debug for SkillRuntime {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SkillRuntime")
            .field("resolver", &self.resolver)
            .field("catalog_budget", &self.catalog_budget)
            .field("selected_limits", &self.selected_limits)
            .field("activate_tool", &self.activate_tool)
            .finish_non_exhaustive()
    }
}

impl SkillRuntime {
    /// A runtime whose runs take their skills from `resolver`.
    pub fn new(resolver: Resolver) -> Self {
        SkillRuntime {
            resolver,
            cache: Arc::new(DiscoveryCache::new()),
            catalog_budget: Some(crate::DEFAULT_CATALOG_BUDGET),
            selected_limits: SelectedLimits::default(),
            activate_tool: false,
            policy: None,
            memo: Arc::default(),
        }
    }

    /// The discovery cache runs share. Default: a private [`DiscoveryCache::new`], which checks
    /// one `stat` per recorded path on each run; pass [`DiscoveryCache::watching`] to reuse a
    /// result without touching the disk while nothing changed, or one cache to share it between
    /// runtimes.
    #[must_use]
    pub fn cache(mut self, cache: Arc<DiscoveryCache>) -> Self {
        self.cache = cache;
        self
    }

    /// The catalog's character budget: the first [`crate::Tier`] that fits is used, and from
    /// [`crate::Tier::NamesOnly`] on the run also offers `search_skills`. Default:
    /// [`crate::DEFAULT_CATALOG_BUDGET`].
    #[must_use]
    pub fn catalog_budget(mut self, characters: usize) -> Self {
        self.catalog_budget = Some(characters);
        self
    }

    /// No catalog budget: every skill in full, however long the catalog gets.
    #[must_use]
    pub fn unbudgeted_catalog(mut self) -> Self {
        self.catalog_budget = None;
        self
    }

    /// Size limits for host-selected skills. Default: [`SelectedLimits::default`].
    #[must_use]
    pub fn selected_limits(mut self, limits: SelectedLimits) -> Self {
        self.selected_limits = limits;
        self
    }

    /// Also offer the `activate_skill` fallback tool, for runtimes that cannot read files.
    /// Default: off.
    #[must_use]
    pub fn activate_tool(mut self, enabled: bool) -> Self {
        self.activate_tool = enabled;
        self
    }

    /// A host policy consulted before every skill read. It sees the canonical name `read_file`
    /// even when the reader is aliased. Default: none.
    #[must_use]
    pub fn policy(mut self, policy: impl ReadPolicy + 'static) -> Self {
        self.policy = Some(Arc::new(policy));
        self
    }

    /// Resolves this request's skills afresh and prepares the run.
    ///
    /// # Errors
    ///
    /// Before any model call, and only when some skill is exposed:
    /// [`RuntimeError::ToolNameConflict`] when the host owns both `read_file` and
    /// `read_skill_file` (or, when the catalog needs search, both `search_skills` and
    /// `search_skill_catalog`), [`RuntimeError::ToolNameTaken`] when the fallback tool is on and the
    /// host owns `activate_skill`. Always: [`RuntimeError::UnknownSkill`] or
    /// [`RuntimeError::SkillTooLarge`] for a selected skill; [`RuntimeError::DuplicateSkill`],
    /// [`RuntimeError::ProvidedOutsideRoots`] or [`RuntimeError::ProvidedTooLarge`] for
    /// provided skills.
    pub fn prepare(&self, request: RunRequest) -> Result<PreparedRun, RuntimeError> {
        let scope = self.resolver.resolve(&request);
        let found = self.cache.discover(&scope.discovery());
        // While nothing changed, the scope's skills, catalog and index are the last run's: a
        // run costs no scan of the skills.
        let prepared = self.memo.prepared(&scope, found)?;
        let resolved = &prepared.resolved;
        let host_names: Vec<&str> = request
            .host_tools
            .iter()
            .flat_map(provider::tool_names)
            .collect();
        let (selected, item) =
            selected::select(resolved, &request.selected_skills, self.selected_limits)?;
        let selected: HashSet<String> = selected.iter().map(|skill| skill.key()).collect();
        // Nothing exposed: the host's prompt and tools come back untouched, whatever they hold.
        if !prepared.has_visible() && selected.is_empty() {
            return Ok(PreparedRun {
                system_prompt: request.system_prompt.clone(),
                tools: request.host_tools.clone(),
                items: item.into_iter().collect(),
                catalog: None,
                diagnostics: resolved.diagnostics().to_vec(),
                definitions: Vec::new(),
                executor: None,
                request,
            });
        }
        let (catalog, executor) = self.offer(&prepared, &host_names, selected)?;
        let definitions = executor.tools().definitions().to_vec();
        let mut tools = request.host_tools.clone();
        tools.extend(Provider::OpenAiChat.tools(&definitions));
        Ok(PreparedRun {
            system_prompt: append_to_prompt(&request.system_prompt, catalog.as_ref()),
            tools,
            items: item.into_iter().collect(),
            catalog,
            diagnostics: resolved.diagnostics().to_vec(),
            definitions,
            executor: Some(executor),
            request,
        })
    }

    /// The run's catalog and the executor of its tools, for a run that exposes some skill: the
    /// reader and search tool named around the host's tools (`host_names`), the reader narrowed
    /// to the model-visible and the `selected` skills.
    fn offer(
        &self,
        prepared: &memo::Prepared,
        host_names: &[&str],
        selected: HashSet<String>,
    ) -> Result<(Option<RenderedCatalog>, Executor), RuntimeError> {
        let resolved = &prepared.resolved;
        let reader_name = reader_name(host_names)?;
        if self.activate_tool && host_names.contains(&ACTIVATE_SKILL) {
            return Err(RuntimeError::ToolNameTaken {
                name: ACTIVATE_SKILL.to_owned(),
            });
        }
        let search_name = search_tool::search_name(host_names);
        let catalog = prepared.catalog(
            &reader_name,
            search_name.unwrap_or(SEARCH_SKILLS),
            self.catalog_budget,
        );
        // Names alone say too little: the model searches for the rest, under a name of its own.
        if catalog
            .as_ref()
            .is_some_and(|catalog| catalog.tier.needs_search())
            && search_name.is_none()
        {
            return Err(RuntimeError::ToolNameConflict {
                first: SEARCH_SKILLS.to_owned(),
                second: SEARCH_SKILL_CATALOG.to_owned(),
            });
        }
        // The model-visible skills and the selected ones; a manual-only skill that was not
        // selected stays unreadable. The reader is offered under the name this run gives it.
        let reader = resolved
            .reader()
            .only(move |name, visible| visible || selected.contains(&name.key()));
        let options = reader.options().clone().with_tool_name(reader_name);
        let reader = reader.with_options(options);
        let offered = ToolSet::new(
            &reader,
            catalog.as_ref(),
            search_name.unwrap_or(SEARCH_SKILLS),
        );
        let search = offered.search().map(|_| prepared.search_index());
        let mut executor = Executor::new(
            reader,
            resolved.skill_file_bytes(),
            offered,
            search,
            self.policy.clone(),
        );
        if self.activate_tool {
            executor = executor.with_activate(prepared.activate());
        }
        Ok((catalog, executor))
    }
}

/// `read_file`, or `read_skill_file` when the host owns `read_file`.
fn reader_name(host_names: &[&str]) -> Result<String, RuntimeError> {
    match (
        host_names.contains(&READ_FILE),
        host_names.contains(&READ_SKILL_FILE),
    ) {
        (false, _) => Ok(READ_FILE.to_owned()),
        (true, false) => Ok(READ_SKILL_FILE.to_owned()),
        (true, true) => Err(RuntimeError::ToolNameConflict {
            first: READ_FILE.to_owned(),
            second: READ_SKILL_FILE.to_owned(),
        }),
    }
}

/// A run ready for the model: what to send, and the executor for the reader's calls.
///
/// The catalog is fixed for the whole run; the next [`SkillRuntime::prepare`] resolves afresh.
/// The run holds open handles, so it cannot be stored itself: store its [`PreparedRun::record`]
/// and [`SkillRuntime::resume`] it.
#[derive(Debug)]
#[non_exhaustive]
pub struct PreparedRun {
    /// The host's system prompt with the catalog appended (unchanged without a catalog).
    pub system_prompt: String,
    /// The host's tools as given, with the reader (then the search tool when the catalog needs
    /// it, and the fallback tool when on) appended in OpenAI Chat shape;
    /// [`PreparedRun::tools_for`] gives them all in any [`Provider`]'s shape.
    pub tools: Vec<Value>,
    /// Messages to place before the history: the host-selected skills.
    pub items: Vec<ContextItem>,
    /// The catalog, when any skill is model-visible: its [`crate::Tier`], how many skills it
    /// lists and whether it is over the budget.
    pub catalog: Option<RenderedCatalog>,
    /// Problems met while discovering this run's skills.
    pub diagnostics: Vec<Diagnostic>,
    /// The run's own tools.
    definitions: Vec<ToolDefinition>,
    executor: Option<Executor>,
    /// The host's request, as it came.
    request: RunRequest,
}

impl PreparedRun {
    /// The search tool's name in this run (`search_skills` or `search_skill_catalog`), when the
    /// catalog needs it.
    pub fn search_name(&self) -> Option<&str> {
        self.executor.as_ref().and_then(Executor::search_name)
    }

    /// The reader's name in this run (`read_file` or `read_skill_file`), if one is offered.
    pub fn reader_name(&self) -> Option<&str> {
        self.executor.as_ref().map(Executor::name)
    }

    /// Whether a tool call is the run's to execute (the reader, the search tool or the fallback
    /// tool); other calls belong to the host.
    pub fn handles(&self, tool_name: &str) -> bool {
        self.executor
            .as_ref()
            .is_some_and(|executor| executor.handles(tool_name))
    }

    /// The tools to send to `provider`: the host's tools as requested — a function tool given in
    /// another provider's shape converted, a built-in tool of `provider` kept as it is — then
    /// the run's own (see [`Provider`]).
    ///
    /// # Errors
    ///
    /// [`RuntimeError::ForeignTool`] when a host tool is another provider's built-in tool
    /// (`{"googleSearch": {}}` for OpenAI, `{"type": "web_search"}` for Gemini): it cannot be
    /// converted, and sending it would be refused by the API.
    pub fn tools_for(&self, provider: Provider) -> Result<Vec<Value>, RuntimeError> {
        provider.tools_with_host(&self.request.host_tools, &self.definitions)
    }

    /// The context items as `provider`'s messages, to place before the history
    /// ([`Provider::context_message`]).
    pub fn items_for(&self, provider: Provider) -> Vec<Value> {
        self.items
            .iter()
            .map(|item| provider.context_message(item))
            .collect()
    }

    /// The run's own tools (the reader, the search tool, the fallback tool), in no provider's
    /// shape; none when no skill is exposed.
    pub fn tool_definitions(&self) -> &[ToolDefinition] {
        &self.definitions
    }

    /// Answers one model turn's calls, in their order: the run's own with
    /// [`PreparedRun::execute`], every other with `host`. Send the results back together with
    /// [`Provider::result_messages`].
    pub fn answer(
        &self,
        calls: &[ToolCall],
        mut host: impl FnMut(&ToolCall) -> ToolResult,
    ) -> Vec<ToolResult> {
        calls
            .iter()
            .map(|call| {
                if self.handles(&call.name) {
                    self.execute(call)
                } else {
                    host(call)
                }
            })
            .collect()
    }

    /// Executes a reader or search call. A call to any other tool gets an `unsupported_tool`
    /// error result.
    pub fn execute(&self, call: &ToolCall) -> ToolResult {
        match &self.executor {
            Some(executor) => executor.execute(call),
            None => ToolResult {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: error_json(
                    ErrorCode::UnsupportedTool,
                    &format!(
                        "unsupported tool `{}`: this run offers no skill reader",
                        call.name
                    ),
                )
                .to_string(),
                is_error: true,
                skill: None,
            },
        }
    }
}

#[cfg(test)]
mod tests;

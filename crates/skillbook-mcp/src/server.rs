//! The server type, how it is built, and the state its requests share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{
    Implementation, ServerCapabilities, ServerConfig, SkillFrontmatter, SkillResources, Tool,
    ToolAnnotations,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use skillbook::runtime::{ResolvedScope, Scope, ScopedSkill, ToolDefinition, ToolSet};
use skillbook::search::SearchIndex;
use skillbook::sources::ProvidedSkill;
use skillbook::{Addressing, Catalog, Discovered, SEARCH_SKILLS, SkillReader};
use tokio::sync::Semaphore;

use crate::Error;
use crate::budget::{Budget, DEFAULT_READ_BUDGET};
use crate::index::{self, Digests, IndexError, Indexed, SkillIndex};

/// How many entries one page of `skills/list`, `resources/list` or `resources/directory/read`
/// holds unless [`ServerBuilder::page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// The most characters of the instructions (the catalog) unless
/// [`ServerBuilder::instructions_budget`] says otherwise: past it the catalog shortens every
/// entry alike, down to no list at all, and the server offers `search_skills`.
pub const DEFAULT_INSTRUCTIONS_BUDGET: usize = skillbook::DEFAULT_CATALOG_BUDGET;

/// How many requests touch the disk at once unless [`ServerBuilder::concurrency`] says
/// otherwise. Each holds a few descriptors and at most one file's bytes, so this also bounds
/// descriptors and memory whatever a client pipelines.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// How long a skill that could not be indexed stays refused before a request tries again.
const RETRY_UNINDEXED: Duration = Duration::from_secs(1);

/// The most one skill may serve. A skill over a limit is not served and the reason is reported;
/// its files are never cut to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceLimits {
    /// The most files in one skill. Default 512.
    pub max_files: usize,
    /// The most bytes in all files of one skill together. Default 16 MiB.
    pub max_bytes: u64,
}

impl ResourceLimits {
    /// Limits of `max_files` files and `max_bytes` bytes per skill.
    #[must_use]
    pub fn new(max_files: usize, max_bytes: u64) -> Self {
        Self {
            max_files,
            max_bytes,
        }
    }
}

impl Default for ResourceLimits {
    fn default() -> Self {
        Self::new(512, 16 * 1024 * 1024)
    }
}

/// Configures a [`SkillServer`] for a [`Scope`]. Each setter takes and returns the builder and
/// documents its default; [`ServerBuilder::build`] can be called more than once.
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    scope: Scope,
    page_size: usize,
    limits: ResourceLimits,
    concurrency: usize,
    read_budget: u64,
    instructions_budget: Option<usize>,
}

impl ServerBuilder {
    /// A server for the skills `scope` resolves to: discovered ones, provided ones (memory,
    /// embedded, zip) and a tenant's directories alike, with the runtime's names and URIs.
    #[must_use]
    pub fn new(scope: Scope) -> Self {
        Self {
            scope,
            page_size: DEFAULT_PAGE_SIZE,
            limits: ResourceLimits::default(),
            concurrency: DEFAULT_CONCURRENCY,
            read_budget: DEFAULT_READ_BUDGET,
            instructions_budget: Some(DEFAULT_INSTRUCTIONS_BUDGET),
        }
    }

    /// How the catalog, the read tool and `search_skills` name skill files: by the server's
    /// paths, or by `skill://` URI only (the scope's [`Scope::addressing`]: paths for a
    /// workspace scope, URIs for a tenant's). A server that others reach over the network uses
    /// [`Addressing::SkillUris`] so that nothing it answers reveals how its disk is laid out.
    #[must_use]
    pub fn addressing(mut self, addressing: Addressing) -> Self {
        self.scope = self.scope.with_addressing(addressing);
        self
    }

    /// The most characters the instructions (the catalog) may take, or `None` for no limit.
    /// Over it the catalog degrades in tiers ([`skillbook::Tier`]); from names-only on, the
    /// server lists the `search_skills` tool next to `read_file`. Default
    /// [`DEFAULT_INSTRUCTIONS_BUDGET`].
    #[must_use]
    pub fn instructions_budget(mut self, characters: Option<usize>) -> Self {
        self.instructions_budget = characters;
        self
    }

    /// Entries per page of the paged methods. Default [`DEFAULT_PAGE_SIZE`]; `0` counts as 1.
    #[must_use]
    pub fn page_size(mut self, entries: usize) -> Self {
        self.page_size = entries.max(1);
        self
    }

    /// What one skill may serve. Default [`ResourceLimits::default`].
    #[must_use]
    pub fn limits(mut self, limits: ResourceLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How many requests may read the disk at once; the others wait. Default
    /// [`DEFAULT_CONCURRENCY`]; `0` counts as 1.
    #[must_use]
    pub fn concurrency(mut self, requests: usize) -> Self {
        self.concurrency = requests.max(1);
        self
    }

    /// How many bytes of answers `resources/read` and `tools/call` may hold at once, from
    /// reading the file until the answer is written; further reads wait. A file is counted at
    /// its size in base64 (what a blob answer costs), a `read_file` segment at four bytes a
    /// character asked for. Default [`DEFAULT_READ_BUDGET`] (32 MiB); an answer larger than the
    /// budget takes all of it. Over HTTP the endpoint's limits apply instead (its tenant's
    /// share and the server's whole, see `http::TenantLimits`).
    #[must_use]
    pub fn read_budget(mut self, bytes: u64) -> Self {
        self.read_budget = bytes;
        self
    }

    /// The scope served.
    #[must_use]
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Discovers the scope once and builds the server.
    ///
    /// # Errors
    ///
    /// [`Error::Scope`] when the scope's provided skills cannot be served (a name taken by a
    /// different skill, a file outside the roots, too large).
    pub fn build(&self) -> Result<SkillServer, Error> {
        self.build_from(Arc::new(self.scope.discovery().discover()))
    }

    /// Builds the server from a discovery of [`Scope::discovery`] made already (for example by
    /// a watcher), so start-up walks the tree once.
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`].
    pub fn build_from(&self, found: Arc<Discovered>) -> Result<SkillServer, Error> {
        let resolved = self.scope.resolve_found(Arc::clone(&found))?;
        for diagnostic in resolved.diagnostics() {
            tracing::warn!("{diagnostic}");
        }
        let digests = Arc::new(Digests::default());
        let state = State::new(resolved, self, Arc::clone(&digests));
        Ok(SkillServer {
            shared: Arc::new(Shared {
                current: RwLock::new(Arc::new(state)),
                inputs: Mutex::new(Inputs {
                    found,
                    sourced: Vec::new(),
                }),
                builder: self.clone(),
                digests,
                work: Arc::new(Semaphore::new(self.concurrency)),
                budget: Arc::new(Budget::new(self.read_budget)),
                sessions: Mutex::new(Vec::new()),
            }),
            notifies: true,
        })
    }
}

/// The MCP server: serves a scope's skills through the Skills extension, the catalog as its
/// instructions, and the `read_file` tool. Cheap to clone; clones share their state.
///
/// See the [crate docs](crate) for what each method serves.
#[derive(Debug, Clone)]
pub struct SkillServer {
    shared: Arc<Shared>,
    /// Whether the capabilities announce `list_changed` notifications: not to clients
    /// without a session, which no notification can reach.
    notifies: bool,
}

/// What a server's state is built from.
#[derive(Debug)]
struct Inputs {
    /// The scope's last discovery.
    found: Arc<Discovered>,
    /// Skills from sources loaded apart from the scope (an object store), served after the
    /// scope's own ([`SkillServer::reload_sourced`]).
    sourced: Vec<ProvidedSkill>,
}

/// The state in use, replaced whole by [`SkillServer::reload`].
#[derive(Debug)]
struct Shared {
    current: RwLock<Arc<State>>,
    /// What the current state was built from; held for a whole reload, so that reloads (a
    /// watcher's, a poll's) apply one at a time and none undoes another.
    inputs: Mutex<Inputs>,
    builder: ServerBuilder,
    /// Digests by file version, kept across reloads: an unchanged file is never hashed twice.
    digests: Arc<Digests>,
    /// Permits to touch the disk.
    work: Arc<Semaphore>,
    /// Bytes of files read whose answers are not written yet.
    budget: Arc<Budget>,
    /// The clients that completed the handshake in a session of their own (stdio, or HTTP
    /// with sessions), to tell when the skills change.
    sessions: Mutex<Vec<Peer<RoleServer>>>,
}

impl SkillServer {
    /// A builder for `scope`.
    #[must_use]
    pub fn builder(scope: Scope) -> ServerBuilder {
        ServerBuilder::new(scope)
    }

    /// A server with default settings for `scope`, discovered now.
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`].
    pub fn new(scope: Scope) -> Result<Self, Error> {
        ServerBuilder::new(scope).build()
    }

    /// The instructions sent at `initialize`: the catalog, or `None` when no skill is
    /// model-visible.
    #[must_use]
    pub fn instructions(&self) -> Option<String> {
        self.state().config.instructions.clone()
    }

    /// The scope served.
    #[must_use]
    pub fn scope(&self) -> &Scope {
        &self.shared.builder.scope
    }

    /// The names of the skills served now, sorted (byte order), those the Skills extension
    /// leaves out included.
    #[must_use]
    pub fn skill_names(&self) -> Vec<String> {
        self.state()
            .listed
            .iter()
            .map(|listed| listed.skill.name().to_string())
            .collect()
    }

    /// How skill files are named to clients ([`ServerBuilder::addressing`]).
    #[must_use]
    pub fn addressing(&self) -> Addressing {
        self.shared.builder.scope.addressing()
    }

    /// Serves the skills of a new discovery of the scope from now on. Requests already running
    /// finish with the skills they started with.
    ///
    /// Returns whether the tool list changed — the read tool or the search tool appeared or
    /// disappeared (clients should be told).
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`]; the server keeps serving the previous skills then.
    pub fn reload(&self, found: Arc<Discovered>) -> Result<bool, Error> {
        self.rebuild(Some(found), None)
    }

    /// Serves `skills` in place of the skills of the last call, after the scope's own, from now
    /// on: skills loaded from a source the scope does not hold (an object store, polled). The
    /// scope's discovered skills stay those of the last discovery.
    ///
    /// Returns whether the tool list changed, as [`SkillServer::reload`] does.
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`] (a name taken by a different skill, …); the server keeps
    /// serving the previous skills then.
    pub fn reload_sourced(&self, skills: Vec<ProvidedSkill>) -> Result<bool, Error> {
        self.rebuild(None, Some(skills))
    }

    /// Builds and serves the state for a new discovery or new sourced skills (the other kept).
    fn rebuild(
        &self,
        found: Option<Arc<Discovered>>,
        sourced: Option<Vec<ProvidedSkill>>,
    ) -> Result<bool, Error> {
        let mut inputs = self
            .shared
            .inputs
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let found = found.unwrap_or_else(|| Arc::clone(&inputs.found));
        let builder = &self.shared.builder;
        let extra = sourced.as_ref().unwrap_or(&inputs.sourced);
        let resolved = if extra.is_empty() {
            builder.scope.resolve_found(Arc::clone(&found))?
        } else {
            builder
                .scope
                .clone()
                .with_provided(extra.iter().cloned())
                .resolve_found(Arc::clone(&found))?
        };
        inputs.found = found;
        if let Some(sourced) = sourced {
            inputs.sourced = sourced;
        }
        let state = Arc::new(State::new(
            resolved,
            builder,
            Arc::clone(&self.shared.digests),
        ));
        let tools = state.tool_names();
        let previous = std::mem::replace(
            &mut *self
                .shared
                .current
                .write()
                .unwrap_or_else(PoisonError::into_inner),
            state,
        );
        Ok(previous.tool_names() != tools)
    }

    /// Tells every client in a session that the skills changed
    /// (`notifications/resources/list_changed`, and `notifications/tools/list_changed` when
    /// `tools_changed`, as [`SkillServer::reload`] returns it). Clients without a session
    /// (stateless HTTP) are not told: they see the new skills on their next request.
    pub async fn notify_sessions(&self, tools_changed: bool) {
        let sessions = self.sessions().clone();
        for peer in sessions {
            let mut sent = peer.notify_resource_list_changed().await;
            if tools_changed && sent.is_ok() {
                sent = peer.notify_tool_list_changed().await;
            }
            if let Err(error) = sent {
                tracing::debug!("cannot notify a client: {error}");
            }
        }
    }

    /// Remembers a client that completed the handshake in a session, forgetting those whose
    /// sessions ended.
    pub(crate) fn remember(&self, peer: Peer<RoleServer>) {
        let mut sessions = self.sessions();
        sessions.retain(|peer| !peer.is_transport_closed());
        sessions.push(peer);
    }

    fn sessions(&self) -> MutexGuard<'_, Vec<Peer<RoleServer>>> {
        self.shared
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The same server (sharing its skills and limits) for clients without a session: its
    /// capabilities announce no `list_changed` notification, since none could reach them.
    #[must_use]
    #[cfg(feature = "http")]
    pub(crate) fn without_notifications(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            notifies: false,
        }
    }

    /// Whether `other` is this server or a clone of it (they share their skills and limits).
    #[cfg(feature = "http")]
    pub(crate) fn same_as(&self, other: &SkillServer) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Whether clients of this server can be sent notifications (they have a session).
    pub(crate) fn notifies(&self) -> bool {
        self.notifies
    }

    /// What the server says of itself: with the instructions (`initialize`) or without them
    /// (every other request that asks, since the catalog can be megabytes).
    pub(crate) fn config(&self, instructions: bool) -> ServerConfig {
        let state = self.state();
        let mut config = match instructions {
            true => state.config.clone(),
            false => state.info.clone(),
        };
        if !self.notifies {
            let capabilities = &mut config.capabilities;
            if let Some(resources) = capabilities.resources.as_mut() {
                resources.list_changed = None;
            }
            if let Some(tools) = capabilities.tools.as_mut() {
                tools.list_changed = None;
            }
        }
        config
    }

    /// The state requests are served from.
    pub(crate) fn state(&self) -> Arc<State> {
        Arc::clone(
            &self
                .shared
                .current
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The permits to touch the disk.
    pub(crate) fn work(&self) -> Arc<Semaphore> {
        Arc::clone(&self.shared.work)
    }

    /// The byte budget of reads in flight.
    pub(crate) fn budget(&self) -> Arc<Budget> {
        Arc::clone(&self.shared.budget)
    }
}

/// What every request of a server shares.
#[derive(Debug)]
pub(crate) struct State {
    /// Every skill of the scope, sorted by name: the order of the paged lists.
    pub(crate) listed: Vec<Listed>,
    /// The position in `listed` of each served skill, by name.
    pub(crate) served: HashMap<String, usize>,
    /// Reads every skill of the scope; resources come only from served ones.
    pub(crate) reader: SkillReader,
    /// The read tool, when some skill is model-visible.
    pub(crate) tool: Option<ReadTool>,
    /// The search tool, when the instructions list too little to choose from.
    pub(crate) search: Option<SearchTool>,
    /// What `initialize` answers.
    pub(crate) config: ServerConfig,
    /// The same without the instructions, for every other request that asks.
    pub(crate) info: ServerConfig,
    /// Entries per page.
    pub(crate) page_size: usize,
    /// What one skill may serve.
    pub(crate) limits: ResourceLimits,
    digests: Arc<Digests>,
    /// Each served skill's index, built the first time a request needs it.
    indexes: Mutex<HashMap<usize, (Instant, Arc<Indexed>)>>,
}

impl State {
    fn new(resolved: ResolvedScope, builder: &ServerBuilder, digests: Arc<Digests>) -> Self {
        let entry = ScopedSkill::entry;
        let mut catalog = Catalog::from_entries(resolved.skills().iter().map(entry));
        catalog = catalog.search_tool(SEARCH_SKILLS);
        if let Some(budget) = builder.instructions_budget {
            catalog = catalog.budget(budget);
        }
        let catalog = catalog.render();
        // The library says which tools go with this catalog, and how each is described.
        let reader = resolved.reader().only(|_, visible| visible);
        let offered = ToolSet::new(&reader, catalog.as_ref(), SEARCH_SKILLS);
        let tool = offered
            .reader()
            .map(|definition| ReadTool::new(reader, definition));
        if let Some(catalog) = catalog.as_ref().filter(|catalog| catalog.over_budget) {
            tracing::warn!(
                "the instructions take {} characters, over the budget of {}: even the catalog \
                 without a list is larger",
                catalog.text.chars().count(),
                builder.instructions_budget.unwrap_or_default()
            );
        }
        let search = offered
            .search()
            .map(|definition| SearchTool::new(resolved.skills().iter().map(entry), definition));
        let listed = listing(resolved.skills().to_vec());
        let served = listed
            .iter()
            .enumerate()
            .filter(|(_, listed)| listed.unserved.is_none())
            .map(|(position, listed)| (listed.skill.name().to_string(), position))
            .collect();
        let info = server_config(None);
        State {
            listed,
            served,
            reader: resolved.reader().clone(),
            tool,
            search,
            config: server_config(catalog.map(|catalog| catalog.text)),
            info,
            page_size: builder.page_size,
            limits: builder.limits,
            digests,
            indexes: Mutex::new(HashMap::new()),
        }
    }

    /// The tools offered: `read_file` while some skill is model-visible, then `search_skills`
    /// while the instructions need it.
    pub(crate) fn tools(&self) -> Vec<Tool> {
        let read = self.tool.iter().map(|tool| tool.tool.clone());
        let search = self.search.iter().map(|search| search.tool.clone());
        read.chain(search).collect()
    }

    fn tool_names(&self) -> Vec<String> {
        self.tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect()
    }

    /// The index of the skill at `position`, built now if no request built it before.
    pub(crate) fn index(&self, position: usize) -> Option<Arc<Indexed>> {
        // A skill that could not be indexed (swapped away, unreadable) is tried again a little
        // later, not kept refused until the server restarts.
        if let Some((made, indexed)) = self.indexes().get(&position)
            && (indexed.outcome.is_ok() || made.elapsed() < RETRY_UNINDEXED)
        {
            return Some(Arc::clone(indexed));
        }
        let skill = &self.listed.get(position)?.skill;
        let indexed = Arc::new(index::index(
            &self.reader,
            skill.name(),
            &self.digests,
            self.limits,
        ));
        report(skill, &indexed);
        self.indexes()
            .insert(position, (Instant::now(), Arc::clone(&indexed)));
        Some(indexed)
    }

    /// The positions of the page of `listed` that `cursor` asks for, and the next page's
    /// cursor (see [`crate::cursor`]).
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
    ) -> Result<(std::ops::Range<usize>, Option<String>), ErrorData> {
        crate::cursor::page(cursor, self.listed.len(), self.page_size, |position| {
            self.listed
                .get(position)
                .map_or("", |listed| listed.skill.name().as_str())
        })
    }

    /// Drops the index of the skill at `position`, so the next request indexes it again.
    pub(crate) fn forget(&self, position: usize) {
        self.indexes().remove(&position);
    }

    fn indexes(&self) -> MutexGuard<'_, HashMap<usize, (Instant, Arc<Indexed>)>> {
        self.indexes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The position and index of the served skill `name`: `None` when there is no such skill, an
    /// error when it has no index.
    /// Why a skill with a valid name is not served, naming no path a client may not see.
    pub(crate) fn not_served(&self, skill: &ScopedSkill, error: &IndexError) -> String {
        let name = skill.name().as_str();
        format!("skill `{name}` is not served: {error}")
    }

    pub(crate) fn served_index(
        &self,
        name: &str,
    ) -> Option<Result<(usize, Arc<SkillIndex>), ErrorData>> {
        let position = *self.served.get(name)?;
        let listed = self.listed.get(position)?;
        let indexed = self.index(position)?;
        Some(match &indexed.outcome {
            Ok(index) => Ok((position, Arc::clone(index))),
            Err(error) => Err(ErrorData::invalid_params(
                self.not_served(&listed.skill, error),
                None,
            )),
        })
    }
}

/// A skill as the catalog and `search_skills` show it: located by path or by URI.
/// Every skill, sorted by name, each with the reason it cannot be served, if any; the reasons
/// are logged.
fn listing(skills: Vec<ScopedSkill>) -> Vec<Listed> {
    let mut listed: Vec<Listed> = skills.into_iter().map(Listed::new).collect();
    listed.sort_by(|left, right| left.skill.name().as_str().cmp(right.skill.name().as_str()));
    for entry in &listed {
        if let Some(problem) = &entry.unserved {
            tracing::warn!("{problem}");
        }
    }
    listed
}

/// Logs what indexing a skill skipped or why it failed.
fn report(skill: &ScopedSkill, indexed: &Indexed) {
    for skipped in &indexed.skipped {
        tracing::warn!(
            skill = %skill.name(),
            "{} is not served: {}",
            skipped.uri,
            skipped.reason
        );
    }
    if let Err(error) = &indexed.outcome {
        tracing::warn!("skill `{}` is not served: {error}", skill.name());
    }
}

/// One skill of the scope and, when the Skills extension cannot serve it, why.
#[derive(Debug)]
pub(crate) struct Listed {
    pub(crate) skill: ScopedSkill,
    pub(crate) unserved: Option<String>,
}

impl Listed {
    fn new(skill: ScopedSkill) -> Self {
        // The extension requires an Agent Skills name, equal to the last segment of the URI;
        // the model type checks the same rule once more.
        let probe = rmcp::model::Skill::new(
            skill.uri(),
            SkillFrontmatter::new(skill.name().as_str(), skill.description()),
            SkillResources::Dynamic,
        );
        let unserved =
            (!skill.name().is_agent_skills_name() || probe.validate().is_err()).then(|| {
                format!(
                    "skill `{}` is not served as an MCP skill: the Skills extension requires an \
                     Agent Skills name (1 to 64 lowercase letters or digits, with single hyphens \
                     between them); rename it in its SKILL.md front matter",
                    skill.name()
                )
            });
        Self { skill, unserved }
    }
}

/// The read tool: the model-visible skills' reader and the tool definition.
#[derive(Debug)]
pub(crate) struct ReadTool {
    pub(crate) reader: SkillReader,
    pub(crate) tool: Tool,
}

impl ReadTool {
    fn new(reader: SkillReader, definition: &ToolDefinition) -> Self {
        let tool = read_only_tool(definition, "Read a skill file");
        Self { reader, tool }
    }

    /// Runs one call: the result's JSON, or the error's. The reader names files as the scope
    /// does (by `skill://` URI only, for a server that others reach).
    pub(crate) fn call(&self, arguments: Value) -> Result<Value, Value> {
        self.reader
            .call(&arguments)
            .map(|result| result.to_json())
            .map_err(|error| error.to_json())
    }
}

/// An MCP tool from the library's definition ([`ToolSet`]), marked read-only and idempotent.
fn read_only_tool(definition: &ToolDefinition, title: &str) -> Tool {
    let parameters = match &definition.parameters {
        Value::Object(parameters) => parameters.clone(),
        _ => serde_json::Map::new(),
    };
    Tool::new(
        definition.name.clone(),
        definition.description.clone(),
        parameters,
    )
    .with_annotations(
        ToolAnnotations::with_title(title)
            .read_only(true)
            .destructive(false)
            .idempotent(true),
    )
}

/// The search tool: the model-visible skills' index and the tool definition.
#[derive(Debug)]
pub(crate) struct SearchTool {
    pub(crate) index: SearchIndex,
    pub(crate) tool: Tool,
}

impl SearchTool {
    fn new<'a>(
        entries: impl IntoIterator<Item = skillbook::CatalogEntry<'a>>,
        definition: &ToolDefinition,
    ) -> Self {
        let tool = read_only_tool(definition, "Search the skills");
        Self {
            index: SearchIndex::new(entries),
            tool,
        }
    }
}

/// What `initialize` answers: the Skills extension with directory reads, resources and tools
/// (both lists may change: the server watches the skill roots; the tool list is empty while no
/// skill is model-visible), and the catalog as instructions.
fn server_config(instructions: Option<String>) -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_resources()
        .enable_resources_list_changed()
        .enable_tools()
        .enable_tool_list_changed()
        .enable_skills_with_directory_read()
        .build();
    let mut config = ServerConfig::new(capabilities)
        .with_server_info(Implementation::new("skillbook", env!("CARGO_PKG_VERSION")));
    config.instructions = instructions;
    config
}

//! The server type, how it is built, and the state its requests share.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use rmcp::ErrorData;
use rmcp::model::{
    Implementation, ServerCapabilities, ServerConfig, SkillFrontmatter, SkillResources, Tool,
    ToolAnnotations,
};
use serde_json::Value;
use skillbook::{Catalog, Discovered, KnownSkill, ReadBoundary, ReadFile, Skill};

use crate::Error;
use crate::index::{self, IndexError, Indexed, SkillIndex};
use crate::uri;

/// How many entries one page of `skills/list`, `resources/list` or `resources/directory/read`
/// holds unless [`ServerBuilder::page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;

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

/// Configures a [`SkillServer`]. Each setter documents its default; [`ServerBuilder::build`] can
/// be called more than once.
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    skills: Vec<Skill>,
    page_size: usize,
    limits: ResourceLimits,
}

impl ServerBuilder {
    /// A server for `skills` (as discovery returns them: names unique).
    pub fn new(skills: impl IntoIterator<Item = Skill>) -> Self {
        Self {
            skills: skills.into_iter().collect(),
            page_size: DEFAULT_PAGE_SIZE,
            limits: ResourceLimits::default(),
        }
    }

    /// Entries per page of the paged methods. Default [`DEFAULT_PAGE_SIZE`]; `0` counts as 1.
    pub fn page_size(&mut self, entries: usize) -> &mut Self {
        self.page_size = entries.max(1);
        self
    }

    /// What one skill may serve. Default [`ResourceLimits::default`].
    pub fn limits(&mut self, limits: ResourceLimits) -> &mut Self {
        self.limits = limits;
        self
    }

    /// Builds the server: opens a handle to every skill directory and renders the catalog.
    ///
    /// # Errors
    ///
    /// [`Error::Boundary`] when a skill directory exists but cannot be opened.
    pub fn build(&self) -> Result<SkillServer, Error> {
        let state = self.state()?;
        Ok(SkillServer {
            shared: Arc::new(Shared {
                current: RwLock::new(Arc::new(state)),
                page_size: self.page_size,
                limits: self.limits,
            }),
        })
    }

    /// The state serving this builder's skills.
    fn state(&self) -> Result<State, Error> {
        let listed = listing(&self.skills);
        let served: HashMap<String, usize> = listed
            .iter()
            .enumerate()
            .filter(|(_, listed)| listed.unserved.is_none())
            .map(|(position, listed)| (listed.skill.name.clone(), position))
            .collect();
        let resources = ReadBoundary::skills(
            listed
                .iter()
                .filter(|listed| listed.unserved.is_none())
                .map(|listed| &listed.skill.directory),
        );
        let catalog = Catalog::new(&self.skills).render();
        let reader = match catalog {
            Some(_) => Some(Reader::new(&self.skills)?),
            None => None,
        };
        let config = server_config(catalog.map(|catalog| catalog.text));
        Ok(State {
            listed,
            served,
            resources,
            reader,
            config,
            page_size: self.page_size,
            limits: self.limits,
            indexes: Mutex::new(HashMap::new()),
        })
    }
}

/// The MCP server: serves discovered skills through the Skills extension, the catalog as its
/// instructions, and the `read_file` tool. Cheap to clone; clones share their state.
///
/// See the [crate docs](crate) for what each method serves.
#[derive(Debug, Clone)]
pub struct SkillServer {
    shared: Arc<Shared>,
}

/// The state in use, replaced whole by [`SkillServer::reload`].
#[derive(Debug)]
struct Shared {
    current: RwLock<Arc<State>>,
    page_size: usize,
    limits: ResourceLimits,
}

impl SkillServer {
    /// A builder for the skills `found` by discovery.
    #[must_use]
    pub fn builder(found: &Discovered) -> ServerBuilder {
        ServerBuilder::new(found.skills.iter().cloned())
    }

    /// A server with default settings for the skills `found` by discovery.
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`].
    pub fn new(found: &Discovered) -> Result<Self, Error> {
        Self::builder(found).build()
    }

    /// The instructions sent at `initialize`: the catalog, or `None` when no skill is
    /// model-visible.
    #[must_use]
    pub fn instructions(&self) -> Option<String> {
        self.state().config.instructions.clone()
    }

    /// Serves `found` from now on (same page size and limits). Requests already running finish
    /// with the skills they started with.
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`]; the server keeps serving the previous skills then.
    /// Returns whether the read tool appeared or disappeared (clients should be told that the
    /// tool list changed).
    pub fn reload(&self, found: &Discovered) -> Result<bool, Error> {
        let mut builder = ServerBuilder::new(found.skills.iter().cloned());
        builder
            .page_size(self.shared.page_size)
            .limits(self.shared.limits);
        let state = Arc::new(builder.state()?);
        let has_tool = state.reader.is_some();
        let previous = std::mem::replace(
            &mut *self
                .shared
                .current
                .write()
                .unwrap_or_else(PoisonError::into_inner),
            state,
        );
        Ok(previous.reader.is_some() != has_tool)
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
}

/// What every request of a server shares.
#[derive(Debug)]
pub(crate) struct State {
    /// Every skill, sorted by name: the order of the paged lists.
    pub(crate) listed: Vec<Listed>,
    /// The position in `listed` of each served skill, by name.
    pub(crate) served: HashMap<String, usize>,
    /// The directories of the served skills: every resource is read through it.
    pub(crate) resources: ReadBoundary,
    /// The read tool, when some skill is model-visible.
    pub(crate) reader: Option<Reader>,
    /// What `initialize` answers.
    pub(crate) config: ServerConfig,
    /// Entries per page.
    pub(crate) page_size: usize,
    /// What one skill may serve.
    pub(crate) limits: ResourceLimits,
    /// Each served skill's index, built the first time a request needs it.
    indexes: Mutex<HashMap<usize, Arc<Indexed>>>,
}

impl State {
    /// The index of the skill at `position`, built now if no request built it before.
    pub(crate) fn index(&self, position: usize) -> Option<Arc<Indexed>> {
        if let Some(indexed) = self.indexes().get(&position) {
            return Some(Arc::clone(indexed));
        }
        let skill = &self.listed.get(position)?.skill;
        let indexed = Arc::new(index::index(
            &self.resources,
            &skill.directory,
            &skill.path,
            self.limits,
        ));
        report(skill, &indexed);
        self.indexes().insert(position, Arc::clone(&indexed));
        Some(indexed)
    }

    /// Drops the index of the skill at `position`, so the next request indexes it again.
    pub(crate) fn forget(&self, position: usize) {
        self.indexes().remove(&position);
    }

    fn indexes(&self) -> MutexGuard<'_, HashMap<usize, Arc<Indexed>>> {
        self.indexes.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every skill, sorted by name, each with the reason it cannot be served, if any; the reasons
/// are logged.
fn listing(skills: &[Skill]) -> Vec<Listed> {
    let mut listed: Vec<Listed> = skills.iter().cloned().map(Listed::new).collect();
    // A stable sort: of two skills with one name, the first by discovery order is served.
    listed.sort_by(|left, right| left.skill.name.cmp(&right.skill.name));
    let mut names = HashSet::new();
    for entry in &mut listed {
        if entry.unserved.is_none() && !names.insert(entry.skill.name.clone()) {
            entry.unserved = Some(format!(
                "skill `{}` at {} is not served: an earlier skill has the same name",
                entry.skill.name,
                entry.skill.path.display()
            ));
        }
        if let Some(problem) = &entry.unserved {
            tracing::warn!("{problem}");
        }
    }
    listed
}

/// Logs what indexing a skill skipped or why it failed.
fn report(skill: &Skill, indexed: &Indexed) {
    for skipped in &indexed.skipped {
        tracing::warn!(
            skill = %skill.name,
            "{} is not served: {}",
            skipped.path.display(),
            skipped.reason
        );
    }
    if let Err(error) = &indexed.outcome {
        tracing::warn!("skill `{}` is not served: {error}", skill.name);
    }
}

/// One discovered skill and, when the Skills extension cannot serve it, why.
#[derive(Debug)]
pub(crate) struct Listed {
    pub(crate) skill: Skill,
    pub(crate) unserved: Option<String>,
}

impl Listed {
    fn new(skill: Skill) -> Self {
        // The extension requires the name to be a valid Agent Skills name equal to the last
        // segment of the URI; the model type checks exactly that.
        let probe = rmcp::model::Skill::new(
            uri::skill_file(&skill.name),
            SkillFrontmatter::new(&skill.name, &skill.description),
            SkillResources::Dynamic,
        );
        let unserved = probe.validate().err().map(|_| {
            format!(
                "skill `{}` is not served as an MCP skill: the Skills extension requires an \
                 Agent Skills name (1 to 64 lowercase letters or digits, with single hyphens \
                 between them); rename it in its SKILL.md front matter",
                skill.name
            )
        });
        Self { skill, unserved }
    }
}

/// The read tool: a skill reader's boundary over the model-visible skills' directories.
#[derive(Debug)]
pub(crate) struct Reader {
    pub(crate) boundary: ReadBoundary,
    pub(crate) skills: Vec<KnownSkill>,
    pub(crate) tool: Tool,
}

impl Reader {
    fn new(skills: &[Skill]) -> Result<Self, Error> {
        let visible: Vec<&Skill> = skills
            .iter()
            .filter(|skill| skill.is_model_visible())
            .collect();
        let boundary = ReadBoundary::skills(visible.iter().map(|skill| &skill.directory));
        let schema = ReadFile::new(&boundary).schema();
        let function = &schema["function"];
        let name = function["name"].as_str().unwrap_or_default().to_owned();
        let description = function["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let parameters = match &function["parameters"] {
            Value::Object(parameters) => parameters.clone(),
            _ => serde_json::Map::new(),
        };
        let tool = Tool::new(name, description, parameters).with_annotations(
            ToolAnnotations::with_title("Read a skill file")
                .read_only(true)
                .destructive(false)
                .idempotent(true),
        );
        Ok(Self {
            boundary,
            skills: visible.into_iter().map(KnownSkill::from).collect(),
            tool,
        })
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

/// Why a skill with a valid name is not served.
pub(crate) fn not_served(skill: &Skill, error: &IndexError) -> String {
    format!("skill `{}` is not served: {error}", skill.name)
}

impl State {
    /// The position and index of the served skill `name`: `None` when there is no such skill, an
    /// error when it has no index.
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
                not_served(&listed.skill, error),
                None,
            )),
        })
    }
}

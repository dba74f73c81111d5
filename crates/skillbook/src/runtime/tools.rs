//! Which of skillbook's own tools are offered beside a catalog, and how each is described: one
//! place for a run ([`super::PreparedRun`]) and for the MCP server.

use serde_json::{Value, json};

use crate::catalog::RenderedCatalog;
use crate::format::SkillName;
use crate::read::SkillReader;
use crate::search::{DEFAULT_LIMIT, MAX_LIMIT};

use super::executor::ACTIVATE_SKILL;
use super::provider::ToolDefinition;

/// What the search tool says of itself.
const SEARCH_DESCRIPTION: &str = "Find the skills that match a task. Describe the task in a few \
    words (what the user wants done, not a skill name you guess); the result lists the best \
    matching skills, best first, each with its name, description, location and a score. Then \
    read the chosen skill's SKILL.md at its location with the reader tool.";

/// What `activate_skill` says of itself.
const ACTIVATE_DESCRIPTION: &str = "Load a skill's instructions by name. Use it when a task \
    matches a skill in the catalog; then follow the instructions it returns.";

/// The tools skillbook offers beside a catalog, in order, each as a [`ToolDefinition`] (name,
/// description, JSON Schema of the arguments): what a run appends to the host's tools
/// ([`PreparedRun::tool_definitions`](super::PreparedRun::tool_definitions)) and what the MCP
/// server lists in `tools/list`.
///
/// The rules, in order:
///
/// 1. Nothing is offered when the reader can read no skill (no skill is exposed).
/// 2. The reader comes first, under its [`ReadOptions::tool_name`](crate::ReadOptions) and with
///    [`SkillReader::schema`]'s description and arguments.
/// 3. The search tool follows when the catalog lists too little to choose from
///    ([`Tier::needs_search`](crate::Tier::needs_search)), under the name given
///    ([`crate::SEARCH_SKILLS`], or [`SEARCH_SKILL_CATALOG`](super::SEARCH_SKILL_CATALOG) when
///    a host owns that name).
/// 4. [`ACTIVATE_SKILL`] comes last when asked for ([`ToolSet::with_activate`]); its `name`
///    argument is an enum of the skills it offers.
///
/// ```
/// use skillbook::runtime::ToolSet;
/// use skillbook::{Catalog, Discovery, Home, SEARCH_SKILLS, SkillReader};
///
/// let workspace = tempfile::tempdir()?;
/// let review = workspace.path().join(".agents/skills/review");
/// std::fs::create_dir_all(&review)?;
/// std::fs::write(review.join("SKILL.md"), "---\nname: review\ndescription: Review code.\n---\n")?;
/// let found = Discovery::new(workspace.path()).home(Home::Off).discover();
///
/// let catalog = Catalog::new(found.skills()).render();
/// let tools = ToolSet::new(&SkillReader::new(&found), catalog.as_ref(), SEARCH_SKILLS);
/// let names: Vec<&str> = tools.definitions().iter().map(|tool| tool.name.as_str()).collect();
/// assert_eq!(names, ["read_file"]); // the catalog lists every skill: no search tool
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolSet {
    /// The reader, then the search tool, then `activate_skill`, each when offered.
    definitions: Vec<ToolDefinition>,
    search: bool,
    activate: bool,
}

impl ToolSet {
    /// The tools offered with `catalog` (the catalog the model sees, if any) through `reader`
    /// (the skills the model may read), the search tool named `search_name`.
    #[must_use]
    pub fn new(reader: &SkillReader, catalog: Option<&RenderedCatalog>, search_name: &str) -> Self {
        // A catalog lists only skills the reader reads; without one, a selected skill may still
        // be readable.
        if catalog.is_none() && reader.is_empty() {
            return ToolSet::default();
        }
        let mut definitions: Vec<ToolDefinition> = ToolDefinition::from_tool(&reader.schema())
            .into_iter()
            .collect();
        let search = catalog.is_some_and(|catalog| catalog.tier.needs_search());
        if search {
            definitions.push(search_definition(search_name));
        }
        ToolSet {
            definitions,
            search,
            activate: false,
        }
    }

    /// Adds [`ACTIVATE_SKILL`], whose `name` is one of `names`, when the set offers a reader.
    /// Default: not offered.
    #[must_use]
    pub fn with_activate<'a>(mut self, names: impl IntoIterator<Item = &'a SkillName>) -> Self {
        if self.definitions.is_empty() || self.activate {
            return self;
        }
        self.definitions.push(activate_definition(names));
        self.activate = true;
        self
    }

    /// Every tool offered, in order: the reader, the search tool, `activate_skill`.
    #[must_use]
    pub fn definitions(&self) -> &[ToolDefinition] {
        &self.definitions
    }

    /// The reader, when offered.
    #[must_use]
    pub fn reader(&self) -> Option<&ToolDefinition> {
        self.definitions.first()
    }

    /// The search tool, when offered.
    #[must_use]
    pub fn search(&self) -> Option<&ToolDefinition> {
        self.search.then(|| self.definitions.get(1)).flatten()
    }

    /// `activate_skill`, when offered.
    #[must_use]
    pub fn activate(&self) -> Option<&ToolDefinition> {
        self.activate.then(|| self.definitions.last()).flatten()
    }

    /// Whether no tool is offered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.definitions.is_empty()
    }
}

/// The search tool, named `name`.
fn search_definition(name: &str) -> ToolDefinition {
    let parameters = json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "The task, in a few words."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": format!(
                    "The most skills to return (default {DEFAULT_LIMIT}, at most {MAX_LIMIT})."
                )
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    ToolDefinition::new(name, SEARCH_DESCRIPTION, parameters)
}

/// `activate_skill`, offering `names`.
fn activate_definition<'a>(names: impl IntoIterator<Item = &'a SkillName>) -> ToolDefinition {
    let names: Vec<Value> = names
        .into_iter()
        .map(|name| Value::from(name.as_str()))
        .collect();
    let parameters = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "enum": names, "description": "The skill to load."}
        },
        "required": ["name"],
        "additionalProperties": false
    });
    // Every property required, nothing else allowed: a schema the providers can hold the model
    // to exactly (OpenAI Responses takes `strict: true` for it) — while its list of names is
    // within what strict schemas may hold.
    let strict = names.len() <= MAX_STRICT_NAMES
        && names
            .iter()
            .filter_map(Value::as_str)
            .map(str::len)
            .sum::<usize>()
            <= MAX_STRICT_NAME_CHARACTERS;
    ToolDefinition {
        strict,
        ..ToolDefinition::new(ACTIVATE_SKILL, ACTIVATE_DESCRIPTION, parameters)
    }
}

/// The most names a strict `activate_skill` lists: OpenAI's structured outputs take an enum of
/// up to 250 values without a limit on their length, and limit longer ones.
const MAX_STRICT_NAMES: usize = 250;
/// The most characters of all the names a strict `activate_skill` lists (OpenAI's limit for an
/// enum of more than 250 values, kept below it too).
const MAX_STRICT_NAME_CHARACTERS: usize = 15_000;

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests write their skills")]

    use super::*;
    use crate::catalog::{Catalog, SEARCH_SKILLS};
    use crate::discovery::{Discovered, Discovery, Home};
    use crate::read::ReadOptions;

    /// Discovers a workspace holding `review` (and the manual-only `deploy`).
    fn found() -> (tempfile::TempDir, Discovered) {
        let workspace = tempfile::tempdir().unwrap();
        for (name, extra) in [
            ("review", ""),
            ("deploy", "disable-model-invocation: true\n"),
        ] {
            let folder = workspace.path().join(".agents/skills").join(name);
            std::fs::create_dir_all(&folder).unwrap();
            let text = format!("---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n");
            std::fs::write(folder.join("SKILL.md"), text).unwrap();
        }
        let found = Discovery::new(workspace.path()).home(Home::Off).discover();
        (workspace, found)
    }

    fn names(tools: &ToolSet) -> Vec<&str> {
        tools
            .definitions()
            .iter()
            .map(|tool| tool.name.as_str())
            .collect()
    }

    #[test]
    fn the_reader_alone_while_the_catalog_lists_every_skill() {
        let (_workspace, found) = found();
        let reader = SkillReader::new(&found)
            .with_options(ReadOptions::default().with_tool_name("read_skill_file"));
        let catalog = Catalog::new(found.skills()).render();
        let tools = ToolSet::new(&reader, catalog.as_ref(), SEARCH_SKILLS);
        assert_eq!(names(&tools), ["read_skill_file"]);
        let expected = ToolDefinition::from_tool(&reader.schema()).unwrap();
        assert_eq!(tools.reader(), Some(&expected));
        assert_eq!((tools.search(), tools.activate()), (None, None));
    }

    #[test]
    fn search_follows_the_reader_when_the_catalog_lists_too_little() {
        let (_workspace, found) = found();
        let reader = SkillReader::new(&found);
        let catalog = Catalog::new(found.skills()).budget(1).render();
        let tools = ToolSet::new(&reader, catalog.as_ref(), "search_skill_catalog");
        assert_eq!(names(&tools), ["read_file", "search_skill_catalog"]);
        let search = tools.search().unwrap();
        assert_eq!(search.parameters["required"], json!(["query"]));
        assert_eq!(
            search.parameters["properties"]["limit"]["maximum"],
            MAX_LIMIT
        );
    }

    #[test]
    fn activate_comes_last_with_the_names_it_offers() {
        let (_workspace, found) = found();
        let reader = SkillReader::new(&found);
        let catalog = Catalog::new(found.skills()).budget(1).render();
        let review: SkillName = "review".parse().unwrap();
        let tools = ToolSet::new(&reader, catalog.as_ref(), SEARCH_SKILLS).with_activate([&review]);
        assert_eq!(names(&tools), ["read_file", SEARCH_SKILLS, ACTIVATE_SKILL]);
        let activate = tools.activate().unwrap();
        assert_eq!(
            activate.parameters["properties"]["name"]["enum"],
            json!(["review"])
        );
    }

    #[test]
    fn nothing_is_offered_when_no_skill_is_readable() {
        let (_workspace, found) = found();
        let review: SkillName = "review".parse().unwrap();
        let reader = SkillReader::new(&found).only(|_, _| false);
        let tools = ToolSet::new(&reader, None, SEARCH_SKILLS).with_activate([&review]);
        assert!(tools.is_empty());
        assert_eq!(tools, ToolSet::default());
        // A skill the host selected is readable without a catalog: the reader alone.
        let reader = SkillReader::new(&found).only(|name, _| name.as_str() == "deploy");
        assert_eq!(
            names(&ToolSet::new(&reader, None, SEARCH_SKILLS)),
            ["read_file"]
        );
    }
}

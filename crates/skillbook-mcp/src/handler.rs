//! The MCP methods: what each request gets.
//!
//! Every method that touches the disk runs on Tokio's blocking pool, so a slow file system
//! never stalls the session.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult,
    DIRECTORY_MIME_TYPE, DiscoverResult, ErrorCode, GetSkillRequestParams, GetSkillResult,
    InitializeRequestParams, InitializeResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, MetaObject, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, Resource,
    ServerConfig, SkillFrontmatter, SkillResource, SkillResources, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use skillbook::runtime::{ScopedSkill, search_call};
use skillbook::uri::{self, SKILL_FILE, SkillUri};

use crate::budget::{AnswerHold, Reserved, answer_bytes};
use crate::cursor;
use crate::index::SkillIndex;
use crate::read;
use crate::server::{SkillServer, State};

/// The `_meta` key under which `skills/list` reports the skills of a page it does not serve.
pub const OMITTED_META_KEY: &str = "skillbook/omitted";

/// The methods this server serves, besides the lifecycle.
const SERVED_METHODS: [&str; 8] = [
    "skills/list",
    "skills/get",
    "resources/list",
    "resources/read",
    "resources/directory/read",
    "tools/list",
    "tools/call",
    "ping",
];

/// The `_meta` key of a skill entry that carries its `disable-model-invocation` flag.
pub const MANUAL_ONLY_META_KEY: &str = "skillbook/disableModelInvocation";

impl ServerHandler for SkillServer {
    /// The capabilities and server info without the instructions: rmcp asks for this on every
    /// `skills/*` request, and the catalog can be megabytes.
    fn get_info(&self) -> ServerConfig {
        self.config(false)
    }

    /// `initialize` answers with the instructions (the catalog) as well.
    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        WithInstructions(self.config(true)).negotiate_initialize(request)
    }

    /// A client in a session of its own is told when the skills change
    /// ([`SkillServer::notify_sessions`]).
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if self.notifies() {
            self.remember(context.peer);
        }
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        WithInstructions(self.config(true)).discover(context).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.blocking(move |state| list_skills(state, cursor(request.as_ref())))
            .await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.blocking(move |state| get_skill(state, &request.uri))
            .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.blocking(move |state| list_resources(state, cursor(request.as_ref())))
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // Take the file's size from the byte budget first, and give it back once the answer is
        // written: pipelined reads of large files wait instead of piling up in memory.
        let uri = request.uri;
        let size = {
            let uri = uri.clone();
            self.blocking(move |state| read::size_of(state, &uri))
                .await?
        };
        let reserved = Reserved::take(self.budget(), hold_of(&context), answer_bytes(size)).await;
        let read = self
            .blocking(move |state| read::read_resource(state, &uri))
            .await;
        reserved.keep(context.id);
        read.map(ReadResourceResponse::from)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.blocking(move |state| read_directory(state, &request.uri, request.cursor.as_deref()))
            .await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.state().tools()))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // A request for a method this server serves arrives here only when its parameters did
        // not fit the method's schema: say so, rather than "method not found".
        if SERVED_METHODS.contains(&request.method.as_str()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "the parameters of `{}` do not match the method's schema",
                    request.method
                ),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("this server has no method `{}`", request.method),
            None,
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.state()
            .tools()
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A segment holds at most `maxChars` characters of up to four bytes: that share of the
        // read budget is held until the answer is written.
        let bytes = segment_bytes(request.arguments.as_ref());
        let reserved = Reserved::take(self.budget(), hold_of(&context), bytes).await;
        let called = self.blocking(move |state| call_tool(state, request)).await;
        reserved.keep(context.id);
        called.map(CallToolResponse::from)
    }
}

/// The whole configuration, instructions included, for the methods that send it.
struct WithInstructions(ServerConfig);

impl ServerHandler for WithInstructions {
    fn get_info(&self) -> ServerConfig {
        self.0.clone()
    }
}

impl SkillServer {
    /// Runs `work` on the blocking pool with the shared state, once a permit to touch the disk
    /// is free (so descriptors and memory stay bounded whatever the client pipelines).
    async fn blocking<T, F>(&self, work: F) -> Result<T, ErrorData>
    where
        T: Send + 'static,
        F: FnOnce(&State) -> Result<T, ErrorData> + Send + 'static,
    {
        let state = self.state();
        let permit = self.work().acquire_owned().await.map_err(|error| {
            ErrorData::internal_error(format!("the server is shutting down: {error}"), None)
        })?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work(&state)
        })
        .await
        .map_err(|error| {
            // The detail (a panic's message, say) is for the operator, not the client.
            tracing::error!("a request failed: {error}");
            ErrorData::internal_error("the request failed; try again", None)
        })?
    }
}

/// The hold an HTTP endpoint put in the request, if it came that way: the answer's bytes are
/// taken from the tenant's and the server's shares there.
#[cfg(feature = "http")]
fn hold_of(context: &RequestContext<RoleServer>) -> Option<std::sync::Arc<AnswerHold>> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<std::sync::Arc<AnswerHold>>())
        .cloned()
}

/// No endpoint without the `http` feature: the server's own budget holds the answer's bytes.
#[cfg(not(feature = "http"))]
fn hold_of(_context: &RequestContext<RoleServer>) -> Option<std::sync::Arc<AnswerHold>> {
    None
}

/// The most bytes a `read_file` segment asked for with these arguments can hold.
fn segment_bytes(arguments: Option<&serde_json::Map<String, Value>>) -> u64 {
    let asked = arguments
        .and_then(|arguments| {
            arguments
                .get("maxChars")
                .or_else(|| arguments.get("max_chars"))
        })
        .and_then(|value| match value {
            Value::Number(number) => number.as_u64(),
            Value::String(text) => text.trim().parse().ok(),
            _ => None,
        })
        .unwrap_or(skillbook::DEFAULT_MAX_CHARS as u64);
    asked.min(skillbook::MAX_CHARS_CEILING as u64) * 4
}

fn cursor(request: Option<&PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|request| request.cursor.as_deref())
}

fn list_skills(state: &State, cursor: Option<&str>) -> Result<ListSkillsResult, ErrorData> {
    let (positions, next) = state.page(cursor)?;
    let mut skills = Vec::new();
    let mut omitted = Vec::new();
    for position in positions {
        let Some(listed) = state.listed.get(position) else {
            continue;
        };
        let reason = match (&listed.unserved, state.index(position)) {
            (Some(reason), _) => reason.clone(),
            (None, Some(indexed)) => match &indexed.outcome {
                Ok(index) => {
                    skills.push(skill_entry(&listed.skill, index));
                    continue;
                }
                Err(error) => state.not_served(&listed.skill, error),
            },
            (None, None) => continue,
        };
        omitted.push(json!({ "name": listed.skill.name(), "reason": reason }));
    }
    let mut result = ListSkillsResult::with_all_items(skills);
    result.next_cursor = next;
    if !omitted.is_empty() {
        let mut meta = MetaObject::new();
        meta.0
            .insert(OMITTED_META_KEY.to_owned(), Value::Array(omitted));
        result.meta = Some(meta);
    }
    Ok(result)
}

fn get_skill(state: &State, requested: &str) -> Result<GetSkillResult, ErrorData> {
    let unknown = || {
        ErrorData::invalid_params(
            format!("no skill is served at `{requested}`; skills/list names every skill"),
            None,
        )
    };
    let target = SkillUri::parse(requested).map_err(|_| unknown())?;
    if target.relative != SKILL_FILE {
        return Err(unknown());
    }
    let (position, index) = state.served_index(&target.name).ok_or_else(unknown)??;
    let listed = state.listed.get(position).ok_or_else(unknown)?;
    Ok(GetSkillResult::new(skill_entry(&listed.skill, &index)))
}

fn list_resources(state: &State, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let (positions, next) = state.page(cursor)?;
    let mut resources = Vec::new();
    for position in positions {
        let Some(listed) = state.listed.get(position) else {
            continue;
        };
        if listed.unserved.is_some() {
            continue;
        }
        let Some(indexed) = state.index(position) else {
            continue;
        };
        let Some(file) = indexed
            .outcome
            .as_ref()
            .ok()
            .and_then(|index| index.file(SKILL_FILE))
        else {
            continue;
        };
        let skill = &listed.skill;
        resources.push(
            Resource::new(skill.uri(), skill.name().as_str())
                .with_description(skill.description())
                .with_mime_type(read::MARKDOWN)
                .with_size(file.size),
        );
    }
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = next;
    Ok(result)
}

fn read_directory(
    state: &State,
    requested: &str,
    cursor: Option<&str>,
) -> Result<ReadResourceDirectoryResult, ErrorData> {
    let not_a_directory = || {
        ErrorData::invalid_params(
            format!("`{requested}` is not a directory of a served skill"),
            None,
        )
    };
    let target = SkillUri::parse(requested).map_err(|_| not_a_directory())?;
    let (_, index) = state
        .served_index(&target.name)
        .ok_or_else(not_a_directory)??;
    if !index.directories.contains(&target.relative) {
        return Err(not_a_directory());
    }
    let children = children(&target.name, &index, &target.relative);
    let (positions, next) = cursor::page(cursor, children.len(), state.page_size, |position| {
        children
            .get(position)
            .map_or("", |child| child.name.as_str())
    })?;
    let mut result = ReadResourceDirectoryResult::with_all_items(
        children.get(positions).unwrap_or_default().to_vec(),
    );
    result.next_cursor = next;
    Ok(result)
}

/// The direct children of the directory `parent` of a skill, sorted by name.
fn children(name: &str, index: &SkillIndex, parent: &str) -> Vec<Resource> {
    let is_child = |key: &str| match key.rsplit_once('/') {
        Some((directory, _)) => directory == parent,
        None => parent.is_empty() && !key.is_empty(),
    };
    let base_name = |key: &str| key.rsplit('/').next().unwrap_or(key).to_owned();
    let directories = index
        .directories
        .iter()
        .filter(|key| is_child(key))
        .map(|key| {
            Resource::new(uri::resource(name, key), base_name(key))
                .with_mime_type(DIRECTORY_MIME_TYPE)
        });
    let files = index
        .files
        .iter()
        .filter(|file| is_child(&file.key))
        .map(|file| {
            let resource = Resource::new(uri::resource(name, &file.key), base_name(&file.key))
                .with_size(file.size);
            match read::mime_type(&file.key) {
                Some(mime_type) => resource.with_mime_type(mime_type),
                None => resource,
            }
        });
    let mut children: Vec<Resource> = directories.chain(files).collect();
    children.sort_by(|left, right| left.name.cmp(&right.name));
    children
}

fn call_tool(state: &State, request: CallToolRequestParams) -> Result<CallToolResult, ErrorData> {
    if let Some(search) = state
        .search
        .as_ref()
        .filter(|search| search.tool.name == request.name)
    {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        return Ok(match search_call(&search.index, &arguments) {
            Ok(results) => CallToolResult::structured(results),
            Err(error) => CallToolResult::structured_error(error),
        });
    }
    let Some(tool) = state
        .tool
        .as_ref()
        .filter(|tool| tool.tool.name == request.name)
    else {
        let names: Vec<String> = state
            .tools()
            .iter()
            .map(|tool| format!("`{}`", tool.name))
            .collect();
        let offered = match names.as_slice() {
            [] => "this server offers no tools: no skill is model-visible".to_owned(),
            [only] => format!("this server offers only {only}"),
            several => format!("this server offers {}", several.join(" and ")),
        };
        return Err(ErrorData::invalid_params(
            format!("unknown tool `{}`; {offered}", request.name),
            None,
        ));
    };
    let arguments = Value::Object(request.arguments.unwrap_or_default());
    Ok(match tool.call(arguments) {
        Ok(result) => CallToolResult::structured(result),
        Err(error) => CallToolResult::structured_error(error),
    })
}

/// A skill as `skills/list` and `skills/get` show it: the front matter as written (with the
/// resolved name and description), every file with its digest and size, and the manual-only
/// flag in `_meta`.
fn skill_entry(skill: &ScopedSkill, index: &SkillIndex) -> rmcp::model::Skill {
    let mut frontmatter = SkillFrontmatter::new(skill.name().as_str(), skill.description());
    for (key, value) in skill.front_matter().into_owned() {
        if key != "name" && key != "description" {
            frontmatter.extra.insert(key, value);
        }
    }
    let files = index
        .files
        .iter()
        .map(|file| {
            SkillResource::new(
                uri::resource(skill.name(), &file.key),
                &file.digest,
                file.size,
            )
        })
        .collect();
    let mut meta = MetaObject::new();
    meta.0.insert(
        MANUAL_ONLY_META_KEY.to_owned(),
        Value::Bool(!skill.is_model_visible()),
    );
    rmcp::model::Skill::new(skill.uri(), frontmatter, SkillResources::Files(files)).with_meta(meta)
}

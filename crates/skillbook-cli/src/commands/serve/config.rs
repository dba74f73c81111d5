//! The configuration file of `skillbook serve` (TOML): private serde structs for the file, then
//! checked settings the server is built from.
//!
//! ```toml
//! [server]
//! listen = "127.0.0.1:8931"
//! allowed_hosts = ["localhost", "127.0.0.1", "::1", "skills.example.com"]
//!
//! [[tenant]]
//! name = "acme"
//! sources = ["skills/acme", "archives/shared.zip"]
//! tokens = ["sha256:…"]
//! ```
//!
//! Relative source paths resolve against the directory that holds the file. A source is a
//! directory of skill folders, a zip archive of them, or (in a build with the `object-store`
//! feature) an object-store prefix such as `s3://bucket/acme/skills`, polled for changes every
//! `poll_seconds` (default 30), with the store's settings in `[tenant.store_options]`.
//!
//! Limits have a total in `[server]`, a share per tenant in `[server.per_tenant]` (by default
//! half of each total) and, for one tenant, in `[tenant.limits]`.
//!
//! `locks = ["skills-lock.json"]` requires locks of a tenant, as `--locked` does: the skills a
//! lock records (`<dir>/.agents/skills` for `<dir>/skills-lock.json`, `<home>/.agents/skills`
//! for `<home>/.agents/skills-lock.json`) are served only as it pins them.
//!
//! The file must be a regular file of at most 1 MiB; a mistake is reported with the file,
//! line, column and reason, never with the text of the line (it may hold a secret).

use std::fs;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use skillbook::Addressing;
use skillbook::runtime::Scope;
use skillbook::sources::{ArchiveLimits, ProvidedSkill, from_zip};
use skillbook_mcp::http::{
    DEFAULT_ALLOWED_HOSTS, DEFAULT_ANSWER_BYTES, DEFAULT_BODY_BYTES, DEFAULT_BODY_TIMEOUT,
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_MAX_ANSWERS, DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS, DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_SESSION_IDLE, EndpointBuilder, Rate, Sessions, Tenant, TenantLimits, TokenDigest,
};
use skillbook_mcp::{DEFAULT_INSTRUCTIONS_BUDGET, DEFAULT_PAGE_SIZE, ServerBuilder};
use skillbook_packages::{RequireLock, Target};

/// The address served unless the file or `--listen` says otherwise.
pub(crate) const DEFAULT_LISTEN: &str = "127.0.0.1:8931";

/// The largest configuration file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    server: ServerSection,
    #[serde(default, rename = "tenant")]
    tenants: Vec<TenantSection>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerSection {
    listen: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    sessions: Option<bool>,
    max_body_bytes: Option<usize>,
    request_timeout_seconds: Option<u64>,
    shutdown_grace_seconds: Option<u64>,
    drain_seconds: Option<u64>,
    max_answers: Option<usize>,
    answer_bytes: Option<u64>,
    body_bytes: Option<u64>,
    body_timeout_seconds: Option<u64>,
    max_sessions: Option<usize>,
    max_streams: Option<usize>,
    session_idle_seconds: Option<u64>,
    write_stall_seconds: Option<u64>,
    max_connections: Option<usize>,
    first_byte_timeout_seconds: Option<u64>,
    admin_listen: Option<String>,
    #[serde(default)]
    per_tenant: LimitsSection,
    instructions_budget: Option<usize>,
    page_size: Option<usize>,
    watch: Option<bool>,
    poll_seconds: Option<u64>,
    store_cache_bytes: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TenantSection {
    name: String,
    #[serde(default)]
    sources: Vec<PathBuf>,
    #[serde(default)]
    tokens: Vec<String>,
    #[serde(default)]
    anonymous: bool,
    #[serde(default)]
    store_options: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    limits: LimitsSection,
    /// Lock files required of the skills they record (`skillbook --locked`).
    #[serde(default)]
    locks: Vec<PathBuf>,
}

/// A tenant's share of each limit, as written (`[server.per_tenant]`, `[tenant.limits]`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsSection {
    max_answers: Option<usize>,
    answer_bytes: Option<u64>,
    body_bytes: Option<u64>,
    max_sessions: Option<usize>,
    max_streams: Option<usize>,
    /// Requests a second; 0 for no limit.
    rate: Option<f64>,
    burst: Option<u32>,
}

impl LimitsSection {
    /// `base` with the limits this section sets.
    fn apply(&self, base: TenantLimits) -> TenantLimits {
        let mut limits = base;
        if let Some(answers) = self.max_answers {
            limits.max_answers = answers.max(1);
        }
        if let Some(bytes) = self.answer_bytes {
            limits.answer_bytes = bytes;
        }
        if let Some(bytes) = self.body_bytes {
            limits.body_bytes = bytes;
        }
        if let Some(sessions) = self.max_sessions {
            limits.max_sessions = sessions.max(1);
        }
        if let Some(streams) = self.max_streams {
            limits.max_streams = streams.max(1);
        }
        limits.rate = match (self.rate, self.burst, limits.rate) {
            (Some(rate), _, _) if rate <= 0.0 => None,
            (Some(rate), burst, _) => Some(Rate::new(
                rate,
                burst.unwrap_or_else(|| (rate * 2.0).ceil().min(f64::from(u32::MAX)) as u32),
            )),
            (None, Some(burst), Some(rate)) => Some(Rate::new(rate.per_second, burst)),
            (None, _, rate) => rate,
        };
        limits
    }
}

/// A checked configuration: what to listen on and how, and each tenant's settings.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) listen: SocketAddr,
    pub(crate) endpoint: EndpointBuilder,
    pub(crate) shutdown_grace: Duration,
    /// How long connections are still accepted after the shutdown signal, `/readyz` at 503.
    pub(crate) drain: Duration,
    /// How long a write to a client may make no progress before its connection is closed.
    pub(crate) write_stall: Duration,
    /// How many connections are served at once.
    pub(crate) max_connections: usize,
    /// How long a new connection may take to send its first byte.
    pub(crate) first_byte_timeout: Duration,
    /// Where probes and metrics are served, if anywhere.
    pub(crate) admin_listen: Option<SocketAddr>,
    /// Whether each tenant's sources are watched and served again after a change.
    pub(crate) watch: bool,
    /// How often object-store sources are listed again.
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    pub(crate) poll: Duration,
    /// The most bytes one object-store source holds (its cache).
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    pub(crate) store_cache_bytes: u64,
    pub(crate) skills: SkillSettings,
    pub(crate) tenants: Vec<TenantConfig>,
    /// The `[server]` table as written, to tell which settings a reload cannot apply.
    server: ServerSection,
}

/// How every tenant's skills are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SkillSettings {
    /// The most characters of the instructions, or `None` for no limit.
    pub(crate) instructions_budget: Option<usize>,
    /// Entries per page of the paged lists.
    pub(crate) page_size: usize,
}

/// One tenant, before its skills are discovered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TenantConfig {
    pub(crate) name: String,
    pub(crate) directories: Vec<PathBuf>,
    pub(crate) archives: Vec<PathBuf>,
    /// Object-store prefixes (URLs).
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    pub(crate) stores: Vec<String>,
    /// The object stores' settings (never logged: they may hold credentials).
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    pub(crate) store_options: Vec<(String, String)>,
    pub(crate) tokens: Vec<TokenDigest>,
    pub(crate) anonymous: bool,
    /// What the tenant may hold, when it sets limits of its own.
    limits: LimitsSection,
    /// The directory the file lies in: the tenant's workspace.
    pub(crate) base: PathBuf,
    /// Each archive's size and modification time when the file was read: an archive changed
    /// since is a changed source.
    archive_stamps: Vec<Option<(u64, std::time::SystemTime)>>,
    /// Lock files whose skills are served only as the locks pin them (read when the tenant's
    /// server is built: at start and at each reload of the file).
    pub(crate) locks: Vec<PathBuf>,
}

/// What the command line sets over the file.
#[derive(Debug, Clone, Default)]
pub(crate) struct CommandLine {
    /// `--listen`.
    pub(crate) listen: Option<String>,
    /// `--admin-listen`.
    pub(crate) admin_listen: Option<String>,
}

/// What is wrong with a configuration file, in words a person can act on.
#[derive(Debug)]
pub(crate) struct ConfigError {
    path: PathBuf,
    message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads and checks the file at `path`; the addresses given on the command line win over
    /// the file's.
    pub(crate) fn load(path: &Path, command_line: &CommandLine) -> Result<Config, ConfigError> {
        Config::read(path, command_line, None).map(|(config, _)| config)
    }

    /// Reads the file at `path` again for a server running with `current`: the tenants, their
    /// limits and `[server.per_tenant]` are the file's, the settings only a restart applies are
    /// kept from `current` — and named in the list returned when the file changed them.
    pub(crate) fn reload(
        path: &Path,
        command_line: &CommandLine,
        current: &Config,
    ) -> Result<(Config, Vec<&'static str>), ConfigError> {
        Config::read(path, command_line, Some(current))
    }

    fn read(
        path: &Path,
        command_line: &CommandLine,
        current: Option<&Config>,
    ) -> Result<(Config, Vec<&'static str>), ConfigError> {
        let listen = command_line.listen.as_deref();
        let fail = |message: String| ConfigError {
            path: path.to_owned(),
            message,
        };
        let text = read_file(path).map_err(fail)?;
        let file: File = toml::from_str(&text).map_err(|error| fail(describe(&text, &error)))?;
        let base = std::path::absolute(path)
            .ok()
            .and_then(|absolute| absolute.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let (server, unapplied) = match current {
            None => (file.server, Vec::new()),
            Some(current) => {
                let unapplied = restart_only_changes(&current.server, &file.server);
                let kept = ServerSection {
                    per_tenant: file.server.per_tenant,
                    instructions_budget: file.server.instructions_budget,
                    page_size: file.server.page_size,
                    ..current.server.clone()
                };
                (kept, unapplied)
            }
        };
        let section = server.clone();
        let listen = listen
            .or(server.listen.as_deref())
            .unwrap_or(DEFAULT_LISTEN);
        let listen = listen.parse::<SocketAddr>().map_err(|_| {
            fail(format!(
                "`{listen}` is not an address to listen on; write an IP address and a port, \
                 such as {DEFAULT_LISTEN} (a name like `localhost` is not resolved)"
            ))
        })?;
        let mut endpoint = EndpointBuilder::new();
        endpoint
            .allowed_hosts(
                server
                    .allowed_hosts
                    .unwrap_or_else(|| DEFAULT_ALLOWED_HOSTS.map(str::to_owned).to_vec()),
            )
            .allowed_origins(server.allowed_origins.unwrap_or_default())
            .sessions(match server.sessions {
                Some(true) => Sessions::Kept,
                _ => Sessions::Stateless,
            })
            .max_body_bytes(server.max_body_bytes.unwrap_or(DEFAULT_MAX_BODY_BYTES))
            .request_timeout(match server.request_timeout_seconds {
                None => Some(DEFAULT_REQUEST_TIMEOUT),
                Some(0) => None,
                Some(seconds) => Some(Duration::from_secs(seconds)),
            })
            .max_answers(server.max_answers.unwrap_or(DEFAULT_MAX_ANSWERS))
            .answer_bytes(server.answer_bytes.unwrap_or(DEFAULT_ANSWER_BYTES))
            .body_bytes(server.body_bytes.unwrap_or(DEFAULT_BODY_BYTES))
            .body_timeout(seconds_or(
                server.body_timeout_seconds,
                DEFAULT_BODY_TIMEOUT,
            ))
            .max_sessions(server.max_sessions.unwrap_or(DEFAULT_MAX_SESSIONS))
            .max_streams(server.max_streams.unwrap_or(DEFAULT_MAX_STREAMS))
            .session_idle(seconds_or(
                server.session_idle_seconds,
                DEFAULT_SESSION_IDLE,
            ));
        let per_tenant = server.per_tenant.apply(endpoint.default_tenant_limits());
        endpoint.tenant_limits(per_tenant);
        let admin_listen = admin_address(
            command_line
                .admin_listen
                .as_deref()
                .or(server.admin_listen.as_deref()),
            listen,
        )
        .map_err(&fail)?;
        if file.tenants.is_empty() {
            return Err(fail(
                "no tenant is configured; add a `[[tenant]]` table with a name, its sources and \
                 its tokens"
                    .to_owned(),
            ));
        }
        let tenants = file
            .tenants
            .into_iter()
            .map(|tenant| tenant.check(&base).map_err(&fail))
            .collect::<Result<_, _>>()?;
        let config = Config {
            listen,
            endpoint,
            shutdown_grace: Duration::from_secs(server.shutdown_grace_seconds.unwrap_or(10)),
            drain: Duration::from_secs(server.drain_seconds.unwrap_or(0)),
            write_stall: Duration::from_secs(server.write_stall_seconds.unwrap_or(30).max(1)),
            max_connections: server.max_connections.unwrap_or(DEFAULT_MAX_CONNECTIONS),
            first_byte_timeout: seconds_or(
                server.first_byte_timeout_seconds,
                DEFAULT_FIRST_BYTE_TIMEOUT,
            ),
            admin_listen,
            watch: server.watch.unwrap_or(false),
            poll: Duration::from_secs(server.poll_seconds.unwrap_or(30).max(1)),
            store_cache_bytes: server.store_cache_bytes.unwrap_or(256 * 1024 * 1024),
            skills: SkillSettings {
                instructions_budget: match server.instructions_budget {
                    None => Some(DEFAULT_INSTRUCTIONS_BUDGET),
                    Some(0) => None,
                    Some(budget) => Some(budget),
                },
                page_size: server.page_size.unwrap_or(DEFAULT_PAGE_SIZE),
            },
            tenants,
            server: section,
        };
        Ok((config, unapplied))
    }
}

/// The settings of `new` that differ from `old` and that only a restart applies (a reload
/// applies the tenants, their tokens and limits, `[server.per_tenant]`, and how skills are
/// served).
fn restart_only_changes(old: &ServerSection, new: &ServerSection) -> Vec<&'static str> {
    let mut changed = Vec::new();
    macro_rules! compare {
        ($($field:ident),* $(,)?) => {
            $(if old.$field != new.$field {
                changed.push(stringify!($field));
            })*
        };
    }
    compare!(
        listen,
        admin_listen,
        allowed_hosts,
        allowed_origins,
        sessions,
        max_body_bytes,
        request_timeout_seconds,
        shutdown_grace_seconds,
        drain_seconds,
        max_answers,
        answer_bytes,
        body_bytes,
        body_timeout_seconds,
        max_sessions,
        max_streams,
        session_idle_seconds,
        write_stall_seconds,
        max_connections,
        first_byte_timeout_seconds,
        watch,
        poll_seconds,
        store_cache_bytes,
    );
    changed
}

impl TenantSection {
    fn check(self, base: &Path) -> Result<TenantConfig, String> {
        let name = self.name.trim().to_owned();
        if name.is_empty() {
            return Err("a tenant has an empty name; give each tenant a name".to_owned());
        }
        let tokens = self
            .tokens
            .iter()
            .map(|token| {
                token
                    .parse::<TokenDigest>()
                    .map_err(|error| format!("tenant `{name}`: {error}"))
            })
            .collect::<Result<_, _>>()?;
        let (mut directories, mut archives, mut stores) = (Vec::new(), Vec::new(), Vec::new());
        for source in self.sources {
            if let Some(url) = source.to_str().filter(|text| is_store_url(text)) {
                if !cfg!(feature = "object-store") {
                    return Err(format!(
                        "tenant `{name}`: the source `{url}` is an object-store prefix, which \
                         this build of skillbook cannot read; build it with `cargo build \
                         --release --features object-store`"
                    ));
                }
                stores.push(url.to_owned());
                continue;
            }
            let path = base.join(&source);
            match fs::metadata(&path) {
                Ok(metadata) if metadata.is_dir() => directories.push(path),
                Ok(_) => archives.push(path),
                Err(error) => {
                    return Err(format!(
                        "tenant `{name}`: the source `{}` cannot be read ({error}); a source is \
                         a directory of skill folders or a zip archive of them, relative to the \
                         configuration file's directory, or an object-store prefix \
                         (s3://, gs://, az://, file://)",
                        source.display()
                    ));
                }
            }
        }
        let archive_stamps = archives
            .iter()
            .map(|archive| {
                let metadata = fs::metadata(archive).ok()?;
                Some((metadata.len(), metadata.modified().ok()?))
            })
            .collect();
        Ok(TenantConfig {
            name,
            directories,
            archives,
            stores,
            store_options: self.store_options.into_iter().collect(),
            tokens,
            anonymous: self.anonymous,
            limits: self.limits,
            base: base.to_owned(),
            archive_stamps,
            locks: self.locks.iter().map(|lock| base.join(lock)).collect(),
        })
    }
}

/// Whether a source names an object-store prefix rather than a path: `scheme://…`, with a
/// scheme of letters, digits, `+`, `-` or `.` (a Windows drive letter is not one).
fn is_store_url(source: &str) -> bool {
    source.split_once("://").is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme.starts_with(|character: char| character.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || "+-.".contains(character))
    })
}

/// `seconds` (at least one) when written, else `default`.
fn seconds_or(seconds: Option<u64>, default: Duration) -> Duration {
    seconds.map_or(default, |seconds| Duration::from_secs(seconds.max(1)))
}

/// The configuration file's text: a regular file (not a FIFO, which could block, nor a device,
/// which could be endless) of at most [`MAX_FILE_BYTES`], in UTF-8.
fn read_file(path: &Path) -> Result<String, String> {
    let cannot = |error: std::io::Error| format!("cannot read the configuration file: {error}");
    let mut options = fs::OpenOptions::new();
    options.read(true);
    // Opening a FIFO for reading waits for a writer: not without O_NONBLOCK.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(cannot)?;
    let metadata = file.metadata().map_err(cannot)?;
    if !metadata.is_file() {
        return Err(
            "the configuration file is not a regular file (a FIFO, a device or a folder); \
             write the configuration to a file and name it with --config"
                .to_owned(),
        );
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "the configuration file is larger than {} KiB; a configuration is a few \
             kilobytes — is --config naming the right file?",
            MAX_FILE_BYTES / 1024
        ));
    }
    String::from_utf8(bytes).map_err(|error| {
        let (line, column) = line_and_column(&[], error.utf8_error().valid_up_to());
        format!("line {line}, column {column}: the file is not UTF-8; save it as UTF-8")
    })
}

/// Where a TOML error is and why, without the text of the line (it may hold a token or a
/// store's secret): `line L, column C: reason`, with quoted values in the reason left out.
fn describe(text: &str, error: &toml::de::Error) -> String {
    let reason = without_quoted_values(error.message().trim());
    match error.span() {
        Some(span) => {
            let (line, column) = line_and_column(text.as_bytes(), span.start);
            format!("line {line}, column {column}: {reason}")
        }
        None => reason,
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.iter().filter(|byte| **byte == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |at| at + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

/// `message` with the text between double quotes replaced by `…`: serde's messages quote the
/// values they did not expect, and a value may be a secret.
fn without_quoted_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    let mut characters = message.chars();
    while let Some(character) = characters.next() {
        match (character, quoted) {
            ('"', false) => {
                quoted = true;
                out.push_str("\"…");
            }
            ('"', true) => {
                quoted = false;
                out.push('"');
            }
            ('\\', true) => {
                characters.next();
            }
            (_, true) => {}
            (character, false) if character.is_control() && character != '\n' => {
                out.extend(character.escape_debug());
            }
            (character, false) => out.push(character),
        }
    }
    if quoted {
        out.push('"');
    }
    out.replace('\n', "; ")
}

/// Where the admin listener listens: `none` for nowhere; by default on loopback at the main
/// port plus one (or any free port when the main port is 0).
fn admin_address(written: Option<&str>, listen: SocketAddr) -> Result<Option<SocketAddr>, String> {
    match written.map(str::trim) {
        Some(none) if none.eq_ignore_ascii_case("none") => Ok(None),
        Some(address) => address.parse::<SocketAddr>().map(Some).map_err(|_| {
            format!(
                "`admin_listen = \"{address}\"` is not an address to listen on; write an IP \
                 address and a port, such as 127.0.0.1:8932, or \"none\""
            )
        }),
        None => {
            let port = match listen.port() {
                0 => 0,
                port => port.checked_add(1).ok_or_else(|| {
                    "the main port is 65535, so the admin listener has no default port; set \
                     `admin_listen` in [server]"
                        .to_owned()
                })?,
            };
            Ok(Some(SocketAddr::from(([127, 0, 0, 1], port))))
        }
    }
}

impl TenantConfig {
    /// The tenant's server builder: its directories and the skills of its archives, named by
    /// `skill://` URI only.
    pub(crate) fn server(&self, settings: SkillSettings) -> Result<ServerBuilder, String> {
        let mut provided: Vec<ProvidedSkill> = Vec::new();
        for archive in &self.archives {
            let file = fs::File::open(archive)
                .map_err(|error| self.archive_error(archive, &error.to_string()))?;
            let skills = from_zip(std::io::BufReader::new(file), ArchiveLimits::default())
                .map_err(|error| self.archive_error(archive, &error.to_string()))?;
            provided.extend(skills);
        }
        let mut scope = Scope::tenant(&self.base, &self.directories).with_provided(provided);
        if !self.locks.is_empty() {
            let required = RequireLock::new(self.locks.iter().map(Target::of_lock));
            scope = scope.with_admission(required.shared());
        }
        let mut builder = ServerBuilder::new(scope);
        builder = builder
            .addressing(Addressing::SkillUris)
            .instructions_budget(settings.instructions_budget)
            .page_size(settings.page_size);
        Ok(builder)
    }

    /// Whether `other` serves the same skills the same way (its tokens and limits aside): the
    /// same sources, archives unchanged since, the same store settings.
    pub(crate) fn same_sources(&self, other: &TenantConfig) -> bool {
        self.directories == other.directories
            && self.archives == other.archives
            && self.archive_stamps == other.archive_stamps
            && self.stores == other.stores
            && self.store_options == other.store_options
            && self.base == other.base
            && self.locks == other.locks
    }

    /// The endpoint's tenant for `server`, with its limits on top of `defaults` (the server's
    /// per-tenant limits).
    pub(crate) fn tenant(
        &self,
        server: skillbook_mcp::SkillServer,
        defaults: TenantLimits,
    ) -> Tenant {
        let mut tenant = Tenant::new(&self.name, server);
        if self.limits != LimitsSection::default() {
            tenant = tenant.with_limits(self.limits.apply(defaults));
        }
        for token in &self.tokens {
            tenant = tenant.with_token(*token);
        }
        if self.anonymous {
            tenant = tenant.with_anonymous();
        }
        tenant
    }

    fn archive_error(&self, archive: &Path, problem: &str) -> String {
        format!(
            "tenant `{}`: the archive `{}` cannot be served: {problem}",
            self.name,
            archive.display()
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests;

//! skillbook-mcp: an MCP server (stdio, or streamable HTTP for many tenants) that serves Agent
//! Skills to any MCP client.
//!
//! The server implements the MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640)
//! on top of skillbook's discovery and read boundary, so every client gets the same skills with
//! the same safety rules as the library and the command line.
//!
//! The server serves a [`Scope`](skillbook::runtime::Scope) — the same scope the agent runtime
//! resolves: skills discovered on disk, skills held in memory (a tenant's store, the binary, a
//! zip archive), or a tenant's directories only — with the runtime's names, `skill://` URIs,
//! markers and errors, read through the library's one [`SkillReader`](skillbook::SkillReader).
//!
//! ```
//! use skillbook::runtime::Scope;
//! use skillbook::sources::ProvidedSkill;
//! use skillbook_mcp::SkillServer;
//!
//! // A workspace with one skill in the cross-client `.agents/skills` folder…
//! let workspace = tempfile::tempdir()?;
//! let review = workspace.path().join(".agents/skills/code-review");
//! std::fs::create_dir_all(&review)?;
//! std::fs::write(
//!     review.join("SKILL.md"),
//!     "---\nname: code-review\ndescription: Review a diff.\n---\n# Steps\n",
//! )?;
//! // …and one held in memory.
//! let memo = ProvidedSkill::parse("---\nname: memo\ndescription: Write memos.\n---\nBe brief.\n")?;
//!
//! let server = SkillServer::new(Scope::workspace(workspace.path()).with_provided([memo]))?;
//! // The catalog is the server's instructions; the skills are `skill://code-review/SKILL.md`
//! // and `skill://memo/SKILL.md`.
//! let instructions = server.instructions().unwrap_or_default();
//! assert!(instructions.contains("<name>code-review</name>"));
//! assert!(instructions.contains("<location>skill://memo/SKILL.md</location>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Serving a scope on stdin and stdout until the client disconnects, keeping it in step with
//! the disk, as `skillbook mcp` does:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let builder = skillbook_mcp::ServerBuilder::new(skillbook::runtime::Scope::workspace("."));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! runtime.block_on(skillbook_mcp::serve_stdio_watching(builder))?;
//! # Ok(())
//! # }
//! ```
//!
//! # What the server offers
//!
//! - **Capabilities:** `resources` and `tools` (both with `listChanged`), and the extension
//!   `io.modelcontextprotocol/skills` with `{"directoryRead": true}`. The tool list is empty
//!   while no skill is model-visible.
//! - **Instructions:** the catalog (`<available_skills>`, sorted, escaped) of the model-visible
//!   skills, naming the `read_file` tool. Manual-only skills (`disable-model-invocation: true`)
//!   are not in it. With no model-visible skill there are no instructions and no tool.
//! - **`skills/list`** (paged, see below) and **`skills/get`**: each skill's front matter (every
//!   field as written; `name` and `description` as discovery resolved them), the complete list
//!   of its files as `{uri, digest: "sha256:…", size}`, and `_meta` holding
//!   `"skillbook/disableModelInvocation"`. Manual-only skills are listed with that flag `true`.
//!   `skills/get` of a URI that is not a served skill's `SKILL.md` is error `-32602`.
//! - **`resources/list`:** the `SKILL.md` of each served skill (paged).
//! - **`resources/read`:** the exact bytes of a listed file: UTF-8 as text, anything else as a
//!   base64 blob, with a MIME type guessed from the extension.
//! - **`resources/directory/read`:** the direct children of a skill directory or one of its
//!   subdirectories (paged); subdirectories have MIME type `inode/directory`.
//! - **`tools/call` `read_file`:** skillbook's segmented reader over the model-visible skills;
//!   the result (or `{"error", "message"}` with `isError`) is the same JSON as
//!   `skillbook read --restricted` and the runtime's reader, as text and as structured content.
//! - **`tools/call` `search_skills`:** listed only while the instructions list too little to
//!   choose from (names only, or no list: the catalog's tiers, SPEC §12): the model-visible
//!   skills ranked for a task, `{"results": [{"name", "description", "location", "score"}]}`.
//!
//! # Instructions
//!
//! The catalog is the server's `instructions`, within [`DEFAULT_INSTRUCTIONS_BUDGET`]
//! characters ([`ServerBuilder::instructions_budget`]): past it every entry is shortened alike
//! — first sentences, then names and locations, then no list — never dropped; from names-only
//! on, `search_skills` finds the rest. When a reload makes the tool appear or disappear, clients
//! get `notifications/tools/list_changed`.
//!
//! # URIs
//!
//! A skill named `pdf` is `skill://pdf/SKILL.md`; the file `refs/guide.md` of its directory is
//! `skill://pdf/refs/guide.md`; its directories are `skill://pdf` and `skill://pdf/refs`. The skill
//! file is always served as `SKILL.md`, also when it is `skill.md` on disk. Segments are
//! percent-encoded except `A–Z a–z 0–9 - . _ ~` ([`skillbook::uri`], the runtime's rule). Names
//! are unique because a scope keeps one skill per name.
//!
//! A request names a file only when its URI equals one of the listed files: `..`, encoded dots or
//! slashes, NUL bytes, queries and fragments are refused before anything is looked up, and even
//! a listed file is opened through the boundary, so a link swapped in later cannot lead out.
//!
//! # Addressing
//!
//! The scope's [`skillbook::Addressing`] ([`ServerBuilder::addressing`]) decides how the
//! catalog, the read tool and `search_skills` name a skill found on disk.
//! [`skillbook::Addressing::Paths`] (the default of a workspace scope, `skillbook mcp`) locates
//! it by the absolute path of its `SKILL.md`, which the read tool reads, as it reads `skill://`
//! URIs. [`skillbook::Addressing::SkillUris`] (a tenant's scope, `skillbook serve`) locates
//! every skill by its `skill://` URI, the read tool refuses anything else (alike whether or not
//! something is at that path), and every result and error message names files by URI: the
//! library's reader and catalog write them so, and nothing a client is told reveals how the
//! server's disk is laid out.
//!
//! # Serving over HTTP
//!
//! With the feature `http`, the `http` module serves one or many scopes — one per tenant,
//! selected by bearer token — over streamable HTTP, as a tower service to mount in a host's own
//! web server or on a listener of its own (`skillbook serve`). See its docs.
//!
//! # What is served, and what is reported
//!
//! Each skill is walked through the reader (see the `index` rules: regular files, and links to
//! regular files that stay in the skill; no links that leave, no FIFOs, sockets or devices, no
//! `.git` or `node_modules`). Anything skipped is logged on stderr with the reason.
//! A skill whose name is not a valid Agent Skills name, or that holds more than
//! [`ResourceLimits`] allow (512 files, 16 MiB), is not served: it is logged, and each page of
//! `skills/list` names the skills it left out under `_meta["skillbook/omitted"]` with the
//! reason. Its files are never cut to fit.
//!
//! # Paging
//!
//! `skills/list`, `resources/list` and `resources/directory/read` return at most
//! [`DEFAULT_PAGE_SIZE`] entries ([`ServerBuilder::page_size`]); `nextCursor` is an opaque string
//! to pass back as `cursor`. A cursor this server did not give is error `-32602`.
//!
//! Cursors are keys, not positions: each list is sorted by name, and a cursor names the last
//! entry of its page, so the next page starts after that name. A skill added or removed between
//! two requests neither shifts the pages nor repeats an entry, and every replica serving the
//! same skills answers a cursor alike.
//!
//! # Freshness
//!
//! [`serve_stdio_watching`] (what `skillbook mcp` runs) discovers once, watching the directories
//! that discovery visits as it goes: after a change it discovers again, serves the new skills
//! ([`SkillServer::reload`]) and sends the client `notifications/resources/list_changed`. A
//! server started with [`serve_stdio`] serves the skills discovered when it was built. A server
//! that many clients share (over HTTP) follows the disk with [`ServerBuilder::build_watched`],
//! which tells every client in a session of its own ([`SkillServer::notify_sessions`]). Each
//! skill's files are indexed (and their digests computed) the first time a request needs them,
//! so the first page of `skills/list` costs one discovery and the digests of that page; a
//! digest is kept by file version, so an unchanged file is not hashed again after a reload.
//!
//! # Bounds
//!
//! At most [`DEFAULT_CONCURRENCY`] requests touch the disk at once ([`ServerBuilder::concurrency`]);
//! the others wait. Each holds a few descriptors and at most one file's bytes, so descriptors
//! and memory stay bounded however many requests a client pipelines. `resources/read` always returns the file's current bytes;
//! when they no longer match the indexed digest, the client sees the mismatch and the skill is
//! indexed again for the next request.

#![deny(missing_docs)]

mod budget;
mod cursor;
mod error;
mod handler;
#[cfg(feature = "http")]
pub mod http;
mod index;
mod read;
mod server;
mod watched;

pub use budget::DEFAULT_READ_BUDGET;
pub use error::Error;
pub use handler::{MANUAL_ONLY_META_KEY, OMITTED_META_KEY};
pub use rmcp::model::SKILLS_EXTENSION_ID;
pub use server::{
    DEFAULT_CONCURRENCY, DEFAULT_INSTRUCTIONS_BUDGET, DEFAULT_PAGE_SIZE, ResourceLimits,
    ServerBuilder, SkillServer,
};
pub use watched::Watched;

/// Skills from an object-store prefix (feature `object-store`): the crate
/// [`skillbook_store`], which hosts without an MCP server use directly.
#[cfg(feature = "object-store")]
pub use skillbook_store as store;

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::service::RoleServer;
use rmcp::transport::IntoTransport;
use skillbook::Discovered;
use skillbook::watch::SkillWatcher;

/// Serves `server` on the process's stdin and stdout until the client closes the connection.
///
/// Call it inside a Tokio runtime. Nothing but MCP messages is written to stdout; logs go
/// through `tracing`, which the caller should send to stderr.
///
/// # Errors
///
/// [`Error::Initialize`] when the client does not complete the handshake, [`Error::Session`]
/// when the session task stops abnormally.
pub async fn serve_stdio(server: SkillServer) -> Result<(), Error> {
    serve(server, rmcp::transport::io::stdio()).await
}

/// Serves `server` on `transport` until the client closes the connection, holding each
/// `resources/read` answer's bytes in the read budget until it is written (see
/// [`ServerBuilder::read_budget`]).
///
/// Call it inside a Tokio runtime.
///
/// # Errors
///
/// As [`serve_stdio`].
pub async fn serve<T, E, A>(server: SkillServer, transport: T) -> Result<(), Error>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let transport = budget::Bounded::new(transport.into_transport(), server.budget());
    let running = server.serve(transport).await?;
    let reason = running.waiting().await?;
    tracing::debug!(?reason, "the MCP session ended");
    Ok(())
}

/// Serves the scope of `builder` on stdin and stdout, keeping it in step with the disk: see
/// [`serve_watching`].
///
/// # Errors
///
/// As [`serve_watching`].
pub async fn serve_stdio_watching(builder: ServerBuilder) -> Result<(), Error> {
    serve_watching(builder, rmcp::transport::io::stdio()).await
}

/// Serves the scope of `builder` on `transport` until the client closes the connection, while
/// a [`SkillWatcher`] watches it: the watcher's own discovery builds the server (start-up walks
/// the tree once), and after each change the server serves the newly discovered skills and the
/// client gets `notifications/resources/list_changed` (and `notifications/tools/list_changed`
/// when the read tool appears or goes).
///
/// Call it inside a Tokio runtime.
///
/// # Errors
///
/// As [`serve_stdio`], and [`Error::Scope`] when the scope cannot be served. When the roots
/// cannot be watched at all the server logs a warning and serves without hot reload.
pub async fn serve_watching<T, E, A>(builder: ServerBuilder, transport: T) -> Result<(), Error>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let (sender, mut changes) = tokio::sync::mpsc::unbounded_channel::<Arc<Discovered>>();
    let watcher = SkillWatcher::start(builder.scope().discovery(), move |found, changes| {
        tracing::info!(?changes, "skills changed on disk");
        let _ = sender.send(Arc::clone(found));
    });
    let (server, watcher) = match watcher {
        Ok(watcher) => (builder.build_from(watcher.current())?, Some(watcher)),
        Err(error) => {
            tracing::warn!("serving without hot reload: {error}");
            (builder.build()?, None)
        }
    };
    let transport = budget::Bounded::new(transport.into_transport(), server.budget());
    let running = server.clone().serve(transport).await?;
    let peer = running.peer().clone();
    let reloader = tokio::spawn(async move {
        while let Some(found) = changes.recv().await {
            // Resolving a new discovery scans its skills: not on the runtime's own threads.
            let reloading = server.clone();
            let reloaded = tokio::task::spawn_blocking(move || reloading.reload(found)).await;
            let tools_changed = match reloaded {
                Ok(Ok(tools_changed)) => tools_changed,
                Ok(Err(error)) => {
                    tracing::warn!("keeping the previous skills: {error}");
                    continue;
                }
                Err(error) => {
                    tracing::warn!("keeping the previous skills: {error}");
                    continue;
                }
            };
            let mut sent = peer.notify_resource_list_changed().await;
            if tools_changed && sent.is_ok() {
                sent = peer.notify_tool_list_changed().await;
            }
            if let Err(error) = sent {
                tracing::debug!("cannot notify the client: {error}");
            }
        }
    });
    let reason = running.waiting().await?;
    reloader.abort();
    // Stopping the watcher waits for a discovery under way: not on the runtime's threads.
    let _ = tokio::task::spawn_blocking(move || drop(watcher)).await;
    tracing::debug!(?reason, "the MCP session ended");
    Ok(())
}

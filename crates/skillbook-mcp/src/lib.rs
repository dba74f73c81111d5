//! skillbook-mcp: an MCP server (stdio) that serves Agent Skills to any MCP client.
//!
//! The server implements the MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640)
//! on top of skillbook's discovery and read boundary, so every client gets the same skills with
//! the same safety rules as the library and the command line.
//!
//! ```
//! use skillbook::{Discovery, Home};
//! use skillbook_mcp::SkillServer;
//!
//! // A workspace with one skill in the cross-client `.agents/skills` folder.
//! let workspace = tempfile::tempdir()?;
//! let review = workspace.path().join(".agents/skills/code-review");
//! std::fs::create_dir_all(&review)?;
//! std::fs::write(
//!     review.join("SKILL.md"),
//!     "---\nname: code-review\ndescription: Review a diff.\n---\n# Steps\n",
//! )?;
//!
//! let found = Discovery::new(workspace.path()).home(Home::Off).discover();
//! let server = SkillServer::new(&found)?;
//! // The catalog is the server's instructions; the skill is `skill://code-review/SKILL.md`.
//! assert!(server.instructions().is_some_and(|text| text.contains("<name>code-review</name>")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Serving it on stdin and stdout until the client disconnects, as `skillbook mcp` does:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let found = skillbook::discover_default("/path/to/project");
//! let server = skillbook_mcp::SkillServer::new(&found)?;
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! runtime.block_on(skillbook_mcp::serve_stdio(server))?;
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
//! - **`tools/call` `read_file`:** skillbook's segmented reader over a restricted boundary of the
//!   model-visible skills' directories; the result (or `{"error", "message"}` with `isError`)
//!   is the same JSON as `skillbook read`, as text and as structured content.
//!
//! # URIs
//!
//! A skill named `pdf` is `skill://pdf/SKILL.md`; the file `refs/guide.md` of its directory is
//! `skill://pdf/refs/guide.md`; its directories are `skill://pdf` and `skill://pdf/refs`. The skill
//! file is always served as `SKILL.md`, also when it is `skill.md` on disk. Segments are
//! percent-encoded except `A–Z a–z 0–9 - . _ ~`. Names are unique because discovery keeps one
//! skill per name.
//!
//! A request names a file only when its URI equals one of the listed files: `..`, encoded dots or
//! slashes, NUL bytes, queries and fragments are refused before anything is looked up, and even
//! a listed file is opened through the boundary, so a link swapped in later cannot lead out.
//!
//! # What is served, and what is reported
//!
//! Each skill directory is walked through the boundary (see the `index` rules: regular files,
//! and links to regular files that stay in the skill; no links that leave, no FIFOs, sockets or
//! devices, no `.git` or `node_modules`). Anything skipped is logged on stderr with the reason.
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
//! # Freshness
//!
//! [`serve_stdio_watching`] (what `skillbook mcp` runs) watches the skill roots: after a change
//! it discovers again, serves the new skills ([`SkillServer::reload`]) and sends the client
//! `notifications/resources/list_changed`. A server started with [`serve_stdio`] serves the
//! skills discovered when it was built. Each skill's files are indexed the
//! first time a request needs them. `resources/read` always returns the file's current bytes;
//! when they no longer match the indexed digest, the client sees the mismatch and the skill is
//! indexed again for the next request.

#![deny(missing_docs)]

mod error;
mod handler;
mod index;
mod read;
mod server;
mod uri;

pub use error::Error;
pub use handler::{MANUAL_ONLY_META_KEY, OMITTED_META_KEY};
pub use rmcp::model::SKILLS_EXTENSION_ID;
pub use server::{DEFAULT_PAGE_SIZE, ResourceLimits, ServerBuilder, SkillServer};

use rmcp::ServiceExt;
use rmcp::service::RoleServer;
use rmcp::transport::IntoTransport;
use skillbook::Discovery;
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
    let running = server.serve(rmcp::transport::io::stdio()).await?;
    let reason = running.waiting().await?;
    tracing::debug!(?reason, "the MCP session ended");
    Ok(())
}

/// Serves `server` on stdin and stdout, keeping it in step with the disk: see
/// [`serve_watching`].
///
/// # Errors
///
/// As [`serve_watching`].
pub async fn serve_stdio_watching(server: SkillServer, discovery: Discovery) -> Result<(), Error> {
    serve_watching(server, discovery, rmcp::transport::io::stdio()).await
}

/// Serves `server` on `transport` until the client closes the connection, while a
/// [`SkillWatcher`] watches `discovery`'s roots: after each change the server serves the newly
/// discovered skills and the client gets `notifications/resources/list_changed`.
///
/// Call it inside a Tokio runtime.
///
/// # Errors
///
/// As [`serve_stdio`]. Roots that cannot be watched (for example over the inotify watch limit)
/// are not an error: the server logs a warning and serves without hot reload.
pub async fn serve_watching<T, E, A>(
    server: SkillServer,
    discovery: Discovery,
    transport: T,
) -> Result<(), Error>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = server.clone().serve(transport).await?;
    let peer = running.peer().clone();
    let runtime = tokio::runtime::Handle::current();
    let watcher = SkillWatcher::start(discovery, move |found, changes| {
        tracing::info!(?changes, "skills changed on disk");
        let tools_changed = match server.reload(found) {
            Ok(tools_changed) => tools_changed,
            Err(error) => {
                tracing::warn!("keeping the previous skills: {error}");
                return;
            }
        };
        let peer = peer.clone();
        runtime.spawn(async move {
            let mut sent = peer.notify_resource_list_changed().await;
            if tools_changed && sent.is_ok() {
                sent = peer.notify_tool_list_changed().await;
            }
            if let Err(error) = sent {
                tracing::debug!("cannot notify the client: {error}");
            }
        });
    });
    // Serving goes on without hot reload when the roots cannot be watched (inotify limits).
    let watcher = match watcher {
        Ok(watcher) => Some(watcher),
        Err(error) => {
            tracing::warn!("serving without hot reload: {error}");
            None
        }
    };
    let reason = running.waiting().await?;
    drop(watcher);
    tracing::debug!(?reason, "the MCP session ended");
    Ok(())
}

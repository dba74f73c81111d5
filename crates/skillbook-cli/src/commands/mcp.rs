//! `skillbook mcp`: serve the discovered skills to an MCP client over stdio.
//!
//! stdout carries only MCP messages; discovery diagnostics and logs go to stderr. The command
//! returns when the client closes the connection. The skill roots are watched: after a change
//! the server serves the skills discovered again and notifies the client.

use anyhow::Context;
use skillbook_mcp::SkillServer;

use crate::cli::CommonArgs;
use crate::output::{self, Outcome};
use crate::settings;

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let discovery = settings::discovery(common);
    let found = discovery.discover();
    output::diagnostics(&found.diagnostics);
    let server = SkillServer::new(&found)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(skillbook_mcp::serve_stdio_watching(server, discovery))?;
    Ok(Outcome::Success)
}

//! `skillbook mcp`: serve the discovered skills to an MCP client over stdio.
//!
//! stdout carries only MCP messages; discovery diagnostics and logs go to stderr. The command
//! returns when the client closes the connection.

use anyhow::Context;
use skillbook_mcp::SkillServer;

use crate::cli::CommonArgs;
use crate::output::{self, Outcome};
use crate::settings;

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    output::diagnostics(&found.diagnostics);
    let server = SkillServer::new(&found)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(skillbook_mcp::serve_stdio(server))?;
    Ok(Outcome::Success)
}

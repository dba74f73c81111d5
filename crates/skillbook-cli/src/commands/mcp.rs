//! `skillbook mcp`: serve the discovered skills to an MCP client over stdio.
//!
//! stdout carries only MCP messages; discovery diagnostics and logs go to stderr. The command
//! returns when the client closes the connection. The directories discovery visits are watched:
//! after a change the server serves the skills discovered again and notifies the client.

use anyhow::Context;
use skillbook_mcp::ServerBuilder;

use crate::cli::{CommonArgs, McpArgs};
use crate::output::Outcome;
use crate::settings;

pub(crate) fn run(common: &CommonArgs, args: &McpArgs) -> anyhow::Result<Outcome> {
    let mut builder = ServerBuilder::new(settings::scope(common));
    builder = builder.instructions_budget((!args.no_budget).then_some(args.budget));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(skillbook_mcp::serve_stdio_watching(builder))?;
    Ok(Outcome::Success)
}

//! `skillbook serve`: one MCP service over streamable HTTP for many users, each tenant seeing
//! only its skills (SPEC §13).
//!
//! The configuration file names the tenants, their sources and their token digests; every
//! tenant's skills are discovered once at start. stdout carries one line — where the server
//! listens — and logs go to stderr. SIGTERM or SIGINT stops it gracefully.

mod config;
#[cfg(feature = "object-store")]
mod stores;

use std::io::Write;

use anyhow::Context;
use serde::Serialize;
use skillbook::watch::SkillWatcher;
use skillbook_mcp::http::{Endpoint, MCP_PATH, Router, ServeOptions, serve_http};

use crate::cli::{Format, ServeArgs};
use crate::output::{self, Outcome};

use config::Config;

/// One tenant as `--check-config` reports it.
#[derive(Debug, Serialize)]
struct TenantReport {
    name: String,
    skills: Vec<String>,
    tokens: usize,
    anonymous: bool,
    sources: Vec<SourceReport>,
}

/// One source of a tenant as `--check-config` reports it: whether it can be reached, and
/// (for an object store, listed once) how many skills it holds and what it leaves out.
#[derive(Debug, Serialize)]
pub(crate) struct SourceReport {
    source: String,
    reachable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    skills: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<String>,
}

/// What `--check-config` prints.
#[derive(Debug, Serialize)]
struct CheckReport {
    config: String,
    listen: String,
    tenants: Vec<TenantReport>,
}

/// Every tenant's server, built: the endpoint, what each tenant serves, and the watchers
/// keeping them in step with the disk.
struct Built {
    endpoint: Endpoint,
    tenants: Vec<TenantReport>,
    watchers: Vec<SkillWatcher>,
    /// Each tenant's object-store sources, with its server and what they hold now.
    #[cfg(feature = "object-store")]
    pollers: Vec<(
        stores::TenantStores,
        skillbook_mcp::SkillServer,
        stores::Snapshot,
    )>,
}

pub(crate) fn run(format: Format, args: &ServeArgs) -> anyhow::Result<Outcome> {
    let invalid = |message: &str| output::fail(format, "invalid_config", message, Outcome::Failure);
    let config = match Config::load(&args.config, args.listen.as_deref()) {
        Ok(config) => config,
        Err(error) => return invalid(&error.to_string()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // Watchers started now tell the sessions of changes through this runtime.
    let entered = runtime.enter();
    let built = match build(
        &config,
        config.watch && !args.check_config,
        args.check_config,
    ) {
        Ok(built) => built,
        Err(message) => return invalid(&format!("{}: {message}", args.config.display())),
    };
    if args.check_config {
        let reachable = built
            .tenants
            .iter()
            .all(|tenant| tenant.sources.iter().all(|source| source.reachable));
        let summary = CheckReport {
            config: args.config.display().to_string(),
            listen: config.listen.to_string(),
            tenants: built.tenants,
        };
        report(format, &summary)?;
        return Ok(if reachable {
            Outcome::Success
        } else {
            Outcome::Failure
        });
    }
    #[cfg(feature = "object-store")]
    for (stores, server, served) in built.pollers {
        runtime.spawn(stores.poll(server, config.poll, served));
    }
    let tenants = built.tenants.len();
    let served = runtime.block_on(listen(format, &config, built.endpoint, tenants));
    drop(entered);
    // Stopping a watcher waits for a discovery under way: not on the runtime's threads.
    drop(built.watchers);
    tracing::info!("stopped");
    served
}

/// Discovers every tenant's skills, loads its object-store sources (only lists each once when
/// `check`ing) and builds the endpoint.
fn build(config: &Config, watch: bool, check: bool) -> Result<Built, String> {
    let mut endpoint = config.endpoint.clone();
    let mut tenants = Vec::new();
    let mut watchers = Vec::new();
    #[cfg(feature = "object-store")]
    let mut pollers = Vec::new();
    for tenant in &config.tenants {
        let builder = tenant.server(config.skills)?;
        let server = match watch {
            true => builder.build_watched().map(|watched| {
                watchers.extend(watched.watcher);
                watched.server
            }),
            false => builder.build(),
        }
        .map_err(|error| format!("tenant `{}`: {error}", tenant.name))?;
        #[cfg_attr(not(feature = "object-store"), allow(unused_mut))]
        let mut sources: Vec<SourceReport> = tenant
            .directories
            .iter()
            .chain(&tenant.archives)
            .map(|path| SourceReport {
                source: path.display().to_string(),
                reachable: true,
                skills: None,
                problems: Vec::new(),
            })
            .collect();
        #[cfg(feature = "object-store")]
        if let Some(stores) = stores::TenantStores::open(tenant, config.store_cache_bytes)? {
            let runtime = tokio::runtime::Handle::current();
            if check {
                sources.extend(runtime.block_on(stores.check()));
            } else {
                let served = runtime.block_on(stores.load())?;
                stores.log_problems(&served.problems);
                server
                    .reload_sourced(served.skills.clone())
                    .map_err(|error| format!("tenant `{}`: {error}", tenant.name))?;
                pollers.push((stores, server.clone(), served));
            }
        }
        #[cfg(not(feature = "object-store"))]
        let _ = check;
        tenants.push(TenantReport {
            name: tenant.name.clone(),
            skills: server.skill_names(),
            tokens: tenant.tokens.len(),
            anonymous: tenant.anonymous,
            sources,
        });
        endpoint.tenant(tenant.tenant(server));
    }
    let endpoint = endpoint.build().map_err(|error| error.to_string())?;
    Ok(Built {
        endpoint,
        tenants,
        watchers,
        #[cfg(feature = "object-store")]
        pollers,
    })
}

/// Listens on the configured address, says where, and serves until SIGTERM or SIGINT.
async fn listen(
    format: Format,
    config: &Config,
    endpoint: Endpoint,
    tenants: usize,
) -> anyhow::Result<Outcome> {
    let shutdown = shutdown();
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            let message = format!("cannot listen on {}: {error}", config.listen);
            return output::fail(format, "listen", &message, Outcome::Failure);
        }
    };
    let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
    announce(format, &url)?;
    tracing::info!("serving {tenants} tenants on {url}");
    let mut options = ServeOptions::default();
    options
        .shutdown_grace(config.shutdown_grace)
        .drain_delay(config.drain)
        .write_stall(config.write_stall)
        .max_connections(config.max_connections);
    serve_http(listener, Router::new(endpoint), &options, shutdown).await?;
    Ok(Outcome::Success)
}

/// Prints where the server listens: the one line on stdout.
/// (Under `--format json`, `{"listening": url}` on one line, so a reader need not wait for the
/// process to end.)
fn announce(format: Format, url: &str) -> anyhow::Result<()> {
    let line = match format {
        Format::Json => serde_json::json!({ "listening": url }).to_string(),
        Format::Text => format!("listening on {url}"),
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    Ok(stdout.flush()?)
}

fn report(format: Format, report: &CheckReport) -> anyhow::Result<()> {
    if format == Format::Json {
        return output::json(report);
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}: the configuration is valid", report.config)?;
    writeln!(stdout, "listen: {}", report.listen)?;
    for tenant in &report.tenants {
        let access = match (tenant.tokens, tenant.anonymous) {
            (0, _) => "anonymous".to_owned(),
            (1, anonymous) => format!("1 token{}", if anonymous { ", anonymous" } else { "" }),
            (tokens, anonymous) => {
                format!(
                    "{tokens} tokens{}",
                    if anonymous { ", anonymous" } else { "" }
                )
            }
        };
        let skills = match tenant.skills.len() {
            1 => "1 skill".to_owned(),
            count => format!("{count} skills"),
        };
        let names = output::printable(&tenant.skills.join(", ")).into_owned();
        writeln!(
            stdout,
            "tenant {}: {skills} ({names}); {access}",
            output::printable(&tenant.name)
        )?;
        for source in &tenant.sources {
            let state = match (source.reachable, source.skills) {
                (false, _) => "unreachable".to_owned(),
                (true, Some(1)) => "reachable, 1 skill".to_owned(),
                (true, Some(count)) => format!("reachable, {count} skills"),
                (true, None) => "reachable".to_owned(),
            };
            writeln!(
                stdout,
                "  source {}: {state}",
                output::printable(&source.source)
            )?;
            for problem in &source.problems {
                writeln!(stdout, "    {}", output::printable(problem))?;
            }
        }
    }
    Ok(())
}

/// Watches for SIGTERM and SIGINT (Ctrl-C) from now on — before the server says it listens, so
/// no signal sent after that line is missed — and completes when one arrives.
fn shutdown() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let watched = signal(SignalKind::terminate())
            .and_then(|terminate| Ok((terminate, signal(SignalKind::interrupt())?)));
        async move {
            match watched {
                Ok((mut terminate, mut interrupt)) => {
                    tokio::select! {
                        _ = terminate.recv() => {}
                        _ = interrupt.recv() => {}
                    }
                    // A second signal does not wait for the drain and the requests in flight.
                    tokio::spawn(async move {
                        tokio::select! {
                            _ = terminate.recv() => {}
                            _ = interrupt.recv() => {}
                        }
                        tracing::warn!("a second signal: exiting now");
                        std::process::exit(1);
                    });
                }
                Err(error) => {
                    tracing::warn!("cannot watch for SIGTERM: {error}");
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

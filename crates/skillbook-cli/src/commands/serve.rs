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
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;
use skillbook::watch::SkillWatcher;
use skillbook_mcp::SkillServer;
use skillbook_mcp::http::{
    Endpoint, EndpointBuilder, MCP_PATH, Router, ServeOptions, serve_admin, serve_http,
};

use crate::cli::{Format, ServeArgs};
use crate::output::{self, Outcome};

use config::{CommandLine, Config, SkillSettings, TenantConfig};

/// One tenant as `--check-config` reports it.
#[derive(Debug, Serialize)]
struct TenantReport {
    name: String,
    /// The skills found in directories and archives (object stores are counted in `sources`).
    skills: Vec<String>,
    /// Every skill, object stores' included.
    skill_count: usize,
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

/// One tenant being served: how it is configured, its server, and what keeps its skills in
/// step with its sources.
struct Running {
    config: TenantConfig,
    settings: SkillSettings,
    server: SkillServer,
    watcher: Option<SkillWatcher>,
    /// The task polling its object stores.
    poller: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Whether this tenant serves what `config` asks, the same way (tokens and limits aside).
    fn serves(&self, config: &TenantConfig, settings: SkillSettings) -> bool {
        self.config.name == config.name
            && self.config.same_sources(config)
            && self.settings == settings
    }

    /// Stops watching and polling (the watcher waits for a discovery under way: call it off the
    /// runtime's threads).
    fn stop(self) {
        if let Some(poller) = self.poller {
            poller.abort();
        }
        drop(self.watcher);
    }
}

pub(crate) fn run(format: Format, args: &ServeArgs) -> anyhow::Result<Outcome> {
    let invalid = |message: &str| output::fail(format, "invalid_config", message, Outcome::Failure);
    let command_line = CommandLine {
        listen: args.listen.clone(),
        admin_listen: args.admin_listen.clone(),
    };
    let config = match Config::load(&args.config, &command_line) {
        Ok(config) => config,
        Err(error) => return invalid(&error.to_string()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // Watchers started now tell the sessions of changes through this runtime.
    let entered = runtime.enter();
    let watch = config.watch && !args.check_config;
    let (running, reports) = match start(&config, Vec::new(), watch, args.check_config) {
        Ok(started) => (started.running, started.reports),
        Err((message, _)) => return invalid(&format!("{}: {message}", args.config.display())),
    };
    // Built in either case: building checks the tenants (tokens, names) together.
    let endpoint = match endpoint_for(&config, &running).build() {
        Ok(endpoint) => endpoint,
        Err(error) => return invalid(&format!("{}: {error}", args.config.display())),
    };
    if args.check_config {
        let reachable = reports
            .iter()
            .all(|tenant| tenant.sources.iter().all(|source| source.reachable));
        let summary = CheckReport {
            config: args.config.display().to_string(),
            listen: config.listen.to_string(),
            tenants: reports,
        };
        report(format, &summary)?;
        return Ok(if reachable {
            Outcome::Success
        } else {
            Outcome::Failure
        });
    }
    let served = runtime.block_on(listen(
        format,
        args,
        command_line,
        config,
        endpoint,
        running,
    ));
    drop(entered);
    let (outcome, running) = served?;
    // Stopping a watcher waits for a discovery under way: not on the runtime's threads.
    for tenant in running {
        tenant.stop();
    }
    tracing::info!("stopped");
    Ok(outcome)
}

/// The tenants of a configuration, started.
struct Started {
    /// The tenants to serve, in the configuration's order.
    running: Vec<Running>,
    /// Which of `running` were started now (the others were served before).
    fresh: Vec<bool>,
    /// What `--check-config` reports.
    reports: Vec<TenantReport>,
    /// The tenants served before that this configuration no longer has.
    gone: Vec<Running>,
}

impl Started {
    /// Gives up this configuration: stops the tenants started for it and returns those served
    /// before (call it off the runtime's threads).
    fn undo(self) -> Vec<Running> {
        let mut before = self.gone;
        for (tenant, fresh) in self.running.into_iter().zip(self.fresh) {
            match fresh {
                true => tenant.stop(),
                false => before.push(tenant),
            }
        }
        before
    }
}

/// Starts every tenant of `config`: a tenant of `previous` that serves the same sources the
/// same way keeps its server (discovered again), the others get a new one. Object stores are
/// only surveyed when `check`ing. On a mistake, what was started is stopped and `previous` is
/// given back with the message.
fn start(
    config: &Config,
    previous: Vec<Running>,
    watch: bool,
    check: bool,
) -> Result<Started, (String, Vec<Running>)> {
    let mut previous: Vec<Option<Running>> = previous.into_iter().map(Some).collect();
    let mut started = Started {
        running: Vec::new(),
        fresh: Vec::new(),
        reports: Vec::new(),
        gone: Vec::new(),
    };
    for tenant in &config.tenants {
        let kept = previous
            .iter_mut()
            .find(|before| {
                before
                    .as_ref()
                    .is_some_and(|before| before.serves(tenant, config.skills))
            })
            .and_then(Option::take);
        let (running, report, fresh) = match kept {
            Some(mut kept) => {
                // Discovered again: a skill refused after a swap on disk is tried anew.
                let found = Arc::new(kept.server.scope().discovery().discover());
                if let Err(error) = kept.server.reload(found) {
                    tracing::warn!(
                        "tenant `{}`: keeping the skills served before: {error}",
                        output::printable(&tenant.name)
                    );
                }
                kept.config = tenant.clone();
                let report = tenant_report(&kept, Vec::new());
                (kept, report, false)
            }
            None => match start_tenant(config, tenant, watch, check) {
                Ok((running, report)) => (running, report, true),
                Err(error) => {
                    started.gone.extend(previous.into_iter().flatten());
                    return Err((error, started.undo()));
                }
            },
        };
        started.reports.push(report);
        started.running.push(running);
        started.fresh.push(fresh);
    }
    started.gone = previous.into_iter().flatten().collect();
    Ok(started)
}

/// Discovers one tenant's skills, loads its object-store sources (only surveys them when
/// `check`ing) and starts watching and polling them. Returns the tenant and its report, with
/// what its sources hold.
fn start_tenant(
    config: &Config,
    tenant: &TenantConfig,
    watch: bool,
    check: bool,
) -> Result<(Running, TenantReport), String> {
    let builder = tenant.server(config.skills)?;
    let mut watcher = None;
    let server = match watch {
        true => builder.build_watched().map(|watched| {
            watcher = watched.watcher;
            watched.server
        }),
        false => builder.build(),
    }
    .map_err(|error| format!("tenant `{}`: {error}", tenant.name))?;
    #[cfg_attr(not(feature = "object-store"), allow(unused_mut))]
    let mut poller = None;
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
            poller = Some(runtime.spawn(stores.poll(server.clone(), config.poll, served)));
        }
    }
    #[cfg(not(feature = "object-store"))]
    let _ = check;
    let running = Running {
        config: tenant.clone(),
        settings: config.skills,
        server,
        watcher,
        poller,
    };
    let report = tenant_report(&running, sources);
    Ok((running, report))
}

fn tenant_report(tenant: &Running, sources: Vec<SourceReport>) -> TenantReport {
    let skills = tenant.server.skill_names();
    let in_stores: usize = sources.iter().filter_map(|source| source.skills).sum();
    TenantReport {
        name: tenant.config.name.clone(),
        skill_count: skills.len() + in_stores,
        skills,
        tokens: tenant.config.tokens.len(),
        anonymous: tenant.config.anonymous,
        sources,
    }
}

/// The endpoint's settings from `config`, with the tenants of `running`.
fn endpoint_for(config: &Config, running: &[Running]) -> EndpointBuilder {
    let mut endpoint = config.endpoint.clone();
    let defaults = endpoint.default_tenant_limits();
    for tenant in running {
        endpoint.tenant(tenant.config.tenant(tenant.server.clone(), defaults));
    }
    endpoint
}

/// Listens on the configured addresses, says where, and serves until SIGTERM or SIGINT,
/// reloading the configuration on SIGHUP. Returns the tenants served at the end.
async fn listen(
    format: Format,
    args: &ServeArgs,
    command_line: CommandLine,
    config: Config,
    endpoint: Endpoint,
    running: Vec<Running>,
) -> anyhow::Result<(Outcome, Vec<Running>)> {
    let shutdown = shutdown();
    // Every connection is a descriptor, and so is each one accepted at the cap while it waits
    // for its first byte: the limit must allow them all, and files and probes besides.
    let needed = 2 * config.max_connections + 64 + 256;
    raise_descriptor_limit(needed);
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            let message = format!("cannot listen on {}: {error}", config.listen);
            return Ok((
                output::fail(format, "listen", &message, Outcome::Failure)?,
                running,
            ));
        }
    };
    let admin = match config.admin_listen {
        None => None,
        Some(address) => match tokio::net::TcpListener::bind(address).await {
            Ok(listener) => Some(listener),
            Err(error) => {
                let message = format!(
                    "cannot listen on {address} for probes and metrics: {error}; set \
                     `admin_listen` in [server] to a free address, or to \"none\""
                );
                return Ok((
                    output::fail(format, "listen", &message, Outcome::Failure)?,
                    running,
                ));
            }
        },
    };
    let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
    let admin_url = match &admin {
        Some(admin) => Some(format!("http://{}", admin.local_addr()?)),
        None => None,
    };
    announce(format, &url, admin_url.as_deref())?;
    tracing::info!(
        "serving {} tenants on {url}{}",
        running.len(),
        admin_url
            .as_deref()
            .map(|admin| format!("; probes and metrics on {admin}"))
            .unwrap_or_default()
    );
    let mut options = ServeOptions::default();
    options
        .shutdown_grace(config.shutdown_grace)
        .drain_delay(config.drain)
        .write_stall(config.write_stall)
        .max_connections(config.max_connections)
        .first_byte_timeout(config.first_byte_timeout);
    let router = Router::new(endpoint.clone());
    // The admin listener answers probes until the main listener has stopped.
    let (stop_admin, admin_stopped) = tokio::sync::oneshot::channel::<()>();
    let admin_task = admin.map(|admin| {
        tokio::spawn(serve_admin(admin, router.clone(), async move {
            let _ = admin_stopped.await;
        }))
    });
    let reloads = reloader(args.config.clone(), command_line, config, endpoint, running);
    serve_http(listener, router, &options, shutdown).await?;
    let _ = stop_admin.send(());
    if let Some(task) = admin_task {
        let _ = task.await;
    }
    let running = reloads.stop().await;
    Ok((Outcome::Success, running))
}

/// Reloads the configuration on each SIGHUP, in a task of its own.
struct Reloader {
    task: tokio::task::JoinHandle<Vec<Running>>,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl Reloader {
    /// Stops reloading; the tenants served at the end.
    async fn stop(self) -> Vec<Running> {
        let _ = self.stop.send(());
        self.task.await.unwrap_or_default()
    }
}

/// Starts reloading `path` on SIGHUP: tokens rotated, tenants added, changed or removed, without
/// dropping requests in flight; settings that only a restart applies are said so in the log.
fn reloader(
    path: std::path::PathBuf,
    command_line: CommandLine,
    config: Config,
    endpoint: Endpoint,
    running: Vec<Running>,
) -> Reloader {
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let mut config = config;
        let mut running = running;
        #[cfg(unix)]
        let mut hangups =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
                Ok(hangups) => Some(hangups),
                Err(error) => {
                    tracing::warn!(
                        "cannot watch for SIGHUP, so the configuration is not reloaded: {error}"
                    );
                    None
                }
            };
        loop {
            #[cfg(unix)]
            let hangup = async {
                match hangups.as_mut() {
                    Some(hangups) => {
                        hangups.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            #[cfg(not(unix))]
            let hangup = std::future::pending::<()>();
            tokio::select! {
                () = hangup => {}
                _ = &mut stopped => return running,
            }
            tracing::info!(
                "SIGHUP: reloading {}",
                output::printable(&path.display().to_string())
            );
            let (reloaded, now) = reload(&path, &command_line, &config, &endpoint, running).await;
            running = now;
            if let Some(reloaded) = reloaded {
                config = reloaded;
            }
        }
    });
    Reloader { task, stop }
}

/// Reads `path` again and serves its tenants; on any mistake keeps serving what it served.
/// Returns the configuration now in force (when it changed) and the tenants served.
async fn reload(
    path: &std::path::Path,
    command_line: &CommandLine,
    current: &Config,
    endpoint: &Endpoint,
    running: Vec<Running>,
) -> (Option<Config>, Vec<Running>) {
    let new = match Config::reload(path, command_line, current) {
        Ok((new, unapplied)) => {
            for setting in unapplied {
                tracing::warn!("`{setting}` changed: it takes effect when the server restarts");
            }
            new
        }
        Err(error) => {
            tracing::warn!("keeping the configuration served: {error}");
            return (None, running);
        }
    };
    // Discovery and archives touch the disk, and stopping a watcher waits: not on the
    // runtime's threads.
    let watch = current.watch;
    let endpoint = endpoint.clone();
    let reloaded = tokio::task::spawn_blocking(move || {
        let started = match start(&new, running, watch, false) {
            Ok(started) => started,
            Err((error, before)) => {
                tracing::warn!("keeping the configuration served: {error}");
                return (None, before);
            }
        };
        if let Err(error) = endpoint.reload(&endpoint_for(&new, &started.running)) {
            tracing::warn!("keeping the configuration served: {error}");
            return (None, started.undo());
        }
        let names: Vec<&str> = started
            .running
            .iter()
            .map(|tenant| tenant.config.name.as_str())
            .collect();
        tracing::info!(
            "reloaded: serving {} tenants ({})",
            names.len(),
            output::printable(&names.join(", "))
        );
        for tenant in started.gone {
            tenant.stop();
        }
        (Some(new), started.running)
    })
    .await;
    match reloaded {
        Ok(reloaded) => reloaded,
        Err(error) => {
            tracing::error!("the reload failed: {error}; restart the server");
            (None, Vec::new())
        }
    }
}

/// Raises the soft limit on open descriptors to `needed` (within the hard limit), and warns when
/// even the hard limit is lower: past it, connections would fail to be accepted.
#[cfg(unix)]
#[expect(
    unsafe_code,
    reason = "getrlimit and setrlimit are the documented calls for this"
)]
fn raise_descriptor_limit(needed: usize) {
    let needed = needed as libc::rlim_t;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid rlimit for getrlimit to fill in.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } != 0 {
        return;
    }
    let current = limit.rlim_cur;
    if current >= needed {
        return;
    }
    let wanted = needed.min(limit.rlim_max);
    if wanted > current {
        limit.rlim_cur = wanted;
        // SAFETY: `limit` is a valid rlimit, its soft value within its hard one.
        let _ = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit) };
    }
    if wanted < needed {
        tracing::warn!(
            "`max_connections` needs about {needed} open descriptors but the system allows \
             {wanted}: lower `max_connections`, or raise the limit (`ulimit -n`, or \
             LimitNOFILE= in a systemd unit)"
        );
    }
}

#[cfg(not(unix))]
fn raise_descriptor_limit(_needed: usize) {}

/// Prints where the server listens: the one line on stdout, `listening on URL` (and, when
/// probes and metrics are served apart, `; admin on URL`). Under `--format json`,
/// `{"listening": url, "admin": url}` on one line, so a reader need not wait for the process
/// to end.
fn announce(format: Format, url: &str, admin: Option<&str>) -> anyhow::Result<()> {
    let line = match format {
        Format::Json => serde_json::json!({ "listening": url, "admin": admin }).to_string(),
        Format::Text => match admin {
            Some(admin) => format!("listening on {url}; admin on {admin}"),
            None => format!("listening on {url}"),
        },
    };
    let mut stdout = crate::output::stdout();
    writeln!(stdout, "{line}")?;
    Ok(stdout.flush()?)
}

fn report(format: Format, report: &CheckReport) -> anyhow::Result<()> {
    if format == Format::Json {
        return output::json(report);
    }
    let mut stdout = crate::output::stdout();
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
        let skills = match tenant.skill_count {
            1 => "1 skill".to_owned(),
            count => format!("{count} skills"),
        };
        let mut names = output::printable(&tenant.skills.join(", ")).into_owned();
        let in_stores = tenant.skill_count.saturating_sub(tenant.skills.len());
        if in_stores > 0 {
            let separator = if names.is_empty() { "" } else { "; " };
            names = format!("{names}{separator}{in_stores} in object stores");
        }
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

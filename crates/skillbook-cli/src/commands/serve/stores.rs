//! A tenant's object-store sources (feature `object-store`): loaded before the server
//! listens, then listed again every `poll_seconds`; a change is served and told to the clients
//! in a session (`list_changed`).

use std::time::Duration;

use skillbook::sources::ProvidedSkill;
use skillbook_mcp::SkillServer;
use skillbook_mcp::store::{ObjectSource, StoreLimits};

use super::SourceReport;
use super::config::TenantConfig;

/// The object-store sources of one tenant.
pub(crate) struct TenantStores {
    tenant: String,
    sources: Vec<ObjectSource>,
}

/// What every source of a tenant holds at one load.
#[derive(Debug, PartialEq)]
pub(crate) struct Snapshot {
    pub(crate) skills: Vec<ProvidedSkill>,
    /// What was left out, and why.
    pub(crate) problems: Vec<String>,
}

impl TenantStores {
    /// The tenant's sources, set up (nothing is listed yet); `None` when it has none.
    pub(crate) fn open(tenant: &TenantConfig, cache_bytes: u64) -> Result<Option<Self>, String> {
        if tenant.stores.is_empty() {
            return Ok(None);
        }
        let options: Vec<(&str, &str)> = tenant
            .store_options
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect();
        let mut limits = StoreLimits::default();
        limits.max_total_bytes = cache_bytes;
        let sources = tenant
            .stores
            .iter()
            .map(|url| {
                ObjectSource::from_url(url, options.iter().copied())
                    .map(|source| source.with_limits(limits))
                    .map_err(|error| format!("tenant `{}`: {error}", tenant.name))
            })
            .collect::<Result<_, _>>()?;
        Ok(Some(TenantStores {
            tenant: tenant.name.clone(),
            sources,
        }))
    }

    /// Loads every source; the error names the first that cannot be listed.
    pub(crate) async fn load(&self) -> Result<Snapshot, String> {
        let mut snapshot = Snapshot {
            skills: Vec::new(),
            problems: Vec::new(),
        };
        for source in &self.sources {
            let loaded = source
                .load()
                .await
                .map_err(|error| format!("tenant `{}`: {error}", self.tenant))?;
            snapshot.skills.extend(loaded.skills);
            snapshot.problems.extend(loaded.problems);
        }
        Ok(snapshot)
    }

    /// Each source, listed once (only its skill files fetched): whether it can be reached, how
    /// many skills it holds and what a load would leave out.
    pub(crate) async fn check(&self) -> Vec<SourceReport> {
        let mut reports = Vec::with_capacity(self.sources.len());
        for source in &self.sources {
            reports.push(match source.survey().await {
                Ok(surveyed) => SourceReport {
                    source: source.url().to_owned(),
                    reachable: true,
                    skills: Some(surveyed.skills),
                    problems: surveyed.problems,
                },
                Err(error) => SourceReport {
                    source: source.url().to_owned(),
                    reachable: false,
                    skills: None,
                    problems: vec![error.to_string()],
                },
            });
        }
        reports
    }

    /// Lists the sources again every `every`, from `served` (what the server serves now), and
    /// serves each change; a source that cannot be listed keeps what it served.
    pub(crate) async fn poll(self, server: SkillServer, every: Duration, mut served: Snapshot) {
        loop {
            tokio::time::sleep(every).await;
            let snapshot = match self.load().await {
                Ok(snapshot) => snapshot,
                Err(error) => {
                    tracing::warn!("{error}; serving the skills loaded before");
                    continue;
                }
            };
            if snapshot.problems != served.problems {
                self.log_problems(&snapshot.problems);
            }
            if snapshot.skills == served.skills {
                served.problems = snapshot.problems;
                continue;
            }
            match server.reload_sourced(snapshot.skills.clone()) {
                Ok(tools_changed) => {
                    tracing::info!(
                        "tenant `{}`: the object store changed; serving {} skills from it",
                        self.tenant,
                        snapshot.skills.len()
                    );
                    served = snapshot;
                    server.notify_sessions(tools_changed).await;
                }
                Err(error) => {
                    tracing::warn!(
                        "tenant `{}`: the object store's skills cannot be served: {error}; \
                         serving the skills loaded before",
                        self.tenant
                    );
                }
            }
        }
    }

    /// Logs what a load left out.
    pub(crate) fn log_problems(&self, problems: &[String]) {
        for problem in problems {
            tracing::warn!("tenant `{}`: {problem}", self.tenant);
        }
    }
}

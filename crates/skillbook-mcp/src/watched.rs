//! A server that follows the disk without a session of its own: for servers answering many
//! clients (`skillbook serve`), where no one connection owns the watcher.

use std::sync::{Arc, OnceLock};

use skillbook::watch::SkillWatcher;

use crate::{Error, ServerBuilder, SkillServer};

/// A server and the watcher keeping it in step with the disk; see
/// [`ServerBuilder::build_watched`]. Dropping it stops the watching (and waits for a discovery
/// under way: drop it outside the async runtime's threads).
#[derive(Debug)]
pub struct Watched {
    /// The server; clones follow the disk too.
    pub server: SkillServer,
    /// `None` when the roots cannot be watched (the server then serves what it found at start).
    pub watcher: Option<SkillWatcher>,
}

impl ServerBuilder {
    /// Builds the server from a [`SkillWatcher`]'s discovery (start-up walks the tree once) and
    /// keeps it in step with the disk: after each change the server serves the newly discovered
    /// skills ([`SkillServer::reload`]) and, when called inside a Tokio runtime, tells the
    /// clients in a session ([`SkillServer::notify_sessions`]). When the roots cannot be watched,
    /// a warning is logged and the server serves what it found.
    ///
    /// # Errors
    ///
    /// As [`ServerBuilder::build`].
    pub fn build_watched(&self) -> Result<Watched, Error> {
        let served: Arc<OnceLock<SkillServer>> = Arc::new(OnceLock::new());
        let runtime = tokio::runtime::Handle::try_current().ok();
        let follower = Arc::clone(&served);
        let watcher = SkillWatcher::start(self.scope().discovery(), move |found, changes| {
            let Some(server) = follower.get() else {
                return;
            };
            tracing::info!(?changes, "skills changed on disk");
            match server.reload(Arc::clone(found)) {
                Ok(tools_changed) => {
                    if let Some(runtime) = &runtime {
                        let server = server.clone();
                        runtime.spawn(async move { server.notify_sessions(tools_changed).await });
                    }
                }
                Err(error) => tracing::warn!("keeping the previous skills: {error}"),
            }
        });
        let (server, watcher) = match watcher {
            Ok(watcher) => {
                let first = watcher.current();
                let server = self.build_from(Arc::clone(&first))?;
                let _ = served.set(server.clone());
                // A change seen before the server was set is served now.
                let now = watcher.current();
                if !Arc::ptr_eq(&first, &now)
                    && let Err(error) = server.reload(now)
                {
                    tracing::warn!("keeping the previous skills: {error}");
                }
                (server, Some(watcher))
            }
            Err(error) => {
                tracing::warn!("serving without hot reload: {error}");
                (self.build()?, None)
            }
        };
        Ok(Watched { server, watcher })
    }
}

//! A skill tree on disk and an in-process MCP client connected to a server for it.
#![allow(dead_code, reason = "each test file uses its own part of the helpers")]

use std::fs;
use std::path::{Path, PathBuf};

use rmcp::model::ErrorData;
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt};
use skillbook::runtime::Scope;
use skillbook::{Discovered, Discovery, Home};
use skillbook_mcp::{ServerBuilder, SkillServer};
use tempfile::TempDir;

/// What the secret file outside every skill holds; no answer may ever contain it.
pub const SECRET: &str = "TOP-SECRET-CONTENT";

/// A workspace whose `.agents/skills` holds the test skills, and a secret file beside it.
pub struct Tree {
    pub temporary: TempDir,
}

impl Tree {
    /// An empty workspace.
    pub fn empty() -> Self {
        let tree = Tree {
            temporary: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(tree.root()).unwrap();
        fs::write(tree.secret(), SECRET).unwrap();
        tree
    }

    /// The standard skills:
    ///
    /// - `pdf`: SKILL.md with extra front matter, `refs/guide.md` (five lines), `refs/table.csv`,
    ///   `assets/logo.bin` (not UTF-8);
    /// - `runbook`: manual-only;
    /// - `docx`: a lowercase `skill.md`;
    /// - `Bad Name`: a name the Skills extension cannot serve.
    pub fn standard() -> Self {
        let tree = Tree::empty();
        tree.write(
            "pdf/SKILL.md",
            "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  team: docs\n---\n# PDF\n\nRead refs/guide.md.\n",
        );
        tree.write("pdf/refs/guide.md", "one\ntwo\nthree\nfour\nfive\n");
        tree.write("pdf/refs/table.csv", "a,b\n1,2\n");
        tree.write_bytes(
            "pdf/assets/logo.bin",
            &[0x89, b'P', b'N', b'G', 0, 0xff, 0xfe],
        );
        tree.write(
            "runbook/SKILL.md",
            "---\nname: runbook\ndescription: Incident steps.\ndisable-model-invocation: true\n---\nSteps.\n",
        );
        tree.write(
            "docx/skill.md",
            "---\nname: docx\ndescription: Edit Word files.\n---\nDocx.\n",
        );
        tree.write(
            "bad/SKILL.md",
            "---\nname: Bad Name\ndescription: Not a valid name.\n---\n",
        );
        tree
    }

    pub fn workspace(&self) -> &Path {
        self.temporary.path()
    }

    /// `<workspace>/.agents/skills`.
    pub fn root(&self) -> PathBuf {
        self.workspace().join(".agents/skills")
    }

    /// A file outside every skill.
    pub fn secret(&self) -> PathBuf {
        self.workspace().join("secret.txt")
    }

    /// Writes `<root>/<relative>`.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        self.write_bytes(relative, text.as_bytes())
    }

    /// Writes `<root>/<relative>`.
    pub fn write_bytes(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let path = self.root().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        path
    }

    /// Makes a FIFO at `<root>/<relative>`.
    #[cfg(unix)]
    pub fn fifo(&self, relative: &str) -> PathBuf {
        let path = self.root().join(relative);
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success());
        path
    }

    /// Discovers the workspace, without home.
    pub fn discover(&self) -> Discovered {
        Discovery::new(self.workspace()).home(Home::Off).discover()
    }

    /// The scope of the workspace, without home.
    pub fn scope(&self) -> Scope {
        Scope::workspace(self.workspace())
    }

    /// A builder for the workspace's skills.
    pub fn builder(&self) -> ServerBuilder {
        SkillServer::builder(self.scope())
    }
}

/// A client connected in-process to `server`.
pub async fn connect(server: SkillServer) -> RunningService<RoleClient, ()> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_side).await.unwrap()
}

/// The protocol error of a failed request.
pub fn protocol_error<T: std::fmt::Debug>(result: Result<T, ServiceError>) -> ErrorData {
    match result {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

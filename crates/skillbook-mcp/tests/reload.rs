//! Hot reload: skills changed on disk while a session runs are served, and the client is told.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

mod common;

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::handler::client::ClientHandler;
use rmcp::model::Skill;
use rmcp::service::{NotificationContext, RoleClient};
use skillbook::{Discovery, Home};
use skillbook_mcp::SkillServer;
use tokio::sync::mpsc;

use common::Tree;

/// A client that forwards every `notifications/resources/list_changed`.
#[derive(Clone)]
struct Listener(mpsc::UnboundedSender<()>);

impl ClientHandler for Listener {
    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

#[tokio::test]
async fn a_skill_added_while_serving_is_listed_and_announced() {
    let tree = Tree::empty();
    tree.write("pdf/SKILL.md", "---\nname: pdf\ndescription: PDF.\n---\n");
    let mut discovery = Discovery::new(tree.workspace());
    discovery.home(Home::Off);
    let server = SkillServer::new(&discovery.discover()).unwrap();
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(skillbook_mcp::serve_watching(
        server,
        discovery,
        server_side,
    ));
    let (sender, mut notifications) = mpsc::unbounded_channel();
    let client = Listener(sender).serve(client_side).await.unwrap();
    let names = |skills: Vec<Skill>| -> Vec<String> {
        skills.iter().map(|skill| skill.name().to_owned()).collect()
    };
    assert_eq!(names(client.list_all_skills().await.unwrap()), ["pdf"]);

    tree.write(
        "docx/SKILL.md",
        "---\nname: docx\ndescription: Word.\n---\n",
    );
    tokio::time::timeout(Duration::from_secs(20), notifications.recv())
        .await
        .expect("notifications/resources/list_changed within 20 s")
        .expect("the session is alive");
    assert_eq!(
        names(client.list_all_skills().await.unwrap()),
        ["docx", "pdf"]
    );
    client.cancel().await.unwrap();
}

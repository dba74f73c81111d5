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
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use tokio::sync::mpsc;

use common::Tree;

/// A client that forwards every list-changed notification, by list.
#[derive(Clone)]
struct Listener(mpsc::UnboundedSender<&'static str>);

impl ClientHandler for Listener {
    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send("resources");
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send("tools");
    }
}

async fn next(notifications: &mut mpsc::UnboundedReceiver<&'static str>) -> &'static str {
    tokio::time::timeout(Duration::from_secs(20), notifications.recv())
        .await
        .expect("a list-changed notification within 20 s")
        .expect("the session is alive")
}

/// Serves `tree` with hot reload and connects a listening client.
async fn serve(
    tree: &Tree,
) -> (
    RunningService<RoleClient, Listener>,
    mpsc::UnboundedReceiver<&'static str>,
) {
    serve_with(tree.builder()).await
}

/// Serves what `builder` builds with hot reload and connects a listening client.
async fn serve_with(
    builder: skillbook_mcp::ServerBuilder,
) -> (
    RunningService<RoleClient, Listener>,
    mpsc::UnboundedReceiver<&'static str>,
) {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(skillbook_mcp::serve_watching(builder, server_side));
    let (sender, notifications) = mpsc::unbounded_channel();
    let client = Listener(sender).serve(client_side).await.unwrap();
    (client, notifications)
}

#[tokio::test]
async fn a_skill_added_while_serving_is_listed_and_announced() {
    let tree = Tree::empty();
    tree.write("pdf/SKILL.md", "---\nname: pdf\ndescription: PDF.\n---\n");
    let (client, mut notifications) = serve(&tree).await;
    let names = |skills: Vec<Skill>| -> Vec<String> {
        skills.iter().map(|skill| skill.name().to_owned()).collect()
    };
    assert_eq!(names(client.list_all_skills().await.unwrap()), ["pdf"]);

    tree.write(
        "docx/SKILL.md",
        "---\nname: docx\ndescription: Word.\n---\n",
    );
    assert_eq!(next(&mut notifications).await, "resources");
    assert_eq!(
        names(client.list_all_skills().await.unwrap()),
        ["docx", "pdf"]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_first_model_visible_skill_brings_the_tool_and_says_so() {
    let tree = Tree::empty();
    tree.write(
        "runbook/SKILL.md",
        "---\nname: runbook\ndescription: M.\ndisable-model-invocation: true\n---\n",
    );
    let (client, mut notifications) = serve(&tree).await;
    assert!(client.list_all_tools().await.unwrap().is_empty());

    tree.write("pdf/SKILL.md", "---\nname: pdf\ndescription: PDF.\n---\n");
    assert_eq!(next(&mut notifications).await, "resources");
    assert_eq!(next(&mut notifications).await, "tools");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "read_file");
    client.cancel().await.unwrap();
}

/// Waits for a `tools` notification, passing over `resources` ones.
async fn tools_changed(notifications: &mut mpsc::UnboundedReceiver<&'static str>) {
    while next(notifications).await != "tools" {}
}

async fn tool_names(client: &RunningService<RoleClient, Listener>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

#[tokio::test]
async fn search_comes_and_goes_with_the_catalog_tier_and_says_so() {
    let tree = Tree::empty();
    tree.write("pdf/SKILL.md", "---\nname: pdf\ndescription: PDF.\n---\n");
    let mut builder = tree.builder();
    builder = builder.instructions_budget(Some(1_500));
    let (client, mut notifications) = serve_with(builder).await;
    assert_eq!(tool_names(&client).await, ["read_file"]);

    for index in 0..12 {
        tree.write(
            &format!("chore-{index:02}/SKILL.md"),
            &format!(
                "---\nname: chore-{index:02}\ndescription: Handles chore {index} of the back \
                 office whenever the user asks.\n---\n"
            ),
        );
    }
    tools_changed(&mut notifications).await;
    assert_eq!(tool_names(&client).await, ["read_file", "search_skills"]);

    for index in 0..12 {
        std::fs::remove_dir_all(tree.root().join(format!("chore-{index:02}"))).unwrap();
    }
    tools_changed(&mut notifications).await;
    assert_eq!(tool_names(&client).await, ["read_file"]);
    client.cancel().await.unwrap();
}

#[test]
fn sourced_skills_are_served_after_the_scope_and_outlive_a_rediscovery() {
    let tree = Tree::standard();
    let server = tree.builder().build().unwrap();
    let discovered = server.skill_names();
    let stored = skillbook::sources::ProvidedSkill::parse(
        "---\nname: from-store\ndescription: Held in a bucket.\n---\nBody.\n",
    )
    .unwrap();
    server.reload_sourced(vec![stored.clone()]).unwrap();
    let mut expected = discovered.clone();
    expected.push("from-store".to_owned());
    expected.sort();
    assert_eq!(server.skill_names(), expected);

    // A new discovery (a watcher's reload) keeps the sourced skills.
    tree.write(
        "csv/SKILL.md",
        "---\nname: csv\ndescription: Clean CSV.\n---\n",
    );
    server.reload(std::sync::Arc::new(tree.discover())).unwrap();
    let names = server.skill_names();
    assert!(names.contains(&"csv".to_owned()), "{names:?}");
    assert!(names.contains(&"from-store".to_owned()), "{names:?}");

    // A sourced skill that takes a discovered skill's name with other content is refused, and
    // the server keeps what it served.
    let clash = skillbook::sources::ProvidedSkill::parse(
        "---\nname: pdf\ndescription: Another pdf.\n---\n",
    )
    .unwrap();
    assert!(server.reload_sourced(vec![clash]).is_err());
    assert_eq!(server.skill_names(), names);

    // The next skills replace the last ones.
    server.reload_sourced(Vec::new()).unwrap();
    assert!(!server.skill_names().contains(&"from-store".to_owned()));
}

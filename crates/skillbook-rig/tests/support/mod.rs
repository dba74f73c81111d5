//! Test helpers: the scripted model server the agent crate tests with.

#[path = "../../../skillbook-agent/tests/support/model_server.rs"]
pub mod model_server;

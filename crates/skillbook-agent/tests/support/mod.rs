//! Test helpers.

pub mod model_server;

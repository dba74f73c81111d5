//! Test helpers.

pub mod responses_server;

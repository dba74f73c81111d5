//! The `skillbook` command run to its end, for the tests of `serve --check-config` and
//! `skillbook token`.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::process::{Command, Output};

/// `skillbook arguments…`, run to its end without `RUST_LOG`.
pub fn skillbook(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillbook"))
        .args(arguments)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// `skillbook --format json serve --config CONFIG --check-config`.
pub fn check_config_json(config: &str) -> Output {
    skillbook(&[
        "--format",
        "json",
        "serve",
        "--config",
        config,
        "--check-config",
    ])
}

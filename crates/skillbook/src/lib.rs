//! skillbook: Agent Skills for Rust.

pub mod boundary;
pub mod read;

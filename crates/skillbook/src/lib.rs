//! skillbook: Agent Skills for Rust.

pub mod boundary;
pub mod read;

pub use boundary::{BoundaryError, ReadBoundary};
pub use read::{KnownSkill, ReadError, ReadFile, ReadRequest, ReadResult};

//! Errors of building and running the server.

use skillbook::BoundaryError;

/// Why the server could not be built or stopped serving abnormally.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A skill directory exists but could not be opened for the read boundary.
    #[error("the skill directories could not be opened: {0}")]
    Boundary(#[from] BoundaryError),

    /// The client never completed the MCP handshake (for example, it closed the connection or
    /// sent something other than `initialize` first).
    #[error("the MCP session could not start: {0}")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),

    /// The task serving the session stopped abnormally.
    #[error("the MCP session stopped abnormally: {0}")]
    Session(#[from] tokio::task::JoinError),
}

impl From<rmcp::service::ServerInitializeError> for Error {
    fn from(error: rmcp::service::ServerInitializeError) -> Self {
        Error::Initialize(Box::new(error))
    }
}

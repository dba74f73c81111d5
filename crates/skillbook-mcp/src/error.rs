//! Errors of building and running the server.

use skillbook::runtime::RuntimeError;

/// Why the server could not be built or stopped serving abnormally.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The scope's skills cannot be served together (a provided skill clashes with another of
    /// the same name, lies outside the roots, or is too large).
    #[error("the skills cannot be served: {0}")]
    Scope(#[from] RuntimeError),

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

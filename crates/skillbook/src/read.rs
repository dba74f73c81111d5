//! The `read_file` tool.

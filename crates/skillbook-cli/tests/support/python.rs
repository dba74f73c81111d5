//! The Python interpreter the MCP client tests drive: `$MCP_PYTHON`, else `.venv/bin/python` at
//! the repository root (`bash scripts/test.sh` sets it up).

use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL: &str = "install the MCP Python SDK with `bash scripts/test.sh` (or \
    `python3 -m venv .venv && .venv/bin/pip install mcp==2.3.0`) at the repository root, or \
    point MCP_PYTHON at a Python that has it";

/// The Python that can import `modules` (comma-separated, as in `import a, b`); the test fails
/// saying how to install them when there is none.
pub fn python(modules: &str) -> PathBuf {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var_os("MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository.join(".venv/bin/python"));
    assert!(
        python.exists(),
        "no Python for the MCP client at {}: {INSTALL}",
        python.display()
    );
    let import = Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .unwrap();
    assert!(
        import.status.success(),
        "{} cannot import {modules} ({}): {INSTALL}",
        python.display(),
        String::from_utf8_lossy(&import.stderr).trim()
    );
    python
}

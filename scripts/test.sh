#!/usr/bin/env bash
# The whole test suite. First makes sure `.venv` holds the pinned Python tools the tests talk
# to (the format's reference validator and the MCP Python SDK), then runs every Rust test in
# the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/test-requirements.txt
export SKILLS_REF_BIN="$PWD/.venv/bin/agentskills"
export MCP_PYTHON="$PWD/.venv/bin/python"

cargo test --workspace --locked "$@"

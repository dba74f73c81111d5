#!/usr/bin/env bash
# The whole test suite. First makes sure `.venv` holds the pinned Python tools the tests talk
# to (the format's reference validator, the MCP Python SDK and the OpenAI, Anthropic and Gemini
# SDKs), then runs every Rust test in the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

# A venv is usable when its own pip runs; a half-made one (say, `python3 -m venv` without the
# system's venv package) is made again rather than failing on every run.
venv_works() { [ -x .venv/bin/python ] && .venv/bin/python -m pip --version >/dev/null 2>&1; }
if ! venv_works; then
  rm -rf .venv
  if ! python3 -m venv .venv || ! venv_works; then
    rm -rf .venv
    echo "error: cannot create a Python virtual environment in .venv with python3 ($(python3 --version 2>&1))." >&2
    echo "Install Python >= 3.11 with its venv module (Debian/Ubuntu: apt-get install python3-venv) and run this again." >&2
    exit 1
  fi
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/test-requirements.txt
export SKILLS_REF_BIN="$PWD/.venv/bin/agentskills"
export MCP_PYTHON="$PWD/.venv/bin/python"

# With the object-store sources on (a cargo feature the default build leaves out), so that their
# tests run too: an S3 server (moto) on loopback, see crates/skillbook-cli/tests/serve.rs.
cargo test --workspace --locked --features skillbook-cli/object-store "$@"

#!/usr/bin/env bash
# bench-store.sh — `skillbook serve` over skills in an S3 bucket (moto on loopback): the time
# from starting the server to its first `skills/list` answer (it loads the bucket before it
# listens) and the latency of warm `resources/read` requests (500 sequential reads, one
# connection each), next to the same skills served from a directory, and next to the floor:
# boto3 listing the prefix and fetching every object, 16 at a time. 1,000 skills (a 1.3 KB
# SKILL.md and a 1.2 KB reference each), three rounds.
#
#   bash scripts/bench-store.sh
#   SKILLS=200 ROUNDS=1 bash scripts/bench-store.sh
#
# Needs the test virtual environment (`bash scripts/test.sh` makes it: moto, boto3).
set -euo pipefail
cd "$(dirname "$0")/.."
export MCP_PYTHON=${MCP_PYTHON:-$PWD/.venv/bin/python}
export SKILLBOOK_STORE_SKILLS=${SKILLS:-1000} SKILLBOOK_STORE_ROUNDS=${ROUNDS:-3}
cargo test --release --quiet -p skillbook-cli --features object-store --test serve \
  store::store_benchmark -- --ignored --nocapture 2>&1 | grep -E '^round=|panicked|error'

#!/usr/bin/env bash
# Tenant B's latency with `skillbook serve` alone and while tenant A attacks it (SPEC §13.1):
# the table in BENCHMARKS.md ("Serving many users under attack").
#
# Each row starts a fresh server (the release build) with deliberately small budgets — 8 answer
# slots, 32 MiB of answers and 4 MiB of bodies in all (half of each a tenant), 256 connections
# and sessions — and measures 16 clients of tenant B, each asking `skills/list` and then
# `resources/read` every 50 ms on a new connection (in a session of its own in the sessions
# rows), for SECONDS seconds after A's attack has run for two:
#
#   64 slow bodies            64 connections each sending 1 byte of a 100-byte body, reopened
#   48 unread 15 MiB answers  48 connections asking for a 15 MiB file and reading nothing
#   1,100 idle connections    connections that send nothing, reopened as they are closed
#   3,000 sessions            8 threads opening sessions as fast as they can, then every 20 ms
#
# Targets: B's p99 under attack at most twice its p99 alone, no failed B request, and the
# server's peak RSS within the budgets plus 64 MiB.
#
#   bash scripts/bench-serve-hostile.sh [SECONDS]   # default 10
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
ulimit -n 8192 2>/dev/null || true
echo "machine: $(nproc) cores, $(uname -sr)"
SKILLBOOK_HOSTILE_SECONDS=$seconds \
  cargo test --release --locked -q -p skillbook-cli --test serve_hostile hostile_benchmark \
  -- --ignored --nocapture 2>&1 | grep -E '^\|'

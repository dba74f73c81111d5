#!/usr/bin/env bash
# conformance.sh — `skillbook serve` against the MCP conformance suite
# (@modelcontextprotocol/conformance on npm), on loopback, against an anonymous tenant serving
# the example skills. Needs network access for npx, and Node 22 or later, which npx fetches
# (`-p node@22`) when the system's Node is older. Not part of CI: results are recorded in
# docs/serve.md.
#
#   bash scripts/conformance.sh                  # the scenarios that apply (see docs/serve.md)
#   SCENARIOS=all bash scripts/conformance.sh    # the whole active server suite
#
# Settings (environment variables):
#   SCENARIOS   `applicable` (default), `all`, or scenario names separated by spaces
#   CONFORMANCE the npm package to run [@modelcontextprotocol/conformance@0.1.16]
#   NO_BUILD=1  use target/release/skillbook as it is
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
package=${CONFORMANCE:-@modelcontextprotocol/conformance@0.1.16}
scenarios=${SCENARIOS:-applicable}
work=$(mktemp -d)
cleanup() {
  if [ -n "${server_pid:-}" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cd "$repo"
[ -n "${NO_BUILD:-}" ] || cargo build --release --locked -p skillbook-cli
cat > "$work/skillbook.toml" <<TOML
[[tenant]]
name = "conformance"
sources = ["$repo/examples/skills"]
anonymous = true
TOML
target/release/skillbook serve --config "$work/skillbook.toml" --listen 127.0.0.1:0 \
  >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
for _ in $(seq 300); do
  grep -q "listening on" "$work/stdout" 2>/dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$work/stdout")
[ -n "$url" ] || { cat "$work/stderr" >&2; exit 1; }

run() { npx -y -p node@22 -p "$package" conformance server --url "$url" "$@"; }
case "$scenarios" in
  all) run ;;
  applicable)
    status=0
    for scenario in server-initialize ping tools-list resources-list dns-rebinding-protection; do
      run --scenario "$scenario" || status=1
    done
    exit "$status"
    ;;
  *)
    status=0
    for scenario in $scenarios; do run --scenario "$scenario" || status=1; done
    exit "$status"
    ;;
esac

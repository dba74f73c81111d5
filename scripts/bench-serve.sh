#!/usr/bin/env bash
# bench-serve.sh — `skillbook serve` under load: 64 concurrent clients, each doing
# initialize → skills/list → resources/read (a SKILL.md of one of 10,000 skills) over and over
# for 30 seconds, on loopback. Prints visits per second, p50/p99 latency of a whole visit, the
# failures (must be 0) and the server's peak RSS. Linux only (peak RSS is VmHWM from /proc).
#
#   bash scripts/bench-serve.sh
#   CLIENTS=16 SECONDS_=5 bash scripts/bench-serve.sh    # a shorter run
#
# Settings (environment variables):
#   CLIENTS    concurrent clients                 [64]
#   SECONDS_   seconds of load                    [30]
#   SKILLS     skills in the tenant               [10000]
#   BENCH_DIR  where the tree and logs go         [a new temporary directory, removed at the end]
#   NO_BUILD=1 use the release binaries already built
#
# The clients are the `load_benchmark` test of crates/skillbook-cli/tests/serve.rs (threads, one
# HTTP/1.1 connection per request, `Connection: close`), built in release mode; they share the
# machine with the server, so the numbers are a floor for what the server alone would do.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
clients=${CLIENTS:-64}
seconds=${SECONDS_:-30}
skills=${SKILLS:-10000}
bench_dir=${BENCH_DIR:-$(mktemp -d)}
cleanup() {
  if [ -n "${server_pid:-}" ]; then kill "$server_pid" 2>/dev/null || true; fi
  if [ -z "${BENCH_DIR:-}" ]; then rm -rf "$bench_dir"; fi
}
trap cleanup EXIT

cd "$repo"
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release --locked -p skillbook-cli
  cargo test --release --locked -p skillbook-cli --test serve --no-run
fi

# The tree: skill-00000 … skill-NNNNN, each a 1–4 KiB SKILL.md.
python3 - "$bench_dir/skills" "$skills" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for index in range(count):
    folder = os.path.join(root, f"skill-{index:05}")
    os.makedirs(folder, exist_ok=True)
    body = f"Step {index} of the procedure.\n" * (30 + index % 100)
    with open(os.path.join(folder, "SKILL.md"), "w") as file:
        file.write(f"---\nname: skill-{index:05}\ndescription: Handles task {index}.\n---\n{body}")
PY
digest=$(printf %s "sbk_alpha-token-for-tests" | sha256sum | cut -d' ' -f1)
cat > "$bench_dir/skillbook.toml" <<TOML
# The clients ask as fast as they can: past the default request rate, which this does not measure.
[server.per_tenant]
rate = 0

[[tenant]]
name = "alpha"
sources = ["skills"]
tokens = ["sha256:$digest"]
TOML

started=$(date +%s.%N)
target/release/skillbook serve --config "$bench_dir/skillbook.toml" --listen 127.0.0.1:0 \
  >"$bench_dir/stdout" 2>"$bench_dir/stderr" &
server_pid=$!
for _ in $(seq 600); do
  grep -q "listening on" "$bench_dir/stdout" 2>/dev/null && break
  sleep 0.1
done
ready=$(date +%s.%N)
url=$(sed -n 's/^listening on \([^;]*\).*/\1/p' "$bench_dir/stdout")
address=${url#http://}
address=${address%/mcp}
echo "server: $url (start-up with $skills skills: $(echo "$ready - $started" | bc) s), rss at start $(grep VmRSS /proc/$server_pid/status | awk '{print $2, $3}')"

SKILLBOOK_SERVE_ADDRESS=$address SKILLBOOK_LOAD_CLIENTS=$clients SKILLBOOK_LOAD_SECONDS=$seconds \
  cargo test --release --locked -q -p skillbook-cli --test serve load_benchmark -- --ignored --nocapture \
  | grep '^clients='
echo "server peak RSS: $(grep VmHWM /proc/$server_pid/status | awk '{print $2, $3}')"

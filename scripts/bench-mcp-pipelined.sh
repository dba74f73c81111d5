#!/usr/bin/env bash
# Peak memory of `skillbook mcp` while a client pipelines N `resources/read` of one 15 MiB skill
# file and reads no answer for three seconds, then reads them all. With the read budget the peak
# stays the same for 8, 48 or 96 requests in flight. Results go in BENCHMARKS.md.
#
#   bash scripts/bench-mcp-pipelined.sh          # N = 8, 48, 96
#   COUNTS="48" bash scripts/bench-mcp-pipelined.sh
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${COUNTS:-"8 48 96"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet -p skillbook-cli
skill="$work/ws/.agents/skills/big"
mkdir -p "$skill"
printf -- '---\nname: big\ndescription: A skill with one large reference file.\n---\nSee data.md.\n' > "$skill/SKILL.md"
python3 - "$skill/data.md" <<'PY'
import sys
line = "abcdefghij" * 10 + "\n"
open(sys.argv[1], "w").write(line * (15 * 1024 * 1024 // len(line)))
PY
for count in $counts; do
  python3 - "$count" target/release/skillbook --workspace "$work/ws" --no-home mcp <<'PY'
import json, subprocess, sys, time
count = int(sys.argv[1])
server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(message):
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()
def peak():
    with open(f"/proc/{server.pid}/status") as status:
        return next(line.split()[1] for line in status if line.startswith("VmHWM")) + " KiB"
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
json.loads(server.stdout.readline())
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for number in range(count):
    send({"jsonrpc": "2.0", "id": 100 + number, "method": "resources/read", "params": {"uri": "skill://big/data.md"}})
time.sleep(3)
unread = peak()
answered = 0
while answered < count:
    message = json.loads(server.stdout.readline())
    if message.get("id", 0) >= 100:
        assert "result" in message, message
        answered += 1
print(f"{count} pipelined reads of 15 MiB: peak {unread} while unread, {peak()} after all")
server.stdin.close()
server.wait()
PY
done

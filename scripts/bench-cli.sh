#!/usr/bin/env bash
# Times `skillbook` on generated skill trees against the floor (find + the first 4 KiB of each
# SKILL.md), interleaved, with peak memory (scripts/bench-cli.py): by default three fixed shapes
# (small files, large files, deep and narrow) at 1,000, 10,000 and 100,000 skills; with
# SHAPES=mixed, trees whose front matter features and collection layout are drawn from each
# seed in SEEDS. Then against the Python reference tool (`agentskills to-prompt`, PyPI
# skills-ref) on 1,000 skills. Results go in BENCHMARKS.md.
#
#   scripts/bench-cli.sh                         # the fixed shapes (the 100k trees take a while once)
#   SHAPES=mixed SEEDS="1 2 3" SIZES="10000 100000" scripts/bench-cli.sh   # 3 seeds x 10k/100k
#   SIZES=10000 SHAPES=small RUNS=5 scripts/bench-cli.sh
#   COLD=1 scripts/bench-cli.sh                  # also with the page cache dropped (root)
#
# Trees are generated once into $TREES (default /tmp/skillbook-bench-trees) and reused. The
# Python reference is taken from $SKILLS_REF_BIN or .venv/bin/agentskills
# (python3 -m venv .venv && .venv/bin/pip install skills-ref==0.1.1).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet -p skillbook-cli -p skillbook --bins --examples
python3 scripts/bench-cli.py

reference_skills=${REFERENCE_SKILLS:-1000}
runs=${RUNS:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
skillbook=$PWD/target/release/skillbook
target/release/examples/generate-tree "$work/small/.agents/skills" "$reference_skills" 1 >/dev/null
find "$work/small/.agents/skills" -name SKILL.md -printf '%h\n' | sort > "$work/small-dirs"
reference=${SKILLS_REF_BIN:-$PWD/.venv/bin/agentskills}
if [ ! -x "$reference" ] || ! command -v hyperfine >/dev/null; then
  echo "agentskills (see the header) or hyperfine not found: the Python reference is skipped"
  exit 0
fi
hyperfine --style none --warmup 1 --runs "$runs" --export-json "$work/h.json" \
  "'$skillbook' --no-home --workspace '$work/small' catalog --no-budget" \
  "xargs -a '$work/small-dirs' -d '\\n' '$reference' to-prompt" >/dev/null 2>&1
python3 - "$work/h.json" "$reference_skills" <<'PYTHON'
import json, sys
ours, python = (result["median"] for result in json.load(open(sys.argv[1]))["results"])
print(f"\nskillbook catalog ({sys.argv[2]}): {ours:.4f} s; agentskills to-prompt: {python:.4f} s "
      f"({python / ours:.0f}x slower)")
PYTHON

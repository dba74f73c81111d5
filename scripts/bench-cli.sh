#!/usr/bin/env bash
# Times `skillbook` on generated skill trees against the floor (find + the first 4 KiB of each
# SKILL.md) and against the Python reference tool (`agentskills to-prompt`, PyPI skills-ref),
# then prints the ratios. Results go in BENCHMARKS.md.
#
#   scripts/bench-cli.sh                # 10,000 skills, 1,000 for the Python reference
#   SKILLS=1000 RUNS=5 scripts/bench-cli.sh
#
# Uses hyperfine when installed (apt-get install hyperfine), else a timing loop. The Python
# reference is taken from $SKILLS_REF_BIN or .venv/bin/agentskills
# (python3 -m venv .venv && .venv/bin/pip install skills-ref==0.1.1).
set -euo pipefail
cd "$(dirname "$0")/.."

skills=${SKILLS:-10000}
reference_skills=${REFERENCE_SKILLS:-1000}
runs=${RUNS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet -p skillbook-cli -p skillbook --examples
generate=target/release/examples/generate-tree
skillbook=$PWD/target/release/skillbook
"$generate" "$work/big/.agents/skills" "$skills" 1 >/dev/null
"$generate" "$work/small/.agents/skills" "$reference_skills" 1 >/dev/null
find "$work/small/.agents/skills" -name SKILL.md -printf '%h\n' | sort > "$work/small-dirs"

# Prints the median wall time in seconds of a shell command over $runs runs (after one warm-up).
median() {
  local command=$1
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --style none --warmup 1 --runs "$runs" --export-json "$work/h.json" \
      "$command" >/dev/null 2>&1
    python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$work/h.json"
  else
    bash -c "$command" >/dev/null 2>&1
    for _ in $(seq "$runs"); do
      local start end
      start=$(date +%s.%N)
      bash -c "$command" >/dev/null 2>&1
      end=$(date +%s.%N)
      echo "$end - $start" | bc -l
    done | sort -n | awk '{a[NR]=$1} END {printf "%.4f\n", a[int((NR+1)/2)]}'
  fi
}

ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -sr)"
echo "tree: $skills skills (and $reference_skills for the Python reference), seed 1; page cache warm"
echo

big="$work/big"
floor=$(median "find '$big/.agents/skills' -name SKILL.md -print0 | xargs -0 head -q -c 4096 > /dev/null")
list=$(median "'$skillbook' --no-home --workspace '$big' list --format json > /dev/null")
catalog=$(median "'$skillbook' --no-home --workspace '$big' catalog > /dev/null")
printf '%-44s %8ss\n' "floor: find + first 4 KiB ($skills)" "$floor"
printf '%-44s %8ss  %sx the floor\n' "skillbook list --format json ($skills)" "$list" "$(ratio "$list" "$floor")"
printf '%-44s %8ss  %sx the floor\n' "skillbook catalog ($skills)" "$catalog" "$(ratio "$catalog" "$floor")"

# Cold disk: the same commands with the page cache dropped before each run (root only).
if (sync && echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null && command -v hyperfine >/dev/null; then
  cold() {
    hyperfine --style none --runs 3 --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' \
      --export-json "$work/c.json" "$1" >/dev/null 2>&1
    python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$work/c.json"
  }
  cold_floor=$(cold "find '$big/.agents/skills' -name SKILL.md -print0 | xargs -0 head -q -c 4096 > /dev/null")
  cold_catalog=$(cold "'$skillbook' --no-home --workspace '$big' catalog > /dev/null")
  printf '%-44s %8ss\n' "cold cache: floor ($skills)" "$cold_floor"
  printf '%-44s %8ss  %sx the floor\n' "cold cache: skillbook catalog ($skills)" "$cold_catalog" "$(ratio "$cold_catalog" "$cold_floor")"
else
  echo "(cold-cache runs skipped: dropping the page cache needs root and hyperfine)"
fi

reference=${SKILLS_REF_BIN:-$PWD/.venv/bin/agentskills}
small="$work/small"
ours=$(median "'$skillbook' --no-home --workspace '$small' catalog > /dev/null")
printf '%-44s %8ss\n' "skillbook catalog ($reference_skills)" "$ours"
if [ -x "$reference" ]; then
  python=$(median "xargs -a '$work/small-dirs' -d '\n' '$reference' to-prompt > /dev/null")
  printf '%-44s %8ss  %sx slower than skillbook\n' "agentskills to-prompt ($reference_skills)" "$python" "$(ratio "$python" "$ours")"
else
  echo "agentskills not found at $reference: install skills-ref to compare (see the header)"
fi

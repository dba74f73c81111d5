#!/usr/bin/env bash
# bench-mcp.sh — `skillbook mcp` against rmcp 3.11.0's own skills-fs server on the same trees.
#
# Run from anywhere (Linux only: peak RSS comes from /proc/<pid>/status):
#
#   bash scripts/bench-mcp.sh                    # 1,000, 10,000 and 100,000 skills
#   SIZES="1000 10000" bash scripts/bench-mcp.sh # a subset
#
# Settings (environment variables):
#   SIZES       skill counts to measure                   [1000 10000 100000]
#   RUNS        runs per size up to 10,000 skills         [3]
#   RUNS_LARGE  runs per size above 10,000 skills         [1]
#   READS       resources/read requests per run           [200]
#   SEED        seed of the generated trees and the reads [1]
#   TIMEOUT     seconds to wait for any one response      [900]
#   BENCH_DIR   where trees, logs and results go; kept, and trees already there are reused
#               [a new temporary directory, removed at the end unless KEEP=1]
#   NO_BUILD=1  skip the two release builds (use the binaries already built)
#   FAIL_FAST=1 stop at the first failed run (default: finish the table, then exit 1)
#
# What it does:
#   1. builds `target/release/skillbook` (`cargo build --release -p skillbook-cli`) and the
#      standalone project benches/mcp (its own workspace and target dir, benches/mcp/target):
#      gen-tree, rmcp-skills-fs, mcp-bench, bench-table;
#   2. for each size N writes a deterministic tree with `gen-tree` to
#      $BENCH_DIR/N/ws/.agents/skills (1–8 KiB SKILL.md files, 0–3 collection folders deep, a
#      fifth with references/, valid unique names) and reads it once (page cache warm);
#   3. runs, interleaved, RUNS times: `rmcp-skills-fs index ROOT`; `mcp-bench` on
#      `skillbook --workspace $BENCH_DIR/N/ws --no-home mcp`; `mcp-bench` on
#      `rmcp-skills-fs serve ROOT` (ROOT = the same .agents/skills directory);
#   4. prints a Markdown table of medians, the four targets, and where the raw JSON lines are.
#
# Columns of the table (every cell is the median over the runs):
#   skills                       skills in the generated tree
#   runs                         runs that succeeded: rmcp index / skillbook / rmcp serve (⚠: some failed)
#   rmcp from_dir                wall time of `SkillCatalog::from_dir(ROOT)` alone, in process
#                                (walk, read and hash every file, parse every front matter)
#   skillbook first page (ratio) spawn of `skillbook mcp` → first `skills/list` response read,
#                                including process start and `initialize`; ratio to rmcp from_dir
#                                (target a: ≤ 1.0×)
#   skillbook all pages (ratio)  spawn → last `skills/list` page read (following `nextCursor`,
#                                50 per page); ratio to rmcp from_dir (target b: ≤ 2.0×)
#   rmcp all pages               spawn of `rmcp-skills-fs serve` → its (single) `skills/list`
#                                page read, same clock as skillbook's
#   read p50 / p95               latency of READS sequential `resources/read` of the SKILL.md of
#                                random listed skills, request written → response read
#                                (target c: flat from 1,000 to 10,000 skills)
#   peak RSS                     VmHWM of the server process after the reads (target d:
#                                skillbook below rmcp)
#
# The run fails loudly (FAILED, exit 1) when a server answers with a JSON-RPC error, times out,
# exits, repeats a skill, or lists a number of skills (served + `_meta["skillbook/omitted"]`)
# other than generated. The raw results are JSON lines in $BENCH_DIR/results.jsonl; the servers'
# stderr goes to $BENCH_DIR/logs/.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench="$repo/benches/mcp"
sizes=${SIZES:-"1000 10000 100000"}
runs=${RUNS:-3}
runs_large=${RUNS_LARGE:-1}
reads=${READS:-200}
seed=${SEED:-1}
timeout=${TIMEOUT:-900}

if [[ -n ${BENCH_DIR:-} ]]; then
    work=$BENCH_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/bench-mcp.XXXXXX")
    if [[ ${KEEP:-0} != 1 ]]; then
        trap 'rm -rf "$work"' EXIT
    fi
fi
mkdir -p "$work/logs"
results="$work/results.jsonl"
: >"$results"

say() { printf '%s\n' "$*" >&2; }
die() { say "bench-mcp: ERROR: $*"; exit 1; }

if [[ ${NO_BUILD:-0} != 1 ]]; then
    say "== building (release)"
    (cd "$repo" && nice -n 10 cargo build --release -p skillbook-cli) || die "skillbook-cli build failed"
    nice -n 10 cargo build --release --manifest-path "$bench/Cargo.toml" \
        --target-dir "$bench/target" || die "benches/mcp build failed"
fi
skillbook="$repo/target/release/skillbook"
bin="$bench/target/release"
for tool in "$skillbook" "$bin/gen-tree" "$bin/rmcp-skills-fs" "$bin/mcp-bench" "$bin/bench-table"; do
    [[ -x $tool ]] || die "$tool is missing; build first (drop NO_BUILD)"
done

failures=0
record_failure() { # size run kind log message
    local size=$1 run=$2 kind=$3 log=$4 message=$5
    failures=$((failures + 1))
    say "bench-mcp: FAILED: $kind, $size skills, run $run: $message"
    if [[ -s $log ]]; then
        say "---- last lines of $log"
        tail -n 15 "$log" >&2
        say "----"
    fi
    jq -cn --argjson size "$size" --argjson run "$run" --arg kind "$kind" --arg failed "$message" \
        '{size: $size, run: $run, kind: $kind, failed: $failed}' >>"$results" 2>/dev/null ||
        printf '{"size":%s,"run":%s,"kind":"%s","failed":"see the log"}\n' "$size" "$run" "$kind" >>"$results"
    if [[ ${FAIL_FAST:-0} == 1 ]]; then
        exit 1
    fi
}

# measure SIZE RUN KIND COMMAND... : one run; appends a record to results.jsonl.
measure() {
    local size=$1 run=$2 kind=$3
    shift 3
    local log="$work/logs/$kind-$size-$run.log" out status=0 message
    out=$(nice -n 10 "$@" 2>"$log") || status=$?
    if ((status == 0)) && [[ $kind == rmcp-index ]] && ! grep -Eq "\"skills\":$size[,}]" <<<"$out"; then
        say "   $kind: $out"
        record_failure "$size" "$run" "$kind" /dev/null "from_dir loaded a different number of skills than $size"
    elif ((status == 0)) && [[ $out == '{'* ]]; then
        say "   $kind: $out"
        printf '{"size":%s,"run":%s,"kind":"%s","report":%s}\n' "$size" "$run" "$kind" "$out" >>"$results"
    else
        message=$(grep -h 'FAILED\|error' "$log" | tail -n 1 || true)
        record_failure "$size" "$run" "$kind" "$log" "${message:-exit status $status}"
    fi
}

for size in $sizes; do
    ws="$work/$size/ws"
    root="$ws/.agents/skills"
    if [[ -f $work/$size/tree.json ]] && grep -q "\"seed\":$seed," "$work/$size/tree.json"; then
        say "== $size skills: reusing $root"
    else
        say "== $size skills: generating $root"
        rm -rf "$work/$size"
        mkdir -p "$root"
        nice -n 10 "$bin/gen-tree" "$root" "$size" "$seed" >"$work/$size/tree.json" ||
            die "gen-tree failed"
    fi
    say "   $(cat "$work/$size/tree.json")"
    # Warm the page cache: read every file and directory once, untimed.
    nice -n 10 "$bin/rmcp-skills-fs" index "$root" >/dev/null || die "rmcp-skills-fs index $root failed"

    n=$runs
    if ((size > 10000)); then n=$runs_large; fi
    for ((run = 1; run <= n; run++)); do
        say "-- $size skills, run $run/$n"
        measure "$size" "$run" rmcp-index "$bin/rmcp-skills-fs" index "$root"
        measure "$size" "$run" skillbook "$bin/mcp-bench" --label skillbook --expect "$size" \
            --reads "$reads" --seed "$seed" --timeout "$timeout" --stderr "$work/logs/skillbook-server-$size-$run.log" \
            -- "$skillbook" --workspace "$ws" --no-home mcp
        measure "$size" "$run" rmcp "$bin/mcp-bench" --label rmcp --expect "$size" \
            --reads "$reads" --seed "$seed" --timeout "$timeout" --stderr "$work/logs/rmcp-server-$size-$run.log" \
            -- "$bin/rmcp-skills-fs" serve "$root"
    done
done

commit=$(git -C "$repo" log -1 --format=%h 2>/dev/null || echo unknown)
dirty=""
if [[ -n $(git -C "$repo" status --porcelain --untracked-files=no -- crates Cargo.toml Cargo.lock 2>/dev/null) ]]; then
    dirty=" + uncommitted changes in crates/"
fi
echo
echo "skillbook mcp vs rmcp 3.11.0 skills-fs — commit $commit$dirty; $(nproc) CPUs, $(uname -sr);"
echo "reads per run: $reads; seed $seed; medians of the runs; raw results: $results"
echo
table_status=0
"$bin/bench-table" "$results" || table_status=$?
if ((failures > 0 || table_status != 0)); then
    say "bench-mcp: $failures run(s) FAILED (see above and $work/logs)"
    if [[ -z ${BENCH_DIR:-} && ${KEEP:-0} != 1 ]]; then
        say "bench-mcp: rerun with KEEP=1 or BENCH_DIR=... to keep the logs"
    fi
    exit 1
fi

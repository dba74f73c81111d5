#!/usr/bin/env python3
"""Times `skillbook list --format json` and `skillbook catalog` against the floor on generated
skill trees of three shapes and several sizes, interleaved, and prints a Markdown table.

The floor is `find ROOT -name SKILL.md -print0 | xargs -0 -n 2000 head -q -c 4096 > /dev/null`:
a walk that lists directories and reads the first block of each skill file, and does nothing
else. Each round runs the floor, `list` and `catalog` once each, one after the other, so a
machine that slows down slows all three alike; the table gives the median of the rounds and the
ratio of the medians. Peak RSS is measured by GNU time (`/usr/bin/time -f %M`, which wraps
every command alike), the most over the rounds.

Run through scripts/bench-cli.sh, which builds the binaries first. Settings (environment):
  SHAPES="small large deep"  SIZES="1000 10000 100000"  RUNS=11  COLD_RUNS=3
  TREES=/tmp/skillbook-bench-trees   (generated once per shape and size, then reused)
  COLD=1  also run with the page cache dropped before every command (needs root)
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKILLBOOK = os.path.join(ROOT, "target/release/skillbook")
GENERATE = os.path.join(ROOT, "target/release/examples/generate-tree")


def tree(trees, shape, skills):
    """The workspace of a generated tree, generating it the first time."""
    workspace = os.path.join(trees, f"{shape}-{skills}")
    done = os.path.join(workspace, ".complete")
    if not os.path.exists(done):
        subprocess.run(["rm", "-rf", workspace], check=True)
        subprocess.run(
            [GENERATE, os.path.join(workspace, ".agents/skills"), str(skills), "1", shape],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        open(done, "w").close()
    return workspace


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as caches:
        caches.write("3\n")


def run(command, cold):
    """Wall seconds and peak RSS (KiB) of one run of `command` (an argument list)."""
    if cold:
        drop_caches()
    with tempfile.NamedTemporaryFile("r") as peak:
        start = time.perf_counter()
        status = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", peak.name] + command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ).returncode
        elapsed = time.perf_counter() - start
        if status != 0:
            sys.exit(f"failed ({status}): {' '.join(command)}")
        return elapsed, int(peak.read().split()[-1])


def measure(workspace, rounds, cold):
    skills_root = os.path.join(workspace, ".agents/skills")
    commands = {
        "floor": [
            "bash",
            "-c",
            f"find '{skills_root}' -name SKILL.md -print0 | xargs -0 -n 2000 head -q -c 4096 > /dev/null",
        ],
        "list": [SKILLBOOK, "--no-home", "--workspace", workspace, "list", "--format", "json"],
        "catalog": [SKILLBOOK, "--no-home", "--workspace", workspace, "catalog"],
    }
    if not cold:
        for command in commands.values():
            run(command, False)  # warm-up
    times = {name: [] for name in commands}
    peaks = {name: 0 for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            elapsed, peak = run(command, cold)
            times[name].append(elapsed)
            peaks[name] = max(peaks[name], peak)
    medians = {name: statistics.median(values) for name, values in times.items()}
    output = len(subprocess.run(commands["list"], capture_output=True, check=True).stdout)
    return medians, peaks, output


def main():
    shapes = os.environ.get("SHAPES", "small large deep").split()
    sizes = [int(size) for size in os.environ.get("SIZES", "1000 10000 100000").split()]
    rounds = int(os.environ.get("RUNS", "11"))
    cold_rounds = int(os.environ.get("COLD_RUNS", "3"))
    trees = os.environ.get("TREES", "/tmp/skillbook-bench-trees")
    cold = os.environ.get("COLD") == "1"
    os.makedirs(trees, exist_ok=True)
    cpu = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
        "unknown CPU",
    )
    print(f"machine: {os.cpu_count()} cores, {cpu}, {os.uname().sysname} {os.uname().release}")
    print(f"medians of {rounds} interleaved rounds (cold: {cold_rounds}), seed 1\n")
    print(
        "| shape | skills | page cache | floor | `list --format json` | `catalog` "
        "| peak RSS `list` / `catalog` | `list` output |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for shape in shapes:
        for skills in sizes:
            workspace = tree(trees, shape, skills)
            modes = [("warm", rounds, False)] + ([("dropped", cold_rounds, True)] if cold else [])
            for mode, count, is_cold in modes:
                medians, peaks, output = measure(workspace, count, is_cold)
                floor = medians["floor"]
                print(
                    f"| {shape} | {skills:,} | {mode} | {floor:.3f} s "
                    f"| {medians['list']:.3f} s ({medians['list'] / floor:.2f}×) "
                    f"| {medians['catalog']:.3f} s ({medians['catalog'] / floor:.2f}×) "
                    f"| {peaks['list'] / 1024:.1f} / {peaks['catalog'] / 1024:.1f} MiB "
                    f"| {output / 1048576:.1f} MiB |",
                    flush=True,
                )


if __name__ == "__main__":
    main()

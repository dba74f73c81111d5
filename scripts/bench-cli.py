#!/usr/bin/env python3
"""Times `skillbook list --format json` and `skillbook catalog` against the floor on generated
skill trees of several shapes, seeds and sizes, interleaved, and prints a Markdown table.

The floor is `find ROOT -name SKILL.md -print0 | xargs -0 -n 2000 head -q -c 4096 > /dev/null`:
a walk that lists directories and reads the first block of each skill file, and does nothing
else. Each round runs the floor, `list` and `catalog` once each, one after the other, so a
machine that slows down slows all three alike; the table gives the median of the rounds and the
ratio of the medians. Peak RSS is measured by GNU time (`/usr/bin/time -f %M`, which wraps
every command alike), the most over the rounds. `catalog` is run with `--no-budget`, so it
lists every skill in full (what `mcp --no-budget` serves).

The `mixed` shape draws its front matter features and collection layout from the seed (the
generator prints the mix it drew, and so does this script), so each seed is a shape nobody
tuned to; the other shapes are fixed and the seed only changes their bytes.

Run through scripts/bench-cli.sh, which builds the binaries first. Settings (environment):
  SHAPES="small large deep"  SEEDS="1"  SIZES="1000 10000 100000"  RUNS=11  COLD_RUNS=3
  TREES=/tmp/skillbook-bench-trees   (generated once per shape, seed and size, then reused)
  COLD=1  also run with the page cache dropped before every command (needs root)
For issue 26's table:  SHAPES=mixed SEEDS="1 2 3" SIZES="10000 100000" scripts/bench-cli.sh
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


def tree(trees, shape, skills, seed):
    """The workspace of a generated tree, generating it the first time, and what the generator
    said about it (for the mixed shape, the mix the seed drew)."""
    workspace = os.path.join(trees, f"{shape}-{skills}-seed{seed}")
    done = os.path.join(workspace, ".complete")
    if not os.path.exists(done):
        subprocess.run(["rm", "-rf", workspace], check=True)
        report = subprocess.run(
            [GENERATE, os.path.join(workspace, ".agents/skills"), str(skills), str(seed), shape],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        with open(done, "w") as complete:
            complete.write(report)
    with open(done) as complete:
        said = complete.read().strip().splitlines()
    return workspace, said[1] if len(said) > 1 else ""


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
        "catalog": [SKILLBOOK, "--no-home", "--workspace", workspace, "catalog", "--no-budget"],
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
    catalog = len(subprocess.run(commands["catalog"], capture_output=True, check=True).stdout)
    return medians, peaks, output, catalog


def main():
    shapes = os.environ.get("SHAPES", "small large deep").split()
    seeds = [int(seed) for seed in os.environ.get("SEEDS", "1").split()]
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
    print(f"medians of {rounds} interleaved rounds (cold: {cold_rounds}), seeds {seeds}\n")
    print(
        "| shape | seed | skills | page cache | floor | `list --format json` | `catalog` "
        "| peak RSS `list` / `catalog` | `list` output | `catalog` output |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    mixes = {}
    for shape in shapes:
        for seed in seeds:
            for skills in sizes:
                workspace, mix = tree(trees, shape, skills, seed)
                if mix:
                    mixes[(shape, seed)] = mix
                modes = [("warm", rounds, False)] + ([("dropped", cold_rounds, True)] if cold else [])
                for mode, count, is_cold in modes:
                    before = os.getloadavg()[0]
                    print(row(shape, seed, skills, mode, *measure(workspace, count, is_cold)), flush=True)
                    # Other work on the machine slows the three commands unevenly: say how busy it was.
                    print(f"load average {before:.2f} before the row, {os.getloadavg()[0]:.2f} after",
                          file=sys.stderr, flush=True)
    for (shape, seed), mix in mixes.items():
        print(f"\n{shape} seed {seed}: {mix}")


def row(shape, seed, skills, mode, medians, peaks, output, catalog):
    """One line of the Markdown table."""
    floor = medians["floor"]
    mebibytes = [peaks[name] / 1024 for name in ("list", "catalog")]
    return (
        f"| {shape} | {seed} | {skills:,} | {mode} | {floor:.3f} s "
        f"| {medians['list']:.3f} s ({medians['list'] / floor:.2f}×) "
        f"| {medians['catalog']:.3f} s ({medians['catalog'] / floor:.2f}×) "
        f"| {' / '.join(f'{value:.1f}' for value in mebibytes)} MiB "
        f"| {output / 1048576:.1f} MiB | {catalog / 1048576:.1f} MiB |"
    )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times skill packages on generated git repositories, beside the `skills` npm tool.

    python3 scripts/bench-packages.py [--skills 200] [--verify-skills 1000] [--rounds 5]

For each size it writes a repository of generated skills (the `mixed` shape of
`generate-tree`, each skill moved to `skills/<name>/` so that both tools find every one),
commits it with git, and times, in a fresh workspace each round:

- `skillbook add file://REPO --yes`: fetch one commit, find, check, install and lock every skill;
- `skillbook install` after deleting `.agents/skills`: fetch the locked commit and restore;
- `skillbook verify` of every installed skill against the lock (the larger repository), and
  `skillbook list` with and without `--locked` there (which hashes every file of every locked
  skill);

and, where the `skills` tool (1.7.x, on Node 22) is on PATH or in `--skills-bin`, the same add
(`skills add file://REPO --skill '*' -y`) and restore (`skills experimental_install`). Each
figure is the median of the rounds, wall-clock, page cache warm. Needs a release build:
`cargo build --release -p skillbook-cli -p skillbook --examples`.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKILLBOOK = ROOT / "target/release/skillbook"
GENERATE = ROOT / "target/release/examples/generate-tree"


def run(command, cwd, env=None, check=True):
    """Seconds the command took; `None` when it failed and `check` is off."""
    started = time.perf_counter()
    finished = subprocess.run(command, cwd=cwd, env=env, check=check,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if finished.returncode != 0:
        return None
    return time.perf_counter() - started


def repository(scratch, skills, seed):
    """A committed git repository of `skills` generated skills, flat under `skills/`."""
    generated = scratch / f"generated-{skills}"
    subprocess.run([GENERATE, generated, str(skills), str(seed), "mixed"], check=True,
                   stdout=subprocess.DEVNULL)
    repo = scratch / f"repo-{skills}"
    (repo / "skills").mkdir(parents=True)
    for skill_file in list(generated.rglob("SKILL.md")):
        folder = skill_file.parent
        shutil.move(folder, repo / "skills" / folder.name)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(git + ["init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-q", "-m", "skills"], cwd=repo, check=True)
    return repo


def workspace(scratch):
    folder = Path(tempfile.mkdtemp(dir=scratch, prefix="workspace-"))
    home = folder / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), DO_NOT_TRACK="1", DISABLE_TELEMETRY="1")
    return folder, env


def skillbook_rounds(scratch, repo, rounds, verify):
    add, restore, checks, listed, locked = [], [], [], [], []
    for _ in range(rounds):
        folder, env = workspace(scratch)
        add.append(run([SKILLBOOK, "add", f"file://{repo}", "--yes"], folder, env))
        shutil.rmtree(folder / ".agents/skills")
        restore.append(run([SKILLBOOK, "install"], folder, env))
        if verify:
            checks.append(run([SKILLBOOK, "verify"], folder, env))
            listed.append(run([SKILLBOOK, "--no-home", "list"], folder, env))
            locked.append(run([SKILLBOOK, "--no-home", "--locked", "list"], folder, env))
        shutil.rmtree(folder)
    return add, restore, checks, listed, locked


def skills_tool_rounds(scratch, repo, rounds, skills_bin):
    add, restore = [], []
    for _ in range(rounds):
        folder, env = workspace(scratch)
        env["PATH"] = f"{skills_bin}{os.pathsep}{env['PATH']}"
        add.append(run(["skills", "add", f"file://{repo}", "--skill", "*", "-y"], folder, env))
        shutil.rmtree(folder / ".agents/skills")
        # 1.7.4 fails to restore from a `file://` repository (it clones the skill's folder as
        # if it were a repository of its own): such a round is reported as failing.
        restore.append(run(["skills", "experimental_install", "-y"], folder, env, check=False))
        shutil.rmtree(folder)
    return add, restore


def median(values):
    if not values:
        return "—"
    if any(value is None for value in values):
        return "fails"
    return f"{statistics.median(values):.2f} s"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--verify-skills", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skills-bin", help="folder holding `skills` and `node` (Node 22)")
    arguments = parser.parse_args()
    if not SKILLBOOK.exists() or not GENERATE.exists():
        sys.exit("build first: cargo build --release -p skillbook-cli -p skillbook --examples")
    skills_bin = arguments.skills_bin or (
        str(Path(shutil.which("skills")).parent) if shutil.which("skills") else None)
    print("| skills | command | skillbook | `skills` 1.7.x |")
    print("|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="skillbook-bench-packages-") as scratch:
        scratch = Path(scratch)
        for size, verify in ((arguments.skills, False), (arguments.verify_skills, True)):
            repo = repository(scratch, size, arguments.seed)
            add, restore, checks, listed, locked = skillbook_rounds(
                scratch, repo, arguments.rounds, verify)
            tool_add, tool_restore = ([], [])
            if skills_bin:
                tool_add, tool_restore = skills_tool_rounds(
                    scratch, repo, arguments.rounds, skills_bin)
            print(f"| {size:,} | add (fetch, check, install, lock) | {median(add)} "
                  f"| {median(tool_add)} |")
            print(f"| {size:,} | install from the lock into an empty folder | {median(restore)} "
                  f"| {median(tool_restore)} |")
            if verify:
                print(f"| {size:,} | verify every installed skill | {median(checks)} | — |")
                print(f"| {size:,} | `list` | {median(listed)} | — |")
                print(f"| {size:,} | `list --locked` (every file hashed) | {median(locked)} "
                      "| — |")


if __name__ == "__main__":
    main()

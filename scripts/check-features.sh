#!/usr/bin/env bash
# Checks that the library builds with no optional feature and with each of its features alone
# (what `cargo hack --each-feature` does, without installing it). The features are read from
# `cargo metadata`, so a feature added to crates/skillbook/Cargo.toml is checked without editing
# this script. Stops at the first combination that does not build, or builds with warnings.
#
# Usage: bash scripts/check-features.sh [extra cargo check arguments, e.g. --offline]
set -euo pipefail
cd "$(dirname "$0")/.."

package=skillbook

features=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys

package = sys.argv[1]
for candidate in json.load(sys.stdin)["packages"]:
    if candidate["name"] == package:
        for feature in sorted(candidate["features"]):
            if feature != "default":
                print(feature)
        break
else:
    sys.exit(f"error: cargo metadata lists no package named {package}")
' "$package")

# check LABEL [FEATURE ARGUMENTS...]
check() {
  local label=$1
  shift
  local started=$SECONDS
  echo "+ cargo check -p $package --no-default-features${*:+ $*} --locked"
  local output
  if ! output=$(cargo check -p "$package" --no-default-features "$@" --locked --quiet "${extra[@]}" 2>&1); then
    echo "$output" >&2
    echo "error: $package does not build with $label (cargo check -p $package --no-default-features${*:+ $*})" >&2
    exit 1
  fi
  # Warnings count too: code a feature leaves unused is code that feature should gate.
  if grep -q '^warning' <<<"$output"; then
    echo "$output" >&2
    echo "error: $package builds with warnings with $label (cargo check -p $package --no-default-features${*:+ $*})" >&2
    exit 1
  fi
  echo "  $label: ok in $((SECONDS - started))s"
}

extra=("$@")
check "no optional feature"
count=0
for feature in $features; do
  check "only the feature \`$feature\`" --features "$feature"
  count=$((count + 1))
done
echo "$package builds with no optional feature and with each of its $count features alone: $(echo $features)"

#!/usr/bin/env bash
# docs/linking.md's first sh block, run as written: in a copy of the repository's tracked files
# (its build-lib/ and quickstart stay out of the source tree), with HOME a scratch folder, so that
# the library installs into <scratch>/.local, and the C example builds against it through
# pkg-config and runs. The block must end with the example's own line.
#   usage: test_linking_doc.sh REPO_ROOT WORK_DIR
set -euo pipefail
repo=$1 work=$2
rm -rf "$work"
mkdir -p "$work/repo" "$work/home"
block=$(awk '/^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$repo/docs/linking.md")
[ -n "$block" ] || { echo "docs/linking.md has no sh block"; exit 1; }
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$work/repo")
echo "-- docs/linking.md's commands, in $work/repo with HOME=$work/home:"
echo "$block"
out=$(cd "$work/repo" && HOME="$work/home" bash -euo pipefail -c "$block" 2>&1) ||
  { echo "$out" | tail -n 40; echo "FAILED: the commands above"; exit 1; }
echo "$out" | tail -n 3
grep -q "^64 depth images of 106 x 60" <<<"$out" || { echo "FAILED: the example printed no depth images"; exit 1; }
echo "docs/linking.md's commands build, install and link the C example, which runs"

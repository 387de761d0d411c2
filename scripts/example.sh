#!/usr/bin/env bash
# The main job on the bundled example: one confined run that writes and
# deletes (the host tree stays as it was), then `vigiles test` and
# `vigiles audit` on examples/, a repository that vendors four plugins.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/vigiles}")
hr() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

hr "1. vigiles run: a hook that writes one file and deletes another, confined"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r examples/. "$work/"
before=$(cd "$work" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)
(cd "$work" && "$bin" run -- bash -c 'echo "{\"ok\":true}" > hook-output.json; rm README.md; echo done')
after=$(cd "$work" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)
[ "$before" = "$after" ] && echo "host tree unchanged: README.md is still there, hook-output.json is not" \
  || { echo "the host tree changed!"; exit 1; }

hr "2. vigiles test: the expectations in examples/.vigiles.yml (two are meant to fail)"
(cd examples && "$bin" test); code=$?
echo "(vigiles test exited $code: 1 means an expectation failed, as intended here)"
[ "$code" = 1 ] || { echo "expected exit 1"; exit 1; }

hr "3. vigiles audit: every hook, every event, against the committed baseline"
(cd examples && "$bin" audit); code=$?
echo "(vigiles audit exited $code)"
[ "$code" -le 1 ] || exit 1
exit 0

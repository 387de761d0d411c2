#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (FUZZTIME, default 10s). The
# seed corpora live under each package's testdata/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-10s}
grep -rl --include='*_test.go' '^func Fuzz' pkg cmd | sort | while read -r f; do
  dir=$(dirname "$f")
  for name in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "fuzz ./$dir $name ($t)" >&2
    if ! out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "./$dir" 2>&1); then
      echo "$out" >&2
      exit 1
    fi
  done
done

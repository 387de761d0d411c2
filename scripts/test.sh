#!/usr/bin/env bash
# Every test, as CI runs it (after scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== gofmt" >&2
unformatted=$(gofmt -l $(git ls-files '*.go') 2>&1 || true)
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted" >&2; exit 1; fi
echo "== go vet" >&2
go vet ./...
echo "== go test (race, shuffled; real bubblewrap, nftables, slirp4netns, pasta)" >&2
go test -race -shuffle=on -timeout 40m ./...
echo "== fuzz targets, ${FUZZTIME:-10s} each" >&2
bash scripts/fuzz.sh
if [ -f image/test.sh ]; then
  echo "== container image test" >&2
  bash image/test.sh
fi

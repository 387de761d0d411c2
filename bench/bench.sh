#!/usr/bin/env bash
# bench/bench.sh — measure what a confined run costs next to its floor.
#
# Runs bench/cmd/vbench (see its doc comment) against bin/vigiles and prints
# a markdown report: the machine, a table of medians, p90 and ratios to raw
# bubblewrap, and the 200-hook audit. Flags are passed through, e.g.
#   bash bench/bench.sh -rounds 10 -no-srt
#   bash bench/bench.sh -o bench/last.md
# `make bench` runs it after installing the dependencies and building; run
# directly, it installs them (scripts/install-deps.sh) where bubblewrap is
# missing, and builds bin/ where it is missing.
#
# The peer, srt (@anthropic-ai/sandbox-runtime), is installed by vbench with
# npm into a temporary directory; it needs ripgrep and socat on Linux, which
# this script installs with apt-get when they are missing and it runs as
# root (set VBENCH_NO_INSTALL=1 to skip both installs).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -x bin/vigiles ]]; then
	echo "bench: building bin/vigiles" >&2
	make build >&2
fi

if [[ -z "${VBENCH_NO_INSTALL:-}" ]] && ! command -v bwrap >/dev/null; then
	# What `make bench` installs first: run directly on a fresh machine,
	# the script would otherwise stop at the first missing sandbox part.
	bash scripts/install-deps.sh >&2
fi

if [[ -z "${VBENCH_NO_INSTALL:-}" && $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
	missing=()
	command -v rg >/dev/null || missing+=(ripgrep)
	command -v socat >/dev/null || missing+=(socat)
	if ((${#missing[@]})); then
		echo "bench: installing ${missing[*]} (srt needs them)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
			echo "bench: could not install ${missing[*]}; srt will be reported as unable to run" >&2
	fi
fi

echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/vbench" ./bench/cmd/vbench
"$tmp/vbench" -vigiles bin/vigiles "$@"

// Command vbench measures what a confined run costs next to its physical
// floor, in one run and interleaved: direct exec, raw bubblewrap, the
// honest floors for a routed namespace (bwrap + slirp4netns, bwrap +
// pasta), `vigiles run` in each egress mode, write recording in a small and
// a huge tree, and a peer (the npm package @anthropic-ai/sandbox-runtime's
// `srt`, installed on the fly into a temporary directory). Then it audits
// 200 hooks, once with hooks that run `true` (nothing but vigiles' cost)
// and once with hooks that take 200 ms (`sleep 0.2`), and reports wall
// time, vigiles' own share, the CPU spread over cores and the broker's
// peak RSS.
//
// It prints a markdown report (the tables docs/performance.md carries) on
// stdout, and with -o writes it to a file too. It never asserts a time: a
// case that fails is reported as failed, with its error, in the table.
//
// Run it through `make bench` (or `bash bench/bench.sh [flags]`), as root
// on Linux, with bin/vigiles built.
package main

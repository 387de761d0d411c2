// Command vwritemem measures the broker's memory for a large write record:
// it runs `vigiles run --json` on a command that makes N empty files in
// one directory of an empty work tree, for each binary given, side by
// side (each N: every binary once per round, in turn), and reports the
// broker's peak RSS (its VmHWM) and the ratio of each binary's to the
// first's. It checks that every binary wrote the same JSON document for
// the same N (durationMs and the tool's version aside, which differ from
// run to run and from binary to binary).
//
// With -command test it runs `vigiles test --format json` instead, in a
// work tree whose .vigiles.yml has one check: a plugin's Stop hook that
// makes the N files, expected to write only under its directory. What is
// measured is then the report's path: the run's record made a hook run
// of the report, the check's evaluation, the JSON report.
//
// With -command merge it runs `vigiles merge` of two shard reports: the
// first binary writes them once for each N (`vigiles test --shard 1/2`
// and `2/2 --format json --output FILE` in a work tree of two plugins,
// one whose Stop hook makes the N files and one whose hook writes
// nothing), and each binary merges them to stdout. What is measured is
// then merge's path: the reports read, joined, and written as one.
//
// VmHWM is read every 2 ms, once more when the broker's stdout pipe is
// first full (a broker that makes its document whole has then made it),
// and after every read of its stdout until it ends (one that writes its
// document in pieces makes them as it is read). Only the broker is
// measured (the init, bubblewrap and the command are other processes).
//
// It never asserts a figure: the peaks are reported, not judged (what
// ends it with an error is a run that fails, or a document that differs
// from the first binary's).
//
//	go run ./bench/cmd/vwritemem -vigiles /tmp/old/bin/vigiles -vigiles bin/vigiles -n 10000,100000,1000000 -rounds 3
//	go run ./bench/cmd/vwritemem -command test -vigiles /tmp/old/bin/vigiles -vigiles bin/vigiles
//	go run ./bench/cmd/vwritemem -command merge -vigiles /tmp/old/bin/vigiles -vigiles bin/vigiles -n 100000,1000000
package main

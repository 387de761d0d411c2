// Command vstartup profiles the start-up of a confined run: it runs
// `vigiles run --json -- true` under `strace -f --seccomp-bpf` (only a few
// syscalls are stopped: execve, clone, mount, seccomp, landlock, exit), in
// each egress mode, interleaved, and splits each run's wall time into
// phases by the events that separate them (the broker's start, bwrap's
// exec, the init's exec and first mount, the reaper's exec, the overlay
// mount, the reaper's seccomp filter, the command's exec and exit, the broker's
// exit). It prints the median of each phase as a markdown table.
//
// strace adds a little to every stopped syscall, so the phases add up to
// more than an untraced run; their relative sizes are what it is for.
//
// It never asserts a time: the medians are reported, not judged.
//
//	go run ./bench/cmd/vstartup -vigiles bin/vigiles -rounds 10
package main

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// TestRunHelpDefaultsAreTheSandboxs: each default vigiles run --help
// shows for a limit is the one the sandbox applies when the flag is not
// given (reaper.Defaults, sandbox.DefaultTimeout and DefaultOutputCap),
// since the help writes them out as text.
func TestRunHelpDefaultsAreTheSandboxs(t *testing.T) {
	_, help, _ := runCLI(t, "run", "--help")
	d := reaper.Defaults
	for _, tc := range []struct {
		flag string
		want uint64
		size bool // written as a size (1GiB), else a whole number
	}{
		{"limit-pids", uint64(d.Pids), false},
		{"limit-memory", d.MemoryBytes, true},
		{"limit-run-memory", d.RunMemoryBytes, true},
		{"limit-file-size", d.FileBytes, true},
		{"limit-scratch", d.ScratchBytes, true},
		{"limit-cpu", d.CPUSeconds, false},
		{"limit-open-files", d.OpenFiles, false},
		{"output-cap", sandbox.DefaultOutputCap, true},
	} {
		line := regexp.MustCompile(`(?m)^      --` + tc.flag + ` .*$`).FindString(help)
		m := regexp.MustCompile(`\(default "?([0-9][0-9A-Za-z]*)`).FindStringSubmatch(line)
		if m == nil {
			t.Errorf("vigiles run --help shows no default for --%s: %q", tc.flag, line)
			continue
		}
		var got uint64
		var err error
		if tc.size {
			got, err = runner.ParseSize(m[1])
		} else {
			got, err = strconv.ParseUint(m[1], 10, 64)
		}
		if err != nil || got != tc.want {
			t.Errorf("vigiles run --help: --%s default %s; the sandbox's is %d", tc.flag, m[1], tc.want)
		}
	}
	line := regexp.MustCompile(`(?m)^      --timeout .*$`).FindString(help)
	if m := regexp.MustCompile(`\(default ([0-9a-z.]+)\)`).FindStringSubmatch(line); m == nil {
		t.Errorf("vigiles run --help shows no default for --timeout: %q", line)
	} else if got, err := time.ParseDuration(m[1]); err != nil || got != sandbox.DefaultTimeout {
		t.Errorf("vigiles run --help: --timeout default %s; the sandbox's is %s", m[1], sandbox.DefaultTimeout)
	}
}

// TestDurationsAreWrittenOneWay: a duration the CLI shows, a flag's
// default in its help or the range and default a message names, is
// written as report.ShortDuration writes it (1m, 24h), never as pflag's and
// time.Duration's String (1m0s, 24h0m0s): vigiles run --timeout 0 said
// "(default 60s)" where --help said "(default 1m0s)".
func TestDurationsAreWrittenOneWay(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {time.Minute, "1m"}, {24 * time.Hour, "24h"}, {90 * time.Minute, "1h30m"},
		{90 * time.Second, "1m30s"}, {1500 * time.Millisecond, "1.5s"}, {10 * time.Minute, "10m"},
	} {
		if got := report.ShortDuration(tc.d); got != tc.want {
			t.Errorf("report.ShortDuration(%v) = %q; want %q", tc.d, got, tc.want)
		}
	}
	_, help, _ := runCLI(t, "run", "--help")
	for flag, want := range map[string]string{"timeout": "(default 1m)", "linger": "(default 0s: end them at once)"} {
		line := regexp.MustCompile(`(?m)^      --` + flag + ` .*$`).FindString(help)
		if !strings.Contains(line, want) || !strings.Contains(line, "at most 24h") {
			t.Errorf("vigiles run --help: --%s %q; want %q and at most 24h", flag, line, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "0"}, "vigiles: run: --timeout 0s: want a duration above 0 and at most 24h, such as 30s or 2m (default 1m)\n"},
		{[]string{"--timeout", "-5m"}, "vigiles: run: --timeout -5m: want a duration above 0 and at most 24h, such as 30s or 2m (default 1m)\n"},
		{[]string{"--timeout", "25h"}, "vigiles: run: --timeout 25h: want a duration above 0 and at most 24h, such as 30s or 2m (default 1m)\n"},
		{[]string{"--linger", "-1s"}, "vigiles: run: --linger -1s: want 0 (end leftover processes at once, the default) or a duration above 0 and at most 24h\n"},
		{[]string{"--linger", "99999999h"}, "vigiles: run: --linger 99999999h: out of range; want 0 (end leftover processes at once, the default) or a duration above 0 and at most 24h; see vigiles run --help\n"},
	} {
		code, _, stderr := runCLI(t, append(append([]string{"run"}, tc.args...), "--", "true")...)
		if code != 2 || stderr != tc.want {
			t.Errorf("vigiles run %s: exit %d, stderr %q; want 2, %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// TestHelpLeavesTheFlagsAsTheyAre: the help shows a duration's default as
// the docs write it (1m), from a copy of the flags: the flag set's own
// default stays pflag's (1m0s), and a second help in the same process
// reads the same as the first (it rewrote each DefValue in place).
func TestHelpLeavesTheFlagsAsTheyAre(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.String("workdir", "", "the work tree")
	fs.Duration("timeout", time.Minute, "kill the command after this long")
	fs.Duration("linger", 90*time.Minute, "keep observing its leftovers this long")
	fs.BoolP("quiet", "q", false, "say less")
	var first, second strings.Builder
	if err := writeHelp(&first, "Usage: vigiles run\n\nFlags:\n", fs); err != nil {
		t.Fatal(err)
	}
	if err := writeHelp(&second, "Usage: vigiles run\n\nFlags:\n", fs); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Errorf("two helps differ:\n%s\n---\n%s", first.String(), second.String())
	}
	for _, want := range []string{"(default 1m)", "(default 1h30m)", "  -q, --quiet"} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("the help does not say %q:\n%s", want, first.String())
		}
	}
	// In the order the flags were made, as fs.SortFlags says.
	if w, q := strings.Index(first.String(), "--workdir"), strings.Index(first.String(), "--quiet"); w < 0 || q < w {
		t.Errorf("the flags are not in fs's order:\n%s", first.String())
	}
	for name, want := range map[string]string{"timeout": "1m0s", "linger": "1h30m0s", "workdir": "", "quiet": "false"} {
		if got := fs.Lookup(name).DefValue; got != want {
			t.Errorf("after the help, --%s's DefValue is %q, want pflag's %q", name, got, want)
		}
	}
}

package main

import (
	"regexp"
	"strconv"
	"testing"
	"time"

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

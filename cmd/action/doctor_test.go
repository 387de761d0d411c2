package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestDoctorNftablesProbeUsesTheEngine: doctor's nftables check sets up
// a run's egress wall with the egress layer the engine uses (through the
// kernel, no nft binary) in a fresh network namespace, so a PATH without
// nft (a Debian user's, without /usr/sbin) is no reason to call it
// missing. It said "nft is not in PATH, so nftables cannot be tried …
// fix: install nftables", though nftables was installed and the engine
// never runs nft.
func TestDoctorNftablesProbeUsesTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bubblewrap for real")
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		missing(t, "bubblewrap")
	}
	only := t.TempDir()
	if err := os.Symlink(bwrap, filepath.Join(only, "bwrap")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", only) // bwrap alone: no nft, as for a user without /usr/sbin
	code, out, errs := runCLI(t, "doctor", "--json")
	var r struct {
		Probes []struct{ Name, Availability, Detail, Fix string } `json:"probes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errs)
	}
	for _, p := range r.Probes {
		if p.Name != sandbox.ProbeNftables {
			continue
		}
		if p.Availability != "available" || strings.Contains(p.Detail+p.Fix, "nft is not in PATH") {
			t.Errorf("%s with only bwrap on PATH: %s: %s (fix: %s)", p.Name, p.Availability, p.Detail, p.Fix)
		}
		return
	}
	t.Errorf("no %s probe in %s", sandbox.ProbeNftables, out)
}

// TestDoctorOfHostileToolCachesIsInert: vigiles doctor's tool-caches
// check quotes RUNNER_TOOL_CACHE and AGENT_TOOLSDIRECTORY, whose values a
// workflow's env: (a pull request's) or a runner's configuration sets,
// and doctor may run as a step of a workflow: its text and its JSON
// issue no workflow command (a legacy "##[error]" anywhere in a line, a
// line that starts "::"), carry no control or format character (an
// ANSI escape, a C1 CSI, a bidi override), and keep the values' text.
// Before, doctor printed "##[error]" and U+202E as the variables held
// them, in its text and in its JSON.
func TestDoctorOfHostileToolCachesIsInert(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bubblewrap for real")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tc := filepath.Join(dir, "tc ##[error]FORGED-LEGACY \u202eevil \x1b[2K\u009b31m @org/team")
	if err := os.MkdirAll(tc, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RUNNER_TOOL_CACHE", tc)
	t.Setenv("AGENT_TOOLSDIRECTORY", "/nowhere\n::error::FORGED-LF\r::warning::FORGED-CR ##[add-mask]FORGED-MASK\u200b\n./main.go:1:1: FORGED-GO\nsrc/a.ts(1,2): error TS2304: FORGED-TSC")
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		code, out, errs := runCLI(t, args...)
		if code != 0 && code != 1 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		for _, c := range annotatetest.Commands(out + errs) {
			t.Errorf("%v issues the workflow command %+v", args, c)
		}
		wantNoIssues(t, strings.Join(args, " "), out+errs)
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && annotatetest.UnsafeRune(r) }); i >= 0 {
			t.Errorf("%v prints %q", args, []rune(out[i:])[0])
		}
		text := out
		if len(args) == 2 {
			var r struct {
				Probes []struct{ Name, Detail string } `json:"probes"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			text = ""
			for _, p := range r.Probes {
				if p.Name == sandbox.ProbeToolCaches {
					text = p.Detail
				}
			}
		}
		for _, want := range []string{"FORGED-LEGACY", "FORGED-LF", "FORGED-MASK", "@org/team"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v does not name %s:\n%s", args, want, out)
			}
		}
	}
}

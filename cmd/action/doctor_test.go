package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestEgressTextShowsTheLocalLine: the text report's line for an attempt
// at the sandbox's own loopback that nothing answered starts "local", not
// "allowed" or "blocked", and is the line docs/egress.md shows for it, as
// a real run prints it; the doc said every line was allowed or blocked.
func TestEgressTextShowsTheLocalLine(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if _, err := exec.LookPath("bash"); err != nil {
		sandboxtest.Missing(t, "bash")
	}
	doc, err := os.ReadFile("../../docs/egress.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "local ") {
			shown = strings.TrimSpace(l)
			break
		}
	}
	if shown == "" {
		t.Fatal("docs/egress.md shows no local line of vigiles run's text report")
	}
	if !strings.Contains(string(doc), "prints one line per entry: allowed, blocked or local") {
		t.Error("docs/egress.md does not say that a line of vigiles run's text report may be local")
	}
	// A TCP connect to a port of the sandbox's loopback nothing listens on.
	code, _, errs := runCLI(t, "run", "--workdir", t.TempDir(), "--", "bash", "-c", "echo > /dev/tcp/127.0.0.1/4000; true")
	if code != 0 {
		t.Fatalf("vigiles run: exit %d:\n%s", code, errs)
	}
	var got string
	for _, l := range strings.Split(errs, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "local ") {
			got = strings.TrimSpace(l)
		}
	}
	if got != shown {
		t.Errorf("vigiles run prints the loopback attempt as\n%q\ndocs/egress.md shows\n%q\nfull stderr:\n%s", got, shown, errs)
	}
}

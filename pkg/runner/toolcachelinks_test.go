package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestWroteOnlyLinkInAToolCache: a write in a runner's tool cache is
// recorded by its absolute path, and a symlink there is judged as one in
// the work tree is, at the tool cache's own path on the host, which the
// run showed as it is: a relative target within what wrote-only allows
// passes; one through a link the host has there (where it leads is the
// host's), a ".." above the root, or one the patterns do not allow fails.
func TestWroteOnlyLinkInAToolCache(t *testing.T) {
	// Where a tool cache is (/opt), not in /tmp, whose paths are
	// recorded as $TMPDIR/….
	dir, err := os.MkdirTemp("/opt", "vigiles-toolcache-")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI runs as root, and the test makes a tool cache in /opt: %v", err)
		}
		t.Skipf("the test makes a tool cache in /opt, which it may not write: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	tc := filepath.Join(dir, "toolcache")
	if err := os.MkdirAll(filepath.Join(tc, "node", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(tc, "node", "etc")); err != nil {
		t.Fatal(err)
	}
	cfg, errs := configErrs(t, "checks:\n  - {name: tools, command: x, expect: {wrote-only: ['"+tc+"/node/**']}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	link := func(p, target string) evidence.Write {
		return evidence.Write{Path: tc + p, Op: evidence.OpCreate, Kind: "symlink", Target: target}
	}
	for _, c := range []struct {
		name   string
		writes []evidence.Write
		want   string // the finding's evidence; "" for a pass
	}{
		{"a file", []evidence.Write{{Path: tc + "/node/bin/npx", Op: evidence.OpCreate, Kind: "file"}}, ""},
		{"within", []evidence.Write{link("/node/bin/nodejs", "node")}, ""},
		{"beside", []evidence.Write{{Path: tc + "/python/bin/python3", Op: evidence.OpModify, Kind: "file"}},
			"modify " + tc + "/python/bin/python3"},
		{"out of what it may write", []evidence.Write{link("/node/bin/python3", "../../python/bin/python3")},
			"create " + tc + "/node/bin/python3 (links to " + tc + "/python/bin/python3, outside what it may write)"},
		{"through the host's link", []evidence.Write{link("/node/bin/profile", "../etc/profile")},
			"create " + tc + "/node/bin/profile (links to ../etc/profile, outside what it may write)"},
		{"up to the host's /etc", []evidence.Write{link("/node/up", strings.Repeat("../", strings.Count(tc, "/")+1)+"etc/profile")},
			"create " + tc + "/node/up (links to /etc/profile, outside what it may write)"},
		{"above the root", []evidence.Write{link("/node/up", strings.Repeat("../", 16)+"etc/profile")},
			"create " + tc + "/node/up (links to " + strings.Repeat("../", 16) + "etc/profile, outside what it may write)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := report.HookRun{ID: "h", Event: PreToolUse, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: c.writes, Egress: []evidence.Egress{}}
			fs := checkExpectations(cfg.Checks[0], executed{run: run, tree: "/nonexistent/repo"})
			if c.want == "" {
				if len(fs) != 0 {
					t.Fatalf("want a pass: %v", findingLines(fs))
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("%v; want one %s finding, evidence %q", findingLines(fs), ExpWroteOnly, c.want)
			}
			if fs[0].Evidence != c.want {
				t.Errorf("%v (evidence %q); want one %s finding, evidence %q", findingLines(fs), fs[0].Evidence, ExpWroteOnly, c.want)
			}
		})
	}
}

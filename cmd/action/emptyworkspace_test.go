package main

import (
	"os"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
)

// TestActionEmptyWorkspaceNamesTheCheckout: a job without
// actions/checkout runs the action in an empty workspace. test said only
// that the policy file was missing, and audit failed on finding no
// hooks; both now say what is missing, the checkout, and exit 2 with
// verdict error, also where working-directory names a directory of the
// repository (which the empty workspace lacks too). merge reads
// downloaded reports, not a checkout.
func TestActionEmptyWorkspaceNamesTheCheckout(t *testing.T) {
	for name, inputs := range map[string]map[string]string{
		"test":                    {"command": "test"},
		"audit":                   {"command": "audit"},
		"test in a directory":     {"command": "test", "working-directory": "tools"},
		"audit with its baseline": {"command": "audit", "working-directory": "tools", "baseline": ".vigiles/baseline.json"},
	} {
		t.Run(name, func(t *testing.T) {
			s := newStep(t, inputs)
			ws := s.env["GITHUB_WORKSPACE"]
			if err := os.RemoveAll(ws); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			s.run(t)
			want := "the workspace " + ws + " is empty: nothing checked the repository out; add a step of actions/checkout before vigiles"
			if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); s.exitCode != 2 || !strings.Contains(got, want) {
				t.Errorf("exit %d, want 2 saying %q\n%s", s.exitCode, want, got)
			}
			if out := outputs(t, s.file(t, "GITHUB_OUTPUT")); out["verdict"] != "error" {
				t.Errorf("outputs %v, want verdict=error", out)
			}
			reqs := s.api.Requests()
			if len(s.exec.specs) != 0 || len(reqs) != 0 {
				t.Errorf("%d hooks ran, %d API requests made", len(s.exec.specs), len(reqs))
			}
		})
	}
}

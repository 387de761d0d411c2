package egress

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/nftables"

	"github.com/vigiles/action/pkg/evidence"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// goldenPolicies are the policies whose rule sets are golden-tested.
var goldenPolicies = map[string]evidence.EgressPolicy{
	"deny":   {Mode: evidence.EgressDeny},
	"record": {Mode: evidence.EgressRecord},
	"allow": {
		Mode:        evidence.EgressAllow,
		Allow:       []string{"api.example.test", "*.cdn.example.test", "git.example.test:443"},
		AllowIP:     []string{"203.0.113.0/24", "203.0.113.7", "10.1.2.3", "2001:db8::/32", "2001:db8:1::/48"},
		DNSUpstream: "198.18.0.2",
	},
	"allow-v6-upstream": {
		Mode:        evidence.EgressAllow,
		Allow:       []string{"api.example.test:8443"},
		DNSUpstream: "[2001:db8::53]:5353",
	},
	"allow-everything-ip": {
		Mode:    evidence.EgressAllow,
		AllowIP: []string{"0.0.0.0/0", "::/0"},
	},
}

// childRuleset loads the rule set for the policy in envSpec into this
// fresh namespace and prints `nft list ruleset`.
func childRuleset() int {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(envSpec)), &spec); err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	pol, err := compilePolicy(spec.Policy)
	if err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	c, err := nftables.New()
	if err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	if _, err := buildRuleset(c, pol); err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	if err := c.Flush(); err != nil {
		return emit(childResult{SetupErr: "flush: " + err.Error()})
	}
	out, err := exec.Command("nft", "list", "ruleset").CombinedOutput()
	if err != nil {
		return emit(childResult{SetupErr: fmt.Sprintf("nft list ruleset: %v: %s", err, out)})
	}
	return emit(childResult{Ruleset: string(out)})
}

// TestRulesetGolden builds the rule set from each policy, loads it into a
// throwaway network namespace and compares `nft list ruleset` with the
// golden file.
func TestRulesetGolden(t *testing.T) {
	needNamespaces(t)
	for name, p := range goldenPolicies {
		t.Run(name, func(t *testing.T) {
			res := runChild(t, "ruleset", childSpec{Policy: p}, nil)
			if res.SetupErr != "" {
				t.Fatalf("loading the rule set: %s", res.SetupErr)
			}
			path := filepath.Join("testdata", "ruleset", name+".nft")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(res.Ruleset), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if d := cmp.Diff(string(want), res.Ruleset); d != "" {
				t.Errorf("rule set for %s differs from %s (-want +got):\n%s", name, path, d)
			}
		})
	}
}

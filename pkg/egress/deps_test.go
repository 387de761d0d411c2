package egress

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies enforces the architecture rule: egress never imports
// sandbox, runner or annotate, nor the GitHub or flag libraries.
func TestDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		missing(t, "the go tool")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v: %s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{
			"github.com/vigiles/action/pkg/sandbox", "github.com/vigiles/action/pkg/runner",
			"github.com/vigiles/action/pkg/annotate", "github.com/vigiles/action/cmd",
			"github.com/google/go-github", "github.com/spf13/pflag",
		} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("pkg/egress depends on %s", dep)
			}
		}
	}
}

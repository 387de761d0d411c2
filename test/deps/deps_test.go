// Package deps enforces the dependency graph of docs/architecture.md.
package deps

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/vigiles/action"

// rules: what each package must never depend on (directly or not).
var rules = map[string][]string{
	module + "/pkg/evidence": {module + "/pkg/", "github.com/"},
	module + "/pkg/report":   {module + "/pkg/sandbox", module + "/pkg/egress", module + "/pkg/runner", module + "/pkg/annotate", "github.com/google/go-github", "github.com/spf13/pflag"},
	module + "/pkg/sandbox":  {module + "/pkg/egress", module + "/pkg/runner", module + "/pkg/annotate", "github.com/google/go-github", "github.com/google/nftables", "github.com/spf13/pflag"},
	module + "/pkg/egress":   {module + "/pkg/sandbox", module + "/pkg/runner", module + "/pkg/annotate", "github.com/google/go-github", "github.com/spf13/pflag"},
	module + "/pkg/runner":   {module + "/pkg/annotate", "github.com/google/go-github", "github.com/google/nftables", "github.com/spf13/pflag"},
	module + "/pkg/annotate": {module + "/pkg/sandbox", module + "/pkg/egress", module + "/pkg/runner", "github.com/google/nftables", "github.com/spf13/pflag"},
	// The reaper's binary starts in about a minimal Go program's time
	// only while it links nothing but the kernel interfaces it uses.
	module + "/pkg/sandbox/reaper": {module + "/", "github.com/", "golang.org/x/net", "gopkg.in/"},
	// Shared by the sandbox engine and the egress layer, which never
	// import each other: it must bring neither along.
	module + "/internal/procwait": {module + "/", "github.com/", "golang.org/x/net", "gopkg.in/"},
	module + "/internal/tapkeep":  {module + "/", "github.com/", "golang.org/x/net", "gopkg.in/"},
	module + "/internal/hostprog": {module + "/", "github.com/", "golang.org/x/net", "gopkg.in/"},
	module + "/internal/textdist": {module + "/", "github.com/", "golang.org/x/", "gopkg.in/"},
	module + "/internal/textcut":  {module + "/", "github.com/", "golang.org/x/", "gopkg.in/"},
	// Linked by the reaper's binary too: the standard library alone.
	module + "/pkg/sandbox/internal/exact": {module + "/", "github.com/", "golang.org/x/", "gopkg.in/"},
	// The lean binaries: the reaper's links the reaper alone, the
	// in-sandbox roles' the engine and the egress layer, none of the CLI.
	module + "/cmd/vigiles-reaper":  {module + "/", "github.com/", "golang.org/x/net", "gopkg.in/"},
	module + "/cmd/vigiles-sandbox": {module + "/pkg/runner", module + "/pkg/annotate", "github.com/google/go-github", "github.com/spf13/pflag"},
}

func TestDependencyGraph(t *testing.T) {
	for pkg, banned := range rules {
		out, err := exec.Command("go", "list", "-deps", "-json", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var p struct {
				ImportPath string
				Standard   bool
			}
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			if p.Standard || p.ImportPath == pkg || strings.HasPrefix(p.ImportPath, pkg+"/") {
				continue
			}
			for _, b := range banned {
				if strings.HasPrefix(p.ImportPath, b) && !allowed(pkg, p.ImportPath) {
					t.Errorf("%s depends on %s, which docs/architecture.md forbids", pkg, p.ImportPath)
				}
			}
		}
	}
}

// allowed lists the exceptions to a prefix ban.
func allowed(pkg, dep string) bool {
	switch pkg {
	case module + "/pkg/evidence":
		return false
	case module + "/internal/procwait", module + "/internal/tapkeep", module + "/internal/hostprog", module + "/internal/textdist", module + "/internal/textcut",
		module + "/pkg/sandbox/internal/exact":
		return false
	case module + "/pkg/sandbox/reaper":
		return dep == module+"/pkg/sandbox/landlock" || dep == module+"/pkg/sandbox/seccomp" || dep == module+"/pkg/sandbox/internal/fsx" ||
			dep == module+"/pkg/sandbox/internal/exact"
	case module + "/cmd/vigiles-reaper":
		return dep == module+"/pkg/sandbox/reaper" || allowed(module+"/pkg/sandbox/reaper", dep)
	}
	// pkg/sandbox's own subpackages and the neutral types are fine anywhere.
	return dep == module+"/pkg/evidence" || dep == module+"/pkg/report" ||
		strings.HasPrefix(dep, module+"/pkg/sandbox/") && pkg == module+"/pkg/sandbox"
}

// testOnly are the packages docs/architecture.md says tests alone import:
// none may be linked into a binary (a fake GitHub API, executors that run
// a command unconfined, a test binary handed to another user).
var testOnly = []string{
	module + "/internal/allocs", module + "/internal/loopfs", module + "/internal/ptytest", module + "/internal/testbin",
	module + "/pkg/annotate/annotatetest", module + "/pkg/runner/runnertest", module + "/pkg/sandbox/sandboxtest",
}

// TestTestOnlyPackagesStayOutOfBinaries: no binary of cmd/ links a
// test-only package, directly or not.
func TestTestOnlyPackagesStayOutOfBinaries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./../../cmd/...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/...: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps ./cmd/... listed nothing")
	}
	for _, p := range testOnly {
		for _, d := range deps {
			if d == p || strings.HasPrefix(d, p+"/") {
				t.Errorf("a binary of cmd/ links %s, which docs/architecture.md says tests alone import", d)
			}
		}
	}
}

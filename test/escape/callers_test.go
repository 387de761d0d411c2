package escape

import (
	"os"
	"testing"
)

// A caller is one way the tests that try every caller call vigiles: a
// runner, and for root on its own tree a --root-sandbox run too.
type caller struct {
	runner
	rootSandbox bool
}

// name is the subtest's name: the runner's, and "/root-sandbox" for a
// --root-sandbox run.
func (c caller) name() string {
	if c.rootSandbox {
		return c.runner.name + "/root-sandbox"
	}
	return c.runner.name
}

// withArgs is args, the arguments of a `vigiles run`, for c: with
// --root-sandbox first for a --root-sandbox run.
func (c caller) withArgs(args []string) []string {
	if c.rootSandbox {
		return append([]string{"--root-sandbox"}, args...)
	}
	return args
}

// callers lists each of runners, and after root a --root-sandbox run of
// root's (a root caller's, on a root-owned tree).
func callers(t *testing.T) []caller {
	t.Helper()
	var cs []caller
	for _, r := range runners(t) {
		cs = append(cs, caller{runner: r})
		if r.cred == nil && r.owner == nil && os.Geteuid() == 0 {
			cs = append(cs, caller{runner: r, rootSandbox: true})
		}
	}
	return cs
}

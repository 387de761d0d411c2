package sandboxtest

import (
	"context"
	"os"
	"testing"

	"github.com/vigiles/action/pkg/sandbox"
)

// RequireConfinement fails the test in CI (CI=true) and skips it
// elsewhere, saying why, when this host cannot confine.
func RequireConfinement(t testing.TB) {
	t.Helper()
	c := sandbox.ProbeConfinement(context.Background())
	if c.Confine == sandbox.Available {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("confinement is required in CI but %s: %s (fix: %s)", c.Confine, c.Why, c.Fix)
	}
	t.Skipf("this host cannot confine (%s: %s); this test needs bubblewrap with user namespaces", c.Confine, c.Why)
}

// Missing fails the test in CI (CI=true), where .ci/run installs what the
// tests need, and skips it elsewhere, saying what this machine lacks.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and this machine lacks %s, which this test needs", what)
	}
	t.Skipf("this machine lacks %s", what)
}

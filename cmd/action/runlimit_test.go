package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunNamesTheLimitTheHooksShellReports: vigiles run names the limit a
// hook hit where only its stderr says so, in its text report and in its
// JSON, as test and audit do (runner.LimitOf): a scratch the hook filled
// and emptied at once, whose end the init's looks do not see, and a
// child's write past the file-size limit, which the shell reports and
// goes on past. The hook exits 0 both times.
func TestRunNamesTheLimitTheHooksShellReports(t *testing.T) {
	if c := sandbox.ProbeConfinement(context.Background()); c.Confine != sandbox.Available {
		missing(t, "confinement ("+c.Why+"): the limits hold in a confined run only")
	}
	for _, tc := range []struct {
		limit, flag, value, script string
	}{
		{"scratch", "--limit-scratch", "1MiB", "head -c 4M /dev/zero > f; rm -f f; exit 0"},
		{"file-size", "--limit-file-size", "1MiB", "head -c 2M /dev/zero > f; rm -f f; exit 0"},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"run", "--workdir", dir, tc.flag, tc.value, "--", "sh", "-c", tc.script}
			code, _, errs := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, ", limit hit"+labelColon+" "+tc.limit+",") {
				t.Errorf("the report does not name the %s limit:\n%s", tc.limit, errs)
			}
			code, out, errs := runCLI(t, append([]string{"run", "--json"}, args[1:]...)...)
			if code != 0 {
				t.Fatalf("--json: exit %d: %s%s", code, out, errs)
			}
			var res struct {
				LimitHit string `json:"limitHit"`
				Stderr   string `json:"stderr"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("--json: %v:\n%s", err, out)
			}
			if res.LimitHit != tc.limit {
				t.Errorf("--json: limitHit %q, want %q (stderr %q)", res.LimitHit, tc.limit, res.Stderr)
			}
		})
	}
}

package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestScratchFilledAndEmptiedIsALimit: through a real confined run, a hook
// that fills its scratch, removes what it wrote at once and goes on (exit
// 0) wrote nothing the record keeps, and what failed would have worked
// on the host; the init looks at the scratch every 25 ms and may miss it,
// but the tool's own "No space left on device" names the limit: the run
// is a run/limit warning, limitHit scratch, and its no-write expectation
// does not pass on the empty record.
func TestScratchFilledAndEmptiedIsALimit(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".vigiles.yml": "defaults:\n  limits: {scratch: 16MiB}\nplugins:\n  untrusted: [\"plugins/*\"]\n" +
			"checks:\n  - {name: quiet, hook: fill, event: Stop, expect: {no-write: true}}\n",
		"plugins/fill/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ` +
			`"head -c 64000000 /dev/zero > \"$TMPDIR/big\"; rm -f \"$TMPDIR/big\"; exit 0"}]}]}}`,
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs:\n%s", len(rep.Runs), findingLines(rep.Findings))
	}
	r := rep.Runs[0]
	if r.LimitHit != "scratch" || !strings.Contains(r.Stderr, "No space left on device") {
		t.Errorf("limitHit %q, stderr %q: want scratch, and the tool's ENOSPC", r.LimitHit, r.Stderr)
	}
	lines := findingLines(rep.Findings)
	if !strings.Contains(strings.Join(lines, "\n"), "run/limit") || !strings.Contains(strings.Join(lines, "\n"), "expect/not-recorded") {
		t.Errorf("findings %q: want run/limit and expect/not-recorded", lines)
	}
}

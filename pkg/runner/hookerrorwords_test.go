package runner

import (
	"context"
	"strings"
	"testing"
)

// TestHookErrorOfATestNamesNoAudit: vigiles test's run/hook-error of a
// check's hook whose program is not found says where vigiles ran it, not
// "the machine the audit ran on": no audit ran. (The check is trusted, so
// it runs directly here, needing no sandbox; audit's words are the same,
// TestHookError.)
func TestHookErrorOfATestNamesNoAudit(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".vigiles.yml": "checks:\n  - {name: missing, command: vigiles-no-such-program --check, trusted: true, event: Stop, expect: {allowed: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	msgs := messagesOf(rep.Findings, RuleRunHookError)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "a program it runs was not found on the machine vigiles ran it on: install it there") ||
		strings.Contains(msgs[0], "audit") {
		t.Errorf("run/hook-error %q; want one that says where vigiles ran the hook and names no audit", msgs)
	}
}

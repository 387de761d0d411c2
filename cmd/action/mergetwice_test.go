package main

import (
	"os"
	"strings"
	"testing"
)

// TestMergeOfAReportNamedTwice: a report given to merge twice (by its
// name again, as ./a.json, through a symbolic link, or a shard a glob
// named too) is bad usage that says so, where it was read as two whole
// reports ("a.json and a.json are both whole reports") or one shard twice.
func TestMergeOfAReportNamedTwice(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo one"}]}], "SessionStart": [{"hooks": [{"type": "command", "command": "echo two"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	t.Chdir(dir)
	for _, args := range [][]string{
		{"audit", "--format", "json", "-o", "a.json", "-q"},
		{"audit", "--shard", "1/2", "--format", "json", "-o", "s1.json", "-q"},
		{"audit", "--shard", "2/2", "--format", "json", "-o", "s2.json", "-q"},
	} {
		if code, _, errs := runCLI(t, args...); code > 1 {
			t.Fatalf("vigiles %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
	}
	if err := os.Symlink("a.json", "l.json"); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "merge", "s1.json", "s2.json", "-o", "m.json"); code > 1 {
		t.Fatalf("vigiles merge s1.json s2.json: exit %d: %s", code, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", "a.json", "a.json"}, `vigiles: merge: report "a.json" is named twice; name each report once` + "\n"},
		{[]string{"merge", "a.json", "./a.json"}, `vigiles: merge: report "./a.json" is named twice; name each report once` + "\n"},
		{[]string{"merge", "s1.json", "s2.json", "s1.json"}, `vigiles: merge: report "s1.json" is named twice; name each report once` + "\n"},
		{[]string{"merge", "a.json", "l.json"}, `vigiles: merge: reports "a.json" and "l.json" are the same file; name each report once` + "\n"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("vigiles %s: exit %d, stdout %q, stderr %q; want status 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

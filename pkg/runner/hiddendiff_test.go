package runner

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestHiddenDiff: a .gitattributes line that gives the baseline -diff or
// binary (git and a pull request show "Binary files differ") or
// linguist-generated (GitHub folds its diff away) is found where git
// reads it: in the baseline's directory or one above it, a pattern with
// no slash by the name at any depth, one with a slash by the path from
// the file's directory; a later line, or a deeper file, that turns the
// attribute back off leaves the diff shown, and so does a line for
// another file or a directory pattern.
func TestHiddenDiff(t *testing.T) {
	const base = ".vigiles/baseline.json"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string // "file:line attribute", "" for none
	}{
		{"none", map[string]string{".gitattributes": "*.sh text eol=lf\n"}, ""},
		{"-diff by a path", map[string]string{".gitattributes": "# generated\n.vigiles/*.json -diff\n"}, ".gitattributes:2 -diff"},
		{"binary by its name", map[string]string{".gitattributes": "baseline.json binary\n"}, ".gitattributes:1 binary"},
		{"generated, anchored", map[string]string{".gitattributes": "/.vigiles/baseline.json linguist-generated=true\n"}, ".gitattributes:1 linguist-generated=true"},
		{"in its own directory", map[string]string{".vigiles/.gitattributes": "* linguist-generated\n"}, ".vigiles/.gitattributes:1 linguist-generated"},
		{"turned back on by a later line", map[string]string{".gitattributes": "*.json -diff\nbaseline.json diff\n"}, ""},
		{"turned back on by a deeper file", map[string]string{".gitattributes": "*.json linguist-generated\n", ".vigiles/.gitattributes": "*.json -linguist-generated\n"}, ""},
		{"another file", map[string]string{".gitattributes": "package-lock.json -diff linguist-generated\nother/.vigiles/baseline.json -diff\n"}, ""},
		{"a directory pattern", map[string]string{".gitattributes": ".vigiles/ -diff\n"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := makeTree(t, c.files)
			f := hiddenDiff(dir, base, "the baseline")
			got := ""
			if f != nil {
				got = f.Location.File + ":" + strconv.Itoa(f.Location.Line) + " " + f.Message[strings.Index(f.Message, "attribute ")+len("attribute "):strings.Index(f.Message, ", so")]
				if f.Rule != RuleHiddenDiff || f.Severity != report.SeverityWarning {
					t.Errorf("%s %s, want a %s warning", f.Severity, f.Rule, RuleHiddenDiff)
				}
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestAuditHiddenDiff: an audit against a baseline names the attribute
// that hides the baseline's diff, and the policy file's, a warning each;
// --update-baseline, which writes the baseline, does not.
func TestAuditHiddenDiff(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".gitattributes":        ".vigiles/** -diff\n.vigiles.yml linguist-generated\n",
		".vigiles.yml":          "version: 1\n",
	})
	for _, update := range []bool{true, false} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: hookBase, UpdateBaseline: update, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.Rule == RuleHiddenDiff {
				got = append(got, string(f.Severity)+" "+f.Location.File+" "+f.Message[:60])
			}
		}
		want := 2
		if update {
			want = 0
		}
		if len(got) != want {
			t.Errorf("update %v: %d hidden-diff findings, want %d: %v", update, len(got), want, got)
		}
	}
}

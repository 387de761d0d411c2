package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestFixtureProjectsAreNotRun: a .claude in a test's directory
// (tests/fixtures/proj/.claude, testdata/x/.claude, a package's
// test/.claude) is a test's input, not a project of the repository's:
// Claude Code reads a project's .claude where its session starts, and a
// nested one's skills once it works on a file there. The audit ran its
// hooks as a package's (proj, x), and failed on a fixture broken on
// purpose; now it reads none of it and says so in one notice a
// directory, while a monorepo package's .claude is read as before. An
// audit that names the fixture, or a test's directory holding it, as
// its PATH reads it and runs its hooks, without the notice.
func TestFixtureProjectsAreNotRun(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo ` + cmd + `"}]}]}}`
	}
	dir := makeTree(t, map[string]string{
		".claude/settings.json":                       stop("root"),
		"packages/web/.claude/settings.json":          stop("web"),
		"tests/fixtures/proj/.claude/settings.json":   stop("fixture"),
		"tests/fixtures/proj/.mcp.json":               `{"mcpServers": {"db": {"command": "fixture-db"}}}`,
		"testdata/x/.claude/settings.json":            `{"hooks": {"Stop": [`, // broken on purpose
		"packages/web/test/e2e/.claude/settings.json": stop("e2e"),
	})
	commands := func(rep *report.Report) []string {
		var out []string
		for _, r := range rep.Runs {
			if r.Outcome != report.OutcomeAllowed {
				t.Errorf("%s at %s: %s (%s), want allowed", r.Command, r.Location.File, r.Outcome, r.Reason)
			}
			out = append(out, strings.TrimPrefix(r.Command, "echo "))
		}
		slices.Sort(out)
		return out
	}

	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := commands(rep), []string{"root", "web"}; !slices.Equal(got, want) {
		t.Errorf("whole audit ran %q, want %q (no fixture's hooks)", got, want)
	}
	notes := map[string]string{}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			t.Errorf("error %s %s: %s", f.Rule, f.Location.File, f.Message)
		}
		if strings.Contains(f.Message, "fixture-db") {
			t.Errorf("the fixture's .mcp.json is named: %s %s: %s", f.Rule, f.Location.File, f.Message)
		}
		if f.Rule == RuleNotExecutable && strings.Contains(f.Message, "lies in a test's directory") {
			notes[f.Location.File] = f.Message
		}
	}
	for _, d := range []string{"tests/fixtures/proj", "testdata/x", "packages/web/test/e2e"} {
		m := notes[d+"/.claude"]
		if !strings.Contains(m, "a test's input, not a project of the repository's") || !strings.Contains(m, "nor "+d+"'s .mcp.json as a project's, and runs none of its hooks; to audit it, name "+d+" as the PATH of vigiles audit") {
			t.Errorf("notice at %s/.claude = %q, want it to say it is a test's input, not run, and how to audit it", d, m)
		}
	}
	if len(notes) != 3 {
		t.Errorf("fixture notices: %q, want 3", notes)
	}

	for _, paths := range [][]string{{"tests/fixtures/proj"}, {"tests"}} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Paths: paths, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := commands(rep), []string{"fixture"}; !slices.Equal(got, want) {
			t.Errorf("audit of %q ran %q, want %q", paths, got, want)
		}
		for _, f := range rep.Findings {
			if strings.Contains(f.Message, "lies in a test's directory") {
				t.Errorf("audit of %q says %s: %s", paths, f.Location.File, f.Message)
			}
		}
	}
}

// TestFixturePluginNamedAsPathHasNoNotice: an audit that names a listed
// plugin's fixture plugin as its PATH runs its hooks, and no longer also
// keeps the whole tree's notice that vigiles does not run them.
func TestFixturePluginNamedAsPathHasNoNotice(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":           `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "ev", "source": "./plugins/ev"}]}`,
		"plugins/ev/hooks/hooks.json":               `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo own"}]}]}}`,
		"plugins/ev/fixtures/bare/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo bare"}]}]}}`,
	})
	for _, tc := range []struct {
		paths  []string
		ran    string
		notice bool
	}{
		{nil, "echo own", true},
		{[]string{"plugins/ev/fixtures/bare"}, "echo bare", false},
	} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Paths: tc.paths, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 1 || rep.Runs[0].Command != tc.ran || rep.Runs[0].Outcome != report.OutcomeAllowed {
			t.Errorf("audit of %q: runs %+v, want %s allowed", tc.paths, rep.Runs, tc.ran)
		}
		said := false
		for _, f := range rep.Findings {
			if strings.Contains(f.Message, "is listed by no marketplace itself (a test's fixture)") {
				said = true
			}
		}
		if said != tc.notice {
			t.Errorf("audit of %q: fixture notice %v, want %v (%q)", tc.paths, said, tc.notice, findingLines(rep.Findings))
		}
	}
}

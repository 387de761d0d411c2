package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestIdenticalExecHooksRunOnce: Claude Code runs a command hook in exec
// form once for a call however often one source declares it, telling
// hooks apart by their command and args (the hooks reference, 2.1.139 to
// 2.1.222: "Command hooks are deduplicated by command string and
// `args`"), the last declared: a plugin whose manifest's inline hooks
// repeat its hooks/hooks.json, and a project whose two settings files
// declare one exec-form hook, each run it once, in the real sandbox.
// Args split otherwise (["one two"]), and the same line in shell form,
// each run too.
func TestIdenticalExecHooksRunOnce(t *testing.T) {
	stop := `{"Stop": [{"hooks": [
		{"type": "command", "command": "echo", "args": ["one", "two"]},
		{"type": "command", "command": "echo", "args": ["one two"]},
		{"type": "command", "command": "echo one two"}]}]}`
	guard := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo", "args": ["guard"]}]}]}}`
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json":  `{"name": "p", "hooks": {"hooks": ` + stop + `}}`,
		"hooks/hooks.json":            `{"hooks": ` + stop + `}`,
		".claude/settings.json":       guard,
		".claude/settings.local.json": guard,
	})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, r := range rep.Runs {
		runs = append(runs, r.Plugin+" "+r.Event+" "+r.Command+" -> "+strings.TrimSpace(r.Stdout))
	}
	slices.Sort(runs)
	want := []string{
		"p Stop echo 'one two' -> one two",
		"p Stop echo one two -> one two", // exec form
		"p Stop echo one two -> one two", // shell form
		"project-local PreToolUse echo guard -> guard",
	}
	if !slices.Equal(runs, want) {
		t.Errorf("runs\n got %q\nwant %q", runs, want)
	}
	var notes []string
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun && f.Severity == report.SeverityNotice {
			notes = append(notes, f.Message)
		}
	}
	// Each of the three Stop hooks is declared twice by the plugin, the
	// guard twice by the project: four runs left out, three in exec form.
	count := func(src, same string) int {
		n := 0
		for _, m := range notes {
			if strings.Contains(m, src+" declares the same command hook again ("+same+")") {
				n++
			}
		}
		return n
	}
	if len(notes) != 4 || count("its plugin", "its command and args, shell and if") != 2 || count("its plugin", "its command, shell and if") != 1 ||
		count("its project's settings", "its command and args, shell and if") != 1 {
		t.Errorf("notices of the runs left out: %q", notes)
	}
}

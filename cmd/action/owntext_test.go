package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/ptytest"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// onTerminal runs the CLI with stdout and stderr on one pseudo-terminal and
// env as its environment, and returns what reached the terminal.
func onTerminal(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	ptm, pts := ptytest.Open(t)
	var (
		shown bytes.Buffer
		done  = make(chan struct{})
	)
	go func() { io.Copy(&shown, ptm); close(done) }()
	err := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), pts, pts)
	exitCode(err, pts, false)
	pts.Close()
	<-done
	return shown.String()
}

// TestOwnTextOnATerminalKeepsItsColons: on a terminal that is no step log
// the text report and vigiles run's report show a ':' as itself (a path
// reads and copies as its name, "file:3" stays a link), and a U+A789 a
// plugin chose as "\ua789", never as a ':'; in a step log, or piped, each
// ':' of text a plugin chose is the lookalike, as before.
func TestOwnTextOnATerminalKeepsItsColons(t *testing.T) {
	dir := t.TempDir()
	rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles"}, Command: "audit", Verdict: report.VerdictFail,
		Runs: []report.HookRun{{ID: "1", Plugin: "p" + annotate.Colon + "q", Event: "Stop", Tier: "confined", Outcome: "allowed",
			Location: report.Location{File: "dir:x/hooks.json", Line: 3, Column: 5}}},
		Findings: []report.Finding{{Rule: "run/wrote", Severity: report.SeverityError, Message: "wrote a:b",
			Location: report.Location{File: "dir:x/hooks.json", Line: 3}}}}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}

	got := onTerminal(t, nil, "merge", "--format", "text", p)
	for _, want := range []string{"dir:x/hooks.json:3:5", "wrote a:b", `p\ua789q`} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal shows no %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, annotate.Colon) {
		t.Errorf("the terminal shows a lookalike colon:\n%s", got)
	}

	step := onTerminal(t, map[string]string{"GITHUB_ACTIONS": "true"}, "merge", "--format", "text", p)
	_, piped, _ := runCLI(t, "merge", "--format", "text", p)
	for name, out := range map[string]string{"in a step log": step, "piped": piped} {
		if !strings.Contains(out, "dir"+annotate.Colon+"x/hooks.json") || strings.Contains(out, "wrote a:b") {
			t.Errorf("%s the plugin's ':' is no lookalike:\n%s", name, out)
		}
	}
	// JSON keeps U+A789 as data, on a terminal too.
	if js := onTerminal(t, nil, "merge", "--format", "json", p); !strings.Contains(js, "p"+annotate.Colon+"q") {
		t.Errorf("the JSON report on a terminal changed a plugin's U+A789:\n%s", js)
	}

	// A progress line, as the runner writes it, quoting a plugin's names.
	for _, c := range []struct {
		env  map[string]string
		want string
	}{{nil, `vigiles: [1/1] p\ua789q Stop at dir:x/hooks.json:3:5: allowed`},
		{map[string]string{"GITHUB_ACTIONS": "true"}, "vigiles: " + annotate.NoMatch(`[1/1] p\ua789q Stop at dir:x/hooks.json:3:5: allowed`)}} {
		ptm, pts := ptytest.Open(t)
		var shown bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&shown, ptm); close(done) }()
		pw := &progressWriter{w: ownText(pts, func(k string) string { return c.env[k] })}
		io.WriteString(pw, "[1/1] p"+annotate.Colon+"q Stop at dir:x/hooks.json:3:5: allowed\n")
		pts.Close()
		<-done
		if got := strings.TrimSpace(shown.String()); got != c.want {
			t.Errorf("progress on a terminal (%v): %q, want %q", c.env, got, c.want)
		}
	}

	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no bwrap")
		}
		t.Skip("no bwrap here, for the confined run's report")
	}
	got = onTerminal(t, nil, "run", "--workdir", t.TempDir(), "--", "sh", "-c", `echo x > a:b; echo y > "c`+annotate.Colon+`d"`)
	for _, want := range []string{`"a:b"`, `"c\ua789d"`} {
		if !strings.Contains(got, want) {
			t.Errorf("vigiles run's report on a terminal shows no %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, annotate.Colon) {
		t.Errorf("vigiles run's report on a terminal shows a lookalike colon:\n%s", got)
	}
	var res bytes.Buffer
	printRunReport(&res, &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay",
		Writes: []evidence.Write{{Path: "a:b", Op: evidence.OpCreate}}})
	if !strings.Contains(res.String(), `"a`+annotate.Colon+`b"`) {
		t.Errorf("piped, vigiles run's report shows a plugin's ':' as itself:\n%s", res.String())
	}
}

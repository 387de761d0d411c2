package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
)

// TestUpdateBaselineLineShowsTheNameInert: the line vigiles audit
// --update-baseline ends with names the caller's own --baseline as the
// text report names a path (evidence.ShownName: quoted, in Go syntax,
// where it holds a control character) through the progress lines'
// writer: a newline and ::error:: after it, an ESC sequence that would
// clear the terminal or write its clipboard, a problem matcher's bait,
// are shown, neither sent nor a line of their own.
func TestUpdateBaselineLineShowsTheNameInert(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo quiet"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	name := "b\n::error file=x.go::FORGED\x1b[2J\x1b]52;c;Zm9yZ2Vk\x07\n./main.go:1:1: approved.json"
	code, _, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline", "--baseline", name)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatalf("the baseline is not where named: %v", err)
	}
	if strings.ContainsAny(errs, "\x1b\x07") {
		t.Errorf("stderr sends a control character: %q", errs)
	}
	if cmds := annotatetest.Commands(errs); len(cmds) != 0 {
		t.Errorf("stderr issues workflow commands %+v:\n%s", cmds, errs)
	}
	wantNoIssues(t, "stderr", errs)
	// A ':' is a lookalike where no terminal is (ownText), as in every
	// progress line.
	last := strings.ReplaceAll(errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:], annotate.Colon, ":")
	if !strings.HasPrefix(last, `vigiles: wrote the baseline "b\n::error file=x.go::FORGED\x1b[2J\x1b]52;c;Zm9yZ2Vk\a\n./main.go`) || !strings.HasSuffix(last, " (1 run(s)); review its diff before committing\n") {
		t.Errorf("the last line does not name the baseline as written: %q", last)
	}
}

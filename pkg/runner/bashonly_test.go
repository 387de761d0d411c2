package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestBothRedirect: &> and &>> are found where a shell reads them, not
// in quotes, after a backslash, in a comment, nor as the end of && or
// part of >& and <&.
func TestBothRedirect(t *testing.T) {
	for cmd, want := range map[string]string{
		`if command -v osascript &> /dev/null; then osascript -e x; fi`: "if command -v osascript &> /dev/null",
		`npm test &>>log.txt`:                    "npm test &>>log.txt",
		`x 2>&1 | tee out`:                       "",
		`echo '&> quoted'`:                       "",
		`echo "a &> b"`:                          "",
		`echo a \&> b`:                           "",
		`true # then &> in a comment`:            "",
		`a &&> b`:                                "",
		`cat <&3 >&2`:                            "",
		"echo 'it''s' &>/dev/null || echo no":    "echo 'it''s' &>/dev/null",
		"echo \"x\\\"y\" && ./run.sh &> out.log": "./run.sh &> out.log",
	} {
		got := ""
		if at := bothRedirect(cmd); at >= 0 {
			got = bothRedirectAt(cmd, at)
		}
		if got != want {
			t.Errorf("%s: found %q, want %q", cmd, got, want)
		}
	}
}

// TestBashOnlyHooks: a shell-form hook that redirects with &> is a
// discovery/bash-only warning that says what /bin/sh makes of it and
// the fix; an exec-form hook and one without &> are none. A run of such
// a hook that fails with 127 names the &> as the cause, not a program to
// install.
func TestBashOnlyHooks(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "if command -v osascript &> /dev/null; then osascript -e 'display notification'; fi"},
  {"type": "command", "command": "notify-send done > /dev/null 2>&1"},
  {"type": "command", "command": "/usr/bin/printf", "args": ["&>"]}
]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []report.Finding
	for _, f := range rep.Findings {
		if f.Rule == RuleBashOnly {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Hook != ".claude/settings.json#hooks.Stop[0].hooks[0]" || got[0].Severity != report.SeverityWarning ||
		!strings.Contains(got[0].Message, "redirects with &> (if command -v osascript &> /dev/null)") || !strings.Contains(got[0].Message, "write `A > F 2>&1`") {
		t.Errorf("bash-only findings %+v, want one, of the first hook", got)
	}
	cause := failureCause(report.HookRun{ExitCode: 127, Command: "if command -v osascript &> /dev/null; then osascript -e x; fi", Stderr: "/bin/sh: 1: osascript: not found\n"}, dir)
	if !strings.HasPrefix(cause, "its command redirects with &> (command -v osascript &> /dev/null), which /bin/sh reads as & and >") {
		t.Errorf("cause %q", cause)
	}
	// The test of the second missing program, with an option, after
	// another &>: that test is named.
	cause = failureCause(report.HookRun{ExitCode: 127, Command: "mkdir -p x &> /dev/null; osascript -e x; if command -v -- jq &> /dev/null; then jq .; fi", Stderr: "/bin/sh: 1: osascript: not found\n/bin/sh: 1: jq: not found\n"}, dir)
	if !strings.HasPrefix(cause, "its command redirects with &> (command -v -- jq &> /dev/null)") {
		t.Errorf("cause of a guarded program named second: %q", cause)
	}
	// A missing program no &> test guards is one to install.
	cause = failureCause(report.HookRun{ExitCode: 127, Command: "mkdir -p /tmp/x &> /dev/null; nosuchprogram --flag", Stderr: "/bin/sh: 1: nosuchprogram: not found\n"}, dir)
	if !strings.HasPrefix(cause, "a program it runs was not found on the machine vigiles ran it on") {
		t.Errorf("cause of a program no &> test guards: %q", cause)
	}
}

// TestBothRedirectHeredoc: a here-document's body is text, not commands:
// an &> in it is none, and one after its delimiter is.
func TestBothRedirectHeredoc(t *testing.T) {
	for cmd, want := range map[string]bool{
		"cat <<'EOF'\na &> b\nEOF\necho done":           false,
		"cat <<-EOF > f\n\ta &> b\n\tEOF\nrun &> log":   true,
		"cat <<<'a &> b'":                               false,
		"cat <<EOF\nx\nEOF\ncat <<EOF2\na &> b\nEOF2\n": false,
		"x=$((1<<2))\ncommand -v jq &> /dev/null":       true,
		"(( a << b ))\nrun &> log":                      true,
		"cat <<'E F'\na &> b\nE F\nrun &> log":          true,
		"cat <<'E F'\na &> b\nE F\n":                    false,
		"cat <<E\"O\"F\na &> b\nEOF\nrun &> log":        true,
		"cat <<EOF\r\na &> b\r\nEOF\r\nrun &> log":      true,
	} {
		if got := bothRedirect(cmd) >= 0; got != want {
			t.Errorf("%q: found %v, want %v", cmd, got, want)
		}
	}
}

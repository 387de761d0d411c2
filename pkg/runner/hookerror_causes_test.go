package runner

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestFailureCauseLinuxCI: the failures real plugins hit most on a Linux
// CI machine, as the shells and runtimes there report them, each name
// their cause (failureCause) and its fix.
func TestFailureCauseLinuxCI(t *testing.T) {
	tree := makeTree(t, map[string]string{
		"hooks/crlf.sh": "#!/bin/sh\r\necho hi\r\n",
		"hooks/lf.sh":   "#!/bin/sh\necho hi\n",
		"hooks/py2.py":  "#!/usr/bin/python2\nprint(1)\n",
		"hooks/brew.sh": "#!/opt/homebrew/bin/bash\necho hi\n",
		"hooks/env.sh":  "#!/usr/bin/env bash\necho hi\n",
	})
	for _, tc := range []struct {
		name   string
		code   int
		stderr string
		want   string // "" for none of these causes
	}{
		{"bash's $'\\r'", 127, "/t/x.sh: line 2: set: -\r: invalid option\n/t/x.sh: line 4: $'\\r': command not found\n",
			"its script may have Windows line endings (CRLF), which the shell reads as part of each line (a #! line that names /bin/sh\\r, a command $'\\r'), so it fails so on Linux and macOS alike; convert it to LF (dos2unix FILE), commit it, and keep it so with a .gitattributes line such as *.sh text eol=lf"},
		{"bash's set -\\r", 1, "/t/x.sh: line 2: set: -\\r: invalid option\nset: usage: set [-abefhkmnptuvxBCEHPT]\n", "its script may have Windows line endings (CRLF)"},
		{"a bad interpreter with ^M", 126, "bash: /t/x.sh: /bin/bash^M: bad interpreter: No such file or directory\n", "its script may have Windows line endings (CRLF)"},
		{"dash's set", 2, "/t/x.sh: 2: set: Illegal option -\r\n", "its script may have Windows line endings (CRLF)"},
		{"dash's not found of a file of the tree whose #! line ends in \\r", 127, "/bin/sh: 1: " + tree + "/hooks/crlf.sh: not found\n",
			"hooks/crlf.sh may have Windows line endings (CRLF), which the shell reads as part of each line (its #! line names /bin/sh\\r, which no machine has), so it fails so on Linux and macOS alike; convert it to LF (dos2unix hooks/crlf.sh), commit it"},
		{"bash's required file not found, so", 127, "bash: line 1: " + tree + "/hooks/crlf.sh: cannot execute: required file not found\n", "hooks/crlf.sh may have Windows line endings (CRLF)"},
		{"#!/usr/bin/python2", 127, "/bin/sh: 1: " + tree + "/hooks/py2.py: not found\n",
			"hooks/py2.py's #! line names /usr/bin/python2, which the machine the audit ran on lacks, so the script cannot start (the shell's \"not found\" is of its interpreter, not of the script), here as for its users who lack it too; Debian and Ubuntu install python3 alone: write #!/usr/bin/env python3"},
		{"#!/opt/homebrew/bin/bash, as bash says it", 127, "bash: line 1: " + tree + "/hooks/brew.sh: cannot execute: required file not found\n",
			"hooks/brew.sh's #! line names /opt/homebrew/bin/bash, which the machine the audit ran on lacks, so the script cannot start (the shell's \"not found\" is of its interpreter, not of the script), here as for its users who lack it too; a path of Homebrew's on macOS, which Linux machines do not have: write #!/usr/bin/env bash"},
		{"#!/usr/bin/env is env's to tell", 127, "/bin/sh: 1: " + tree + "/hooks/env.sh: not found\n", ""},
		{"osascript, as dash says it", 127, "/bin/sh: 1: osascript: not found\n",
			"it runs osascript, which macOS has and Linux does not: the hook may be written for macOS, and fails so on every Linux machine, its users' included; run it only where it is there (command -v osascript >/dev/null 2>&1 && osascript …, or where uname is Darwin), or use Linux's notify-send there too"},
		{"pbcopy mid-script, as bash says it", 1, "/t/x.sh: line 9: pbcopy: command not found\n", "it runs pbcopy, which macOS has and Linux does not"},
		{"open after another program", 127, "sh: 1: jq: not found\nsh: 1: open: not found\n", "it runs open, which macOS has and Linux does not: the hook may be written for macOS, and fails so on every Linux machine, its users' included; run it only where it is there (command -v open >/dev/null 2>&1 && open …, or where uname is Darwin), or use Linux's xdg-open there too"},
		{"a program of Linux's", 127, "sh: 1: jq: not found\n", ""},
		{"a file of LF lines", 127, "/bin/sh: 1: " + tree + "/hooks/lf.sh: not found\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failureCause(report.HookRun{ExitCode: tc.code, Stderr: tc.stderr}, tree)
			if tc.want == "" {
				if strings.Contains(got, "line endings") || strings.Contains(got, "#! line") || strings.Contains(got, "macOS has") {
					t.Errorf("cause %q, want none of these", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("cause:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// linuxCIHooks are hooks that fail on a Linux CI machine as real plugins
// do, each with what its run/hook-error's cause must say
// (TestAuditNamesLinuxCIFailures).
var linuxCIHooks = []struct{ command, want string }{
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/crlf.sh`, ".claude/hooks/crlf.sh may have Windows line endings (CRLF)"},
	{`bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/crlf-bash.sh`, "its script may have Windows line endings (CRLF)"},
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/noexec.py`, "it runs .claude/hooks/noexec.py, which the tree holds without execute permission"},
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/envpy.sh`, "it runs python, which the machine the audit ran on lacks"},
	{`osascript -e 'display notification "done" with title "Claude"'`, "it runs osascript, which macOS has and Linux does not: the hook may be written for macOS"},
	{`say "task complete"`, "it runs say, which macOS has and Linux does not"},
	{`afplay /System/Library/Sounds/Glass.aiff`, "it runs afplay, which macOS has and Linux does not"},
	{`terminal-notifier -title Claude -message done`, "it runs terminal-notifier, which macOS has and Linux does not"},
	{`jq -r .tool_input.command | pbcopy`, "it runs pbcopy, which macOS has and Linux does not"},
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/brew.sh`, ".claude/hooks/brew.sh's #! line names /opt/homebrew/bin/bash, which the machine the audit ran on lacks"},
}

// TestAuditNamesLinuxCIFailures audits, confined, hooks that fail as
// real plugins do on a Linux CI machine (linuxCIHooks): each run is a
// run/hook-error whose cause names why.
func TestAuditNamesLinuxCIFailures(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	cases := linuxCIHooks
	if p, err := exec.LookPath("python"); err == nil && !under(p, hiddenFromHook()...) {
		// A machine whose PATH has python outside the home directories
		// runs the script: not the failure this case is of.
		t.Logf("python is %s, which a confined hook finds: the #!/usr/bin/env python case is left out", p)
		cases = slices.DeleteFunc(slices.Clone(cases), func(h struct{ command, want string }) bool { return strings.Contains(h.command, "envpy") })
	}
	var hooks []string
	for _, h := range cases {
		hooks = append(hooks, `{"type": "command", "command": `+strconv.Quote(h.command)+`}`)
	}
	dir := makeTree(t, map[string]string{
		".claude/settings.json":      `{"hooks": {"Stop": [{"hooks": [` + strings.Join(hooks, ",\n") + `]}]}}`,
		".claude/hooks/crlf.sh":      "#!/bin/sh\r\necho hi\r\n",
		".claude/hooks/crlf-bash.sh": "#!/bin/bash\r\nset -e\r\necho hi\r\n\r\n",
		".claude/hooks/noexec.py":    "#!/usr/bin/env python3\nprint(1)\n",
		".claude/hooks/envpy.sh":     "#!/usr/bin/env python\nprint(1)\n",
		".claude/hooks/brew.sh":      "#!/opt/homebrew/bin/bash\necho hi\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		if f.Rule == RuleRunHookError {
			got[f.Hook] = f.Message
		}
	}
	for i, h := range cases {
		id := fmt.Sprintf(".claude/settings.json#hooks.Stop[0].hooks[%d]", i)
		if !strings.Contains(got[id], h.want) {
			t.Errorf("%s (%s): run/hook-error %q, want its cause %q", id, h.command, got[id], h.want)
		}
	}
}

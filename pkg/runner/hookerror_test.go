package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestHookError: a run whose hook failed where Claude Code reads the
// failure as a non-blocking error is a run/hook-error warning that names
// the exit status or signal, the end of its stderr and, where the record
// tells it, the cause; a run that succeeded, blocked, timed out, hit a
// limit, was refused or failed in vigiles' hands is none.
func TestHookError(t *testing.T) {
	const head = `guard PreToolUse Bash failed (`
	const carries = `): Claude Code shows a hook error and carries on without it; this run records the hook failing, not at work`
	blocked := []evidence.Egress{
		{Host: "ok.example.test", Proto: "dns", Via: evidence.ViaDNS, Allowed: true, Attempts: 1},
		{Host: "api.example.test", Proto: "dns", Via: evidence.ViaDNS, Attempts: 2},
	}
	for _, tc := range []struct {
		name   string
		run    report.HookRun
		signal string
		limit  string
		async  bool
		want   string // "" for no finding
		ev     string
	}{
		{name: "exit 0", run: report.HookRun{Outcome: report.OutcomeAllowed}},
		{name: "exit 1, quiet", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1},
			want: head + "exit status 1; its stderr is empty" + carries},
		{name: "exit 1, stderr's last line", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "first\nsecond line\n\n  \n"},
			want: head + "exit status 1; its stderr says: second line" + carries, ev: "first\nsecond line"},
		{name: "a hostile last line is quoted", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 3, Stderr: "::error::x\u202e\r"},
			want: head + `exit status 3; its stderr says: "::error::x\u202e"` + carries},
		{name: "killed", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: -1}, signal: "SIGSEGV",
			want: head + "killed by SIGSEGV; its stderr is empty" + carries},
		{name: "program not found", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 127, Stderr: "sh: 1: jq: not found\n"},
			want: head + "exit status 127; its stderr says: sh: 1: jq: not found" + carries + "; a program it runs was not found on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work (a confined hook gets the PATH vigiles ran with, but the home directories are empty in its sandbox, /root, /home and the caller's HOME among them: a program in one, ~/.local/bin or a version manager's shims, is not found)"},
		{name: "python, not python3", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 127, Stderr: "/bin/sh: 1: python: not found\n"},
			want: head + "exit status 127; its stderr says: /bin/sh: 1: python: not found" + carries + "; it runs python, which the machine vigiles ran it on lacks (python3 alone is what Debian, Ubuntu and macOS install), so it fails so for many of its users too: call python3, or install python where vigiles runs to see the hook at work"},
		{name: "a fallback chain of Pythons that swallows the block", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 127, Command: `python3 "${CLAUDE_PLUGIN_ROOT}/hooks/gate.py" || python "${CLAUDE_PLUGIN_ROOT}/hooks/gate.py" || py -3 "${CLAUDE_PLUGIN_ROOT}/hooks/gate.py"`, Stderr: "setup required before first use\n/bin/sh: 1: python: not found\n/bin/sh: 1: py: not found\n"},
			want: head + "exit status 127; its stderr says: /bin/sh: 1: py: not found" + carries + "; its command falls back from one Python to the next with || (python3 … || python …): when the first exits non-zero, a block's exit 2 included, the next runs the script again, and where the last is not installed the hook ends with 127, a non-blocking error, so what the first decided is lost, here as on every machine that lacks one of them; run one interpreter, or fall back only where the first is missing (command -v python3 >/dev/null && python3 … || python …)"},
		{name: "an older Node.js", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 9, Stderr: "/usr/bin/node: bad option: --experimental-strip-types\n"},
			want: head + "exit status 9; its stderr says: /usr/bin/node: bad option: --experimental-strip-types" + carries + "; the Node.js on the machine vigiles ran it on does not know --experimental-strip-types, an option of a later Node.js: the hook needs a newer Node.js than it finds, and fails so for its users who have an older one too; install a Node.js that has it where vigiles runs to see the hook at work"},
		{name: "python by a script's first line", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 127, Stderr: "/usr/bin/env: ‘python’: No such file or directory\n"},
			want: head + "exit status 127; its stderr says: /usr/bin/env: ‘python’: No such file or directory" + carries + "; it runs python, which the machine vigiles ran it on lacks (python3 alone is what Debian, Ubuntu and macOS install), so it fails so for many of its users too: call python3, or install python where vigiles runs to see the hook at work"},
		{name: "bash's not found mid-script", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "x.sh: line 3: rg: command not found\n"},
			want: head + "exit status 1; its stderr says: x.sh: line 3: rg: command not found" + carries + "; a program it runs was not found on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work (a confined hook gets the PATH vigiles ran with, but the home directories are empty in its sandbox, /root, /home and the caller's HOME among them: a program in one, ~/.local/bin or a version manager's shims, is not found)"},
		{name: "not executable", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 126},
			want: head + "exit status 126; its stderr is empty" + carries + "; a file it runs could not be executed (no execute permission, or not a program)"},
		{name: "python module", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "Traceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'\n"},
			want: head + "exit status 1; its stderr says: ModuleNotFoundError: No module named 'yaml'" + carries + "; a module it imports is not installed on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work",
			ev:   "Traceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'"},
		{name: "node module", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "Error: Cannot find module 'zx'\n"},
			want: head + "exit status 1; its stderr says: Error: Cannot find module 'zx'" + carries + "; a module it imports is not installed on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work"},
		{name: "WebAssembly and the address-space bound", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "RangeError: WebAssembly.instantiate(): Out of memory: Cannot allocate Wasm memory for new instance\n"},
			want: head + "exit status 1; its stderr says: RangeError: WebAssembly.instantiate(): Out of memory: Cannot allocate Wasm memory for new instance" + carries + "; the run's bound on a process's address space (limits.memory in the policy, --limit-memory; 32GiB by default) is below what V8 reserves for WebAssembly, about 10GiB an instance, none of it used: raise it to see the hook at work"},
		{name: "pip and a managed Python", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "error: externally-managed-environment\n\n× This environment is externally managed\n"},
			want: head + "exit status 1; its stderr says: error: externally-managed-environment" + carries + "; pip refused to install into the machine's own Python, which its distribution manages (externally-managed-environment): a hook that installs packages when it runs fails so wherever Python is managed so, the machine vigiles ran it on among them; install what it needs in a virtual environment of the tree's before vigiles runs it, or have the hook use one"},
		{name: "read-only", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "touch: cannot touch '/var/log/x': Read-only file system\n"},
			want: head + "exit status 1; its stderr says: touch: cannot touch '/var/log/x': Read-only file system" + carries + "; it wrote where vigiles' sandbox is read-only: a confined hook may write only the work tree, its HOME, TMPDIR (/tmp), /dev/shm, /var/tmp and the runner's tool cache (RUNNER_TOOL_CACHE: one its own user may write), each thrown away after the run"},
		{name: "a blocked host comes first", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 6, Egress: blocked, Stderr: "curl: (6) Could not resolve host: api.example.test\n"},
			want: head + "exit status 6; its stderr says: curl: (6) Could not resolve host: api.example.test" + carries + "; it tried to reach api.example.test, which the egress policy blocked: a hook that needs the network fails so, as it would where Claude Code runs offline; to run it with the host reachable, allow it (--egress allow --allow HOST, or defaults.egress {mode: allow, allow: [HOST]} in the policy)"},
		{name: "a banner after the error", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Stderr: "error: Cannot find package 'effect' from '/t/x.ts'\n\nBun v1.4.4 (Linux x64)\n"},
			want: head + "exit status 1; its stderr says: error: Cannot find package 'effect' from '/t/x.ts'" + carries + "; a module it imports is not installed on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work"},
		{name: "a blocked host and a module missing, apart", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Egress: blocked, Command: "python3 guard.py", Stderr: "ModuleNotFoundError: No module named 'yaml'\n"},
			want: head + "exit status 1; its stderr says: ModuleNotFoundError: No module named 'yaml'" + carries + "; it tried to reach api.example.test, which the egress policy blocked: a hook that needs the network fails so, as it would where Claude Code runs offline; to run it with the host reachable, allow it (--egress allow --allow HOST, or defaults.egress {mode: allow, allow: [HOST]} in the policy)"},
		{name: "dependencies fetched at run time", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1, Egress: blocked, Command: `bun "$CLAUDE_PROJECT_DIR"/hooks/x.ts`, Stderr: "error: Cannot find package 'effect'\nBun v1.4.4 (Linux x64)\n"},
			want: head + "exit status 1; its stderr says: error: Cannot find package 'effect'" + carries + "; it fetches what it imports at run time (its runner fetches packages), and it tried to reach api.example.test, which the egress policy blocked: install its dependencies in the tree before vigiles runs it (npm ci, bun install, uv sync) to see it at work; allowing the hosts its runner fetches from would have vigiles run code fetched at run time, not the tree's (a host it reaches for anything else, allow as for any hook: --egress allow --allow HOST)"},
		{name: "exit 2 that does not block", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 2},
			want: head + "exit status 2; its stderr is empty" + carries},
		{name: "blocked", run: report.HookRun{Outcome: report.OutcomeBlocked, ExitCode: 2}},
		{name: "blocked by the shell's failure", run: report.HookRun{Outcome: report.OutcomeBlocked, ExitCode: 2, Stderr: "/bin/sh: 1: cannot create /root/.claude/logs/guard.log: Directory nonexistent\n"},
			want: head + "exit status 2; its stderr says: /bin/sh: 1: cannot create /root/.claude/logs/guard.log: Directory nonexistent): the shell or interpreter, not the hook, exited with 2, which Claude Code reads as the hook's block: on PreToolUse it blocks (or hands that error to Claude) on every call this fails on, wherever it fails so; this run records the hook failing, not at work"},
		{name: "blocked by the shell's bad substitution", run: report.HookRun{Outcome: report.OutcomeBlocked, ExitCode: 2, Stderr: "sh: 1: Bad substitution\n"},
			want: head + "exit status 2; its stderr says: sh: 1: Bad substitution): the shell or interpreter, not the hook, exited with 2, which Claude Code reads as the hook's block: on PreToolUse it blocks (or hands that error to Claude) on every call this fails on, wherever it fails so; this run records the hook failing, not at work"},
		{name: "a guard's block after a shell's noise", run: report.HookRun{Outcome: report.OutcomeBlocked, ExitCode: 2, Stderr: "bash: line 3: /home/u/.config/guard.env: No such file or directory\nBLOCKED: rm -rf is not allowed\n"}},
		{name: "a guard's own block that names a missing file", run: report.HookRun{Outcome: report.OutcomeBlocked, ExitCode: 2, Stderr: "Blocked: config.json not found\n"}},
		{name: "timed out", run: report.HookRun{Outcome: report.OutcomeError, TimedOut: true, ExitCode: -1}},
		{name: "a limit", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 152}, limit: "cpu"},
		{name: "refused", run: report.HookRun{Outcome: report.OutcomeError, Tier: string(sandbox.TierRefused), ExitCode: 125}},
		{name: "vigiles failed", run: report.HookRun{Outcome: report.OutcomeError, ExitCode: 125}},
		{name: "an async hook's exit 2", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 2}, async: true},
		{name: "an async hook's exit 2 from the shell's failure", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 2, Stderr: "sh: 1: Bad substitution\n"}, async: true,
			want: head + "exit status 2; its stderr says: sh: 1: Bad substitution): the shell or interpreter, not the hook, exited with 2: the hook failing, not speaking up as an async hook's exit 2 does; it runs async: Claude Code went on without waiting for it and tells of its end only in verbose mode, so nothing but that shows the failure, and nothing waits for the hook's work; this run records the hook failing, not at work"},
		{name: "an async hook's exit 2 from python's failure", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 2, Stderr: "python3: can't open file '/x/notify.py': [Errno 2] No such file or directory\n"}, async: true,
			want: head + "exit status 2; its stderr says: python3: can't open file '/x/notify.py': [Errno 2] No such file or directory): the shell or interpreter, not the hook, exited with 2: the hook failing, not speaking up as an async hook's exit 2 does; it runs async: Claude Code went on without waiting for it and tells of its end only in verbose mode, so nothing but that shows the failure, and nothing waits for the hook's work; this run records the hook failing, not at work"},
		{name: "an async hook speaking up after a shell's noise", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 2, Stderr: "sh: 1: jq: not found\ntests failed: 3\n"}, async: true},
		{name: "an async hook's exit 1", run: report.HookRun{Outcome: report.OutcomeAllowed, ExitCode: 1}, async: true,
			want: head + "exit status 1; its stderr is empty): it runs async: Claude Code went on without waiting for it and tells of its end only in verbose mode, so nothing but that shows the failure, and nothing waits for the hook's work; this run records the hook failing, not at work"},
		{name: "a WorktreeRemove hook that fails the removal", run: report.HookRun{Event: WorktreeRemove, Outcome: report.OutcomeBlocked, ExitCode: 127, Stderr: "sh: 1: wt-clean: not found\n"},
			want: "guard WorktreeRemove Bash failed (exit status 127; its stderr says: sh: 1: wt-clean: not found): any non-zero exit makes WorktreeRemove fail, so the worktree stays where its directory is still there; this run records the hook failing, not at work; a program it runs was not found on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work (a confined hook gets the PATH vigiles ran with, but the home directories are empty in its sandbox, /root, /home and the caller's HOME among them: a program in one, ~/.local/bin or a version manager's shims, is not found)"},
		{name: "a WorktreeCreate hook that fails the creation", run: report.HookRun{Event: WorktreeCreate, Outcome: report.OutcomeBlocked, ExitCode: 1, Stderr: "Error: x\n"},
			want: "guard WorktreeCreate Bash failed (exit status 1; its stderr says: Error: x): any non-zero exit makes WorktreeCreate fail: a WorktreeCreate hook replaces Claude Code's own git worktree creation, so every worktree creation it fails so on fails (claude --worktree, a subagent's isolation: worktree); this run records the hook failing, not at work"},
		{name: "a WorktreeCreate hook killed", run: report.HookRun{Event: WorktreeCreate, Outcome: report.OutcomeBlocked, ExitCode: -1}, signal: "SIGKILL",
			want: "guard WorktreeCreate Bash failed (killed by SIGKILL; its stderr is empty): any non-zero exit makes WorktreeCreate fail: a WorktreeCreate hook replaces Claude Code's own git worktree creation, so every worktree creation it fails so on fails (claude --worktree, a subagent's isolation: worktree); this run records the hook failing, not at work"},
		{name: "an event that ignores the exit status", run: report.HookRun{Event: SessionEnd, Outcome: report.OutcomeAllowed, ExitCode: 1},
			want: "guard SessionEnd Bash failed (exit status 1; its stderr is empty): Claude Code ignores a SessionEnd hook's exit status: the failure blocks nothing, and Claude Code goes on without the hook's work; this run records the hook failing, not at work"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run
			r.ID, r.Plugin, r.Tool = "h@Bash", "guard", "Bash"
			if r.Event == "" {
				r.Event = PreToolUse
			}
			if r.Tier == "" {
				r.Tier = string(sandbox.TierConfined)
			}
			f := hookError(executed{run: r, result: &sandbox.Result{Signal: tc.signal}, limit: tc.limit, async: tc.async})
			if tc.want == "" {
				if f != nil {
					t.Fatalf("finding %+v, want none", f)
				}
				return
			}
			if f == nil {
				t.Fatalf("no finding, want %s", tc.want)
			}
			if f.Rule != RuleRunHookError || f.Severity != report.SeverityWarning || f.Hook != r.ID {
				t.Errorf("finding %s %s %s", f.Rule, f.Severity, f.Hook)
			}
			if f.Message != tc.want {
				t.Errorf("message:\n got %s\nwant %s", f.Message, tc.want)
			}
			if strings.ContainsAny(f.Message, "\r\n") {
				t.Errorf("message carries a line break: %q", f.Message)
			}
			if tc.ev != "" && f.Evidence != tc.ev {
				t.Errorf("evidence %q, want %q", f.Evidence, tc.ev)
			}
		})
	}
}

// TestTail: the evidence keeps the end of a long stderr, from a line's
// start where one falls in it, as valid UTF-8.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short\n", 10, "short"},
		{"aaaa\nbbbb\ncc", 7, "cc"},
		{"aaaabbbbcc", 4, "bbcc"},
		{"x\u00e9tail", 5, "tail"},
		{"abc\n", 2, "bc"},
	} {
		if got := tail(tc.in, tc.n); got != tc.want {
			t.Errorf("tail(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestAuditNamesFailingHooks audits, confined, hooks that fail and one
// that works: each failing run is a run/hook-error warning with its
// cause, a SIGSEGV too (the signal outlives the run's shed result), and
// the verdict stays pass; the working hook and the one that blocks get
// none.
func TestAuditNamesFailingHooks(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {
  "Stop": [{"hooks": [
    {"type": "command", "command": "echo ok"},
    {"type": "command", "command": "no-such-program-of-vigiles --flag"},
    {"type": "command", "command": "kill -SEGV $$"}
  ]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]
}}`})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	got := messagesByHook(rep.Findings, RuleRunHookError)
	want := map[string]string{
		".claude/settings.json#hooks.Stop[0].hooks[1]": "exit status 127",
		".claude/settings.json#hooks.Stop[0].hooks[2]": "killed by SIGSEGV",
	}
	for id, what := range want {
		if !strings.Contains(got[id], what) {
			t.Errorf("%s: %q, want a run/hook-error with %q", id, got[id], what)
		}
	}
	if !strings.Contains(got[".claude/settings.json#hooks.Stop[0].hooks[1]"], "a program it runs was not found") {
		t.Errorf("no cause: %q", got[".claude/settings.json#hooks.Stop[0].hooks[1]"])
	}
	if len(got) != len(want) {
		t.Errorf("run/hook-error on %v, want on %v only", got, want)
	}
	if rep.Verdict != report.VerdictPass {
		t.Errorf("verdict %s, want pass: warnings only", rep.Verdict)
	}
}

// TestWorktreeCreateWithoutPath: a WorktreeCreate hook that exits 0 and
// prints no path fails every worktree (it replaces Claude Code's own git
// worktree creation): a run/hook-error warning says so. One that prints
// its path is none.
func TestWorktreeCreateWithoutPath(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json":                `{"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "true # notify"}]}]}}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "printpath"}]}]}}`,
	})
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		if strings.Contains(spec.Command[len(spec.Command)-1], "printpath") {
			res.Stdout = "/tmp/wt/feature\n"
		}
		return res, nil
	}}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunHookError {
			got = append(got, f.Hook+": "+f.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], ".claude/settings.json#hooks.WorktreeCreate[0].hooks[0]: project WorktreeCreate failed (exit status 0 and no path on stdout; its stderr is empty): a WorktreeCreate hook replaces Claude Code's own git worktree creation and must print the directory it made") {
		t.Errorf("hook-error findings %q, want one, of the hook that prints no path", got)
	}
}

// TestHookErrorsGroupedAcrossTools: a hook whose matcher takes every tool
// and that fails alike for each is one run/hook-error finding that names
// the tools, not one a tool; hooks that fail otherwise keep theirs.
func TestHookErrorsGroupedAcrossTools(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json": `{"hooks": {"PreToolUse": [
  {"matcher": "*", "hooks": [{"type": "command", "command": "bun guard.ts"}]},
  {"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "other"}]},
  {"matcher": "*", "hooks": [{"type": "command", "command": "some"}]}]}}`,
	})
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, payload []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, ExitCode: 127, Stderr: "/bin/sh: 1: bun: not found\n"}
		if strings.Contains(spec.Command[len(spec.Command)-1], "some") {
			// Fails alike for two tools of all it runs for.
			var in struct {
				Tool string `json:"tool_name"`
			}
			_ = json.Unmarshal(payload, &in)
			if in.Tool != "Bash" && in.Tool != "Write" {
				res.ExitCode, res.Stderr = 0, ""
			}
		}
		if strings.Contains(spec.Command[len(spec.Command)-1], "other") {
			// Fails another way for each tool: no group.
			var in struct {
				Tool string `json:"tool_name"`
			}
			_ = json.Unmarshal(payload, &in)
			res.ExitCode, res.Stderr = 1, "failed on "+in.Tool+"\n"
		}
		return res, nil
	}}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	var bun, other, some []string
	for _, f := range rep.Findings {
		switch {
		case f.Rule != RuleRunHookError:
		case f.Location.Line == 2:
			bun = append(bun, f.Message)
		case f.Location.Line == 4:
			some = append(some, f.Message)
		default:
			other = append(other, f.Message)
		}
	}
	if len(some) != 1 || !strings.Contains(some[0], "p PreToolUse failed for 2 of the ") || !strings.Contains(some[0], " tools it ran for (Bash and Write), alike (") {
		t.Errorf("findings of the hook that fails for two tools: %q", some)
	}
	runs := 0
	for _, r := range rep.Runs {
		if r.Command == "bun guard.ts" {
			runs++
		}
	}
	if runs < 3 || len(bun) != 1 || !strings.HasPrefix(bun[0], fmt.Sprintf("p PreToolUse failed for each of the %d tools its matcher takes (", runs)) || !strings.Contains(bun[0], "more), alike (exit status 127; its stderr says: /bin/sh: 1: bun: not found)") {
		t.Errorf("%d runs of the * hook, findings %q: want one naming the tools", runs, bun)
	}
	if len(other) != 2 {
		t.Errorf("findings of the hook that fails otherwise for each tool: %q, want two", other)
	}
}

// TestDeclaredDependencyNotInstalled: a plugin's hook whose script
// imports a package Node.js or Bun did not find said "install it there,
// as on the machines the hook is used on", where the plugin's own
// package.json (the nearest above the script, inside the plugin) lists
// the package: what it lacks is the plugin's dependencies installed in
// the tree (npm ci, npm install in the plugin's directory), which Claude
// Code does not do for it. Elsewhere the cause stays as it was.
func TestDeclaredDependencyNotInstalled(t *testing.T) {
	tree := makeTree(t, map[string]string{
		"plugins/so/package.json":          `{"name": "so", "dependencies": {"js-yaml": "^4.1.0"}, "devDependencies": {"@scope/tool": "1.0.0"}}`,
		"plugins/so/package-lock.json":     `{}`,
		"plugins/so/scripts/lib/owner.mjs": "import yaml from 'js-yaml'\n",
		"plugins/so/scripts/cjs.js":        "require('@scope/tool/sub')\n",
		"plugins/bare/package.json":        `{"name": "bare", "dependencies": {"js-yaml": "^4.1.0"}}`,
		"plugins/bare/x.mjs":               "",
		"plugins/other/scripts/x.mjs":      "",
		"plugins/other/package.json":       `{"name": "other"}`,
	})
	generic := "a module it imports is not installed on the machine vigiles ran it on: install it there"
	for _, tc := range []struct {
		name, context, stderr, want string
	}{
		{"ESM", "plugin:plugins/so", "node:internal/modules/esm/resolve:873\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'js-yaml' imported from " + tree + "/plugins/so/scripts/lib/owner.mjs\n    at packageResolve (node:internal/modules/esm/resolve:873:9)\n",
			"it imports js-yaml, which the plugin's plugins/so/package.json lists in its dependencies but the tree does not have installed: Claude Code does not install a plugin's dependencies for it; install them in the tree before vigiles runs it (npm ci in plugins/so) to see the hook at work"},
		{"CommonJS, a scope's subpath", "plugin:plugins/so", "Error: Cannot find module '@scope/tool/sub'\nRequire stack:\n- " + tree + "/plugins/so/scripts/cjs.js\n",
			"it imports @scope/tool, which the plugin's plugins/so/package.json lists in its devDependencies"},
		{"Bun, no lock", "plugin:plugins/bare", "error: Cannot find package 'js-yaml' from '" + tree + "/plugins/bare/x.mjs'\n\nBun v1.4.4 (Linux x64)\n",
			"(npm install in plugins/bare)"},
		{"not listed", "plugin:plugins/other", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'js-yaml' imported from " + tree + "/plugins/other/scripts/x.mjs\n", generic},
		{"a project's hook", "project:.", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'js-yaml' imported from " + tree + "/plugins/so/scripts/lib/owner.mjs\n", generic},
		{"a script outside the plugin", "plugin:plugins/other", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'js-yaml' imported from " + tree + "/plugins/so/scripts/lib/owner.mjs\n", generic},
		{"outside the tree", "plugin:plugins/so", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'js-yaml' imported from /elsewhere/x.mjs\n", generic},
	} {
		got := failureCause(report.HookRun{ExitCode: 1, Context: tc.context, Stderr: tc.stderr}, tree)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: cause %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDeclaredPythonDependencyNotInstalled: a plugin's Python hook whose
// script imports a module Python did not find said "install it there,
// as on the machines the hook is used on", where the plugin's own
// pyproject.toml or requirements.txt (in the nearest directory above the
// script, inside the plugin, that holds either) lists a package of that
// name: what it lacks is the plugin's dependencies in a virtual
// environment of the tree's (uv sync, pip install -r), which Claude Code
// does not make for it. A package imported under another name (PyYAML as
// yaml), a module no file lists, a project's hook or a script outside
// the plugin keep the cause as it was.
func TestDeclaredPythonDependencyNotInstalled(t *testing.T) {
	tree := makeTree(t, map[string]string{
		"plugins/uvp/pyproject.toml":    "[project]\nname = \"uvp\"\ndependencies = [\n  \"requests>=2.31\",\n  \"PyYAML==6.0.1\",\n  \"typing-extensions\",\n]\n\n[project.optional-dependencies]\nrich = [\"Rich>=13\"]\n\n[dependency-groups]\ndev = [\"pytest\"]\nlint = [\"ruff\"]\n",
		"plugins/uvp/hooks/guard.py":    "import requests\n",
		"plugins/req/requirements.txt":  "# pinned\nhttpx==0.27.0 \\\n    --hash=sha256:00\n-r more.txt\ngit+https://example.invalid/pkg.git#egg=pkg\nJinja2>=3; python_version >= \"3.8\"\n",
		"plugins/req/scripts/x.py":      "",
		"plugins/req/scripts/lib/y.py":  "",
		"plugins/none/pyproject.toml":   "[project]\nname = \"none\"\n",
		"plugins/none/requirements.txt": "flask\n",
		"plugins/none/x.py":             "",
	})
	tb := func(file, module string) string {
		return "Traceback (most recent call last):\n  File \"" + file + "\", line 3, in <module>\n    import " + module + "\nModuleNotFoundError: No module named '" + module + "'\n"
	}
	generic := "a module it imports is not installed on the machine vigiles ran it on: install it there"
	for _, tc := range []struct {
		name, context, command, stderr, want string
	}{
		{"pyproject", "plugin:plugins/uvp", "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/guard.py", tb(tree+"/plugins/uvp/hooks/guard.py", "requests"),
			"it imports requests, which the plugin's plugins/uvp/pyproject.toml lists in its dependencies but the Python the hook ran does not have installed: Claude Code does not install a plugin's dependencies for it; install them in a virtual environment of the tree's before vigiles runs it (uv sync in plugins/uvp) and have the hook run its Python (${CLAUDE_PLUGIN_ROOT}/.venv/bin/python3) to see the hook at work"},
		{"- as _", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "typing_extensions"),
			"it imports typing_extensions, which the plugin's plugins/uvp/pyproject.toml lists in its dependencies"},
		// Python names the first part it could not find: the package
		// was found, its submodule is what is missing.
		{"a module's submodule", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "requests.nosuch"), generic},
		{"an extra", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "rich"),
			"lists in its optional dependencies (extra rich) but the Python the hook ran does not have installed: Claude Code does not install a plugin's dependencies for it; install them in a virtual environment of the tree's before vigiles runs it (uv sync --extra rich in plugins/uvp)"},
		{"the default group", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "pytest"), "lists in its dependency group dev but the Python the hook ran does not have installed: Claude Code does not install a plugin's dependencies for it; install them in a virtual environment of the tree's before vigiles runs it (uv sync in plugins/uvp)"},
		{"another group", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "ruff"), "(uv sync --group lint in plugins/uvp)"},
		{"a venv's Python already", "plugin:plugins/uvp", "${CLAUDE_PLUGIN_ROOT}/.venv/bin/python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "requests"), "(uv sync in plugins/uvp) to see the hook at work"},
		{"requirements.txt, imported by a module of the script's", "plugin:plugins/req", "python3 x",
			"Traceback (most recent call last):\n  File \"" + tree + "/plugins/req/scripts/x.py\", line 1, in <module>\n    from lib import y\n  File \"" + tree + "/plugins/req/scripts/lib/y.py\", line 2, in <module>\n    import httpx\n    ^^^^^^^^^^^^\nModuleNotFoundError: No module named 'httpx'\n",
			"it imports httpx, which the plugin's plugins/req/requirements.txt lists but the Python the hook ran does not have installed: Claude Code does not install a plugin's dependencies for it; install them in a virtual environment of the tree's before vigiles runs it (python3 -m venv .venv, then .venv/bin/pip install -r requirements.txt, in plugins/req) and have the hook run its Python (${CLAUDE_PLUGIN_ROOT}/.venv/bin/python3) to see the hook at work"},
		{"requirements.txt with a marker", "plugin:plugins/req", "python3 x", tb(tree+"/plugins/req/scripts/x.py", "jinja2"), "it imports jinja2, which the plugin's plugins/req/requirements.txt lists"},
		{"a URL's words are no package", "plugin:plugins/req", "python3 x", tb(tree+"/plugins/req/scripts/x.py", "git"), generic},
		{"PyYAML is imported as yaml", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "yaml"), generic},
		{"a module in another case", "plugin:plugins/uvp", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "Requests"), generic},
		{"the nearest holds neither listing it", "plugin:plugins/none", "python3 x", tb(tree+"/plugins/none/x.py", "requests"), generic},
		{"a project's hook", "project:.", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "requests"), generic},
		{"a script outside the plugin", "plugin:plugins/req", "python3 x", tb(tree+"/plugins/uvp/hooks/guard.py", "requests"), generic},
		{"no traceback", "plugin:plugins/uvp", "python3 x", "ModuleNotFoundError: No module named 'requests'\n", generic},
	} {
		got := failureCause(report.HookRun{ExitCode: 1, Context: tc.context, Command: tc.command, Stderr: tc.stderr}, tree)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: cause %q, want %q", tc.name, got, tc.want)
		}
	}
}

// hookErrorsOfAudit audits dir, every hook confined, and returns the
// message of each run/hook-error finding by its hook.
func hookErrorsOfAudit(t *testing.T, dir string) map[string]string {
	t.Helper()
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	got := messagesByHook(rep.Findings, RuleRunHookError)
	return got
}

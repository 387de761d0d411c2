package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigiles/action/pkg/report"
)

// TestOtherTypeKeys: a key Claude Code reads on a handler of another
// type only ("url" on a command hook, "command" on an http one, "async"
// on a prompt one) is ignored there, as the hooks reference's tables of
// each type's fields say: a warning names the key and the type it
// belongs to, its value is neither checked nor read, and the hook is
// read as Claude Code reads it.
func TestOtherTypeKeys(t *testing.T) {
	for _, tc := range []struct {
		name, handler string
		want          []string // the warnings' messages, in order
		command       string   // the hook's command as read
		async         bool
	}{
		{
			name:    "url and headers on a command hook",
			handler: `{"type": "command", "command": "true", "url": "http://127.0.0.1:9/x", "headers": {"A": "b"}}`,
			want: []string{
				`PreToolUse[0].hooks[0]: "url" is a key of an http hook, and this is a command hook: Claude Code ignores it here, so the command runs as if it were not there, and vigiles runs it so; for what it means, declare a handler of type "http"`,
				`PreToolUse[0].hooks[0]: "headers" is a key of an http hook, and this is a command hook: Claude Code ignores it here, so the command runs as if it were not there, and vigiles runs it so; for what it means, declare a handler of type "http"`,
			},
			command: "true",
		},
		{
			name:    "model on a command hook",
			handler: `{"type": "command", "command": "true", "model": "haiku"}`,
			want: []string{
				`PreToolUse[0].hooks[0]: "model" is a key of prompt and agent hooks, and this is a command hook: Claude Code ignores it here, so the command runs as if it were not there, and vigiles runs it so; for what it means, declare a handler of type "prompt" or "agent"`,
			},
			command: "true",
		},
		{
			// Of the wrong JSON type too: Claude Code ignores it, so no
			// wrong-type error, and the file is not skipped for it.
			name:    "a command on an http hook",
			handler: `{"type": "http", "url": "http://127.0.0.1:9/x", "command": 5, "args": ["a"]}`,
			want: []string{
				`PreToolUse[0].hooks[0]: "command" is a key of a command hook, and this is an http hook: Claude Code ignores it here, so no command runs: Claude Code runs the http hook alone, and vigiles runs no command of it either; for what it means, declare a handler of type "command"`,
				`PreToolUse[0].hooks[0]: "args" is a key of a command hook, and this is an http hook: Claude Code ignores it here, so no command runs: Claude Code runs the http hook alone, and vigiles runs no command of it either; for what it means, declare a handler of type "command"`,
			},
		},
		{
			name:    "async on a prompt hook",
			handler: `{"type": "prompt", "prompt": "ok?", "async": "yes"}`,
			want: []string{
				`PreToolUse[0].hooks[0]: "async" is a key of a command hook, and this is a prompt hook: Claude Code ignores it here, so the hook does not run in the background: Claude Code waits for it; for what it means, declare a handler of type "command"`,
			},
		},
		{
			name:    "continueOnBlock on an agent hook",
			handler: `{"type": "agent", "prompt": "ok?", "continueOnBlock": false}`,
			want: []string{
				`PreToolUse[0].hooks[0]: "continueOnBlock" is a key of a prompt hook, and this is an agent hook: Claude Code ignores it here, and handles an agent hook's ok: false as a prompt hook's with continueOnBlock true whatever it says`,
			},
		},
		{
			name:    "each type's own keys",
			handler: `{"type": "command", "command": "true", "args": [], "shell": "bash", "async": true, "asyncRewake": false, "if": "Bash(git *)", "timeout": 5, "statusMessage": "s", "onFailure": "continue"}`,
			command: "true",
			async:   true,
		},
		{
			// Claude Code's settings schema reads both (as internal keys:
			// the prefix and summary of what an asyncRewake hook wakes
			// the model with); a plugin of Anthropic's own sets them.
			name:    "an asyncRewake hook's message and summary",
			handler: `{"type": "command", "command": "true", "asyncRewake": true, "rewakeMessage": "Findings:", "rewakeSummary": "checked"}`,
			command: "true",
			async:   true,
		},
		{
			name:    "rewakeMessage on an http hook",
			handler: `{"type": "http", "url": "http://127.0.0.1:9/x", "rewakeMessage": "m"}`,
			want: []string{
				`PreToolUse[0].hooks[0]: "rewakeMessage" is a key of a command hook, and this is an http hook: Claude Code ignores it here, so it changes nothing of what the hook does; for what it means, declare a handler of type "command"`,
			},
		},
		{name: "async false on a prompt hook, which it does anyway", handler: `{"type": "prompt", "prompt": "ok?", "async": false, "asyncRewake": false}`},
		{name: "an mcp_tool hook's own keys", handler: `{"type": "mcp_tool", "server": "s", "tool": "t", "input": {"a": "b"}, "timeout": 5}`},
		{name: "a prompt hook's own keys", handler: `{"type": "prompt", "prompt": "p", "model": "m", "continueOnBlock": true}`},
		{name: "an http hook's own keys", handler: `{"type": "http", "url": "http://127.0.0.1:9/x", "headers": {}, "allowedEnvVars": ["A"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{
				".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + tc.handler + `]}], "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}`,
			}))
			var got []string
			for _, f := range s.findings {
				switch {
				case f.Rule == RuleMalformed && f.Severity == report.SeverityWarning:
					got = append(got, f.Message)
				case f.Severity == report.SeverityError:
					t.Errorf("error finding %s: %s", findingLine(f), f.Message)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if len(s.hooks) != 2 {
				t.Fatalf("read %d hooks, want 2", len(s.hooks))
			}
			for _, h := range s.hooks {
				if h.NotRun != "" && h.Type == TypeCommand {
					t.Errorf("%s: not run (%s)", h.ID, h.NotRun)
				}
				if h.Event != PreToolUse {
					continue
				}
				if h.Command != tc.command || h.Async != tc.async {
					t.Errorf("PreToolUse hook read with command %q async %v, want %q %v", h.Command, h.Async, tc.command, tc.async)
				}
				if !strings.HasPrefix(tc.handler, `{"type": "command"`) && h.Executable() {
					t.Errorf("a %s hook is run", h.Type)
				}
			}
		})
	}
}

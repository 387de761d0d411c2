package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestHandlerTypesByEvent: the hooks reference's "Prompt-based hooks"
// lists which events run which types of handler. A prompt or agent hook
// on an event that runs none (FileChanged, Setup, StopFailure,
// SessionStart, …) never runs, and an http hook on SessionStart or Setup
// neither: a warning says so. On an event that runs all five
// (TeammateIdle, Stop, PreToolUse) a prompt hook is a notice that vigiles
// lists it, and an http hook elsewhere the warning of what it sends.
func TestHandlerTypesByEvent(t *testing.T) {
	const never = "so it never runs"
	for _, tc := range []struct {
		event, handler string
		sev            report.Severity
		says           string
	}{
		{"FileChanged", `{"type": "prompt", "prompt": "p"}`, report.SeverityWarning, `prompt hook on FileChanged, where Claude Code runs command, http and mcp_tool hooks only, no prompt or agent hook (the hooks reference, "Prompt-based hooks"), so it never runs and guards nothing: write it as a command hook`},
		{"StopFailure", `{"type": "agent", "prompt": "p"}`, report.SeverityWarning, `agent hook on StopFailure, where Claude Code runs command, http and mcp_tool hooks only`},
		{"Setup", `{"type": "prompt", "prompt": "p"}`, report.SeverityWarning, `prompt hook on Setup, where Claude Code runs command and mcp_tool hooks only`},
		{"SessionStart", `{"type": "http", "url": "http://127.0.0.1:9/x"}`, report.SeverityWarning, `http hook on SessionStart, where Claude Code runs command and mcp_tool hooks only (the hooks reference, "Prompt-based hooks"), so it never runs and sends nothing: write it as a command hook`},
		{"Setup", `{"type": "http", "url": "http://127.0.0.1:9/x"}`, report.SeverityWarning, `http hook on Setup, where Claude Code runs command and mcp_tool hooks only`},
		{"TeammateIdle", `{"type": "prompt", "prompt": "p"}`, report.SeverityNotice, "prompt hook is listed as declared; vigiles runs only command hooks"},
		{"Stop", `{"type": "agent", "prompt": "p"}`, report.SeverityNotice, "agent hook is listed as declared; vigiles runs only command hooks"},
		{"FileChanged", `{"type": "http", "url": "http://127.0.0.1:9/x"}`, report.SeverityWarning, `http hook: Claude Code sends each FileChanged input to "http://127.0.0.1:9/x"`},
		{"SessionStart", `{"type": "mcp_tool", "server": "s", "tool": "t"}`, report.SeverityNotice, "mcp_tool hook is listed as declared"},
	} {
		t.Run(tc.event+" "+tc.handler, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{
				".claude/settings.json": `{"hooks": {"` + tc.event + `": [{"hooks": [` + tc.handler + `]}]}}`,
			}))
			if len(s.findings) != 1 {
				t.Fatalf("findings %v, want one", findingLines(s.findings))
			}
			f := s.findings[0]
			if f.Rule != RuleNotExecutable || f.Severity != tc.sev || !strings.Contains(f.Message, tc.says) {
				t.Errorf("%s %q, want %s %s saying %q", findingLine(f), f.Message, tc.sev, RuleNotExecutable, tc.says)
			}
			if tc.sev == report.SeverityNotice && strings.Contains(f.Message, never) {
				t.Errorf("%q says it never runs", f.Message)
			}
		})
	}
}

package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMCPServerMatcher: a tool event's matcher that names an MCP server
// and not a tool (mcp__memory) is compared with tools' names exactly, as
// its characters are all name characters, and an MCP tool's name is
// mcp__<server>__<tool>: it matches no tool (the hooks reference, "Match
// MCP tools": "The .* is required"). A warning says so and how to write
// it; the hook is listed, not run, or run for the list's other names
// alone. mcp__memory__.* runs for the server's tools; an Elicitation
// matcher names servers, and is left alone.
func TestMCPServerMatcher(t *testing.T) {
	for _, tc := range []struct {
		name, event, matcher string
		warn                 string
		ran                  []string // the tools it ran for
		notRun               string   // the reason of its run listed, not run
	}{
		{
			name: "a server alone", event: "PreToolUse", matcher: "mcp__memory",
			warn:   `PreToolUse[0].matcher names "mcp__memory", an MCP server, not a tool: an MCP tool's name is mcp__<server>__<tool>, and Claude Code compares a matcher of letters, digits, _, -, spaces, commas and | with tools' names exactly, so this matches none of the server's tools and the hook never runs for them (vigiles does not run it for "mcp__memory" either): write "mcp__memory__.*" to match every tool of the server`,
			notRun: `its matcher "mcp__memory" names an MCP server, not a tool`,
		},
		{
			name: "a plugin's server, hyphenated", event: "PostToolUse", matcher: "mcp__plugin_my-plugin_db",
			warn:   `PostToolUse[0].matcher names "mcp__plugin_my-plugin_db", an MCP server, not a tool`,
			notRun: `its matcher "mcp__plugin_my-plugin_db" names an MCP server, not a tool`,
		},
		{
			name: "a server beside a tool", event: "PreToolUse", matcher: "Bash|mcp__memory",
			warn: `PreToolUse[0].matcher names "mcp__memory", an MCP server, not a tool`,
			ran:  []string{"Bash"},
		},
		{name: "every tool of the server", event: "PreToolUse", matcher: "mcp__memory__.*", ran: []string{"mcp__memory__example"}},
		{name: "one tool of the server", event: "PreToolUse", matcher: "mcp__memory__create", ran: []string{"mcp__memory__create"}},
		{name: "an elicitation's server", event: "Elicitation", matcher: "mcp__memory", ran: []string{"mcp__memory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude/settings.json": `{"hooks": {"` + tc.event + `": [{"matcher": "` + tc.matcher + `", "hooks": [{"type": "command", "command": "true"}]}]}}`,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var warns []string
			for _, f := range rep.Findings {
				if f.Rule == RuleBadMatcher {
					warns = append(warns, f.Message)
				}
			}
			if tc.warn == "" && len(warns) > 0 || tc.warn != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0], tc.warn)) {
				t.Errorf("matcher findings %q, want one that begins %q", warns, tc.warn)
			}
			var ran []string
			for _, r := range rep.Runs {
				if tc.notRun != "" {
					if !strings.Contains(r.Reason, tc.notRun) {
						t.Errorf("run %s: %s %q, want it listed, not run, saying %q", r.ID, r.Outcome, r.Reason, tc.notRun)
					}
					continue
				}
				ran = append(ran, r.ID[strings.LastIndexByte(r.ID, '@')+1:])
			}
			slices.Sort(ran)
			if diff := cmp.Diff(tc.ran, ran); diff != "" {
				t.Errorf("ran for (-want +got):\n%s", diff)
			}
		})
	}
}

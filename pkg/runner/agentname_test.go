package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAgentTypeOfNonStringName: an agent's "name" that YAML reads as
// something other than a string becomes the agent_type Claude Code's
// String() makes of it (the number 1.5 for "1.50", "true" for a boolean),
// not the text as written; null, and a list or a mapping (no name), fall
// back to the file's name; a quoted name is the string as written.
func TestAgentTypeOfNonStringName(t *testing.T) {
	for name, want := range map[string]string{
		"0":                     "0",
		"-0":                    "0",
		"1.50":                  "1.5",
		"1.0":                   "1",
		"+7":                    "7",
		"010":                   "10",
		"0x1F":                  "31",
		"0o17":                  "15",
		"1e3":                   "1000",
		"1.5e-7":                "1.5e-7",
		"1e21":                  "1e+21",
		"123456789012345678901": "123456789012345680000",
		".inf":                  "Infinity",
		"-.Inf":                 "-Infinity",
		".nan":                  "NaN",
		"true":                  "true",
		"False":                 "false",
		"null":                  "agent",
		"~":                     "agent",
		"":                      "agent",
		"[a]":                   "agent",
		"{a: 1}":                "agent",
		`"1.50"`:                "1.50",
		"'true'":                "true",
		"!!str 0x1F":            "0x1F",
		"reviewer":              "reviewer",
		"2024-01-01":            "2024-01-01",
	} {
		dir := makeTree(t, map[string]string{
			".claude/agents/agent.md": "---\nname: " + name + "\nhooks:\n  Stop: [{hooks: [{type: command, command: echo x}]}]\n---\n",
		})
		s := discoverAll(t, dir)
		if len(s.hooks) != 1 {
			t.Errorf("name: %s: hooks %v, findings %v", name, s.hooks, findingLines(s.findings))
			continue
		}
		if got := s.hooks[0].AgentType; got != want {
			t.Errorf("name: %s: agent_type %q, want %q", name, got, want)
		}
	}
}

// TestJSNumberString: numbers are written as JavaScript's String() writes
// them.
func TestJSNumberString(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1.5, "1.5"}, {-2, "-2"}, {100, "100"},
		{1e20, "100000000000000000000"}, {1e21, "1e+21"}, {1.25e22, "1.25e+22"},
		{0.000001, "0.000001"}, {0.0000001, "1e-7"}, {-1.5e-10, "-1.5e-10"},
		{0.30000000000000004, "0.30000000000000004"}, {123.456, "123.456"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
	} {
		if got := jsNumberString(tc.f); got != tc.want {
			t.Errorf("jsNumberString(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestAgentHooksRunInsideTheAgent: Claude Code runs the hooks an agent's
// frontmatter declares only while that agent runs (hooks.md, "Hooks in
// skills and agents"), and a tool event fired inside a subagent carries
// the agent_id and agent_type common fields ("Common input fields"): an
// agent's PreToolUse hook never sees a payload without them. One that
// checked for them could tell an audit that sent the main thread's. A
// skill's hook runs in the main thread: no agent fields; nor does a
// check's payload: lose the fields it sets.
func TestAgentHooksRunInsideTheAgent(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/agents/rev.md":     "---\nname: reviewer\nhooks:\n  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: echo agent}]}]\n---\n",
		".claude/skills/s/SKILL.md": "---\nname: s\ndescription: d\nhooks:\n  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: echo skill}]}]\n---\n",
		".vigiles.yml":              "checks:\n  - name: c\n    hook: .claude/agents/rev.md\n    event: PreToolUse\n    tool: Bash\n    payload: {agent_id: agent-77}\n    expect: {exit-code: 0}\n",
	})
	ex := fakeHooks()
	if _, err := Audit(context.Background(), Options{Dir: dir, Executor: ex}); err != nil {
		t.Fatal(err)
	}
	if _, err := Test(context.Background(), Options{Dir: dir, Executor: ex}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, s := range ex.Specs {
		var in map[string]any
		if err := json.Unmarshal(ex.Stdin[i], &in); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprint(in["agent_id"])
		if regexp.MustCompile(`^a[0-9a-f]{15}$`).MatchString(id) {
			id = "<run's agent id>" // each run's own (TestAgentIDOfTheRun)
		}
		got = append(got, fmt.Sprintf("%s %s %v", s.Command[len(s.Command)-1], id, in["agent_type"]))
	}
	sort.Strings(got)
	want := []string{"echo agent <run's agent id> reviewer", "echo agent agent-77 reviewer", "echo skill <nil> <nil>"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
}

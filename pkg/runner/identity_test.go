package runner

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestPayloadBytesAsClaudeCodeWritesThem: the stdin of a hook has its
// keys in Claude Code's order and '&', '<' and '>' as they are (a guard
// that greps its raw input for "&&" finds it).
func TestPayloadBytesAsClaudeCodeWritesThem(t *testing.T) {
	p := BuildPayload(PreToolUse, "Bash", "/w", map[string]any{"description": "d", "command": "make && ./run <in >out", "zz": 1.0}, nil)
	got := string(p.JSON())
	want := `{"session_id":"` + sessionID + `","transcript_path":"` + sandbox.Home + `/.claude/projects/-w/` + sessionID + `.jsonl","cwd":"/w",` +
		`"prompt_id":"` + defaultPromptID + `","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PreToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"make && ./run <in >out","description":"d","zz":1},"tool_use_id":"` + defaultToolUseID + `"}`
	if got != want {
		t.Errorf("payload\n got %s\nwant %s", got, want)
	}
	var m map[string]any
	if err := json.Unmarshal(p.JSON(), &m); err != nil {
		t.Fatal(err)
	}
}

// TestEachRunSendsFreshIds: every run sends its hook a session id, a
// tool use id and an env file path of its own, none of them the fixed
// ones a plan holds, and the same in every audit (a hook that names a
// file by a part of its session id does so alike each time); what comes
// back is written with the fixed ones.
func TestEachRunSendsFreshIds(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}],
			"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]int{}
	var mu sync.Mutex
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
		var in struct {
			SessionID  string `json:"session_id"`
			ToolUseID  string `json:"tool_use_id"`
			Transcript string `json:"transcript_path"`
		}
		if err := json.Unmarshal(stdin, &in); err != nil {
			t.Errorf("stdin %s: %v", stdin, err)
		}
		if !uuid.MatchString(in.SessionID) || in.SessionID == sessionID {
			t.Errorf("session id %q: want a version 4 UUID of the run's own", in.SessionID)
		}
		mu.Lock()
		seen[in.SessionID]++
		mu.Unlock()
		if !strings.Contains(in.Transcript, in.SessionID) {
			t.Errorf("transcript %q does not name the session %q", in.Transcript, in.SessionID)
		}
		if in.ToolUseID != "" && (len(in.ToolUseID) != len(defaultToolUseID) || in.ToolUseID == defaultToolUseID || !strings.HasPrefix(in.ToolUseID, "toolu_01")) {
			t.Errorf("tool use id %q: want a fresh one of %q's form", in.ToolUseID, defaultToolUseID)
		}
		if spec.EnvFile != "" && !strings.Contains(spec.EnvFile, in.SessionID) {
			t.Errorf("env file %q is not under the session %q", spec.EnvFile, in.SessionID)
		}
		// The hook echoes its ids, and writes and names hosts by them.
		res := &sandbox.Result{Tier: sandbox.TierConfined, Stdout: "sid=" + in.SessionID + " tu=" + in.ToolUseID,
			Writes: []evidence.Write{{Path: "~/seen-" + in.SessionID, Op: evidence.OpCreate}},
			Egress: []evidence.Egress{{Host: in.SessionID + ".example.test", Via: evidence.ViaDNS}}}
		return res, nil
	}}
	for round := 0; round < 2; round++ {
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Runs {
			if !strings.HasPrefix(r.Stdout, "sid="+sessionID+" tu=") || (r.Event == PreToolUse && !strings.HasSuffix(r.Stdout, defaultToolUseID)) {
				t.Errorf("%s: stdout %q; want the fixed ids put back", r.ID, r.Stdout)
			}
			if len(r.Writes) != 1 || r.Writes[0].Path != "~/seen-"+sessionID || len(r.Egress) != 1 || r.Egress[0].Host != sessionID+".example.test" {
				t.Errorf("%s: writes %v egress %v; want the fixed id put back", r.ID, r.Writes, r.Egress)
			}
		}
	}
	// Two runs (SessionStart, PreToolUse on Bash), each audited twice.
	if len(seen) != 2 {
		t.Errorf("session ids %v; want one for each of the 2 runs, the same in both audits", seen)
	}
	for id, n := range seen {
		if n != 2 {
			t.Errorf("session id %s sent %d times in 2 audits", id, n)
		}
	}
}

// TestAConfinedHookSeesNoNameOfVigiles: what a hook reads of its
// surroundings in a real sandbox names neither vigiles nor a fixed id:
// the host's own host name, uid 0's HOME and USER (where the caller has
// one), Claude Code's variables, a fresh session id (and the env file
// under it), which the record shows as the fixed one.
func TestAConfinedHookSeesNoNameOfVigiles(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	cmd := `in=$(cat); sid=$(printf '%s' "$in" | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p'); ` +
		`case $sid in 00000000-*) echo FIXED;; ????????-????-4???-????-????????????) echo FRESH;; esac; ` +
		`echo "sid=$sid host=$(cat /proc/sys/kernel/hostname) home=$HOME mode=$(stat -c %a "$HOME") user=$USER cc=$CLAUDECODE ep=$CLAUDE_CODE_ENTRYPOINT"; ` +
		`case $CLAUDE_ENV_FILE in *$sid*) echo ENVFILE-UNDER-SESSION;; esac; ` +
		`echo "export SID=$sid" >> "$CLAUDE_ENV_FILE"; touch "$HOME/seen-$sid"; grep -l vigiles /etc/resolv.conf || echo RESOLV-CLEAN`
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
	dir := makeTree(t, map[string]string{"plugins/p/hooks/hooks.json": string(hooks)})
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	// USER is root's where the caller has one, as a session of a caller
	// without one (a container started as root) has none.
	user := ""
	if _, ok := os.LookupEnv("USER"); ok {
		user = "root"
	}
	for _, r := range rep.Runs {
		if r.Outcome == report.OutcomeError {
			t.Fatalf("%s: %s: %s %s", r.ID, r.Reason, r.Stdout, r.Stderr)
		}
		for _, want := range []string{"FRESH\n", "sid=" + sessionID + " host=" + host + " home=/root mode=700 user=" + user + " cc=1 ep=cli\n", "ENVFILE-UNDER-SESSION\n", "RESOLV-CLEAN\n"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%s: stdout %q lacks %q (stderr %q)", r.ID, r.Stdout, want, r.Stderr)
			}
		}
		if r.EnvFile == nil || r.EnvFile.Text() != "export SID="+sessionID+"\n" || !strings.Contains(r.EnvFile.Path, sessionID) {
			t.Errorf("%s: env file %+v; want the fixed id put back", r.ID, r.EnvFile)
		}
		found := false
		for _, w := range r.Writes {
			found = found || w.Path == "~/seen-"+sessionID
		}
		if !found {
			t.Errorf("%s: writes %v; want ~/seen-%s", r.ID, r.Writes, sessionID)
		}
	}
	if len(rep.Runs) == 0 {
		t.Fatal("no run")
	}
}

// TestTranscriptDirAsClaudeCodeNamesIt: one '-' for each UTF-16 unit
// that is not an ASCII letter or digit.
func TestTranscriptDirAsClaudeCodeNamesIt(t *testing.T) {
	if got, want := transcriptDir("/home/é/a_b😀"), sandbox.Home+"/.claude/projects/-home---a-b--"; got != want {
		t.Errorf("transcriptDir = %q, want %q", got, want)
	}
}

// TestAgentIDOfTheRun: a subagent's agent_id has the form Claude Code's
// have (the Agent tool's agentId, "a4d2c8f1e0b3a297" in hooks.md: "a" and
// 15 hex digits), its transcript is subagents/agent-<id>.jsonl, and each
// run sends one of its own, as it does the session's id: a fixed
// "agent-0001" in every audit told a hook it was audited.
func TestAgentIDOfTheRun(t *testing.T) {
	p := BuildPayload(SubagentStop, "Explore", "/w", nil, nil)
	id, _ := p.Input["agent_id"].(string)
	if !regexp.MustCompile(`^a[0-9a-f]{15}$`).MatchString(id) {
		t.Errorf("agent_id %q: want \"a\" and 15 hex digits", id)
	}
	if tp, _ := p.Input["agent_transcript_path"].(string); !strings.HasSuffix(tp, "/subagents/agent-"+id+".jsonl") {
		t.Errorf("agent_transcript_path %q does not name agent %s", tp, id)
	}
	sent := newRunIdentity("r").send.Replace(string(p.JSON()))
	if strings.Contains(sent, id) {
		t.Errorf("the run sends the fixed agent id: %s", sent)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(sent), &m); err != nil {
		t.Fatal(err)
	}
	fresh, _ := m["agent_id"].(string)
	if !regexp.MustCompile(`^a[0-9a-f]{15}$`).MatchString(fresh) || !strings.HasSuffix(m["agent_transcript_path"].(string), "/agent-"+fresh+".jsonl") {
		t.Errorf("sent agent_id %q, transcript %v", fresh, m["agent_transcript_path"])
	}
}

// TestTeamNameFollowsTheSession: a TeammateIdle team_name is
// "session-derived" (hooks.md, "TeammateIdle input": session-a1b2c3d4):
// the run sends the one its own session id gives, not the plan's
// session-00000000 beside a fresh session_id.
func TestTeamNameFollowsTheSession(t *testing.T) {
	sent := newRunIdentity("r").send.Replace(string(BuildPayload(TeammateIdle, "", "/w", nil, nil).JSON()))
	var m map[string]string
	if err := json.Unmarshal([]byte(sent), &m); err != nil {
		t.Fatal(err)
	}
	if m["team_name"] != "session-"+m["session_id"][:8] {
		t.Errorf("team_name %q beside session_id %q", m["team_name"], m["session_id"])
	}
}

// TestSessionPrefixedIDRestored: a hook that names a file "session-" and
// its session id has it put back whole in the record (the team name,
// "session-" and 8 characters of it, does not cut it).
func TestSessionPrefixedIDRestored(t *testing.T) {
	id := newRunIdentity("r")
	fresh := id.send.Replace(sessionID)
	if got := id.restore.Replace("/tmp/session-" + fresh + ".log"); got != "/tmp/session-"+sessionID+".log" {
		t.Errorf("restored %q", got)
	}
}

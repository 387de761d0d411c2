package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// transcriptSettings has a hook on each event whose transcript differs:
// one with a prompt, one with last_assistant_message, SubagentStop with
// a subagent's transcript too, and events with neither.
const transcriptSettings = `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "true"}]}]
}}`

// TestEachRunGetsItsTranscript: every run's sandbox makes the transcript
// its payload names (transcript_path, and SubagentStop's
// agent_transcript_path) in HOME, with entries of Claude Code's shape:
// a user entry and the assistant's answer, chained by uuids of the run's
// own, with the session id and cwd the payload sends, the payload's
// prompt and last_assistant_message where it has them. No fixed id is in
// a transcript, and a run gets the same ones in every audit.
func TestEachRunGetsItsTranscript(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": transcriptSettings})
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	fixed := []string{sessionID, defaultUserEntryID, defaultAssistantEntryID, defaultAgentUserEntryID, defaultAgentAssistantID, defaultAgentID}
	var mu sync.Mutex
	seen := map[string]string{} // event → its transcripts, as sent
	events := map[string]bool{}
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
		var in map[string]any
		if err := json.Unmarshal(stdin, &in); err != nil {
			t.Errorf("stdin %s: %v", stdin, err)
			return nil, err
		}
		event := in["hook_event_name"].(string)
		keys := []string{"transcript_path"}
		if event == SubagentStop {
			keys = append(keys, "agent_transcript_path")
		}
		if len(spec.HomeFiles) != len(keys) {
			t.Errorf("%s: %d home files; want %d (%v)", event, len(spec.HomeFiles), len(keys), keys)
		}
		var all []string
		for _, k := range keys {
			tp := in[k].(string)
			rel, ok := strings.CutPrefix(tp, sandbox.Home+"/")
			content, made := spec.HomeFiles[rel]
			if !ok || !made {
				t.Errorf("%s: %s %s is not made (home files %v)", event, k, tp, spec.HomeFiles)
				continue
			}
			all = append(all, string(content))
			for _, id := range fixed {
				if strings.Contains(string(content), id) {
					t.Errorf("%s: %s holds the fixed id %s:\n%s", event, k, id, content)
				}
			}
			lines := strings.Split(strings.TrimSuffix(string(content), "\n"), "\n")
			if len(lines) != 2 {
				t.Errorf("%s: %s has %d lines; want 2:\n%s", event, k, len(lines), content)
				continue
			}
			var e [2]struct {
				ParentUUID  *string `json:"parentUuid"`
				IsSidechain bool    `json:"isSidechain"`
				UserType    string  `json:"userType"`
				Cwd         string  `json:"cwd"`
				SessionID   string  `json:"sessionId"`
				AgentID     string  `json:"agentId"`
				Type        string  `json:"type"`
				Message     struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
				UUID      string `json:"uuid"`
				Timestamp string `json:"timestamp"`
			}
			for i, l := range lines {
				dec := json.NewDecoder(strings.NewReader(l))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&e[i]); err != nil {
					t.Errorf("%s: %s line %d %s: %v", event, k, i+1, l, err)
				}
				if e[i].SessionID != in["session_id"] || e[i].Cwd != in["cwd"] || !uuid.MatchString(e[i].UUID) ||
					e[i].IsSidechain != (k == "agent_transcript_path") {
					t.Errorf("%s: %s line %d %s: want session %v, cwd %v, a uuid", event, k, i+1, l, in["session_id"], in["cwd"])
				}
				if ts, err := time.Parse(time.RFC3339Nano, e[i].Timestamp); err != nil || !strings.HasSuffix(e[i].Timestamp, "Z") || time.Since(ts) < 0 {
					t.Errorf("%s: %s line %d: timestamp %q (%v)", event, k, i+1, e[i].Timestamp, err)
				}
			}
			if e[0].Type != "user" || e[0].Message.Role != "user" || e[0].ParentUUID != nil ||
				e[1].Type != "assistant" || e[1].Message.Role != "assistant" || e[1].ParentUUID == nil || *e[1].ParentUUID != e[0].UUID {
				t.Errorf("%s: %s: want a user entry and the assistant's answer to it:\n%s", event, k, content)
			}
			if k == "agent_transcript_path" && (e[0].AgentID != in["agent_id"] || e[1].AgentID != in["agent_id"]) {
				t.Errorf("%s: subagent transcript of agent %q, %q; want %v", event, e[0].AgentID, e[1].AgentID, in["agent_id"])
			}
			var prompt string
			var answer []struct{ Type, Text string }
			if json.Unmarshal(e[0].Message.Content, &prompt) != nil || json.Unmarshal(e[1].Message.Content, &answer) != nil || len(answer) != 1 || answer[0].Type != "text" {
				t.Errorf("%s: %s: contents %s, %s", event, k, e[0].Message.Content, e[1].Message.Content)
				continue
			}
			wantPrompt, wantAnswer := defaultUserPrompt, defaultAssistantMessage
			if k == "agent_transcript_path" {
				wantPrompt, wantAnswer = defaultSubagentPrompt, defaultSubagentMessage
			}
			if p, ok := in["prompt"].(string); ok {
				wantPrompt = p
			}
			if m, ok := in["last_assistant_message"].(string); ok {
				wantAnswer = m
			}
			if prompt != wantPrompt || answer[0].Text != wantAnswer {
				t.Errorf("%s: %s: prompt %q, answer %q; want %q, %q", event, k, prompt, answer[0].Text, wantPrompt, wantAnswer)
			}
		}
		// Timestamps aside, the same in every audit.
		ts := regexp.MustCompile(`"timestamp":"[^"]*"`)
		got := ts.ReplaceAllString(strings.Join(all, ""), `"timestamp":""`)
		mu.Lock()
		defer mu.Unlock()
		events[event] = true
		if prev, ok := seen[event]; ok && prev != got {
			t.Errorf("%s: transcripts differ between audits:\n%s\n%s", event, prev, got)
		}
		seen[event] = got
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}}, nil
	}}
	for round := 0; round < 2; round++ {
		if _, err := Audit(context.Background(), Options{Dir: dir, Executor: exec}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ev := range []string{SessionStart, UserPromptSubmit, PreToolUse, Stop, SubagentStop} {
		if !events[ev] {
			t.Errorf("no %s run", ev)
		}
	}
}

// A transcript is made only where the sandbox can make it: a path a
// payloads: entry puts outside HOME, or where the env file is to be, or
// too large, gets none, and the run goes ahead.
func TestTranscriptOnlyWhereItCanBeMade(t *testing.T) {
	send := strings.NewReplacer()
	base := sandbox.Spec{Command: []string{"true"}, EnvFile: ".claude/session-env/s/sessionstart-hook-0.sh", EnvFileVar: "CLAUDE_ENV_FILE"}
	for _, tt := range []struct {
		name string
		in   map[string]any
		want []string
	}{
		{"in HOME", map[string]any{"transcript_path": sandbox.Home + "/.claude/projects/-w/s.jsonl"}, []string{".claude/projects/-w/s.jsonl"}},
		{"outside HOME", map[string]any{"transcript_path": "/etc/t.jsonl"}, nil},
		{"relative", map[string]any{"transcript_path": "t.jsonl"}, nil},
		{"up from HOME", map[string]any{"transcript_path": sandbox.Home + "/../etc/t.jsonl"}, nil},
		{"not a string", map[string]any{"transcript_path": 1.0}, nil},
		{"the env file", map[string]any{"transcript_path": sandbox.Home + "/" + base.EnvFile}, nil},
		{"too large", map[string]any{"transcript_path": sandbox.Home + "/t.jsonl", "prompt": strings.Repeat("x", sandbox.MaxHomeFileBytes)}, nil},
		{"the subagent's beside", map[string]any{"transcript_path": sandbox.Home + "/t.jsonl", "agent_transcript_path": sandbox.Home + "/t/subagents/a.jsonl"},
			[]string{"t.jsonl", "t/subagents/a.jsonl"}},
		{"a name longer than a directory entry's", map[string]any{"transcript_path": sandbox.Home + "/.claude/projects/-" + strings.Repeat("a", 255) + "/s.jsonl"}, nil},
		{"the subagent's at the same path", map[string]any{"transcript_path": sandbox.Home + "/t.jsonl", "agent_transcript_path": sandbox.Home + "/t.jsonl"},
			[]string{"t.jsonl"}},
	} {
		spec := withTranscripts(base, tt.in, send, time.Now())
		var got []string
		for rel := range spec.HomeFiles {
			got = append(got, rel)
		}
		if strings.Join(slices.Sorted(slices.Values(got)), " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: home files %v; want %v", tt.name, got, tt.want)
		}
		if err := sandbox.HomeFilesFit(spec); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// TestTranscriptInTheSandbox runs hooks that read their transcript, in a
// real sandbox: a Stop hook finds the session's, with its session id and
// its last_assistant_message, a SubagentStop hook the subagent's too;
// reading them is no write, and what a hook prints of them reads with the
// fixed ids. A hook that acts only where the transcript is acts in the
// audit; one that appends to it modifies it, a file that was there.
func TestTranscriptInTheSandbox(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	field := func(k string) string { return `$(printf '%s' "$in" | sed -n 's/.*"` + k + `":"\([^"]*\)".*/\1/p')` }
	read := `in=$(cat); sid=` + field("session_id") + `; tp=` + field("transcript_path") + `; ` +
		`grep -q "\"sessionId\":\"$sid\"" "$tp" && grep -q '"type":"assistant"' "$tp" && grep -q "I added the test and it passes." "$tp" && cat "$tp"`
	readAgent := `in=$(cat); sid=` + field("session_id") + `; tp=` + field("agent_transcript_path") + `; ` +
		`grep -q "\"sessionId\":\"$sid\"" "$tp" && grep -q '"isSidechain":true' "$tp" && grep -q "Analysis complete" "$tp" && cat "$tp"`
	guard := `in=$(cat); tp=` + field("transcript_path") + `; [ -s "$tp" ] || exit 0; touch "$CLAUDE_PROJECT_DIR/acted"`
	appendTo := `in=$(cat); tp=` + field("transcript_path") + `; echo '{"type":"summary"}' >> "$tp"`
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"Stop":             []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": read}}}},
		"SubagentStop":     []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": readAgent}}}},
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": guard}}}},
		"PreToolUse":       []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": appendTo}}}},
	}})
	dir := makeTree(t, map[string]string{".claude/settings.json": string(hooks)})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	transcript := strings.TrimPrefix(transcriptDir(dir), sandbox.Home+"/")
	transcript = "~/" + transcript + "/" + sessionID + ".jsonl"
	runs := map[string]report.HookRun{}
	for _, r := range rep.Runs {
		runs[r.Event] = r
		if r.Outcome == report.OutcomeError || r.ExitCode != 0 {
			t.Errorf("%s: %s, exit %d: %s %s", r.ID, r.Outcome, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
	for _, ev := range []string{Stop, SubagentStop} {
		r := runs[ev]
		if r.Writes == nil || len(r.Writes) != 0 {
			t.Errorf("%s: writes %v; want none", ev, r.Writes)
		}
		for _, want := range []string{`"sessionId":"` + sessionID + `"`, `"uuid":"` + defaultUserEntryID + `"`, `"parentUuid":"` + defaultUserEntryID + `"`} {
			if ev == SubagentStop {
				want = strings.ReplaceAll(want, defaultUserEntryID, defaultAgentUserEntryID)
			}
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%s: stdout %q lacks %s (the fixed ids put back)", ev, r.Stdout, want)
			}
		}
	}
	if w := runs[UserPromptSubmit].Writes; len(w) != 1 || w[0].Path != "acted" || w[0].Op != evidence.OpCreate {
		t.Errorf("UserPromptSubmit guarded on the transcript: writes %v; want create acted", w)
	}
	if w := runs[PreToolUse].Writes; len(w) != 1 || w[0].Path != transcript || w[0].Op != evidence.OpModify || w[0].Kind != "file" || w[0].Was != "" {
		t.Errorf("PreToolUse appended to the transcript: writes %v; want modify %s (file)", w, transcript)
	}
	if !bytes.Contains([]byte(runs[Stop].Stdout), []byte(`"type":"user"`)) {
		t.Errorf("Stop: stdout %q", runs[Stop].Stdout)
	}
}

// A work tree at a path long enough that its transcript's directory, the
// tree's path with every character but a letter or digit as "-", is a
// name longer than a directory entry may be (255 bytes): the sandbox
// cannot make that transcript, and its hooks run without it, as before
// there were transcripts, rather than every run being refused.
func TestTranscriptOfALongPathLeftOut(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 120), strings.Repeat("e", 120))
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > /dev/null; echo ran"}}}},
	}})
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), hooks, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := len(strings.TrimPrefix(transcriptDir(dir), sandbox.Home+"/.claude/projects/")); n <= 255 {
		t.Fatalf("the transcript's directory is %d bytes; want more than 255", n)
	}
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs; want 1", len(rep.Runs))
	}
	if r := rep.Runs[0]; r.Outcome == report.OutcomeError || r.ExitCode != 0 || r.Stdout != "ran\n" || len(r.Writes) != 0 {
		t.Errorf("%s: %s (%s), exit %d, stdout %q, writes %v; want it run, no write", r.ID, r.Outcome, r.Reason, r.ExitCode, r.Stdout, r.Writes)
	}
}

package runner

import (
	"context"
	"encoding/json"
	"testing"
)

// TestSettingsMode: a session starts in the defaultMode of its settings
// where Claude Code takes it from a project's files (acceptEdits, plan,
// dontAsk; manual as default), settings.local.json over settings.json;
// auto and bypassPermissions, which Claude Code ignores there, and values
// it does not know leave it in default, the local file's ignored value
// not giving way to the other file's.
func TestSettingsMode(t *testing.T) {
	for _, c := range []struct {
		proj, local string
		want        string
	}{
		{"", "", "default"},
		{`{"permissions":{"defaultMode":"acceptEdits"}}`, "", "acceptEdits"},
		{`{"permissions":{"defaultMode":"plan"}}`, "", "plan"},
		{`{"permissions":{"defaultMode":"dontAsk"}}`, "", "dontAsk"},
		{`{"permissions":{"defaultMode":"manual"}}`, "", "default"},
		{`{"permissions":{"defaultMode":"bypassPermissions"}}`, "", "default"},
		{`{"permissions":{"defaultMode":"auto"}}`, "", "default"},
		{`{"permissions":{"defaultMode":"yolo"}}`, "", "default"},
		{`{"permissions":{"defaultmode":"plan"}}`, "", "default"},
		{`{"permissions":{"defaultMode":"plan"}}`, `{"permissions":{"defaultMode":"acceptEdits"}}`, "acceptEdits"},
		{`{"permissions":{"defaultMode":"plan"}}`, `{"permissions":{"allow":["Bash(ls)"]}}`, "plan"},
		{`{"permissions":{"defaultMode":"plan"}}`, `{"permissions":{"defaultMode":"bypassPermissions"}}`, "default"},
	} {
		var files []settingsFile
		for _, f := range []string{c.proj, c.local} {
			if f == "" {
				continue
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal([]byte(f), &keys); err != nil {
				t.Fatal(err)
			}
			files = append(files, settingsFile{keys: keys})
		}
		if got := settingsMode(files); got != c.want {
			t.Errorf("%s + %s: mode %q, want %q", c.proj, c.local, got, c.want)
		}
	}
}

// TestPayloadFollowsDefaultMode: the payloads of a project whose
// settings start its sessions in acceptEdits carry that permission_mode
// (not the events that get none, SessionStart's nor an Elicitation's,
// whose input the hooks reference shows without one, nor
// PermissionDenied's auto); a check's own payload: still sets another.
func TestPayloadFollowsDefaultMode(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"permissions": {"defaultMode": "acceptEdits"}, "hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}],
  "PermissionDenied": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo denied"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}],
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo start"}]}],
  "Elicitation": [{"matcher": "example", "hooks": [{"type": "command", "command": "echo elicit"}]}]}}`,
		".vigiles.yml": `checks:
  - name: bypass
    hook: .claude/settings.json#hooks.PreToolUse[0].hooks[0]
    tool: Bash
    payload: {permission_mode: bypassPermissions}
    expect: {exit-code: 0}
  - name: plain
    hook: .claude/settings.json#hooks.PreToolUse[0].hooks[0]
    tool: Bash
    expect: {exit-code: 0}
`,
	})
	modes := func(stdin [][]byte) map[string]any {
		got := map[string]any{}
		for _, b := range stdin {
			var p map[string]any
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			k := p["hook_event_name"].(string)
			if _, dup := got[k]; dup {
				k += "#2"
			}
			got[k] = p["permission_mode"]
		}
		return got
	}
	ex := fakeHooks()
	if _, err := Audit(context.Background(), Options{Dir: dir, Executor: ex, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	got := modes(ex.Stdin)
	want := map[string]any{"PreToolUse": "acceptEdits", "PermissionDenied": "auto", "Stop": "acceptEdits", "SessionStart": nil, "Elicitation": nil}
	for k, v := range want {
		if _, ran := got[k]; !ran {
			t.Errorf("audit: no %s hook ran (all: %v)", k, got)
		} else if got[k] != v {
			t.Errorf("audit: %s permission_mode %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	ex = fakeHooks()
	if _, err := Test(context.Background(), Options{Dir: dir, Executor: ex, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	got = modes(ex.Stdin)
	if !(got["PreToolUse"] == "bypassPermissions" && got["PreToolUse#2"] == "acceptEdits" || got["PreToolUse"] == "acceptEdits" && got["PreToolUse#2"] == "bypassPermissions") {
		t.Errorf("checks: a check's payload: sets bypassPermissions, the other gets the settings' acceptEdits: %v", got)
	}
}

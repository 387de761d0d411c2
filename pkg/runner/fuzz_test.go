package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// seedFiles adds the example repository's declaration files as seeds.
func seedFiles(f *testing.F, names ...string) {
	for _, n := range names {
		if b, err := os.ReadFile(filepath.Join(examplesDir, n)); err == nil {
			f.Add(b)
		}
	}
}

// FuzzHooksFile feeds arbitrary bytes to the hooks-file parser: it must
// never panic, must agree with encoding/json on what is JSON, and every
// hook and finding it produces must carry a location.
func FuzzHooksFile(f *testing.F) {
	seedFiles(f, "plugins/bash-guard/hooks/hooks.json", "plugins/usage-stats/hooks/hooks.json",
		"plugins/session-journal/hooks/journal-hooks.json", ".claude/settings.json", "plugins/tidy-notes/.claude-plugin/plugin.json")
	for _, s := range []string{
		`{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "x", "timeout": -1, "if": "Bash(git *)"}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "http"}, 3, null, {"type": "command", "command": ["a"]}]}]}}`,
		`{"PreToolUse": []}`,
		`[1, 2.5e10, -0, "\u00e9\ud83d\ude00", true, false, null]`,
		"\xef\xbb\xbf{}",
		`{"a": "\x"}`,
		strings.Repeat("[", 300) + strings.Repeat("]", 300),
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseJSON(data)
		valid := json.Valid(data)
		if err == nil && !valid && !(len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
			t.Fatalf("parseJSON accepted what encoding/json rejects: %q", data)
		}
		if err != nil {
			var se *JSONSyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			if valid && utf8.Valid(data) && strings.Count(string(data), "[")+strings.Count(string(data), "{") < maxJSONDepth {
				t.Fatalf("parseJSON rejected valid JSON %q: %v", data, err)
			}
			return
		}
		c := newClaudeDisc(dir)
		c.hooksDoc(hookCtx{plugin: "fuzz", pluginRoot: dir, isPlugin: true}, "hooks/hooks.json", n)
		ids := map[string]bool{}
		for _, h := range c.out.Hooks {
			if ids[h.ID] {
				t.Fatalf("two hooks with the ID %s: the session keeps one", h.ID)
			}
			ids[h.ID] = true
			if h.Location.File != "hooks/hooks.json" || h.Location.Line < 1 || h.ID == "" || h.Event == "" {
				t.Fatalf("hook without a location: %+v", h)
			}
			if h.Type == TypeCommand && (h.Command == "" || h.Expanded == "") {
				t.Fatalf("command hook without a command: %+v", h)
			}
		}
		for _, fd := range c.out.Findings {
			if fd.Location.File == "" || fd.Location.Line < 1 || fd.Message == "" || fd.Rule == "" {
				t.Fatalf("finding without a location: %+v", fd)
			}
		}
	})
}

// FuzzParseConfig feeds arbitrary bytes to the .vigiles.yml parser: it
// must never panic, and every error must say where.
func FuzzParseConfig(f *testing.F) {
	seedFiles(f, ".vigiles.yml")
	f.Add([]byte(goodConfig))
	for _, s := range []string{
		"checks:\n  - name: a\n    hook: h\n    expect: {blocked: true, json: {a.b: [1, {c: d}]}}\n",
		"defaults: {egress: {mode: allow, allow: [\"*.x.test:443\"]}, limits: {memory: 18446744073709551615TiB}}\n",
		"checks: [{name: a, command: x, event: Stop, tool: t, input: {}, expect: {no-write: true}}]\n",
		"a: &x [*x]\n",
		"payloads: {Bash: [1]}\n",
		"%YAML 1.1\n---\n!!binary aGk=\n",
		"checks:\n  - name: a\n    hook: h\n    expect:\n      json: {? [1]: 2}\n",
		"checks: [{name: a, hook: h, input: {x: .nan}, payload: {y: -.inf}, expect: {json: {z: .inf}}}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang is a bug too: crash the worker so the input is kept.
		hang := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("ParseConfig hangs on %q", data)) })
		defer hang.Stop()
		cfg, err := ParseConfig(".vigiles.yml", data)
		if err != nil {
			var ces ConfigErrors
			if !errors.As(err, &ces) || len(ces) == 0 {
				t.Fatalf("error is not ConfigErrors: %v", err)
			}
			for _, e := range ces {
				if e.File != ".vigiles.yml" || e.Line < 0 || e.Msg == "" {
					t.Fatalf("error without a place: %+v", e)
				}
			}
			return
		}
		// What is accepted goes into a payload as JSON (Payload.JSON
		// panics on a value JSON cannot hold).
		if _, err := json.Marshal(cfg.Payloads); err != nil {
			t.Fatalf("accepted payloads JSON cannot hold: %v", err)
		}
		for _, c := range cfg.Checks {
			for _, v := range []any{c.Input, c.Payload} {
				if _, err := json.Marshal(v); err != nil {
					t.Fatalf("accepted a check input JSON cannot hold: %v", err)
				}
			}
			if c.Name == "" || len(c.Expect) == 0 || (c.Hook == "") == (c.Command == "") || c.Event == "" {
				t.Fatalf("accepted an incomplete check: %+v", c)
			}
			for _, e := range c.Expect {
				if e.Loc.Line < 1 {
					t.Fatalf("expectation without a line: %+v", e)
				}
			}
		}
	})
}

// FuzzLoadBaseline feeds arbitrary bytes to the baseline reader (a pull
// request can change the baseline): it must never panic, every refusal is
// a *BaselineError with a place, and what it accepts survives a rewrite.
func FuzzLoadBaseline(f *testing.F) {
	seedFiles(f, ".vigiles/baseline.json")
	for _, s := range []string{"[]", "{}", `{"schema": "vigiles.baseline/v1", "runs": null}`,
		`{"schema": "vigiles.baseline/v1", "runs": {"a#b": {"hosts": ["x"], "writes": null, "outcome": "allowed"}}}`,
		`{"schema": "vigiles.baseline/v1", "runs": {"a#b": {"hosts": [1]}}}`,
		`{"schema": "vigiles.baseline/v1", "runs": {}, "notRun": {"a#b": "true", "c#d": 1}}`,
		`{"schema": "vigiles.baseline/v2", "runs": {}, "servers": [], "projectServers": [], "skillShells": [{"plugin": "g", "context": "plugin:g", "file": "g/s.md", "form": "block", "command": "date", "allowed": "Bash"}]}`,
		`{"schema": "vigiles.baseline/v1", "runs": {}, "skillShells": [{"context": "project:.", "file": "c.md", "form": "inline", "command": "id"}, {"context": "project:.", "file": "c.md", "form": "inline", "command": "id"}]}`,
		`{"schema": "vigiles.baseline/v2", "runs": {}, "servers": [], "projectServers": [], "skillShells": [{"plugin": "g", "context": "plugin:g", "file": "g/s.md", "form": "inline", "command": "cat $f", "shell": "powershell", "arguments": "f"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "baseline.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := loadBaseline(p, "baseline.json", Options{Baseline: "baseline.json"})
		if err != nil {
			var be *BaselineError
			if !errors.As(err, &be) || be.File != "baseline.json" || be.Line < 1 || be.Msg == "" {
				t.Fatalf("refusal without a place: %#v", err)
			}
			return
		}
		out, err := b.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadBaseline(p, "baseline.json", Options{Baseline: "baseline.json"}); err != nil {
			t.Fatalf("a rewritten baseline does not load: %v\n%s", err, out)
		}
	})
}

package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBaselineRepeatedKeyRefused: vigiles never writes a key twice, and a
// reader keeps one copy or the other, so a pull request could show one
// list of hosts in its diff and have another compared. A repeated key at
// any level is a baseline error at the later copy.
func TestBaselineRepeatedKeyRefused(t *testing.T) {
	run := `"h#hooks.Stop[0].hooks[0]": {"plugin": "p", "event": "Stop", "command": "x", "outcome": "allowed", "hosts": ["ok.example"], "writes": []`
	for name, tc := range map[string]struct {
		doc  string
		line int
	}{
		"a run's field":         {"{\"schema\": \"vigiles.baseline/v1\", \"runs\": {\n" + run + ",\n \"hosts\": [\"evil.example\"]}}}", 3},
		"a run id":              {"{\"schema\": \"vigiles.baseline/v1\", \"runs\": {\n" + run + "},\n" + run + "}}}", 3},
		"runs":                  {"{\"schema\": \"vigiles.baseline/v1\", \"runs\": {},\n\"runs\": {" + run + "}}}", 2},
		"schema":                {"{\"schema\": \"vigiles.baseline/v1\",\n\"schema\": \"vigiles.baseline/v1\", \"runs\": {}}", 2},
		"lone surrogates alike": {"{\"schema\": \"vigiles.baseline/v1\", \"runs\": {}, \"x\": {\"\\ud800\": 1,\n\"\\ud800\": 2}}", 2},
	} {
		p := filepath.Join(t.TempDir(), "baseline.json")
		if err := os.WriteFile(p, []byte(tc.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadBaseline(p)
		var be *BaselineError
		if !errors.As(err, &be) || be.Line != tc.line || !strings.Contains(be.Msg, "given again here") {
			t.Errorf("%s: error %v, want a baseline error at line %d saying the key is given again", name, err, tc.line)
		}
	}
	// Keys JSON.parse tells apart are not repeats.
	p := filepath.Join(t.TempDir(), "baseline.json")
	os.WriteFile(p, []byte(`{"schema": "vigiles.baseline/v1", "runs": {}, "x": {"\ud800": 1, "\udbff": 2}}`), 0o644)
	if _, err := LoadBaseline(p); err != nil && strings.Contains(err.Error(), "given again") {
		t.Errorf("two keys differing in a lone surrogate taken for one: %v", err)
	}
}

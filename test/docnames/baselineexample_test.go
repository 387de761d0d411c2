package docnames

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/runner"
)

// TestBaselineExampleIsABaseline: the baseline docs/report-format.md
// shows is one vigiles reads (a v2 baseline lacking a key it must keep,
// "servers" say, is baseline/invalid), and its run is the one the bundled
// example's committed baseline keeps for that hook, so that a reader who
// copies it, or compares it with examples/.vigiles/baseline.json, finds
// what vigiles writes.
func TestBaselineExampleIsABaseline(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## The baseline: `vigiles.baseline/v2`\n")
	if !ok {
		t.Fatal("docs/report-format.md has no baseline section")
	}
	_, block, ok := strings.Cut(sec, "\n```json\n")
	block, _, ok2 := strings.Cut(block, "\n```")
	if !ok || !ok2 {
		t.Fatal("docs/report-format.md's baseline section shows no JSON baseline")
	}
	p := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(p, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.LoadBaseline(p); err != nil {
		t.Errorf("the baseline docs/report-format.md shows is no baseline vigiles reads: %v\n%s", err, block)
	}

	type baseline struct {
		Schema string
		Runs   map[string]any
	}
	var shown, committed baseline
	var shownKeys, committedKeys map[string]json.RawMessage
	committedJSON, err := os.ReadFile("../../examples/.vigiles/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct {
		data []byte
		into any
	}{{[]byte(block), &shown}, {committedJSON, &committed}, {[]byte(block), &shownKeys}, {committedJSON, &committedKeys}} {
		if err := json.Unmarshal(u.data, u.into); err != nil {
			t.Fatal(err)
		}
	}
	for k := range committedKeys {
		if _, ok := shownKeys[k]; !ok && k != "runs" {
			t.Errorf("the example baseline lacks %q, which the bundled example's baseline keeps", k)
		}
	}
	if shown.Schema != committed.Schema {
		t.Errorf("the example baseline's schema is %q, the bundled example's %q", shown.Schema, committed.Schema)
	}
	if len(shown.Runs) == 0 {
		t.Fatal("the example baseline shows no run")
	}
	for id, run := range shown.Runs {
		want, ok := committed.Runs[id]
		if !ok {
			t.Errorf("the example baseline's run %s is none of the bundled example's", id)
			continue
		}
		if diff := cmp.Diff(want, run); diff != "" {
			t.Errorf("the example baseline's run %s is not the bundled example's (-examples/.vigiles/baseline.json +docs):\n%s", id, diff)
		}
	}
}

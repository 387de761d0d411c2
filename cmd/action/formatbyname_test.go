package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNameSetsTheFormat: where --format is not given, -o FILE's name
// decides the report's format: .json is the JSON report, .sarif a SARIF
// log, any other name text (test and audit) or JSON (merge, whose default
// it is); a --format given wins over the name. vigiles audit -o
// report.json wrote the text report into report.json, which a merge of it
// then refused as no report.
func TestOutputNameSetsTheFormat(t *testing.T) {
	withExecutor(t, fixedHooks())
	repo := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(2)})
	dir := t.TempDir()
	kind := func(b []byte) string {
		var doc struct {
			Schema  string `json:"schema"`
			Version string `json:"version"`
		}
		switch {
		case json.Unmarshal(b, &doc) != nil:
			return "text"
		case doc.Version == "2.1.0":
			return "sarif"
		case strings.HasPrefix(doc.Schema, "vigiles.report/"):
			return "json"
		}
		return "other JSON"
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"test", "-o", "r.json"}, "json"},
		{[]string{"test", "-o", "R.JSON"}, "json"},
		{[]string{"test", "--output", "r.sarif"}, "sarif"},
		{[]string{"test", "-o", "r.txt"}, "text"},
		{[]string{"test", "-o", "r"}, "text"},
		{[]string{"test", "--format", "text", "-o", "given.json"}, "text"},
		{[]string{"test", "--format", "sarif", "-o", "given2.json"}, "sarif"},
	}
	for _, tc := range cases {
		out := filepath.Join(dir, tc.args[len(tc.args)-1])
		args := append(append([]string{}, tc.args[:len(tc.args)-1]...), out, "--dir", repo, "-q")
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := kind(b); got != tc.want {
			t.Errorf("%v wrote %s, want %s: %.80q", tc.args, got, tc.want, b)
		}
	}
	// merge: JSON by default, SARIF by the name, text only by --format.
	in := filepath.Join(dir, "r.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", "-o", filepath.Join(dir, "m.sarif"), in}, "sarif"},
		{[]string{"merge", "-o", filepath.Join(dir, "m.txt"), in}, "json"},
		{[]string{"merge", "--format", "text", "-o", filepath.Join(dir, "m2.json"), in}, "text"},
	} {
		if code, _, errs := runCLI(t, tc.args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		b, err := os.ReadFile(tc.args[len(tc.args)-2])
		if err != nil {
			t.Fatal(err)
		}
		if got := kind(bytes.TrimSpace(b)); got != tc.want {
			t.Errorf("%v wrote %s, want %s: %.80q", tc.args, got, tc.want, b)
		}
	}
}

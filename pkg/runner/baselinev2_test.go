package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestBaselineKeyDeletedIsNoDowngrade: a baseline without "servers", or
// a run without "context", "command" or "deleted", was read as one
// written before vigiles kept them, and compared less (servers only
// warnings, no context or command drift, writes by path only): a pull
// request could delete such a line from the baseline it carries to turn
// its errors off. vigiles now writes vigiles.baseline/v2, which keeps
// them all, and refuses one that lacks any (baseline/invalid); a v1
// baseline is read as before, and every audit against it says what it
// lacks (baseline/outdated, an error: a v1 baseline without them fails
// as a v2 one does, until an update rewrites it).
func TestBaselineKeyDeletedIsNoDowngrade(t *testing.T) {
	files := serversTree()
	files["a/hooks/hooks.json"] = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true write:notes.txt"}]}]}}`
	dir := makeTree(t, files)
	serverAudit(t, dir, true)
	path := filepath.Join(dir, serversBase)
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema": "` + BaselineSchema + `"`, `"servers": [`, `"context": "plugin:a"`, `"command": "true write:notes.txt"`, `"deleted": []`} {
		if !strings.Contains(string(written), want) {
			t.Fatalf("the baseline has no %s:\n%s", want, written)
		}
	}
	if rep := serverAudit(t, dir, false); rep.Verdict != report.VerdictPass || hasFinding(rep.Findings, RuleBaselineOutdated, "") {
		t.Fatalf("against its own baseline: %s %v", rep.Verdict, findingLines(rep.Findings))
	}

	const run = "a/hooks/hooks.json#hooks.Stop[0].hooks[0]"
	edit := func(schema string, f func(doc map[string]any, r map[string]any)) {
		t.Helper()
		var doc map[string]any
		if err := json.Unmarshal(written, &doc); err != nil {
			t.Fatal(err)
		}
		doc["schema"] = schema
		f(doc, doc["runs"].(map[string]any)[run].(map[string]any))
		data, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		drop func(doc, r map[string]any)
		says string
	}{
		{"servers", func(doc, _ map[string]any) { delete(doc, "servers") }, `no "servers"`},
		{"context", func(_, r map[string]any) { delete(r, "context") }, `"context"`},
		{"command", func(_, r map[string]any) { delete(r, "command") }, `"command"`},
		// "" is compared with nothing, as no "command": one word
		// changed turns the comparison off as the line deleted did.
		{"command empty", func(_, r map[string]any) { r["command"] = "" }, `"command"`},
		{"deleted", func(_, r map[string]any) { delete(r, "deleted") }, `"deleted"`},
		{"deleted null", func(_, r map[string]any) { r["deleted"] = nil }, `"deleted"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit(BaselineSchema, tc.drop)
			rep := serverAudit(t, dir, false)
			if rep.Verdict == report.VerdictPass || !hasFinding(rep.Findings, RuleBaselineInvalid, tc.says) {
				t.Errorf("v2 without %s: %s %v", tc.name, rep.Verdict, findingLines(rep.Findings))
			}
			// The same as v1: read as before, and said.
			edit(BaselineSchemaV1, tc.drop)
			rep = serverAudit(t, dir, false)
			if rep.Verdict == report.VerdictPass || hasFinding(rep.Findings, RuleBaselineInvalid, "") || !hasFinding(rep.Findings, RuleBaselineOutdated, tc.says) {
				t.Errorf("v1 without %s: %s %v", tc.name, rep.Verdict, findingLines(rep.Findings))
			}
			for _, f := range rep.Findings {
				if f.Rule == RuleBaselineOutdated && (f.Severity != report.SeverityError || f.Location.File != serversBase) {
					t.Errorf("outdated: %s at %v", f.Severity, f.Location)
				}
			}
		})
	}
	// A v1 baseline that lacks nothing is compared whole, and says nothing.
	edit(BaselineSchemaV1, func(_, _ map[string]any) {})
	if rep := serverAudit(t, dir, false); rep.Verdict != report.VerdictPass || hasFinding(rep.Findings, RuleBaselineOutdated, "") {
		t.Errorf("a whole v1 baseline: %s %v", rep.Verdict, findingLines(rep.Findings))
	}
	// An update rewrites an outdated one as v2.
	edit(BaselineSchemaV1, func(doc, _ map[string]any) { delete(doc, "servers") })
	if rep := serverAudit(t, dir, true); hasFinding(rep.Findings, RuleBaselineOutdated, "") {
		t.Errorf("an update says its old baseline is outdated: %v", findingLines(rep.Findings))
	}
	if again, _ := os.ReadFile(path); string(again) != string(written) {
		t.Errorf("the update did not write the v2 baseline again:\n%s", again)
	}
}

// TestBaselineProjectServersDeletedIsNoDowngrade: "projectServers", as
// "servers", is one a v2 baseline keeps: deleted from one, the baseline
// is refused; missing from a v1 one, the audit says so where the tree has
// such servers (baseline/outdated), and says nothing where it has none,
// which the list's absence turns nothing off for (every v1 baseline
// lacks it: vigiles kept it only with v2).
func TestBaselineProjectServersDeletedIsNoDowngrade(t *testing.T) {
	for _, tc := range []struct {
		name     string
		files    map[string]string
		outdated bool
	}{
		{"project servers", projectServersTree(), true},
		{"none", serversTree(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			serverAudit(t, dir, true)
			path := filepath.Join(dir, serversBase)
			written, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			drop := func(schema string) {
				t.Helper()
				var doc map[string]any
				if err := json.Unmarshal(written, &doc); err != nil {
					t.Fatal(err)
				}
				if _, ok := doc["projectServers"]; !ok {
					t.Fatalf("the baseline has no projectServers:\n%s", written)
				}
				delete(doc, "projectServers")
				doc["schema"] = schema
				data, _ := json.MarshalIndent(doc, "", "  ")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			drop(BaselineSchema)
			if rep := serverAudit(t, dir, false); rep.Verdict == report.VerdictPass || !hasFinding(rep.Findings, RuleBaselineInvalid, `no "projectServers"`) {
				t.Errorf("v2 without projectServers: %s %v", rep.Verdict, findingLines(rep.Findings))
			}
			drop(BaselineSchemaV1)
			rep := serverAudit(t, dir, false)
			if hasFinding(rep.Findings, RuleBaselineInvalid, "") || hasFinding(rep.Findings, RuleBaselineOutdated, `no "projectServers"`) != tc.outdated ||
				(rep.Verdict == report.VerdictPass) == tc.outdated {
				t.Errorf("v1 without projectServers: %s %v", rep.Verdict, findingLines(rep.Findings))
			}
		})
	}
}

package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// The tests here go through the baseline's JSON (NewBaseline, Marshal,
// LoadBaseline), never its fields, so that they also build, and fail
// where they should, against a vigiles that did not keep deletes.

// opsRun is a confined Stop run that did what ops says to each path:
// "create", "modify" or "delete".
func opsRun(ops ...string) report.HookRun {
	r := report.HookRun{ID: "p/hooks/hooks.json#hooks.Stop[0].hooks[0]", Plugin: "p", Event: "Stop", Tier: "confined",
		Outcome: report.OutcomeAllowed, Egress: []evidence.Egress{}, Writes: []evidence.Write{}}
	for _, o := range ops {
		op, path, _ := strings.Cut(o, " ")
		w := evidence.Write{Path: path, Op: evidence.Op(op)}
		if w.Op != evidence.OpDelete {
			w.Kind = "file"
		}
		r.Writes = append(r.Writes, w)
	}
	return r
}

// baselineOf is the baseline vigiles writes of runs, as read back from its
// file.
func baselineOf(t *testing.T, runs ...report.HookRun) *Baseline {
	t.Helper()
	data, err := NewBaseline(&report.Report{Runs: runs}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return loadDoc(t, string(data))
}

// loadDoc reads doc as a baseline file.
func loadDoc(t *testing.T, doc string) *Baseline {
	t.Helper()
	b, err := LoadBaseline(docFile(t, doc))
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return b
}

func docFile(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// opDrift compares r with b and returns its drift as "kind was>now" lines
// (driftOf's) and the messages of its findings.
func opDrift(b *Baseline, r report.HookRun) (drift, msgs []string) {
	d, finds := compareBaseline(b, []report.HookRun{r}, nil, map[string]bool{r.ID: true}, everyFile, report.SeverityError)
	drift = driftOf(&report.Report{Drift: d})
	for _, f := range finds {
		if f.Rule != RuleDriftPrefix+DriftWrite || f.Severity != report.SeverityError {
			msgs = append(msgs, "unexpected finding: "+f.Rule+" "+string(f.Severity)+": "+f.Message)
			continue
		}
		msgs = append(msgs, f.Message)
	}
	return drift, msgs
}

// TestBaselineDeleteOfAcceptedWriteDrifts: a path the baseline accepted
// as created or modified that the run now deletes is write drift, which
// says so; a path compared by path alone would pass.
func TestBaselineDeleteOfAcceptedWriteDrifts(t *testing.T) {
	b := baselineOf(t, opsRun("modify ~/.bashrc", "create .git/hooks/pre-commit", "create notes.txt"))
	drift, msgs := opDrift(b, opsRun("delete ~/.bashrc", "delete .git/hooks/pre-commit", "create notes.txt"))
	want := []string{"write created or modified>.git/hooks/pre-commit", "write created or modified>~/.bashrc"}
	if strings.Join(drift, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift %q, want %q", drift, want)
	}
	for _, p := range []string{".git/hooks/pre-commit", "~/.bashrc"} {
		if !slices.Contains(msgs, "p Stop now deletes "+p+", which the baseline says it created or modified") {
			t.Errorf("no finding says it now deletes %s: %q", p, msgs)
		}
	}
	if len(msgs) != 2 {
		t.Errorf("findings %q, want the two", msgs)
	}
}

// TestBaselineCreateOfAcceptedDeleteDrifts: a path the baseline accepted
// as deleted that the run now creates or modifies is write drift too.
func TestBaselineCreateOfAcceptedDeleteDrifts(t *testing.T) {
	b := baselineOf(t, opsRun("delete ~/.bashrc", "delete .git/hooks/pre-commit"))
	drift, msgs := opDrift(b, opsRun("create ~/.bashrc", "modify .git/hooks/pre-commit"))
	want := []string{"write deleted>.git/hooks/pre-commit", "write deleted>~/.bashrc"}
	if strings.Join(drift, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift %q, want %q", drift, want)
	}
	for _, p := range []string{".git/hooks/pre-commit", "~/.bashrc"} {
		if !slices.Contains(msgs, "p Stop now creates or modifies "+p+", which the baseline says it deleted") {
			t.Errorf("no finding says it now creates or modifies %s: %q", p, msgs)
		}
	}
}

// TestBaselineUnchangedOpsDoNotDrift: the ops a baseline accepted are no
// drift: a run against the baseline written from it (a rename's delete
// and create; two names that show alike, one deleted and one created,
// whichever comes first; a $TMPDIR/ path, left out), and a create that is
// now a modify, or the reverse.
func TestBaselineUnchangedOpsDoNotDrift(t *testing.T) {
	for _, r := range []report.HookRun{
		opsRun("create a", "modify ~/.bashrc", "delete .git/hooks/pre-commit"),
		opsRun("delete old.txt", "create new.txt"), // a rename
		opsRun("delete x\xff.txt", "create x\xfe.txt", "delete $TMPDIR/s"),
		opsRun("create x\xfe.txt", "delete x\xff.txt"),
		opsRun(),
	} {
		if drift, msgs := opDrift(baselineOf(t, r), r); len(drift) != 0 || len(msgs) != 0 {
			t.Errorf("%v against its own baseline: drift %q, findings %q", r.Writes, drift, msgs)
		}
	}
	// (Two names that show alike are two: x\xff created where the
	// baseline says deleted is drift, TestBaselineKeepsNamesExact.)
	b := baselineOf(t, opsRun("create a", "modify b", "delete c"))
	now := opsRun("modify a", "create b", "delete c")
	if drift, msgs := opDrift(b, now); len(drift) != 0 || len(msgs) != 0 {
		t.Errorf("create and modify swapped: drift %q, findings %q", drift, msgs)
	}
}

// TestBaselineWithoutDeletedComparesPaths: a baseline written before
// vigiles kept deletes has no "deleted": it loads, and its writes are
// compared by path only, as then: no op drift is made up, while a new
// path still drifts.
func TestBaselineWithoutDeletedComparesPaths(t *testing.T) {
	r := opsRun("delete ~/.bashrc", "create .git/hooks/pre-commit")
	old := `{"schema": "vigiles.baseline/v1", "runs": {"` + r.ID + `": {"plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": [".git/hooks/pre-commit", "~/.bashrc"]}}}`
	b := loadDoc(t, old)
	if drift, msgs := opDrift(b, r); len(drift) != 0 || len(msgs) != 0 {
		t.Errorf("an old baseline: drift %q, findings %q", drift, msgs)
	}
	r.Writes = append(r.Writes, evidence.Write{Path: "~/.profile", Op: evidence.OpDelete})
	if drift, _ := opDrift(b, r); strings.Join(drift, ",") != "write >~/.profile" {
		t.Errorf("an old baseline and a new path: drift %q", drift)
	}
	// The same baseline with "deleted": [] says nothing was deleted.
	b = loadDoc(t, strings.Replace(old, `"hosts": []`, `"hosts": [], "deleted": []`, 1))
	if drift, _ := opDrift(b, opsRun("delete ~/.bashrc")); strings.Join(drift, ",") != "write created or modified>~/.bashrc" {
		t.Errorf(`"deleted": []: drift %q`, drift)
	}
}

// TestBaselineDeletedNullWhereWritesNotRecorded: a run whose writes were
// not recorded (a direct run, a hook that is listed, not run) keeps
// "deleted" null beside its "writes": null, never [] (nothing deleted); a
// recorded run keeps a list, [] where it deleted nothing.
func TestBaselineDeletedNullWhereWritesNotRecorded(t *testing.T) {
	direct := opsRun()
	direct.ID, direct.Tier, direct.Writes, direct.Egress = "p/hooks/hooks.json#hooks.Stop[0].hooks[1]", "direct", nil, nil
	listed := report.HookRun{ID: "p/hooks/hooks.json#hooks.Stop[0].hooks[2]", Plugin: "p", Event: "Stop", Type: "http", Outcome: report.OutcomeNotExecutable}
	none := opsRun("create a")
	some := opsRun("create a", "delete b", "delete $TMPDIR/x")
	some.ID = "p/hooks/hooks.json#hooks.Stop[0].hooks[3]"
	got := deletedFields(t, NewBaseline(&report.Report{Runs: []report.HookRun{direct, listed, none, some}}))
	for id, want := range map[string]string{direct.ID: "null", listed.ID: "null", none.ID: "[]", some.ID: `["b"]`} {
		if got[id] != want {
			t.Errorf("%s: \"deleted\" %s, want %s", id, got[id], want)
		}
	}
	// Read back and compared, null is as not recorded: the run's writes
	// are baseline/not-recorded, and no op is compared.
	_, finds := compareBaseline(baselineOf(t, direct), []report.HookRun{direct}, nil, map[string]bool{direct.ID: true}, everyFile, report.SeverityError)
	if len(finds) != 2 || finds[0].Rule != RuleBaselineUnproven || finds[1].Rule != RuleBaselineUnproven {
		t.Errorf("a direct run against its baseline: %v", findingLines(finds))
	}
}

// deletedFields is each run's "deleted" in b's file, as JSON text:
// "absent" where the run has none.
func deletedFields(t *testing.T, b *Baseline) map[string]string {
	t.Helper()
	data, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs map[string]map[string]json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for id, fields := range doc.Runs {
		out[id] = "absent"
		if d, ok := fields["deleted"]; ok {
			var c bytes.Buffer
			if err := json.Compact(&c, d); err != nil {
				t.Fatal(err)
			}
			out[id] = c.String()
		}
	}
	return out
}

// TestBaselineDeletedRoundTrip: "deleted" absent, null, [] and a list
// read back, through loadBaseline and encoding/json alike, to what writes
// the same again (null beside "writes": null; absent beside a list, as an
// old baseline has it); it follows "writes" in the file; a "deleted" that
// is no list, or names a path its "writes" does not, is refused.
func TestBaselineDeletedRoundTrip(t *testing.T) {
	const id = "p/hooks/hooks.json#hooks.Stop[0].hooks[0]"
	doc := func(writes, deleted string) string {
		return `{"schema": "vigiles.baseline/v1", "runs": {"` + id + `": {"plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": ` + writes + deleted + `}}}`
	}
	for _, c := range []struct {
		name, writes, deleted, want string
	}{
		{"absent (a file of an older vigiles)", `["a"]`, ``, "absent"},
		{"null, writes not recorded", `null`, `, "deleted": null`, "null"},
		{"empty", `["a"]`, `, "deleted": []`, "[]"},
		{"a list", `["a", "b"]`, `, "deleted": ["b"]`, `["b"]`},
		{"null beside a list: as absent", `["a"]`, `, "deleted": null`, "absent"},
		{"absent beside null: as null", `null`, ``, "null"},
	} {
		text := doc(c.writes, c.deleted)
		loaded := loadDoc(t, text)
		var viaJSON Baseline
		if err := json.Unmarshal([]byte(text), &viaJSON); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for reader, b := range map[string]*Baseline{"loadBaseline": loaded, "encoding/json": &viaJSON} {
			if got := deletedFields(t, b)[id]; got != c.want {
				t.Errorf("%s, read by %s: written back as %s, want %s", c.name, reader, got, c.want)
			}
		}
		// Written back and read again, it writes the same.
		data, _ := loaded.Marshal()
		if again, _ := loadDoc(t, string(data)).Marshal(); string(again) != string(data) {
			t.Errorf("%s: not the same after a round trip:\n%s\n%s", c.name, data, again)
		}
	}
	data, _ := NewBaseline(&report.Report{Runs: []report.HookRun{opsRun("delete b", "create a")}}).Marshal()
	if !strings.Contains(string(data), "\"writes\": [\n        \"a\",\n        \"b\"\n      ],\n      \"deleted\": [\n        \"b\"\n      ]\n") {
		t.Errorf("\"deleted\" is not the list after \"writes\":\n%s", data)
	}
	for _, c := range []struct{ deleted, want string }{
		{`, "deleted": ["c"]`, `"deleted" lists "c", which its "writes" does not`},
		{`, "deleted": "b"`, `"deleted": want a list of strings`},
		{`, "deleted": [1]`, `"deleted": want a list of strings, found`},
	} {
		_, err := LoadBaseline(docFile(t, doc(`["a", "b"]`, c.deleted)))
		var be *BaselineError
		if !errors.As(err, &be) || be.Line != 1 || !strings.Contains(be.Msg, c.want) {
			t.Errorf("%s: err %v, want a BaselineError saying %q", c.deleted, err, c.want)
		}
	}
	if _, err := LoadBaseline(docFile(t, doc(`null`, `, "deleted": ["b"]`))); err == nil {
		t.Errorf(`a "deleted" path beside "writes": null loads`)
	}
}

// TestAuditBaselineDeletes: through Audit, --update-baseline keeps what
// each run deleted, an audit after it passes, and a hook that now deletes
// the ~/.bashrc it wrote fails the audit with baseline/write.
func TestAuditBaselineDeletes(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true write:~/.bashrc delete:old.txt"}]}]}}`})
	// fakeHooks, and "delete:P" deletes P.
	canned := fakeHooks()
	write := canned.F
	canned.F = func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
		res, err := write(spec, stdin)
		for _, w := range strings.Fields(spec.Command[len(spec.Command)-1]) {
			if p, ok := strings.CutPrefix(w, "delete:"); ok {
				res.Writes = append(res.Writes, evidence.Write{Path: p, Op: evidence.OpDelete})
			}
		}
		return res, err
	}
	const base = ".vigiles/baseline.json"
	audit := func(update bool) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: update, Executor: canned})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	audit(true)
	data, _ := os.ReadFile(filepath.Join(dir, base))
	if !strings.Contains(string(data), "\"deleted\": [\n        \"old.txt\"\n      ]") {
		t.Errorf("the baseline keeps no deleted:\n%s", data)
	}
	if rep := audit(false); len(rep.Drift) != 0 || rep.Verdict != report.VerdictPass {
		t.Errorf("after the update: drift %v, verdict %s", driftOf(rep), rep.Verdict)
	}
	writeFile(t, dir, ".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true delete:~/.bashrc write:old.txt"}]}]}}`)
	rep := audit(false)
	// sorted by now; the command is another too
	want := "command true write:~/.bashrc delete:old.txt>true delete:~/.bashrc write:old.txt,write deleted>old.txt,write created or modified>~/.bashrc"
	if d := strings.Join(driftOf(rep), ","); d != want || rep.Verdict != report.VerdictFail {
		t.Errorf("deletes swapped: drift %s, verdict %s; want %s, fail: %v", d, rep.Verdict, want, findingLines(rep.Findings))
	}
}

// TestANewDeleteIsSaidAsOne: a path the baseline does not list that the
// run now deletes is said to be deleted, not written.
func TestANewDeleteIsSaidAsOne(t *testing.T) {
	b := baselineOf(t, opsRun())
	_, msgs := opDrift(b, opsRun("delete README", "create notes.txt"))
	joined := strings.Join(msgs, "\n")
	if !strings.Contains(joined, "now deletes README") || !strings.Contains(joined, "now writes notes.txt") {
		t.Errorf("messages:\n%s", joined)
	}
}

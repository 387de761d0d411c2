package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// linkRun is opsRun with a symbolic link created at each path of links,
// to its target.
func linkRun(links map[string]string, ops ...string) report.HookRun {
	r := opsRun(ops...)
	for p, t := range links {
		r.Writes = append(r.Writes, evidence.Write{Path: p, Op: evidence.OpCreate, Kind: "symlink", Target: t})
	}
	return r
}

// TestBaselineKeepsLinkTargets: a baseline keeps where each link a run
// made leads ("links"), and a link pointed elsewhere since is write
// drift, though its path is the same: compared by path alone, a journal
// link the baseline accepted could be turned to .git/hooks/post-commit
// unseen. A link the run no longer makes is drift too; one that leads
// where it did is none.
func TestBaselineKeepsLinkTargets(t *testing.T) {
	const link = ".claude/journal/today.md"
	first := linkRun(map[string]string{link: "2024-01-01.md"}, "create .claude/journal/2024-01-01.md")
	data, err := NewBaseline(&report.Report{Runs: []report.HookRun{first}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"links\": {\n        \"" + link + "\": \"2024-01-01.md\"\n      }"; !strings.Contains(string(data), want) {
		t.Fatalf("the baseline does not hold %s:\n%s", want, data)
	}
	b := loadDoc(t, string(data))
	if drift, msgs := opDrift(b, linkRun(map[string]string{link: "2024-01-01.md"}, "create .claude/journal/2024-01-01.md")); len(drift)+len(msgs) != 0 {
		t.Errorf("the same run: drift %q, findings %q", drift, msgs)
	}

	drift, msgs := opDrift(b, linkRun(map[string]string{link: "../../.git/hooks/post-commit"}, "create .claude/journal/2024-01-01.md"))
	if want := []string{"write a link to 2024-01-01.md>" + link}; !slices.Equal(drift, want) {
		t.Errorf("retargeted: drift %q, want %q", drift, want)
	}
	if want := "p Stop now points the symbolic link " + link + " to ../../.git/hooks/post-commit; the baseline says it linked to 2024-01-01.md"; !slices.Equal(msgs, []string{want}) {
		t.Errorf("retargeted: findings %q, want %q", msgs, want)
	}

	drift, msgs = opDrift(b, opsRun("create .claude/journal/2024-01-01.md", "modify "+link))
	if want := []string{"write a link to 2024-01-01.md>" + link}; !slices.Equal(drift, want) || len(msgs) != 1 || !strings.Contains(msgs[0], "now writes "+link+" as no symbolic link") {
		t.Errorf("no longer a link: drift %q, findings %q", drift, msgs)
	}

	drift, msgs = opDrift(b, linkRun(map[string]string{link: "2024-01-01.md", ".claude/x": "/etc/passwd"}, "create .claude/journal/2024-01-01.md"))
	if want := []string{"write >.claude/x"}; !slices.Equal(drift, want) || !slices.Equal(msgs, []string{"p Stop now writes .claude/x, a symbolic link to /etc/passwd, which the baseline does not list"}) {
		t.Errorf("a new link: drift %q, findings %q", drift, msgs)
	}
}

// TestBaselineWithoutLinksStillLoads: a baseline written before vigiles
// kept links' targets loads; each link a run makes is drift once, as the
// baseline does not say where it led, and a baseline updated from the run
// has none. A run that makes no link writes no "links": the file of one
// is as it was.
func TestBaselineWithoutLinksStillLoads(t *testing.T) {
	const old = `{"schema": "vigiles.baseline/v1", "runs": {"p/hooks/hooks.json#hooks.Stop[0].hooks[0]": {
  "plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": [".claude/journal/today.md", "notes.txt"], "deleted": []}}}`
	b := loadDoc(t, old)
	run := linkRun(map[string]string{".claude/journal/today.md": "x.md"}, "create notes.txt")
	drift, msgs := opDrift(b, run)
	if want := []string{"write no link>.claude/journal/today.md"}; !slices.Equal(drift, want) || len(msgs) != 1 ||
		!strings.Contains(msgs[0], "now makes .claude/journal/today.md a symbolic link to x.md, which the baseline does not list (a baseline written before vigiles kept links' targets lists none") {
		t.Errorf("an old baseline: drift %q, findings %q", drift, msgs)
	}
	if drift, msgs := opDrift(baselineOf(t, run), run); len(drift)+len(msgs) != 0 {
		t.Errorf("updated: drift %q, findings %q", drift, msgs)
	}
	data, err := NewBaseline(&report.Report{Runs: []report.HookRun{opsRun("create notes.txt")}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"links"`) {
		t.Errorf("a run without links writes %q:\n%s", "links", data)
	}
}

// TestBaselineLinksMustBeWritten: "links" names paths the run wrote and
// left there, each with a target: anything else is refused where it is.
func TestBaselineLinksMustBeWritten(t *testing.T) {
	doc := func(links string) string {
		return `{"schema": "vigiles.baseline/v1", "runs": {"p/hooks/hooks.json#hooks.Stop[0].hooks[0]": {
  "plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": ["a", "gone"], "deleted": ["gone"], "links": ` + links + `}}}`
	}
	b := loadDoc(t, doc(`{"a": "../b"}`))
	if drift, msgs := opDrift(b, linkRun(map[string]string{"a": "../b"}, "delete gone")); len(drift)+len(msgs) != 0 {
		t.Errorf("links read back: drift %q, findings %q", drift, msgs)
	}
	for links, want := range map[string]string{
		`{"b": "x"}`:    `"links" names "b", which its "writes" does not list`,
		`{"gone": "x"}`: `"links" names "gone", which its "writes" does not list as created or modified`,
		`{"a": ""}`:     `a link's target is never empty`,
		`{"a": 1}`:      `want a string, found`,
		`["a"]`:         `want an object from written path to the target of the link there`,
	} {
		_, err := LoadBaseline(docFile(t, doc(links)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("links %s: error %v, want %q", links, err, want)
		}
	}
}

// TestBaselineLinksOfThrowawayPlacesAndOneShownName: a link to a mktemp
// directory leads somewhere new each run, and is kept as "$TMPDIR/…" (the
// review saw every audit drift); two links shown as one path (bytes that
// are not UTF-8) keep both targets, so that one turned to .git is drift
// (the review hid it behind the other's smaller target).
func TestBaselineLinksOfThrowawayPlacesAndOneShownName(t *testing.T) {
	const last = "~/.claude/plugins/data/p/last-run"
	b := baselineOf(t, linkRun(map[string]string{last: "/tmp/tmp.SiYc43wXB4"}))
	if drift, msgs := opDrift(b, linkRun(map[string]string{last: "/tmp/tmp.7jNQSCm8u1"})); len(drift)+len(msgs) != 0 {
		t.Errorf("a new mktemp directory: drift %q, findings %q", drift, msgs)
	}
	if drift, _ := opDrift(b, linkRun(map[string]string{last: "../../../../.bashrc"})); len(drift) != 1 {
		t.Errorf("turned from TMPDIR to elsewhere: drift %q, want one", drift)
	}
	// Cleaned first: /tmp/../root/.bashrc is no throwaway place.
	for _, t2 := range []string{"/tmp/../root/.bashrc", "/tmp/tmp.X/../../etc/cron.d/x", "/dev/shm/../../etc/cron.d/x"} {
		if drift, _ := opDrift(b, linkRun(map[string]string{last: t2})); len(drift) != 1 {
			t.Errorf("turned to %s: drift %q, want one", t2, drift)
		}
	}
	two := func(second string) report.HookRun {
		r := opsRun()
		r.Writes = append(r.Writes,
			evidence.Write{Path: "out/\xff", Op: evidence.OpCreate, Kind: "symlink", Target: "-"},
			evidence.Write{Path: "out/\xfe", Op: evidence.OpCreate, Kind: "symlink", Target: second})
		return r
	}
	b = baselineOf(t, two("x"))
	if drift, msgs := opDrift(b, two("x")); len(drift)+len(msgs) != 0 {
		t.Errorf("the same two links: drift %q, findings %q", drift, msgs)
	}
	if drift, _ := opDrift(b, two("../.git/hooks")); len(drift) != 1 {
		t.Errorf("one of two links under one shown name turned to .git: drift %q, want one", drift)
	}
}

package annotate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// subjectByScan is findingSubject as it was, looking through the whole
// drift for each finding: the reference the index must agree with.
func subjectByScan(f report.Finding, drift []report.Drift) string {
	subject := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return -1
		}
		return r
	}, f.Message)
	kind, ok := strings.CutPrefix(f.Rule, "baseline/")
	if ok && kind == "command" {
		for _, d := range drift {
			if d.Hook == f.Hook && d.Kind == kind {
				return subject + "\x00" + d.Now
			}
		}
	}
	if !ok || (kind != "host" && kind != "write") {
		return subject
	}
	value := ""
	for _, d := range drift {
		if d.Hook == f.Hook && d.Kind == kind && len(d.Now) > len(value) && strings.Contains(f.Message, d.Now) {
			value = d.Now
		}
	}
	return subject + "\x00" + value
}

// TestFindingSubjectIndexed: the drift index gives every finding the
// subject that a look through the whole drift gave (so no fingerprint,
// and no code-scanning alert, changes), and its work grows with the
// findings' messages, not with findings times drift: a hook that wrote
// thousands of new paths made the SARIF take minutes.
func TestFindingSubjectIndexed(t *testing.T) {
	drift := []report.Drift{
		{Hook: "h", Kind: "host", Now: "a.example"},
		{Hook: "h", Kind: "host", Now: "ba.example"},
		{Hook: "h", Kind: "host", Now: ""},
		{Hook: "h", Kind: "write", Now: "out/x"},
		{Hook: "h", Kind: "write", Now: "out/y"}, // same length as out/x
		{Hook: "h", Kind: "write", Now: "out/x, which"},
		{Hook: "g", Kind: "write", Now: "out/xyz, which the baseline"},
		{Hook: "h", Kind: "command", Now: "first"},
		{Hook: "h", Kind: "command", Now: "second"},
		{Hook: "h", Kind: "write", Now: "é/1"},
	}
	var fs []report.Finding
	for _, m := range []string{
		"p Stop now tries to reach ba.example, which the baseline does not list",
		"p Stop now tries to reach a.example, which the baseline does not list",
		"p Stop now tries to reach c.example, which the baseline does not list",
		"p Stop now writes out/y and out/x, which the baseline does not list",
		"p Stop now writes out/y, which the baseline does not list",
		"p Stop now writes out/xyz, which the baseline does not list",
		"p Stop now writes é/1",
		"",
	} {
		for _, rule := range []string{"baseline/host", "baseline/write", "baseline/command", "egress-only"} {
			for _, hook := range []string{"h", "g", "none"} {
				fs = append(fs, report.Finding{Rule: rule, Hook: hook, Message: m})
			}
		}
	}
	x := newDriftSubjects(drift)
	for _, f := range fs {
		if got, want := findingSubject(f, x), subjectByScan(f, drift); got != want {
			t.Errorf("%s %s %q: subject %q, want %q", f.Rule, f.Hook, f.Message, got, want)
		}
	}

	// One hook's n new paths, each a finding that quotes it.
	const n = 3000
	name := strings.Repeat("0", 240)
	drift, fs = nil, nil
	maxMsg := 0
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("%s%06d:x", name, i)
		drift = append(drift, report.Drift{Hook: "h", Kind: "write", Now: p})
		f := report.Finding{Rule: "baseline/write", Hook: "h", Message: "project Stop now writes " + p + ", which the baseline does not list"}
		fs = append(fs, f)
		maxMsg = max(maxMsg, len(f.Message))
	}
	x = newDriftSubjects(drift)
	for i, f := range fs {
		if got := findingSubject(f, x); !strings.HasSuffix(got, "\x00"+drift[i].Now) {
			t.Fatalf("finding %d: subject ends %q, want its path", i, got[max(0, len(got)-20):])
		}
	}
	// The look through the drift compared n values for each finding.
	if x.windows > n*maxMsg/4 {
		t.Errorf("%d parts of messages looked up for %d findings of at most %d bytes; want the work to grow with the messages only", x.windows, n, maxMsg)
	}
}

// TestFindingSubjectQuotedValues: messages that quote their value
// otherwise than the drift holds it (a path with a control character,
// strconv.Quote'd), each of another length, get the subjects the look
// through the drift gave, for no more work than it did: looking in each
// message's parts of every length the drift has made the work grow with
// the cube of the message's length (1,500 such paths took 50 ms a
// finding, where the look took 0.2 ms).
func TestFindingSubjectQuotedValues(t *testing.T) {
	const n = 400
	var drift []report.Drift
	var fs []report.Finding
	for i := 1; i <= n; i++ {
		p := "\x01" + strings.Repeat("a", i)
		drift = append(drift, report.Drift{Hook: "h", Kind: "write", Now: p})
		fs = append(fs, report.Finding{Rule: "baseline/write", Hook: "h", Message: fmt.Sprintf("p Stop now writes %q, which the baseline does not list", p)})
	}
	x := newDriftSubjects(drift)
	for _, f := range fs {
		if got, want := findingSubject(f, x), subjectByScan(f, drift); got != want {
			t.Fatalf("%q: subject %q, want %q", f.Message, got, want)
		}
	}
	// The look through the drift looked for each of the n values in
	// each of the n messages; a part of a message is looked up for
	// what hashing it costs, its length.
	if x.looked+x.windows*n/4 > n*n {
		t.Errorf("%d values looked for and %d parts of messages looked up for %d findings; want no more work than looking for each value in each message (%d)", x.looked, x.windows, n, n*n)
	}
}

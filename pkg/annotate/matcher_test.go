package annotate

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
)

// TestPublishMakesNoMatcherIssues: with the default options (no raw hook
// logs), nothing Publish prints into the log from the hostile report and
// its bait ("./main.go:1:1: x", a tsc error, a Python traceback) is a line
// a problem matcher of setup-go, setup-node or setup-python takes for a
// compiler's error: every line is a workflow command or vigiles' own.
func TestPublishMakesNoMatcherIssues(t *testing.T) {
	for _, checkRun := range []bool{false, true} {
		dir := t.TempDir()
		env := map[string]string{
			"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
			"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
			"GITHUB_REPOSITORY":   "octo/plugins",
			"GITHUB_SHA":          "0123456789abcdef0123456789abcdef01234567",
		}
		var log bytes.Buffer
		// A check run with no token falls back to annotations, saying
		// why on a line of its own.
		_, err := Publish(context.Background(), hostileReport(), Options{
			Log: &log, Getenv: func(k string) string { return env[k] }, CheckRun: checkRun,
		})
		if err != nil {
			t.Fatal(err)
		}
		if is := annotatetest.Issues(log.String()); len(is) != 0 {
			t.Errorf("check run %v: the problem matchers make %d annotations of the log, first %+v\n%s", checkRun, len(is), is[0], log.String())
		}
		for _, c := range annotatetest.Commands(log.String()) {
			if c.Name == "stop-commands" {
				t.Errorf("check run %v: hook output printed by default", checkRun)
			}
		}
	}
}

// TestHookLogsWhenAskedFor documents what printing the raw hook logs
// (RawLogs, the action's hook-logs input) does and does not keep out: no
// line of a hook runs as a workflow command, and vigiles' own lines around
// the output make no matcher issue, but the problem matchers read the
// hook's lines inside the fence as they read any other and make
// annotations of the bait, rawMark and all — which is why hook logs are
// off by default. (The mark keeps the matchers that want a line to start
// with a space or "File", eslint-stylish's and python's, from these
// lines; setup-go's, tsc's and eslint-compact's take them.)
func TestHookLogsWhenAskedFor(t *testing.T) {
	r := hostileReport()
	var log bytes.Buffer
	if _, err := Publish(context.Background(), r, Options{Log: &log, RawLogs: true}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range annotatetest.Commands(log.String()) {
		switch c.Name {
		case "error", "warning", "notice": // the findings' annotations
		default:
			names = append(names, c.Name)
		}
	}
	if want := []string{"group", "stop-commands", "<resume>", "endgroup"}; !reflect.DeepEqual(names, want) {
		t.Errorf("commands besides the annotations: %q, want %q", names, want)
	}
	hookLines := map[string]bool{}
	for _, run := range r.Runs {
		for _, l := range strings.Split(noLogTags(safeLogLine(run.Stdout+"\n"+run.Stderr)), "\n") {
			hookLines[rawMark+l] = true
		}
	}
	owners := map[string]bool{}
	for _, is := range annotatetest.Issues(log.String()) {
		if !hookLines[is.Text] {
			t.Errorf("the %s matcher takes a line vigiles wrote: %q", is.Owner, is.Text)
		}
		owners[is.Owner] = true
	}
	for _, o := range []string{"go", "tsc", "eslint-compact"} {
		if !owners[o] {
			t.Errorf("the %s matcher found no bait inside the fence; the test no longer shows what the docs warn of (found %v)", o, owners)
		}
	}
}

func TestNoMatch(t *testing.T) {
	for _, h := range hostile {
		line := "vigiles: [1/1] " + NoMatch(oneLine(h)) + " SessionStart"
		if is := annotatetest.Issues(line); len(is) != 0 {
			t.Errorf("%q: %+v", line, is)
		}
	}
	if got := NoMatch("a:b"); got != "a\uA789b" {
		t.Errorf("NoMatch(a:b) = %q", got)
	}
}

// TestNoMatchJSONKeepsTheData: every ':' inside a string is escaped, the
// data decodes the same, and a pretty-printed document with the bait in
// its strings makes no matcher issue.
func TestNoMatchJSONKeepsTheData(t *testing.T) {
	r := hostileReport()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := NoMatchJSON(InertJSON(b))
	if is := annotatetest.Issues(string(out)); len(is) != 0 {
		t.Errorf("%d matcher issues, first %+v", len(is), is[0])
	}
	var want, got any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("no longer JSON: %v", err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Error("the data changed")
	}
	if got := string(NoMatchJSON([]byte(`{"a:b": "c\":d\\", "e": ":"}`))); got != `{"a\u003ab": "c\"\u003ad\\", "e": "\u003a"}` {
		t.Errorf("NoMatchJSON = %s", got)
	}
	// Format characters: escaped, the data kept; others as they are.
	in := "{\"p\": \"bidi\u202egnp.sh\u200b \U000e0041 caf\u00e9 \u2603\"}"
	out = NoMatchJSON([]byte(in))
	if want := `{"p": "bidi\u202egnp.sh\u200b \udb40\udc41 caf` + "\u00e9 \u2603" + `"}`; string(out) != want {
		t.Errorf("NoMatchJSON = %s, want %s", out, want)
	}
	var a, b2 any
	if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal(out, &b2) != nil || !reflect.DeepEqual(a, b2) {
		t.Errorf("the data changed: %s", out)
	}
}

// TestNoMatchJSONEscapesControlsJSONLeaves: DEL and the C1 controls, which
// encoding/json writes as they are, are \u escapes inside a string, the
// data kept; a character past them (U+00A0, é) is left as it is.
func TestNoMatchJSONEscapesControlsJSONLeaves(t *testing.T) {
	v := map[string]string{"p\u009b2J": "a\x7fb\u009d52;c;eA==\u0007\u0080\u00a0é"}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := NoMatchJSON(b)
	want := `{"p\u009b2J":"a\u007fb\u009d52;c;eA==\u0007\u0080` + "\u00a0é" + `"}`
	if string(out) != want {
		t.Errorf("NoMatchJSON = %s, want %s", out, want)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, v) {
		t.Errorf("the data changed: %q (%v)", got, err)
	}
}

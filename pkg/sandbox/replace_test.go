package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/vigiles/action/internal/allocs"
	"github.com/vigiles/action/pkg/evidence"
)

// replacers are strings.Replacers of each kind the package has (generic,
// one string, bytes, bytes to strings), the first as the runner makes
// one to put a run's fixed ids back, and some whose new strings are
// shorter, longer or the old itself.
func replacers() map[string]*strings.Replacer {
	const fresh1, fixed1 = "3f2c9a1e-5b7d-4e2a-9c1b-8d6e4f3a2b10", "00000000-0000-4000-8000-000000000000"
	const fresh2, fixed2 = "toolu_01AbCdEfGhIjKlMnOpQrStUv", "toolu_01000000000000000000000A"
	return map[string]*strings.Replacer{
		"ids":     strings.NewReplacer(fresh1, fixed1, fresh2, fixed2),
		"one":     strings.NewReplacer(fresh1, fixed1),
		"bytes":   strings.NewReplacer("a", "b", "\xff", "\xfe"),
		"byteStr": strings.NewReplacer("a", "xyz", "b", ""),
		"shorter": strings.NewReplacer("abc", "x", "zz", ""),
		"longer":  strings.NewReplacer("abc", "abcd", "d", "ddd"),
		"itself":  strings.NewReplacer("abc", "abc", "q", "q"),
	}
}

// replaceTexts are names with nothing a replacer changes, and with what
// one does at their start, middle and end, a part of it only, twice,
// names that are not UTF-8, and the empty one.
var replaceTexts = []string{
	"", "d/1", "./d/12345", "~/.claude/session-env/x.sh", "$TMPDIR/a b", "/dev/shm/\xff\xfe", "é/\U0001F600",
	"3f2c9a1e-5b7d-4e2a-9c1b-8d6e4f3a2b10", "~/.claude/projects/3f2c9a1e-5b7d-4e2a-9c1b-8d6e4f3a2b10.jsonl",
	"x/3f2c9a1e-5b7d-4e2a-9c1b-8d6e4f3a2b10/toolu_01AbCdEfGhIjKlMnOpQrStUv/y", "3f2c9a1e-5b7d-4e2a", "toolu_01AbCdEfGhIjKlMnOpQrStU",
	"a", "b", "abc", "xabcx", "abcabc", "ab", "zzz", "dd", "q\xffq", "bbbb", "cccc",
}

// TestResultReplaceKeepsWhatItDoesNotChange: Replace makes each name of a
// result (its writes' paths, its hosts and their details, the processes
// it left) what rp.Replace makes it, and keeps a name rp changes nothing
// in as it is: the same string, nothing allocated for it.
func TestResultReplaceKeepsWhatItDoesNotChange(t *testing.T) {
	for name, rp := range replacers() {
		t.Run(name, func(t *testing.T) {
			r := &Result{Lingered: []string{}}
			for _, s := range replaceTexts {
				r.Writes = append(r.Writes, evidence.Write{Path: s, Op: evidence.OpCreate, Kind: "file"})
				r.Egress = append(r.Egress, evidence.Egress{Host: s, Detail: s + "/d"})
				r.Lingered = append(r.Lingered, s)
			}
			r.Replace(rp)
			for i, s := range replaceTexts {
				for _, got := range []struct{ what, got, was string }{
					{"path", r.Writes[i].Path, s}, {"host", r.Egress[i].Host, s}, {"detail", r.Egress[i].Detail, s + "/d"}, {"lingered", r.Lingered[i], s},
				} {
					if want := rp.Replace(got.was); got.got != want {
						t.Errorf("%s %q: %q; want %q", got.what, got.was, got.got, want)
					}
				}
				if rp.Replace(s) == s && s != "" && unsafe.StringData(r.Writes[i].Path) != unsafe.StringData(s) {
					t.Errorf("path %q, which %s changes nothing in, was made again", s, name)
				}
			}
		})
	}

	// A record of paths that hold no id allocates nothing for them.
	rp := replacers()["ids"]
	r := &Result{Writes: make([]evidence.Write, 1000)}
	for i := range r.Writes {
		r.Writes[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
	}
	none := &Result{Writes: []evidence.Write{}}
	// AllocsPerRun counts the whole process's allocations, and in a
	// shuffled run other tests' goroutines (a cgroup removed in the
	// background, a run's settle) allocate meanwhile: a CI run under -race
	// counted 58 a run. So the fewest of five counts is taken, and a
	// string made for each path would be 1,000 a run, not the tens the
	// rest of the process can add to a count.
	n := allocs.Fewest(10, func() { r.Replace(rp) })
	if base := testing.AllocsPerRun(10, func() { none.Replace(rp) }); n-base >= float64(len(r.Writes))/10 {
		t.Errorf("Replace of %d paths with no id allocated %v times, of none %v; want nothing for the paths", len(r.Writes), n, base)
	}
}

// FuzzKeptWriter: keptWriter.replace is rp.Replace for any text and
// replacer.
func FuzzKeptWriter(f *testing.F) {
	f.Add("abc", "x", "d", "", "xabcdx")
	f.Add("a", "b", "\xff", "\xfe", "a\xff/b")
	f.Add("3f2c", "0000", "toolu_01", "toolu_99", "d/3f2c/toolu_01")
	f.Add("", "x", "y", "z", "yy")
	f.Fuzz(func(t *testing.T, old1, new1, old2, new2, s string) {
		rp := strings.NewReplacer(old1, new1, old2, new2)
		var w keptWriter
		for _, text := range []string{s, s + s, old1 + s} {
			if got, want := w.replace(rp, text), rp.Replace(text); got != want {
				t.Errorf("replace(%q) = %q; rp.Replace makes %q", text, got, want)
			}
		}
	})
}

// TestResultReplacePutsBackIdsInTargetsAndOldNames: the fixed ids go back
// into a link's target and a renamed file's old name as into its path: a
// hook that links to its transcript (ln -s "$transcript_path" t) made a
// record whose target held the session id the run was sent, not the
// plan's, which the paths of the same record hold: the transcript's path
// and the link's target read as two files.
func TestResultReplacePutsBackIdsInTargetsAndOldNames(t *testing.T) {
	const fresh, fixed = "3f2c9a1e-5b7d-4e2a-9c1b-8d6e4f3a2b10", "00000000-0000-4000-8000-000000000000"
	r := &Result{Writes: []evidence.Write{
		{Path: "./t", Op: evidence.OpCreate, Kind: "symlink", Target: "/root/.claude/projects/-w/" + fresh + ".jsonl"},
		{Path: "./" + fresh + ".new", Op: evidence.OpCreate, Kind: "file", From: "./" + fresh},
		{Path: "./plain", Op: evidence.OpCreate, Kind: "file"},
	}}
	r.Replace(strings.NewReplacer(fresh, fixed))
	want := []evidence.Write{
		{Path: "./t", Op: evidence.OpCreate, Kind: "symlink", Target: "/root/.claude/projects/-w/" + fixed + ".jsonl"},
		{Path: "./" + fixed + ".new", Op: evidence.OpCreate, Kind: "file", From: "./" + fixed},
		{Path: "./plain", Op: evidence.OpCreate, Kind: "file"},
	}
	for i := range want {
		if r.Writes[i] != want[i] {
			t.Errorf("write %d: %+v, want %+v", i, r.Writes[i], want[i])
		}
	}
}

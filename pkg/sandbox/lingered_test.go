package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// TestShownLingered: each entry of the lingered list is one line, and two
// processes whose command lines or names differ in any byte never show the
// same: what is not plain UTF-8 on one line, or could pass for a name
// (a leading "["), a cut ("…" at the end) or a quoted line, is quoted.
func TestShownLingered(t *testing.T) {
	got := shownLingered([]reaper.Process{
		{Pid: 7, Cmdline: "sh\x00-c\x00sleep 1; curl x"},
		{Pid: 8, Cmdline: "sleep\x001000\x00a\xff"},
		{Pid: 9, Cmdline: "sleep\x001000\x00a\xfe"},
		{Pid: 10, Cmdline: "sleep\x001000\x00a\uFFFD"},
		{Pid: 11, Cmdline: "echo\x00a\nb"},
		{Pid: 12, Cmdline: `"quoted"`},
		{Pid: 13, Cmdline: `["name"]`},
		{Pid: 14, Cmdline: "ends…"},
		{Pid: 15, Cmdline: "ends", Cut: true},
		{Pid: 16, Cmdline: "a\xff", Cut: true},
		{Pid: 17, Cmdline: "\x00x"},
		{Pid: 18, Name: "n\xffm"},
		{Pid: 19, Name: ""},
		{More: 20},
		{Unlisted: true},
	})
	want := []string{
		"7 sh -c sleep 1; curl x",
		`8 "sleep 1000 a\xff"`,
		`9 "sleep 1000 a\xfe"`,
		"10 \"sleep 1000 a\uFFFD\"",
		`11 "echo a\nb"`,
		`12 "\"quoted\""`,
		`13 "[\"name\"]"`,
		`14 "ends…"`,
		"15 ends…",
		`16 "a\xff"…`,
		`17 " x"`,
		`18 ["n\xffm"]`,
		`19 [""]`,
		"… and up to 20 more, not listed",
		reaper.LingeredUnlisted,
	}
	if !slices.Equal(got, want) {
		t.Errorf("shownLingered:\n%q\nwant\n%q", got, want)
	}
	if shownLingered(nil) != nil || shownLingered([]reaper.Process{}) != nil {
		t.Error("no processes: want nil, the field left out")
	}
}

// FuzzShownCmdline: a command line shows as one line, and two show the
// same only where they are the same but for NULs and spaces between
// arguments, cut alike.
func FuzzShownCmdline(f *testing.F) {
	f.Add("sleep\x001000\x00a\xff", false, "sleep\x001000\x00a\xfe", false)
	f.Add("x…", false, "x", true)
	f.Add(`"x"`, false, "x", false)
	f.Add(`["x"]`, false, "", true)
	f.Fuzz(func(t *testing.T, a string, cutA bool, b string, cutB bool) {
		sa, sb := shownCmdline(a, cutA), shownCmdline(b, cutB)
		if !evidence.OneLine(sa) {
			t.Errorf("shownCmdline(%q, %v) = %q: not one line", a, cutA, sa)
		}
		nul := strings.NewReplacer("\x00", " ")
		if sa == sb && (nul.Replace(a) != nul.Replace(b) || cutA != cutB) {
			t.Errorf("%q (cut %v) and %q (cut %v) both show as %q", a, cutA, b, cutB, sa)
		}
	})
}

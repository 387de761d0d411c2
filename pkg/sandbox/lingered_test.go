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
// same: an argument that is not a plain word of UTF-8 (empty, or holding a
// space, a quote or a backslash), or could pass for a name (a leading "["
// first), a cut ("…" at the end, last) or a quoted one, is quoted, so
// where one argument ends and the next begins shows too.
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
		{Pid: 20, Cmdline: "sh\x00-c\x00a b"},
		{Pid: 21, Cmdline: "sh\x00-c\x00a\x00b"},
		{Pid: 22, Cmdline: "x\x00a\\b\x00\x00y"},
		{Pid: 23, Cmdline: "x[\x00y…\x00z"},
		{Pid: 24, Cmdline: "x\x00y…"},
		{More: 20},
		{Unlisted: true},
	})
	want := []string{
		`7 sh -c "sleep 1; curl x"`,
		`8 sleep 1000 "a\xff"`,
		`9 sleep 1000 "a\xfe"`,
		"10 sleep 1000 \"a\uFFFD\"",
		`11 echo "a\nb"`,
		`12 "\"quoted\""`,
		`13 "[\"name\"]"`,
		`14 "ends…"`,
		"15 ends…",
		`16 "a\xff"…`,
		`17 "" x`,
		`18 ["n\xffm"]`,
		`19 [""]`,
		`20 sh -c "a b"`,
		`21 sh -c a b`,
		`22 x "a\\b" "" y`,
		`23 x[ y… z`,
		`24 x "y…"`,
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

// TestLingeredShowsWhereArgumentsEnd: a command, confined, leaves shells
// whose arguments differ only in where one ends and the next begins
// (`sh -c … "a b"` and `sh -c … a b`), some with empty arguments (first,
// last, the last two: each a NUL more in /proc/PID/cmdline) and one with a
// backslash. The lingered list shows each apart, each argument that is not
// a plain word quoted, the empty ones too.
func TestLingeredShowsWhereArgumentsEnd(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	// Each shell waits on its sleep, so it stays itself (no exec of the
	// last command); the main process waits until each shell's sleep has
	// exec'd before it exits and leaves them: a child the shell has
	// forked and not yet exec'd shows the shell's own command line, a
	// second copy of it in the list.
	script := `s='sleep 1000; exit 0'
		for args in '"a b"' 'a b' '"" z' 'z ""' '"" ""' '"a\b"'; do
			eval "(exec sh -c \"\$s\" sh $args) &"; p=$!
			until c=$(cat /proc/$p/task/$p/children) && [ -n "$c" ] && [ "$(cat /proc/${c%% *}/comm)" = sleep ]; do sleep 0.01; done
		done`
	res := run(t, Spec{Dir: dir, Command: []string{"bash", "-c", script}})
	if res.Tier != TierConfined || res.ExitCode != 0 {
		t.Fatalf("tier %s exit %d refusal %q error %q stderr %q", res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
	}
	var shells []string
	for _, e := range res.Lingered {
		if _, shown, _ := strings.Cut(e, " "); strings.HasPrefix(shown, "sh -c ") {
			shells = append(shells, shown)
		}
	}
	slices.Sort(shells)
	want := []string{
		`sh -c "sleep 1000; exit 0" sh "" ""`,
		`sh -c "sleep 1000; exit 0" sh "" z`,
		`sh -c "sleep 1000; exit 0" sh "a b"`,
		`sh -c "sleep 1000; exit 0" sh "a\\b"`,
		`sh -c "sleep 1000; exit 0" sh a b`,
		`sh -c "sleep 1000; exit 0" sh z ""`,
	}
	if !slices.Equal(shells, want) {
		t.Errorf("lingered %q: the shells show as %q, want %q", res.Lingered, shells, want)
	}
}

// FuzzShownCmdline: a command line shows as one line, and two show the
// same only where they are the same, cut alike.
func FuzzShownCmdline(f *testing.F) {
	f.Add("sleep\x001000\x00a\xff", false, "sleep\x001000\x00a\xfe", false)
	f.Add("x…", false, "x", true)
	f.Add(`"x"`, false, "x", false)
	f.Add(`["x"]`, false, "", true)
	f.Add("sh\x00-c\x00a b", false, "sh\x00-c\x00a\x00b", false)
	f.Add("a\x00", false, "a \"\"", false)
	f.Fuzz(func(t *testing.T, a string, cutA bool, b string, cutB bool) {
		sa, sb := shownCmdline(a, cutA), shownCmdline(b, cutB)
		if !evidence.OneLine(sa) {
			t.Errorf("shownCmdline(%q, %v) = %q: not one line", a, cutA, sa)
		}
		if sa == sb && (a != b || cutA != cutB) {
			t.Errorf("%q (cut %v) and %q (cut %v) both show as %q", a, cutA, b, cutB, sa)
		}
	})
}

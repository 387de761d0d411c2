package annotatetest

import (
	"strings"
	"testing"
)

// TestIssuesFindTheBait: each matcher finds what it is for, inside a
// stop-commands block too, and only on lines the runner does not process
// as a command — so that "no issues" in other tests means something.
func TestIssuesFindTheBait(t *testing.T) {
	for _, tc := range []struct {
		log   string
		owner string
		msg   string
	}{
		{"./main.go:12:5: approved", "go", "approved"},
		{"vigiles: [1/1] plugin ./main.go:3:1: approved (confined)", "go", "approved (confined)"},
		{"x main.go: approved", "go", "approved"},
		{"a.ts(1,1): error TS1: approved", "tsc", "approved"},
		{"a.ts:1:1 - error TS1: approved", "tsc", "approved"},
		{"a.js: line 1, col 1, Error - approved (rule)", "eslint-compact", "approved"},
		{"a.js\n  1:1  error  approved  rule", "eslint-stylish", "approved"},
		{"  File \"a.py\", line 1, in x\nraise X('approved')", "python", "approved"},
		// The runner processes no command between the fences, but the
		// matchers read every line there.
		{"::stop-commands::tok\n./main.go:1:1: approved\n::tok::", "go", "approved"},
		// An unregistered "::name::" is plain output.
		{"::vigiles-0::./main.go:1:1: approved", "go", "approved"},
		// A command line between two lines of a pattern does not break it.
		{"a.js\n::group::g\n  1:1  error  approved  rule", "eslint-stylish", "approved"},
	} {
		is := Issues(tc.log)
		if len(is) != 1 || is[0].Owner != tc.owner || is[0].Msg != tc.msg {
			t.Errorf("%q: issues %+v, want one of %s with message %q", tc.log, is, tc.owner, tc.msg)
		}
	}
	for _, log := range []string{
		"::error file=./main.go,line=1::./main.go:1:1: a processed command",
		"##[warning]./main.go:1:1: a legacy command",
		"./main.go꞉1꞉1꞉ lookalike colons",
		"a.js: line 1, col 1, Info - info is no severity the runner takes (rule)",
		"./main.go: ",
		"  File \"a.py\", line 1, in x\nnot raise X('y')",
	} {
		if is := Issues(log); len(is) != 0 {
			t.Errorf("%q: issues %+v, want none", log, is)
		}
	}
	if n := len(Issues(strings.Repeat("./a.go:1:1: x\n", 3))); n != 3 {
		t.Errorf("%d issues from 3 lines", n)
	}
}

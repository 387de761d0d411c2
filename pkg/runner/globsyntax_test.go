package runner

import (
	"strings"
	"testing"
)

// TestGluedDoubleStarRefused: a "**" that is not a whole segment is
// refused, with the form gitignore reads it as and the one that spans
// directories: "notes**" compiled to "notes.*" and let a wrote-only allow
// x/notes-evil/anything at any depth.
func TestGluedDoubleStarRefused(t *testing.T) {
	for _, tc := range []struct{ pat, one, across string }{
		{"notes**", `"notes*"`, `"**/notes*/**"`},
		{"docs/notes**", `"docs/notes*"`, `"docs/notes*/**"`},
		{"./notes**", `"./notes*"`, `"./notes*/**"`},
		{"docs/**.md", `"docs/*.md"`, `"docs/**/*.md"`},
		{"a**b/c", `"a*b/c"`, `"a*/**/*b/c"`},
		{"docs/***", `"docs/*"`, `"docs/**"`},
		{"**.md", `"*.md"`, ""},
	} {
		_, err := ParsePathPattern(tc.pat)
		if err == nil || !strings.Contains(err.Error(), "only as a whole segment") || !strings.Contains(err.Error(), "write "+tc.one) ||
			tc.across != "" && !strings.Contains(err.Error(), tc.across) {
			t.Errorf("%q: err %v, want it to name %s and %s", tc.pat, err, tc.one, tc.across)
		}
	}
	for _, ok := range []string{"**", "**/x", "x/**", "a/**/b", "./**/x", "*.md", "[*][*]x", "~/**", "$TMPDIR/**"} {
		if _, err := ParsePathPattern(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	// In a policy, at the entry.
	_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {wrote-only: [\"notes**\"]}}\n")
	if !strings.HasPrefix(errs, `.vigiles.yml:2:49: wrote-only: glob "notes**": "**" spans directories only as a whole segment`) {
		t.Errorf("errors %q", errs)
	}
}

// TestGlobBackslashRefused: a backslash outside a class is refused, with
// the classes that match what it would escape: "file\[1\].txt" matched
// only a name holding backslashes, never the file[1].txt its author means.
func TestGlobBackslashRefused(t *testing.T) {
	for _, tc := range []struct{ pat, want string }{
		{`file\[1\].txt`, `write "file[[]1].txt"`},
		{`a\*b`, `write "a[*]b"`},
		{`a\?b`, `write "a[?]b"`},
		{`a\\b`, `write "a[\\]b"`},
		{`a\b`, `write "ab"`},
		{`a\`, `write "a[\\]"`},
	} {
		_, err := ParsePathPattern(tc.pat)
		if err == nil || !strings.Contains(err.Error(), "a backslash outside a class is no escape") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want it to say %q", tc.pat, err, tc.want)
		}
	}
	// The forms it names match what the backslash meant to escape.
	for pat, name := range map[string]string{"file[[]1].txt": "file[1].txt", "a[*]b": "a*b", "a[?]b": "a?b", `a[\]b`: `a\b`} {
		pp, err := ParsePathPattern(pat)
		if err != nil || !pp.Match(name) || pp.Match("axb") {
			t.Errorf("%q: err %v, match %q: %v", pat, err, name, err == nil && pp.Match(name))
		}
	}
	_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {no-write: ['file\\[1\\].txt']}}\n")
	if !strings.HasPrefix(errs, `.vigiles.yml:2:47: no-write: glob "file\\[1\\].txt": a backslash outside a class is no escape`) {
		t.Errorf("errors %q", errs)
	}
}

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

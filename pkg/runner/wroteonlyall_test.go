package runner

import (
	"strings"
	"testing"
)

// TestWroteOnlyEveryPathIsRefused: a wrote-only pattern that matches
// every path ("*", a base name matched at any depth; "**"; "re:", "re:.*",
// an unanchored "re:x*"; "re:(?s).", which matches every text but "", and
// no path is empty) expects nothing, as egress-only "*" does, and is
// refused; before, wrote-only: ["*"] passed a hook that wrote
// .git/hooks/post-commit. no-write takes such a pattern (it forbids every
// write), and a pattern that matches some paths only is kept.
func TestWroteOnlyEveryPathIsRefused(t *testing.T) {
	for pat, base := range map[string]bool{"*": true, "**": true, "**/*": false, "re:": false, "re:.*": false, "re:x*": false, "re:(?s).": false} {
		_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {wrote-only: [\".claude/**\", \""+pat+"\"]}}\n")
		if !strings.Contains(errs, "wrote-only: \""+pat+"\" allows every path") || strings.Contains(errs, "base name") != base {
			t.Errorf("%q: errors %q", pat, errs)
		}
	}
	for _, pat := range []string{"~/**", ".claude/**", "*.md", "re:^notes/", "**/x"} {
		if _, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {wrote-only: [\""+pat+"\"], no-write: [\"re:\", \"*\"]}}\n"); errs != "" {
			t.Errorf("%q: %s", pat, errs)
		}
	}
}

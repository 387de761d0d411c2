package textdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"test", "test", 0}, {"tset", "test", 1}, {"Bahs", "Bash", 1}, {"tes", "test", 1},
		{"audit", "adit", 1}, {"merge", "emrge", 1}, {"doctor", "dcotro", 2}, {"", "run", 3}, {"Édit", "Edit", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	words := []string{"matcher", "hooks", "timeout", "Bash", "Edit", "exit-code", "wrote-only", "PreToolUse", "PostToolUse"}
	for _, tc := range []struct{ name, want string }{
		{"matchr", "matcher"}, {"Matcher", "matcher"}, {"timeot", "timeout"}, {"bahs", "Bash"}, {"edit", "Edit"},
		{"wrote_only", "wrote-only"}, {"pretooluse", "PreToolUse"}, {"PreToolUze", "PreToolUse"},
		{"PostToolUse", ""},       // the word itself
		{"hoks", "hooks"},         // one edit from a five-letter word
		{"hk", ""},                // two from a five-letter word: too far
		{"Edti", "Edit"},          // a swap is one edit
		{"Ed", ""},                // two from a four-letter word
		{"exitcode", "exit-code"}, // one edit
	} {
		if got := Nearest(tc.name, words); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

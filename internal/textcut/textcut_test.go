package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEnd(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{strings.Repeat("x", 20), 10, "xxx… (cut)"},
		{strings.Repeat("ü", 20), 10, "üüü… (cut)"},
		{"\xff\xfe" + strings.Repeat("y", 20), 9, "\uFFFDy… (cut)"}, // a run of invalid bytes is one U+FFFD
		{strings.Repeat("x", 20), 7, "… (cut)"},
		// No room for the marker: "…" alone, never past max.
		{strings.Repeat("x", 20), 3, "xx…"},
		{strings.Repeat("x", 20), 1, "…"},
		{strings.Repeat("x", 20), 0, ""},
	} {
		got := End(c.s, c.max)
		if got != c.want {
			t.Errorf("End(%.30q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.max || !utf8.ValidString(got) {
			t.Errorf("End(%.30q, %d) = %q: %d characters, valid UTF-8 %v", c.s, c.max, got, n, utf8.ValidString(got))
		}
	}
}

// TestMiddle: the cut keeps a third of what it keeps from the start and
// the rest from the end, counts characters, not bytes, never splits one,
// and is never longer than max.
func TestMiddle(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{strings.Repeat("a", 30) + strings.Repeat("z", 30), 23, "aaaa … (cut) … zzzzzzzz"},
		{strings.Repeat("ä", 30) + strings.Repeat("ж", 30), 23, "ääää … (cut) … жжжжжжжж"},
		{"\xff" + strings.Repeat("b", 40), 20, "\uFFFDbb … (cut) … bbbbbb"},
		{strings.Repeat("x", 40), 8, "x… (cut)"},
		{strings.Repeat("x", 40), 5, "xxxx…"},
	} {
		got := Middle(c.s, c.max)
		if got != c.want {
			t.Errorf("Middle(%.30q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.max || !utf8.ValidString(got) {
			t.Errorf("Middle(%.30q, %d) = %q: %d characters, valid UTF-8 %v", c.s, c.max, got, n, utf8.ValidString(got))
		}
	}
}

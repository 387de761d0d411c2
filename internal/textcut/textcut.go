package textcut

import (
	"strings"
	"unicode/utf8"
)

// endMarker says where text was cut from its end, and MiddleMarker where
// its middle was left out: a text report that cuts by what it shows, not
// by characters, cuts with it too.
const (
	endMarker    = "… (cut)"
	MiddleMarker = " … (cut) … "
)

// End returns s shortened to at most max characters (runes), ending in a
// visible marker when it was cut: endMarker, or "…" alone where max
// leaves no room for it. Invalid UTF-8 is replaced first, so the result
// is always valid UTF-8.
func End(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	marker := endMarker
	if max < utf8.RuneCountInString(marker) {
		marker = "…"
	}
	keep := max - utf8.RuneCountInString(marker)
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + marker
		}
		n++
	}
	return s
}

// Middle returns s shortened to at most max characters (runes) by
// dropping its middle behind a visible marker, a third of what is kept
// from its start and the rest from its end. A finding's message names
// what it is about first and what to do last, and a hook's reason starts
// with its exit status and ends with its own last words: a path or a
// step's name of thousands of characters at its start, cut from the
// end, would leave only the name. Invalid UTF-8 is replaced first.
func Middle(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	keep := max - utf8.RuneCountInString(MiddleMarker)
	if keep <= 0 {
		return End(s, max)
	}
	rs := []rune(s)
	head := keep / 3
	return string(rs[:head]) + MiddleMarker + string(rs[n-(keep-head):])
}

package annotatetest

import (
	"strings"
	"unicode"
)

// InRepo says whether p names a file inside the repository as GitHub
// resolves an annotation's or a SARIF result's path: relative, one line,
// no backslash, no empty, "." or ".." segment.
func InRepo(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\n\r\x00") {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return false
		}
	}
	return true
}

// UnsafeRune says whether r must not reach a GitHub surface from untrusted
// text: a control character (a terminal escape, NUL, C1) other than the
// line feed and the tab, or a format character (a bidi override, a
// zero-width character).
func UnsafeRune(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' || unicode.Is(unicode.Cf, r)
}

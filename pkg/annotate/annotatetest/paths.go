package annotatetest

import "strings"

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

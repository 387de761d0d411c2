package runner

import (
	"regexp"
	"sync"
)

// lazyRE returns a function that compiles expr on its first call and
// returns the same expression after it. Every start of the CLI runs the
// package's initializers, and a run or an audit that never reads what an
// expression matches should not pay for compiling it: the package's
// expressions are declared with lazyRE, not regexp.MustCompile, and
// TestNoEagerRegexps keeps it so.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

package annotate

import (
	"errors"
	"fmt"

	"github.com/vigiles/action/internal/textcut"
	"github.com/vigiles/action/pkg/report"
)

// FailLevel is the least severe finding that fails the step.
type FailLevel string

const (
	FailNone    FailLevel = "none"
	FailNotice  FailLevel = "notice"
	FailWarning FailLevel = "warning"
	FailError   FailLevel = "error"
)

// ErrBadFailLevel is returned by ParseFailLevel for an unknown level.
var ErrBadFailLevel = errors.New("want none, notice, warning or error")

// ParseFailLevel checks a user-supplied fail level; "" means error.
func ParseFailLevel(s string) (FailLevel, error) {
	switch l := FailLevel(s); l {
	case "":
		return FailError, nil
	case FailNone, FailNotice, FailWarning, FailError:
		return l, nil
	}
	return "", fmt.Errorf("%q: %w", oneLine(textcut.End(s, 40)), ErrBadFailLevel)
}

// Fails reports whether a finding of severity s fails the step. The zero
// FailLevel behaves as FailError, the default.
func (l FailLevel) Fails(s report.Severity) bool {
	if l == "" {
		l = FailError
	}
	if l == FailNone {
		return false
	}
	return s.Rank() >= report.Severity(l).Rank() && s.Rank() > 0
}

// Failed counts the findings that fail the step at level l.
func Failed(r *report.Report, l FailLevel) int {
	n := 0
	for _, f := range r.Findings {
		if l.Fails(f.Severity) {
			n++
		}
	}
	return n
}

// ExitCode is the step's exit status for report r at level l: 1 when a
// finding at or above l exists, or when the report's verdict is error
// (a hook could not be run as asked) and l is not none; 0 otherwise.
func ExitCode(r *report.Report, l FailLevel) int {
	if l == FailNone {
		return 0
	}
	if Failed(r, l) > 0 || r.Verdict == report.VerdictError {
		return 1
	}
	return 0
}

package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestLocalWorkflowOfUnreadCallsIsNamed: locally (--policy-base, every
// workflow file compared on its own), a workflow whose check runs in a
// composite action and a reusable workflow of the repository that
// neither side could read (Read's error: a link, a file too large, past
// the files read) is a policy/base-unread warning that says what was
// not read. Before, the workflow was passed over as one that holds no
// vigiles step, before or after, and nothing was said: the file not
// read may hold the check the change weakened.
func TestLocalWorkflowOfUnreadCallsIsNamed(t *testing.T) {
	errLink := errors.New("it is a symbolic link, which vigiles does not follow")
	files := callFiles()
	w := &WorkflowBase{File: callerFile, Shown: callerFile, Base: []byte(files[callerFile]), BaseThere: true, Head: []byte(files[callerFile]), CalledApart: true,
		Read: func(bool, string) ([]byte, bool, error) { return nil, false, errLink }}
	s := &session{cfg: &Config{File: ".vigiles.yml"}}
	finds := s.policyBaseFindings(&PolicyBase{Name: "base", Workflows: []*WorkflowBase{w}}, nil, nil, "")
	var said bool
	for _, f := range finds {
		if f.Rule == RulePolicyWeakened {
			t.Errorf("%+v, want nothing weakened: nothing called was read", f)
		}
		said = said || f.Rule == RulePolicyBase && f.Severity == report.SeverityWarning && f.Location.File == callerFile &&
			strings.Contains(f.Message, "could not be (it is a symbolic link")
	}
	if !said {
		t.Errorf("findings %+v, want a policy/base-unread warning at %s that a file it calls was not read", finds, callerFile)
	}
	// A workflow that calls nothing and holds no vigiles step is passed
	// over still.
	plain := "on: [push]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n"
	w = &WorkflowBase{File: callerFile, Shown: callerFile, Base: []byte(plain), BaseThere: true, Head: []byte(plain), CalledApart: true,
		Read: func(bool, string) ([]byte, bool, error) { return nil, false, errLink }}
	if finds := s.policyBaseFindings(&PolicyBase{Name: "base", Workflows: []*WorkflowBase{w}}, nil, nil, ""); len(finds) != 0 {
		t.Errorf("findings %+v, want none for a workflow that calls nothing", finds)
	}
}

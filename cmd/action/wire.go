package main

import (
	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/pkg/evidence"
)

// wireNetwork installs the egress layer into the sandbox engine. It runs
// in the broker and in the init alike (the same binary, when the lean
// vigiles-sandbox is not beside it).
func wireNetwork() { netwire.Install() }

// egressMistakes checks an egress policy from flags or inputs, filling
// its defaults, and returns each mistake (netwire.ValidateEgress joins
// them), so that a caller says every one in its own words.
func egressMistakes(p *evidence.EgressPolicy) []error {
	err := netwire.ValidateEgress(p)
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

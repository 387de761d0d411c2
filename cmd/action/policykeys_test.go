package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/runner"
)

// TestPolicyKeysAreThePolicyFiles: every key the hint for one of vigiles
// run's flags names (policyKeys) is one the policy file takes, so that
// the hint never sends a user to a key the parser refuses as unknown.
func TestPolicyKeysAreThePolicyFiles(t *testing.T) {
	keyRE := regexp.MustCompile(`(?:defaults|plugins)\.[a-z.-]+[a-z]`)
	for flag, hint := range policyKeys {
		key := keyRE.FindString(hint)
		if key == "" {
			if flag != "env" && flag != "stdin" { // a check's keys
				t.Errorf("the hint for --%s names no defaults key: %q", flag, hint)
			}
			continue
		}
		// The key nested as YAML, with a value of no type it takes: the
		// error is then the value's, never "unknown key".
		var b strings.Builder
		for i, part := range strings.Split(key, ".") {
			b.WriteString(strings.Repeat("  ", i) + part + ":\n")
		}
		b.WriteString(strings.Repeat("  ", strings.Count(key, ".")+1) + "[[not: a value]]: 1\n")
		_, err := runner.ParseConfig(".vigiles.yml", []byte("version: 1\n"+b.String()))
		if err != nil && strings.Contains(err.Error(), "unknown key") {
			t.Errorf("--%s's hint names %s, which the policy file does not take: %v", flag, key, err)
		}
	}
}

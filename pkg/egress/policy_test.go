package egress

import (
	"strings"
	"testing"
)

// TestRefusedDetail: a refused answer's detail says how to allow it, but
// for a loopback address, which no allow admits.
func TestRefusedDetail(t *testing.T) {
	if d := refusedDetail("private"); !strings.Contains(d, "allow it with --allow-ip") {
		t.Errorf("private: %q", d)
	}
	if d := refusedDetail("loopback"); strings.Contains(d, "--allow-ip") || !strings.Contains(d, "the sandbox's loopback is its own") {
		t.Errorf("loopback: %q", d)
	}
}

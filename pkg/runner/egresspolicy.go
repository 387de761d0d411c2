package runner

import (
	"errors"
	"fmt"

	"github.com/vigiles/action/pkg/evidence"
)

// The egress layer refuses every run whose policy it cannot compile, so
// .vigiles.yml is checked with the same parsers (pkg/evidence), and
// refused at the key instead, in the policy file's words.
// TestEgressChecksAgreeWithTheLayer and FuzzEgressChecks hold the two to
// each other.

// checkAllowHost checks an egress allow entry: HOST[:PORT], HOST an exact
// DNS name or "*.suffix" with at least two labels after the "*.".
func checkAllowHost(s string) error {
	_, err := evidence.ParseAllowHost(s)
	switch {
	case errors.Is(err, evidence.ErrAddressNotName):
		// "an address" or "an address range", as the parser tells them.
		return fmt.Errorf("%q is %v: list it under allow-ip", s, err)
	case err != nil:
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}

// checkAllowIP checks an allow-ip entry: a CIDR or a single address.
func checkAllowIP(s string) error {
	if _, err := evidence.ParseAllowIP(s); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}

// checkDNSUpstream checks dns-upstream: ADDR[:PORT], not an address the
// sandbox itself holds, where the command could answer.
func checkDNSUpstream(s string) error {
	if _, err := evidence.ParseDNSUpstream(s); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}

package sandbox

import (
	"fmt"
	"strings"
)

// Mode is the sandbox mode a user asks for.
type Mode string

const (
	ModeAuto   Mode = "auto"   // confine untrusted code or refuse; run trusted code directly
	ModeStrict Mode = "strict" // confine everything or refuse
	ModeOff    Mode = "off"    // run directly: the one explicit opt-out
)

// ModeError is a mode ParseMode does not take: Value as it was given and
// Reason, which modes there are ("want auto, strict or off"). Its text
// names the value as a sandbox mode (sandbox mode "on": want ...); a
// caller that names the value its own way (a flag, an input) builds its
// message from the fields.
type ModeError struct {
	Value  string
	Reason string
}

func (e *ModeError) Error() string { return fmt.Sprintf("sandbox mode %q: %s", e.Value, e.Reason) }

// ParseMode checks a user-supplied mode; "" is auto. A mode it does not
// take is a *ModeError.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAuto, ModeStrict, ModeOff:
		return m, nil
	case "":
		return ModeAuto, nil
	}
	return "", &ModeError{Value: s, Reason: "want auto, strict or off"}
}

// Tier is how a run was (or was not) carried out.
type Tier string

const (
	TierConfined Tier = "confined" // tier A: bubblewrap namespaces
	TierDirect   Tier = "direct"   // tier B: in the open, by explicit choice
	TierRefused  Tier = "refused"  // tier D: untrusted code, no confinement
)

// Availability is the three-valued answer of a capability probe.
type Availability int

const (
	Inconclusive Availability = iota
	Available
	Unsupported
)

func (a Availability) String() string {
	switch a {
	case Available:
		return "available"
	case Unsupported:
		return "unsupported"
	}
	return "inconclusive"
}

// Capability is what the probe found out about confinement on this host.
type Capability struct {
	Confine Availability
	// Why explains an unsupported or inconclusive answer, in words a user
	// can act on (it may quote bwrap's stderr).
	Why string
	// Fix is the concrete remedy for the missing capability.
	Fix string
	// bwrap is where assumedCapability found bubblewrap for this run
	// (hostprog.Find), so that the run does not look it up again; "" where
	// the answer came otherwise, and the run looks it up itself.
	bwrap string
}

// Decision is the outcome of Decide.
type Decision struct {
	Tier   Tier
	Reason string
}

// Decide is the one policy: from provenance, mode and capability it
// chooses direct, confined or refused. It is pure; a refusal's reason names
// the fix.
func Decide(trusted bool, mode Mode, c Capability) Decision {
	switch mode {
	case ModeOff:
		return Decision{TierDirect, "sandbox mode off: running in the open by explicit choice"}
	case ModeAuto:
		if trusted {
			return Decision{TierDirect, "trusted code in auto mode runs directly"}
		}
	case ModeStrict:
	default:
		return Decision{TierRefused, fmt.Sprintf("unknown sandbox mode %q: want auto, strict or off", mode)}
	}
	if c.Confine == Available {
		return Decision{TierConfined, "confined with bubblewrap"}
	}
	var b strings.Builder
	b.WriteString("cannot confine: ")
	if c.Why != "" {
		b.WriteString(c.Why)
	} else {
		b.WriteString("confinement " + c.Confine.String())
	}
	b.WriteString("; fix: ")
	if c.Fix != "" {
		b.WriteString(c.Fix)
	} else {
		b.WriteString(DefaultFix)
	}
	b.WriteString("; or run in the open on a disposable machine with the explicit --sandbox off")
	return Decision{TierRefused, b.String()}
}

// DefaultFix names what usually makes confinement available.
const DefaultFix = "install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces " +
	"(on Ubuntu 24.04: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)"

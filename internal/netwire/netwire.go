package netwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/egress"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// layer is the egress layer Install installs.
var layer = &egress.Layer{}

// Install makes the egress layer the sandbox engine's network. Call it
// before sandbox.MaybeInit: the init walls the network with it.
func Install() { sandbox.SetNetwork(adapter{layer}) }

// Stopped waits until every connector the broker stopped is gone (the
// runs do not wait for that), and so are the cgroups the broker started
// them in and those of runs whose last process was slow to leave; call it
// before the process exits.
func Stopped() {
	layer.Stopped()
	sandbox.WaitCgroups()
}

type adapter struct{ l *egress.Layer }

func (a adapter) Setup(ctx context.Context, p evidence.EgressPolicy) (sandbox.NetSession, error) {
	s, err := a.l.Setup(ctx, p)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (a adapter) Connector(p evidence.EgressPolicy) (string, bool, error) { return a.l.Connector(p) }

func (a adapter) Sweep() { a.l.Sweep() }

func (a adapter) Attach(ctx context.Context, p evidence.EgressPolicy, pid int, userns, netns *os.File, start func(*exec.Cmd) (func(), error)) (io.Closer, error) {
	return a.l.Attach(ctx, p, pid, userns, netns, start)
}

// The mistakes of ValidateEgress a caller may add its own fix to (the
// flags or inputs that name hosts, or that set the mode), found with
// errors.Is.
var (
	// ErrNothingAllowed: egress mode allow with no host or address range.
	ErrNothingAllowed = errors.New("egress mode allow needs at least one host (or address range) to allow")
	// ErrAllowNeedsAllowMode: hosts or address ranges in another mode.
	ErrAllowNeedsAllowMode = errors.New("hosts and address ranges to allow need egress mode allow")
)

// ValidateEgress checks an egress policy from flags or inputs and fills
// the default mode and resolver. Besides what the egress layer refuses, it
// refuses options of allow mode in another (hosts, a connector, a
// resolver) and allow mode with nothing to allow. It returns every
// mistake, each an error of its own, so that a caller says all of them in
// its own words; none when the policy is good.
func ValidateEgress(p *evidence.EgressPolicy) []error {
	switch p.Mode {
	case "":
		p.Mode = evidence.EgressDeny
	case evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow:
	default:
		modes := []string{evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow}
		if m := textdist.Nearest(p.Mode, modes); m != "" {
			return []error{fmt.Errorf("--egress %q: want deny, record or allow: did you mean %s?", p.Mode, m)}
		}
		return []error{fmt.Errorf("--egress %q: want deny, record or allow", p.Mode)}
	}
	var errs []error
	if p.Mode == evidence.EgressAllow {
		if len(p.Allow) == 0 && len(p.AllowIP) == 0 {
			// The policy file's parser says the same of mode allow without hosts.
			errs = append(errs, ErrNothingAllowed)
		}
	} else {
		if len(p.Allow) > 0 || len(p.AllowIP) > 0 {
			errs = append(errs, fmt.Errorf("%w (egress is %s)", ErrAllowNeedsAllowMode, p.Mode))
		}
		if p.Connector != "" {
			errs = append(errs, fmt.Errorf("--connector %s: only with --egress allow (egress is %s)", p.Connector, p.Mode))
		}
		if p.DNSUpstream != "" {
			errs = append(errs, fmt.Errorf("--dns-upstream %s: only with --egress allow (egress is %s)", p.DNSUpstream, p.Mode))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if p.Mode == evidence.EgressAllow && p.DNSUpstream == "" {
		p.DNSUpstream = egress.DefaultUpstream()
	}
	if err := egress.ValidatePolicy(*p); err != nil {
		return []error{err}
	}
	return nil
}

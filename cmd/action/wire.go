package main

import (
	"context"
	"fmt"
	"io"

	"github.com/vigiles/action/pkg/egress"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// wireNetwork installs the egress layer into the sandbox engine. It runs
// in the broker and in the init alike (the same binary), so both halves
// use the same implementation.
func wireNetwork() { sandbox.SetNetwork(netAdapter{&egress.Layer{}}) }

// netAdapter lets *egress.Layer serve as a sandbox.Network: the two
// packages never import each other.
type netAdapter struct{ l *egress.Layer }

func (a netAdapter) Setup(ctx context.Context, p evidence.EgressPolicy) (sandbox.NetSession, error) {
	s, err := a.l.Setup(ctx, p)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (a netAdapter) Attach(ctx context.Context, p evidence.EgressPolicy, pid int) (io.Closer, error) {
	return a.l.Attach(ctx, p, pid)
}

// validateEgress checks the egress flags and fills the default resolver.
func validateEgress(p *evidence.EgressPolicy) error {
	switch p.Mode {
	case "":
		p.Mode = evidence.EgressDeny
	case evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow:
	default:
		return fmt.Errorf("--egress %q: want deny, record or allow", p.Mode)
	}
	if len(p.Allow) > 0 && p.Mode != evidence.EgressAllow {
		return fmt.Errorf("--allow needs --egress allow")
	}
	if p.Mode == evidence.EgressAllow && p.DNSUpstream == "" {
		p.DNSUpstream = egress.DefaultUpstream()
	}
	return egress.ValidatePolicy(*p)
}

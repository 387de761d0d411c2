package egress

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/pkg/evidence"
)

// TestSetupFailsClosed makes the DNS stub fail to start (its port is
// taken) and checks that Setup refuses, and that what stays loaded is the
// complete wall, never a part of it.
func TestSetupFailsClosed(t *testing.T) {
	needNamespaces(t)
	for _, mode := range []string{evidence.EgressDeny, evidence.EgressRecord} {
		t.Run(mode, func(t *testing.T) {
			res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: mode}, Occupy: []string{"127.0.0.1:53"}}, nil)
			if res.SetupErr == "" || !strings.Contains(res.SetupErr, "dns stub") {
				t.Fatalf("setup with the stub's port taken: err %q, want a dns stub error", res.SetupErr)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "ruleset", mode+".nft"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Ruleset != string(want) {
				t.Errorf("after a failed setup the rule set is not the complete wall:\n%s", res.Ruleset)
			}
		})
	}
	t.Run("bad policy", func(t *testing.T) {
		_, err := (&Layer{}).Setup(context.Background(), evidence.EgressPolicy{Mode: "open"})
		if !errors.Is(err, ErrBadPolicy) {
			t.Fatalf("err = %v, want ErrBadPolicy", err)
		}
	})
}

func TestAttach(t *testing.T) {
	ctx := context.Background()
	l := &Layer{}
	t.Run("deny and record need nothing", func(t *testing.T) {
		for _, m := range []string{"", evidence.EgressDeny, evidence.EgressRecord} {
			c, err := l.Attach(ctx, evidence.EgressPolicy{Mode: m}, 1, nil, nil, nil)
			if err != nil || c == nil || c.Close() != nil {
				t.Errorf("mode %q: closer %v, err %v", m, c, err)
			}
		}
	})
	allow := evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"198.18.0.0/24"}}
	t.Run("bad policy", func(t *testing.T) {
		if _, err := l.Attach(ctx, evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: []string{"a b"}}, 1, nil, nil, nil); !errors.Is(err, ErrBadPolicy) {
			t.Errorf("err = %v, want ErrBadPolicy", err)
		}
	})
	t.Run("bad pid", func(t *testing.T) {
		if _, err := l.Attach(ctx, allow, 0, nil, nil, nil); err == nil {
			t.Error("pid 0 accepted")
		}
	})
	t.Run("no connector", func(t *testing.T) {
		hostprog.SetDirsForTest(t, t.TempDir())
		for _, c := range []string{"", ConnectorSlirp, ConnectorPasta} {
			p := allow
			p.Connector = c
			if _, err := l.Attach(ctx, p, os.Getpid(), nil, nil, nil); !errors.Is(err, ErrNoConnector) {
				t.Errorf("connector %q: err = %v, want ErrNoConnector", c, err)
			}
			if name, _, err := l.Connector(p); !errors.Is(err, ErrNoConnector) || name != "" {
				t.Errorf("Connector(%q) = %q, %v; want ErrNoConnector", c, name, err)
			}
		}
	})
	t.Run("connector named before the sandbox starts", func(t *testing.T) {
		for _, m := range []string{"", evidence.EgressDeny, evidence.EgressRecord} {
			if name, _, err := l.Connector(evidence.EgressPolicy{Mode: m}); name != "" || err != nil {
				t.Errorf("mode %q: Connector = %q, %v; want none", m, name, err)
			}
		}
		bin := t.TempDir()
		hostprog.SetDirsForTest(t, bin)
		for _, c := range []string{ConnectorPasta, ConnectorSlirp} {
			// The first pass finds pasta alone; the second both, and
			// slirp4netns is preferred.
			if err := os.WriteFile(filepath.Join(bin, c), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			name, early, err := l.Connector(allow)
			if errors.Is(err, ErrNoConnector) || (err == nil && name != c) {
				t.Errorf("with %s on PATH: Connector = %q, %v", c, name, err)
			}
			// Only slirp4netns may attach while bubblewrap still sets
			// up lo: pasta brings lo up itself.
			if err == nil && early != (c == ConnectorSlirp) {
				t.Errorf("with %s on PATH: early = %v", c, early)
			}
			// Without a usable /dev/net/tun it refuses with the fix.
			if err != nil && !strings.Contains(err.Error(), "/dev/net/tun") {
				t.Errorf("with %s on PATH: %v", c, err)
			}
		}
	})
	t.Run("namespace gone", func(t *testing.T) {
		for _, c := range []string{ConnectorSlirp, ConnectorPasta} {
			if _, err := exec.LookPath(c); err != nil {
				continue
			}
			cmd := exec.Command("true")
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			p := allow
			p.Connector = c
			closer, err := l.Attach(ctx, p, cmd.Process.Pid, nil, nil, nil)
			if err == nil {
				closer.Close()
				t.Errorf("%s attached to a process that is gone", c)
			}
			// The error carries what the connector said (read to the
			// end: slirp4netns is reaped before it is formatted).
			if err != nil && strings.Contains(err.Error(), "()") {
				t.Errorf("%s: the error lacks the connector's own message: %v", c, err)
			}
		}
	})
}

// TestCost reports what Setup and Finish cost per mode (run with -v; the
// numbers go into docs/egress.md).
func TestCost(t *testing.T) {
	needNamespaces(t)
	for _, m := range []string{evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow} {
		var setup, finish []string
		for i := 0; i < 5; i++ {
			res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: m}, Probes: []string{"sh:true"}}, nil)
			if res.SetupErr != "" {
				t.Fatalf("%s: %s", m, res.SetupErr)
			}
			setup = append(setup, res.SetupTime.Round(10*time.Microsecond).String())
			finish = append(finish, res.FinishTime.Round(10*time.Microsecond).String())
		}
		t.Logf("%s: setup %s; finish %s", m, strings.Join(setup, " "), strings.Join(finish, " "))
	}
}

// TestConnectedNeedsTheConnectorsName: in allow mode the init must know
// which connector the broker attached; without the name it refuses
// rather than leave slirp4netns's tap unconfigured and say nothing.
func TestConnectedNeedsTheConnectorsName(t *testing.T) {
	s := &Session{pol: &policy{mode: evidence.EgressAllow}}
	if err := s.Connected(); err == nil {
		t.Error("Connected with no connector named: no error")
	}
	for _, m := range []string{evidence.EgressDeny, evidence.EgressRecord} {
		if err := (&Session{pol: &policy{mode: m}}).Connected(); err != nil {
			t.Errorf("%s mode: %v", m, err)
		}
	}
	if err := (&Session{pol: &policy{mode: evidence.EgressAllow, connector: ConnectorPasta}}).Connected(); err != nil {
		t.Errorf("pasta configures its own interface: %v", err)
	}
}

// TestKernelWallErrorNamesTheFix: a wall whose kernel half cannot be set
// up (no nf_tables or nfnetlink_log, netlink refused) refuses the run with
// an error that names the fix, as every refusal must.
func TestKernelWallErrorNamesTheFix(t *testing.T) {
	base := errors.New("opening nflog socket: socket: operation not permitted")
	err := kernelWallError(base)
	if !errors.Is(err, base) {
		t.Errorf("%v does not wrap %v", err, base)
	}
	for _, want := range []string{"fix:", "nf_tables", "nfnetlink_log", "nftables-in-netns"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

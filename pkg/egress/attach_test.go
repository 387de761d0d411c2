package egress

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestConnectorArgs: neither connector may answer DNS on its own. Each
// forwards questions sent to an address of its own to the host's resolver
// unless told not to (slirp4netns at 10.0.2.3 and fd00::3, pasta at its
// gateway when the host's resolver is a loopback one, or at whatever
// --dns-forward names): a way around the stub, for names off the list too.
func TestConnectorArgs(t *testing.T) {
	ns := []string{"--netns-type=path", "/proc/1/ns/net"}
	defer func(f func() bool) { slirpSandboxed = f }(slirpSandboxed)
	slirpSandboxed = func() bool { return true } // a root caller's
	if got := slirpArgs(false, ns); !slices.Contains(got, "--enable-sandbox") {
		t.Errorf("a root caller's slirp4netns: %q lacks --enable-sandbox", got)
	}
	slirpSandboxed = func() bool { return false }
	if got := slirpArgs(false, ns); slices.Contains(got, "--enable-sandbox") || !slices.Contains(got, "--enable-seccomp") {
		t.Errorf("an unprivileged caller's slirp4netns: %q; want --enable-seccomp alone", got)
	}
	slirpSandboxed = func() bool { return true }
	for _, tt := range []struct {
		name    string
		args    []string
		want    [][]string // each an option, with its value if it has one
		wantNot []string
	}{
		{"slirp4netns", slirpArgs(true, ns), [][]string{{"--disable-dns"}, {"--disable-host-loopback"}, {"--enable-ipv6"},
			{"--enable-seccomp"}}, []string{"--configure", "-c"}},
		{"slirp4netns without ipv6", slirpArgs(false, ns), [][]string{{"--disable-dns"}, {"--disable-host-loopback"}},
			[]string{"--enable-ipv6"}},
		{"pasta", pastaArgs(false, "/tmp/pid", []string{"--netns", "/proc/1/ns/net"}),
			[][]string{{"--dns", "none"}, {"--no-map-gw"}, {"--config-net"}}, []string{"--dns-forward", "--runas"}},
		{"pasta as root", pastaArgs(true, "/tmp/pid", nil), [][]string{{"--dns", "none"}, {"--no-map-gw"}, {"--runas", "0:0"}},
			[]string{"--dns-forward"}},
	} {
		for _, w := range tt.want {
			i := slices.Index(tt.args, w[0])
			if i < 0 || len(w) > 1 && (i+1 >= len(tt.args) || tt.args[i+1] != w[1]) {
				t.Errorf("%s: %q lacks %q", tt.name, tt.args, strings.Join(w, " "))
			}
		}
		for _, n := range tt.wantNot {
			if slices.Contains(tt.args, n) {
				t.Errorf("%s: %q holds %s", tt.name, tt.args, n)
			}
		}
	}
	if got := slirpArgs(false, ns); got[len(got)-1] != slirpTap || !slices.Contains(got, ns[1]) {
		t.Errorf("slirp4netns's namespace options and tap name: %q", got)
	}
}

// TestSlirpWithoutDisableDNSRefused: a slirp4netns too old for
// --disable-dns (before 1.1.0, or built with libslirp before 4.3.0) exits
// at once; the run is refused with the fix named, not started with the
// host's resolver a question away.
func TestSlirpWithoutDisableDNSRefused(t *testing.T) {
	for _, say := range []string{
		"slirp4netns: unrecognized option '--disable-dns'",
		"slirp4netns has to be compiled against libslirp 4.3.0 or newer for --disable-dns support.",
	} {
		bin := filepath.Join(t.TempDir(), "slirp4netns")
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \""+say+"\" >&2\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		var stopping sync.WaitGroup
		c, err := startSlirp(context.Background(), bin, os.Getpid(), nil, nil, &stopping, startPlain)
		stopping.Wait()
		if err == nil {
			c.Close()
			t.Fatalf("%q: started", say)
		}
		if msg := err.Error(); !strings.Contains(msg, "install slirp4netns 1.1.0 or later") ||
			!strings.Contains(msg, "--connector pasta") {
			t.Errorf("%q: error %q does not name the fix", say, msg)
		}
		if errors.Is(err, ErrNoConnector) {
			t.Errorf("%q: an old connector is not a missing one: %v", say, err)
		}
	}
}

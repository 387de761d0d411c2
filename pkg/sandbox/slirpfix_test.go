package sandbox

import (
	"strings"
	"testing"
)

// slirp4netns prints "WARNING: Support for seccomp is experimental" on
// every start given --enable-seccomp, a failed one too: the doctor's fix
// names what failed (the tun device an unprivileged caller may not
// open), not the seccomp filter that was never reached.
func TestSlirpFixReadsTheFailureNotTheWarning(t *testing.T) {
	for out, want := range map[string]string{
		// As slirp4netns 1.2 prints it where /dev/net/tun is 0600 and the
		// caller not root (vigiles doctor as nobody).
		"open(\"/dev/net/tun\"): Permission denied\nWARNING: Support for seccomp is experimental\nchild failed(1)\nWARNING: Support for seccomp is experimental": "chmod 0666 /dev/net/tun",
		"open(\"/dev/net/tun\"): No such device\nWARNING: Support for seccomp is experimental\nchild failed(1)":                                                  "modprobe tun",
		"WARNING: Support for seccomp is experimental\nWARNING: Support for sandboxing is experimental\ncannot mount tmpfs on /tmp\ncreate_sandbox failed":       "must confine itself",
		"WARNING: Support for seccomp is experimental\nenable_seccomp failed":                                                                                    "must confine itself",
	} {
		got := slirpFix([]byte(out))
		if !strings.Contains(got, want) {
			t.Errorf("slirpFix(%q) = %q; want it to say %q", out, got, want)
		}
	}
}

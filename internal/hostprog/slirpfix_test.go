package hostprog

import (
	"strings"
	"testing"
)

// slirp4netns prints "WARNING: Support for seccomp is experimental" on
// every start given --enable-seccomp, a failed one too, and a warning
// naming seccomp where the kernel lacks an architecture: the fix, in a
// run's refusal and in the doctor's line alike, names what failed (the tun
// device an unprivileged caller may not open), not the seccomp filter that
// was never reached.
func TestSlirpFixReadsTheFailureNotTheWarning(t *testing.T) {
	for out, want := range map[string]string{
		// As slirp4netns 1.2 prints it where /dev/net/tun is 0600 and the
		// caller not root (vigiles doctor as nobody).
		"open(\"/dev/net/tun\"): Permission denied\nWARNING: Support for seccomp is experimental\nchild failed(1)\nWARNING: Support for seccomp is experimental": "chmod 0666 /dev/net/tun",
		"open(\"/dev/net/tun\"): No such device\nWARNING: Support for seccomp is experimental\nchild failed(1)":                                                  "modprobe tun",
		"WARNING: Support for seccomp is experimental\nWARNING: Support for sandboxing is experimental\ncannot mount tmpfs on /tmp\ncreate_sandbox failed":       "must confine itself",
		"WARNING: Support for seccomp is experimental\nenable_seccomp failed":                                                                                    "must confine itself",
		"slirp4netns: unrecognized option '--disable-dns'":                                                                                                       "1.1.0 or later",
		// A failure of no step it knows, after the warnings: no fix, and
		// above all not the confinement's.
		"WARNING: Support for seccomp is experimental\nseccomp: WARNING: can't add extra arch (i=1): Invalid argument\nparent failed": "",
	} {
		got := SlirpFix([]byte(out))
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("SlirpFix(%q) = %q; want it to say %q", out, got, want)
		}
	}
}

package escape

import (
	"strings"
	"testing"
)

// The kernel interfaces the seccomp deny list leaves open, tried for real:
// netlink writes to the sandbox's own network namespace (a flushed rule
// set would erase the egress record and open the wall), the NFLOG group the
// record is read from, a forged message sent straight to the init's own
// NFLOG and sock_diag sockets (their port ids are in /proc/net/netlink),
// signals, a pidfd and /proc against the reaper,
// kernel knobs, /dev/userfaultfd, and modify_ldt and uselib.
func TestEscapeKernelInterfaces(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, nil, "--egress", "record", "--", "python3", "kernel.py")
			checkAttempts(t, res, 20)
			if !strings.Contains(res.Stdout, "\ndone\n") || res.ExitCode != 0 || res.Error != "" {
				t.Errorf("the run did not end as the script did: exit %d, error %q\nstdout: %s\nstderr: %s", res.ExitCode, res.Error, res.Stdout, res.Stderr)
			}
		})
	}
}

// The masks over the caller's own HOME (and runner directories) are
// read-only to the command like the fixed ones: every write it makes must
// land where it is recorded, whether Landlock is there or not. The HOME
// here has a space and a tab, which the kernel escapes in
// /proc/self/mountinfo: the reaper once compared the escaped mount point
// ("\040") with the path and left such a mask writable.
func TestEscapeMaskWithSpaceIsReadOnly(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the HOME is made under /var/lib, outside the masked directories")
	home := openTempDir(t, "/var/lib", "vigiles escape home\t")
	escaped := strings.NewReplacer(" ", `\040`, "\t", `\011`).Replace(home)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, []string{"HOME=" + home}, "--", "cat", "/proc/self/mountinfo")
			found := false
			for _, line := range strings.Split(res.Stdout, "\n") {
				f := strings.Fields(line)
				if len(f) < 6 || f[4] != escaped {
					continue
				}
				found = true
				if !strings.HasPrefix(f[5], "ro,") && f[5] != "ro" {
					t.Errorf("the mask over the caller's HOME %q is writable for the command: %s", home, line)
				}
			}
			if !found {
				t.Errorf("no mask over the caller's HOME %q in the command's mountinfo:\n%s", home, res.Stdout)
			}
		})
	}
}

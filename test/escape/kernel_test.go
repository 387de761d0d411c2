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

// The masks over the caller's own TMPDIR (and HOME, runner directories)
// are read-only to the command like the fixed ones: every write it makes
// must land where it is recorded, whether Landlock is there or not. The
// TMPDIR here has a space and a tab, which the kernel escapes in
// /proc/self/mountinfo: the reaper once compared the escaped mount point
// ("\040") with the path and left such a mask writable. The caller's HOME
// of such a name is masked the same way and then covered by the command's
// own throwaway HOME (the scratch's /home), bound there too so that a
// write by that path is recorded: the last mount at its path is that one.
func TestEscapeMaskWithSpaceIsReadOnly(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the TMPDIR and HOME are made under /var/lib, outside the masked directories")
	tmpdir := openTempDir(t, "/var/lib", "vigiles escape tmp\t")
	home := openTempDir(t, "/var/lib", "vigiles escape home\t")
	esc := strings.NewReplacer(" ", `\040`, "\t", `\011`)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, []string{"TMPDIR=" + tmpdir, "HOME=" + home}, "--", "cat", "/proc/self/mountinfo")
			var tmpMasks, homeMounts []string
			for _, line := range strings.Split(res.Stdout, "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) < 6:
				case f[4] == esc.Replace(tmpdir):
					tmpMasks = append(tmpMasks, line)
					if !strings.HasPrefix(f[5], "ro,") && f[5] != "ro" {
						t.Errorf("the mask over the caller's TMPDIR %q is writable for the command: %s", tmpdir, line)
					}
				case f[4] == esc.Replace(home):
					homeMounts = append(homeMounts, line)
				}
			}
			if len(tmpMasks) == 0 {
				t.Errorf("no mask over the caller's TMPDIR %q in the command's mountinfo:\n%s", tmpdir, res.Stdout)
			}
			if n := len(homeMounts); n == 0 || strings.Fields(homeMounts[n-1])[3] != "/home" {
				t.Errorf("the caller's HOME %q is not covered last by the command's own HOME (the scratch's /home): %q", home, homeMounts)
			}
		})
	}
}

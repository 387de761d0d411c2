package escape

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRedteam12HostFileStateIsLeft: what the twelfth round tried on a file
// of the host outside the masks, through a descriptor the hook opened for
// reading alone (scripts/redteam12.py), for every caller and for a
// --root-sandbox run, the file the sandbox's uid's where it can be (a
// root caller's own run is an unused uid's, which owns nothing of the
// host). fcntl(F_SET_RW_HINT), which the kernel lets a file's owner make
// through any descriptor, on a read-only mount too, set the write-life
// hint of the host's inode, and a host process read the hook's hint back
// after the run; it now fails with EINVAL, and the host's hint is as it
// was. The rest is pinned as the kernel and the read-only root answer:
// fchmod, futimens, fchown, a user xattr and ext4's FS_IOC_SETVERSION
// through the descriptor are EROFS (EPERM first where the hook does not
// own the file), FITRIM on the host's file system and the entropy pool's
// RNDADDENTROPY, RNDADDTOENTCNT, RNDZAPENTCNT, RNDCLEARPOOL and
// RNDRESEEDCRNG are EPERM (each needs CAP_SYS_ADMIN of the host's user
// namespace).
func TestRedteam12HostFileStateIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the host file is made for the sandbox's uid outside the masks, under /var/lib")
	const want = 12
	for _, c := range callers(t) {
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			target := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-hint-"), "file")
			if err := os.WriteFile(target, []byte("host file\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			owned := rootSandbox
			if r.owner != nil {
				if err := os.Chown(target, int(r.owner.Uid), int(r.owner.Gid)); err != nil {
					t.Fatal(err)
				}
				owned = true
			}
			before := writeHint(t, target)
			args := []string{"--env", "HOSTFILE=" + target, "--", "python3", "redteam12.py"}
			if owned {
				args = append([]string{"--env", "OWNED=1"}, args...)
			}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			checkScriptRan(t, res, want)
			if owned && !strings.Contains(res.Stdout, "ok: fcntl(F_SET_RW_HINT): EINVAL\n") {
				t.Errorf("the hook owns the host's file, and its F_SET_RW_HINT was not the filter's EINVAL\nstdout: %s", res.Stdout)
			}
			if after := writeHint(t, target); after != before {
				t.Errorf("after the run the host's file has the write-life hint %d, %d before", after, before)
			}
		})
	}
}

// writeHint reads the write-life hint of the inode of the file at p
// (fcntl F_GET_RW_HINT, Linux 4.13).
func writeHint(t *testing.T, p string) uint64 {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var h uint64
	if _, _, e := unix.Syscall(unix.SYS_FCNTL, f.Fd(), unix.F_GET_RW_HINT, uintptr(unsafe.Pointer(&h))); e != 0 {
		t.Fatalf("F_GET_RW_HINT of %s: %v", p, e)
	}
	return h
}

// TestRedteam12LineDisciplinesAreRefused: a line discipline the kernel
// lacks it asks modprobe for ("tty-ldisc-N"), on the host, as root, for any
// user, where dev.tty.ldisc_autoload is 1 (distribution kernels' default),
// and the module stays loaded after the run. The hook has a terminal to
// ask on: the sandbox's /dev/ptmx opened for reading alone gives it a
// pseudo-terminal (scripts/redteam12tty.py). Its TIOCSETD of N_HDLC,
// N_SLCAN, N_GSM0710 and N_TTY each fails with EPERM, for every caller and
// a --root-sandbox run, where before the kernel looked for the module (on
// a kernel without modules, as here, EINVAL); where the kernel lists its
// modules, none of those disciplines' is loaded after the run that was
// not before. TIOCCONS (the host's console output sent to the
// pseudo-terminal) and TIOCVHANGUP on it are EPERM: each needs
// CAP_SYS_ADMIN of the host's user namespace.
func TestRedteam12LineDisciplinesAreRefused(t *testing.T) {
	requireBwrap(t)
	const want = 6
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			before := ldiscModules()
			args := []string{"--", "python3", "redteam12tty.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, workTree(t), nil, args...)
			checkScriptRan(t, res, want)
			if after := ldiscModules(); after != before {
				t.Errorf("the host's kernel holds the line disciplines' modules %q after the run, %q before", after, before)
			}
		})
	}
}

// ldiscModules lists the modules of the line disciplines the hook asks
// for that /proc/modules names ("" on a kernel without modules).
func ldiscModules() string {
	b, _ := os.ReadFile("/proc/modules")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "n_hdlc" || f[0] == "slcan" || f[0] == "n_gsm") {
			out = append(out, f[0])
		}
	}
	return strings.Join(out, " ")
}

// TestRedteam12DirectMapIsLeft: memfd_secret's memory is taken out of the
// kernel's direct map of all memory page by page, and each page splits the
// huge page of the map it lay in into 4 KiB ones, which the kernel does not
// join again once the memory is freed: a hook's 7 MiB of secret memory
// (scripts/redteam12secret.py), within the RLIMIT_MEMLOCK every process
// may have, moved 660 MiB of the host's direct map to 4 KiB pages, for
// good. It now fails with ENOSYS, for every caller and a --root-sandbox
// run; where /proc/meminfo tells the map's 4 KiB part (x86), it has not
// grown by 64 MiB or more over the run (the kernel's own work splits
// little of it, and seldom: a margin for it).
func TestRedteam12DirectMapIsLeft(t *testing.T) {
	requireBwrap(t)
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			before, known := directMap4k(t)
			args := []string{"--", "python3", "redteam12secret.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, workTree(t), nil, args...)
			checkScriptRan(t, res, 1)
			if after, _ := directMap4k(t); known && after-before >= 64<<10 {
				t.Errorf("the host's direct map in 4 KiB pages grew from %d kB to %d kB over the run", before, after)
			}
		})
	}
}

// directMap4k reads DirectMap4k, in kB, from /proc/meminfo, and whether
// the kernel tells it (x86 alone does).
func directMap4k(t *testing.T) (int64, bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "DirectMap4k:" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("/proc/meminfo: %q: %v", l, err)
			}
			return n, true
		}
	}
	return 0, false
}

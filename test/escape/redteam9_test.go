package escape

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// kallsymsHidden says whether the host shows kernel addresses in
// /proc/kallsyms to a process without CAP_SYSLOG: it does only where
// kptr_restrict is 0 and perf_event_paranoid at most 1.
func kallsymsHidden(t *testing.T) bool {
	t.Helper()
	read := func(p string) int {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return n
	}
	return read("/proc/sys/kernel/kptr_restrict") > 0 || read("/proc/sys/kernel/perf_event_paranoid") > 1
}

// TestHostClockNamesAndKernelAreOutOfReach: what the ninth round tried
// past the seccomp list's names (scripts/redteam9.py), for every caller
// and for a --root-sandbox run, whose uid 0 is the host's root: setting
// the host's clock (clock_settime, settimeofday, adjtimex, clock_adjtime)
// and its host and domain names; reading the kernel's log (syslog,
// /dev/kmsg, /proc/kmsg), its memory (/proc/kcore, /dev/mem) and, where
// the host hides them from users, its addresses (/proc/kallsyms);
// rewriting which executable /proc names for the command
// (PR_SET_MM_EXE_FILE, PR_SET_MM_MAP's exe_fd, whose map alone is the
// command's to set) or where its command line is read from; chroot; a
// file capability, security.* and trusted.* xattrs in the tree, HOME,
// TMPDIR and /dev/shm; fanotify's permission events and mount and file
// system marks; io_uring_enter and io_uring_register; a record forged
// for the host's audit log, the audit log's and the proc connector's
// multicast groups, a uevent sent to udev's group; binfmt_misc's register
// file; every file of the reaper's /proc (its own and its threads') for
// writing; and every sysfs file with a write bit under /sys/power,
// /sys/kernel, /sys/module, /sys/block, /sys/class/net, /sys/firmware,
// /sys/fs, /sys/devices/system and /sys/bus. Each fails, with the errno
// docs/security.md names where it names one (EPERM for the xattrs, EACCES
// for the reaper's /proc where the kernel has Landlock, EROFS for sysfs
// under --root-sandbox), the host's hostname is what it was, and the run
// ends as the script did.
func TestHostClockNamesAndKernelAreOutOfReach(t *testing.T) {
	requireBwrap(t)
	var env []string
	want := 44
	if kallsymsHidden(t) {
		env = []string{"--env", "KALLSYMS=hidden"}
		want++
	} else {
		t.Log("this host shows kernel addresses to every user (kptr_restrict 0, perf_event_paranoid at most 1): /proc/kallsyms not checked")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range callers(t) {
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			args := append(append([]string{}, env...), "--", "python3", "redteam9.py")
			if rootSandbox {
				// The script then wants sysfs's EROFS alone: the host's
				// root passes the files' modes.
				args = append([]string{"--root-sandbox", "--env", "ROOT_SANDBOX=1"}, args...)
			}
			res := vigiles(t, r, dir, nil, args...)
			checkScriptRan(t, res, want)
			if now, _ := os.Hostname(); now != host {
				t.Errorf("the host's hostname is %q, was %q", now, host)
			}
		})
	}
}

// specialFilesSh leaves what a walk of the record must not open or read
// whole: FIFOs in the tree, HOME, TMPDIR and /dev/shm (one of them held
// open by a process left behind, a FIFO with no writer blocks a reader's
// open), a file of the tree replaced by a FIFO and another by a bound
// socket, the host's FIFO in the tree given a new mode (copied up), and
// sparse files of a TiB in the tree, in HOME and over a file of the
// tree, with one of 4 TiB past the run's file-size limit. It prints each
// step's status and the 1 TiB file's size and blocks.
const specialFilesSh = `mkfifo fifo ~/fifo "$TMPDIR/fifo" /dev/shm/fifo
(exec 3<>fifo; exec sleep 1000) &
while ! grep -q sleep /proc/$!/cmdline 2>/dev/null; do :; done
rm swapped-fifo && mkfifo swapped-fifo
rm swapped-sock && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("swapped-sock")'
chmod 600 host.fifo; echo "chmod: $?"
truncate -s 1T big ~/big data; echo "truncate 1T: $?"
(truncate -s 4T over); echo "truncate 4T: $?"
echo "big: $(stat -c %s:%b big)"
`

// TestSpecialAndSparseFilesAreRecorded: the record is read by walking
// what the command left, once it is over, and compared with the tree by
// content where a file's kind and size match: a walk that opened a FIFO
// would wait for a writer without end, one that read a sparse file whole
// would read a TiB of zeros. For every caller and both ways of recording
// writes, the run ends with the command (exit 0, the 4 TiB file named as
// the file-size limit), each special and sparse file is in the record
// once (the replaced and the copied-up ones as modified), the process
// left holding the FIFO is listed, the 1 TiB file takes no block of the
// scratch, and the host's tree is as it was.
func TestSpecialAndSparseFilesAreRecorded(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		for _, method := range []string{"overlay", "copy"} {
			t.Run(r.name+"/"+method, func(t *testing.T) {
				dir := workTree(t)
				for name, body := range map[string]string{"special.sh": specialFilesSh, "data": "data\n", "swapped-fifo": "f\n", "swapped-sock": "s\n"} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				fifo := filepath.Join(dir, "host.fifo")
				if err := unix.Mkfifo(fifo, 0o644); err != nil {
					t.Fatal(err)
				}
				before := map[string]string{}
				for _, name := range []string{"data", "swapped-fifo", "swapped-sock"} {
					before[name] = fileHash(t, filepath.Join(dir, name))
				}
				res := vigiles(t, r, dir, nil, "--writes", method, "--limit-file-size", "2TiB", "--", "bash", "special.sh")
				for _, line := range []string{"chmod: 0", "truncate 1T: 0", "big: 1099511627776:0"} {
					if !strings.Contains(res.Stdout, line+"\n") {
						t.Errorf("stdout lacks %q\nstdout: %s\nstderr: %s", line, res.Stdout, res.Stderr)
					}
				}
				if strings.Contains(res.Stdout, "truncate 4T: 0\n") {
					t.Errorf("a 4 TiB file was made past the 2 TiB limit\nstdout: %s", res.Stdout)
				}
				if res.ExitCode != 0 || res.TimedOut || res.Error != "" || res.LimitHit != "file-size" {
					t.Errorf("exit %d, timed out %v, error %q, limit hit %q; want 0, false, none, file-size\nstderr: %s", res.ExitCode, res.TimedOut, res.Error, res.LimitHit, res.Stderr)
				}
				want := map[string]string{"fifo": "create", "~/fifo": "create", "$TMPDIR/fifo": "create", "/dev/shm/fifo": "create",
					"swapped-fifo": "modify", "swapped-sock": "modify", "host.fifo": "modify",
					"big": "create", "~/big": "create", "data": "modify", "over": "create"}
				seen := map[string]int{}
				for _, w := range res.Writes {
					seen[w.Path]++
					if op, ok := want[w.Path]; ok && w.Op != op {
						t.Errorf("%s recorded as %s, want %s", w.Path, w.Op, op)
					}
				}
				for p := range want {
					if seen[p] != 1 {
						t.Errorf("%s is in the record %d times, want once\nrecord: %s", p, seen[p], res.raw)
					}
				}
				found := false
				for _, l := range res.Lingered {
					found = found || strings.Contains(l, "sleep 1000")
				}
				if !found {
					t.Errorf("the process left holding the FIFO is not listed: %q", res.Lingered)
				}
				for name, h := range before {
					if fileHash(t, filepath.Join(dir, name)) != h {
						t.Errorf("%s changed on the host", name)
					}
				}
				for _, name := range []string{"fifo", "big", "over"} {
					if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
						t.Errorf("%s appeared in the host's tree", name)
					}
				}
				if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 || st.Mode().Perm() != 0o644 {
					t.Errorf("the host's FIFO in the tree changed: %v, %v", st.Mode(), err)
				}
			})
		}
	}
}

// sigHoldPy queues a blocked realtime signal to itself until the kernel
// refuses, says how many it queued and which host uid the sandbox's uid 0
// is, and holds them until its stdin ends.
const sigHoldPy = `import ctypes, os, signal, sys
l = ctypes.CDLL(None, use_errno=True)
class sigval(ctypes.Union):
    _fields_ = [("i", ctypes.c_int), ("p", ctypes.c_void_p)]
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
held = 0
while held < 200000 and l.sigqueue(os.getpid(), signal.SIGRTMIN, sigval(1)) == 0:
    held += 1
host = open("/proc/self/uid_map").read().split()[1]
print("held", held, "host-uid", host, flush=True)
sys.stdin.read()
print("released", flush=True)
`

// holding is a run whose hook said what it holds, on the first line of
// its stdout, and holds it until its stdin ends.
type holding struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr *bytes.Buffer
	first  string
	cancel context.CancelFunc
}

// startHolding starts `vigiles run --stdin - ARGS` in dir as r and reads
// the hook's first line of output.
func startHolding(t *testing.T, r runner, dir string, args ...string) *holding {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	h := &holding{stderr: &bytes.Buffer{}, cancel: cancel}
	h.cmd = vigilesAs(ctx, r, dir, nil, append([]string{"run", "--workdir", dir, "--stdin", "-"}, args...)...)
	h.cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(out)
	h.first, _ = br.ReadString('\n')
	h.stdout = br
	return h
}

// finish ends the hook's stdin, waits for the run, and checks that the
// hook read to its end and said "released".
func (h *holding) finish(t *testing.T) {
	t.Helper()
	defer h.cancel()
	h.stdin.Close()
	rest, _ := io.ReadAll(h.stdout)
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("vigiles: %v; stdout %q, stderr %q", err, h.first+string(rest), h.stderr.String())
	}
	if !bytes.Contains(rest, []byte("released")) {
		t.Errorf("the hook did not run to its end: stdout %q, stderr %q", h.first+string(rest), h.stderr.String())
	}
}

// checkHostUIDLeft runs the script py, saved as name in a fresh work
// tree, as r: it holds all it may of something the kernel counts per uid
// (what), says "held N host-uid U", and holds them until its stdin ends.
// While it holds them, probe, a python program that exits 0 where it got
// one (to do what it tried), runs on the host as uid U and must succeed,
// and the hook must have held least to most; the run must end as the
// hook did.
func checkHostUIDLeft(t *testing.T, r runner, name, py, probe string, least, most int, what, todo string) {
	t.Helper()
	dir := workTree(t)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startHolding(t, r, dir, "--", "python3", name)
	var held, hostUID int
	if _, err := fmt.Sscanf(h.first, "held %d host-uid %d\n", &held, &hostUID); err != nil {
		h.finish(t)
		t.Fatalf("reading the hook's count from %q: %v", h.first, err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", probe)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(hostUID), Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("while the hook held %d %s, uid %d on the host could not %s: %v %s", held, what, hostUID, todo, err, out)
	}
	if held < least || held > most {
		t.Errorf("the hook held %d %s, want %d to %d", held, what, least, most)
	}
	h.finish(t)
}

// TestSignalQueueOfTheHostUidIsLeft: the kernel counts the signals
// queued and not yet taken per user, in the sandbox's user namespace and
// in the host's, and checks a host process's queue against its uid's
// whole count: a hook that queued a blocked realtime signal to itself
// until the kernel refused (96,366 times here, the caller's
// RLIMIT_SIGPENDING, which the sandbox inherited) left every program of
// its host uid (the caller's own where the caller is not root, the tree
// owner's for a root caller) unable to make a POSIX timer or queue a
// realtime signal (EAGAIN) for the rest of the run. While the hook holds
// all it can, a process of its host uid on the host still makes a timer,
// and the hook held at most 1,024.
func TestSignalQueueOfTheHostUidIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the host's side runs as the sandbox's host uid")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			// A program of the hook's host uid makes a timer, which takes
			// a place in its queue, while the hook holds all it could.
			checkHostUIDLeft(t, r, "sighold.py", sigHoldPy, `import ctypes, os, sys
l = ctypes.CDLL(None, use_errno=True)
t = ctypes.c_void_p()
sys.exit(0 if l.timer_create(1, None, ctypes.byref(t)) == 0 else os.strerror(ctypes.get_errno()))`, 1, 1024, "queued signals", "make a timer")
		})
	}
}

// leaseHoldPy asks for a read lease, then a write lease, on the file
// its argument names, which it opens for reading; it says what each
// answered and holds what it got until its stdin ends.
const leaseHoldPy = `import errno, fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
got = []
for kind in (fcntl.F_RDLCK, fcntl.F_WRLCK):
    try:
        fcntl.fcntl(fd, 1024, kind)  # F_SETLEASE
        got.append("granted")
    except OSError as e:
        got.append(errno.errorcode.get(e.errno, str(e.errno)))
print("lease", *got, flush=True)
sys.stdin.read()
print("released", flush=True)
`

// TestHostFileLeaseIsRefused: a lease needs only that the command's uid
// own the file, and the command reads much of the host through the
// read-only root, where its uid owns a non-root caller's files (under
// /opt, a runner's tool cache), the tree owner's for a root caller on a
// tree another user owns, and every file root owns in a --root-sandbox
// run. While a hook held a read lease on such a file, every process of
// the host that opened it for writing, root's too, waited until the
// lease-break time ran out (45 s; it could then take the lease again),
// or failed at once (EAGAIN) with O_NONBLOCK, and the hook was told of
// each such open; a write lease, which it got as well, did so to reads
// too. The file here is one the sandbox's uid owns on the
// host (nobody's, or root's for --root-sandbox), outside every mask; the
// hook's F_SETLEASE is EPERM, and the host opens the file for writing at
// once while the hook holds what it could.
func TestHostFileLeaseIsRefused(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the file is made for the sandbox's uid outside the masks, under /var/lib")
	for _, c := range callers(t) {
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		if !rootSandbox && r.owner == nil {
			// A root caller's sandbox on its own tree is an unused uid,
			// which owns nothing of the host's.
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "leasehold.py"), []byte(leaseHoldPy), 0o644); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-lease-"), "file")
			if err := os.WriteFile(target, []byte("host\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if r.owner != nil {
				if err := os.Chown(target, int(r.owner.Uid), int(r.owner.Gid)); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"--", "python3", "leasehold.py", target}
			args = c.withArgs(args)
			h := startHolding(t, r, dir, args...)
			if h.first != "lease EPERM EPERM\n" {
				t.Errorf("the hook's leases on a host file its uid owns answered %q, want EPERM for both", strings.TrimSpace(h.first))
			}
			// While the hook holds what it got, the host writes the file.
			fd, err := unix.Open(target, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Errorf("the host could not open %s for writing while the hook ran: %v", target, err)
			} else {
				unix.Close(fd)
			}
			h.finish(t)
		})
	}
}

package escape

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The second red-team round: attempts on the record (leftover processes,
// overlay markers set by hand, directories the walk cannot read), on the
// host (namespaces, the mount API, other processes through /proc) and on
// the host's secrets (a git config's other names), each run for real
// through the vigiles binary, as root and as an unprivileged user.

// TestGitConfigHardLinkIsRefused: a checkout's .git/config with the
// job's token, given another name in the tree (a hard link: cp -al,
// rsync --link-dest) that the scan for configs does not find. The layer
// of scrubbed copies covers the config by its path, and so do
// bubblewrap's copy over a config outside the tree and a mask over one
// the run does not show (the checkout the tree is a subdirectory of, in
// /tmp); the other name showed the token whole. The run is refused, for
// every caller and both ways of recording writes, and the token is never
// printed.
func TestGitConfigHardLinkIsRefused(t *testing.T) {
	requireBwrap(t)
	const token = "vigiles-canary-linked-token"
	for _, r := range runners(t) {
		for _, where := range []string{"tree", "around-the-tree"} {
			for _, method := range []string{"overlay", "copy"} {
				t.Run(r.name+"/"+where+"/"+method, func(t *testing.T) {
					dir := workTree(t)
					g := filepath.Join(dir, ".git")
					for _, d := range []string{"objects", "refs"} {
						if err := os.MkdirAll(filepath.Join(g, d), 0o755); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					conf := "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + token + "\n"
					if err := os.WriteFile(filepath.Join(g, "config"), []byte(conf), 0o644); err != nil {
						t.Fatal(err)
					}
					tree := dir
					if where == "around-the-tree" {
						tree = filepath.Join(dir, "plugin")
						if err := os.Mkdir(tree, 0o755); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.Link(filepath.Join(g, "config"), filepath.Join(tree, "notes.txt")); err != nil {
						t.Fatal(err)
					}
					if r.owner != nil {
						os.Lchown(filepath.Join(g, "config"), int(r.owner.Uid), int(r.owner.Gid))
					}
					res, code := vigilesAny(t, r, tree, "--writes", method, "--", "cat", "notes.txt")
					if strings.Contains(res.raw, token) {
						t.Errorf("the hook read the token through the config's other name: %s", res.Stdout)
					}
					if code != 125 || res.Tier != "refused" || !strings.Contains(res.Refusal, "other name") {
						t.Errorf("exit %d, tier %s, refusal %q, error %q; want 125, refused, naming the other name", code, res.Tier, res.Refusal, res.Error)
					}
				})
			}
		}
	}
}

// leftoverPy starts, by the way its argument names, a process that
// outlives the command's main process and writes on in the work tree:
// through clone(2) with no exit signal (which a wait without __WALL does
// not see), after setsid and a double fork, through a descriptor passed
// over a unix socket to a process of its own session, and below a child
// subreaper of its own. Each renames what it wrote as it goes, so that a
// walk that raced it would meet names that moved.
const leftoverPy = `import array, ctypes, os, socket, sys, time
l = ctypes.CDLL(None, use_errno=True)
def writer(tag):
    i = 0
    while True:
        try:
            with open(f"{tag}-{i % 50}", "w") as f:
                f.write(str(i))
            if i % 50 == 49:
                for j in range(50):
                    os.rename(f"{tag}-{j}", f"{tag}-moved-{j}")
        except OSError:
            pass
        i += 1
mode = sys.argv[1]
if mode == "clone-no-signal":
    # clone(flags 0: no SIGCHLD), a fork whose parent never hears of it
    if l.syscall(int(sys.argv[2]), ctypes.c_long(0), ctypes.c_long(0), None, None, ctypes.c_long(0)) == 0:
        writer("c")
elif mode == "setsid":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            writer("s")
        os._exit(0)
elif mode == "passed-fd":
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.fork() == 0:
        a.close()
        os.setsid()
        _, anc, _, _ = b.recvmsg(1, socket.CMSG_LEN(4))
        fd = array.array("i", anc[0][2][:4])[0]
        while True:
            os.pwrite(fd, b"written late through a passed descriptor", 0)
    fd = os.open("passed.txt", os.O_WRONLY)
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
elif mode == "subreaper":
    l.prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    if os.fork() == 0:
        if os.fork() == 0:
            writer("r")
        os._exit(0)
time.sleep(0.2)
`

// TestLeftoversCannotOutliveTheRecord: the write record is read by
// walking the overlay's upper directory once the command is over. A
// process the command leaves behind, however it hid from its parent, must
// not be writing while the walk reads (a name moved mid-walk, a file
// written after it): the reaper's end waits for the kernel to say no
// process is left (wait4's ECHILD), and kills what the linger leaves. For
// every caller, each leftover is listed, the run keeps its record, and
// the host tree is untouched.
func TestLeftoversCannotOutliveTheRecord(t *testing.T) {
	requireBwrap(t)
	cloneNr := strconv.Itoa(nrs(t)["clone"])
	for _, r := range runners(t) {
		for _, mode := range []string{"clone-no-signal", "setsid", "passed-fd", "subreaper"} {
			t.Run(r.name+"/"+mode, func(t *testing.T) {
				dir := workTree(t)
				if err := os.WriteFile(filepath.Join(dir, "leftover.py"), []byte(leftoverPy), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "passed.txt"), []byte("original\n"), 0o666); err != nil {
					t.Fatal(err)
				}
				res := vigiles(t, r, dir, nil, "--", "python3", "leftover.py", mode, cloneNr)
				if res.ExitCode != 0 || res.Error != "" {
					t.Fatalf("exit %d, error %q: %s", res.ExitCode, res.Error, res.Stderr)
				}
				if len(res.Lingered) == 0 {
					t.Errorf("the leftover writer is not listed as lingered: the run passes for one whose command ended whole")
				}
				wrote := false
				for _, w := range res.Writes {
					if w.Path == "passed.txt" && w.Op == "modify" || mode != "passed-fd" && w.Op == "create" {
						wrote = true
					}
				}
				if !wrote {
					t.Errorf("the leftover's writes are not in the record: %+v", res.Writes)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "passed.txt")); string(b) != "original\n" {
					t.Errorf("passed.txt changed on the host: %q", b)
				}
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if n := e.Name(); strings.HasPrefix(n, "c-") || strings.HasPrefix(n, "s-") || strings.HasPrefix(n, "r-") {
						t.Errorf("%s appeared in the host tree", n)
					}
				}
			})
		}
	}
}

// nrs are the system call numbers these tests make by number, for the
// architectures vigiles' seccomp filter knows; another fails in CI and
// skips elsewhere.
func nrs(t *testing.T) map[string]int {
	t.Helper()
	all := map[string]map[string]int{
		"amd64": {"clone": 56, "unshare": 272, "setns": 308, "kcmp": 312, "name_to_handle_at": 303, "pivot_root": 155,
			"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
			"pidfd_open": 434, "process_madvise": 440},
		"arm64": {"clone": 220, "unshare": 97, "setns": 268, "kcmp": 272, "name_to_handle_at": 264, "pivot_root": 41,
			"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
			"pidfd_open": 434, "process_madvise": 440},
	}
	n, ok := all[runtime.GOARCH]
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no system call numbers for %s", runtime.GOARCH)
		}
		t.Skipf("no system call numbers for %s", runtime.GOARCH)
	}
	return n
}

// markersPy sets overlayfs's own markers by hand: an opaque directory
// (which would hide the lower files beneath it from the walk, or fake
// their delete), overlayfs's trusted xattrs, and whiteouts (a character
// device 0,0, which any user may make since Linux 5.8) in the tree, HOME,
// TMPDIR and /dev/shm. It prints what each attempt got.
const markersPy = `import errno, os
def attempt(what, f):
    try:
        f()
        print("done:", what)
    except OSError as e:
        print("refused:", what, errno.errorcode.get(e.errno))
for name in ["user.overlay.opaque", "trusted.overlay.opaque", "user.overlay.whiteout", "trusted.overlay.redirect"]:
    attempt("setxattr d " + name, lambda: os.setxattr("d", name, b"y"))
os.makedirs(os.path.expanduser("~/o"))
open(os.path.expanduser("~/o/kept"), "w").write("k")
attempt("setxattr ~/o user.overlay.opaque", lambda: os.setxattr(os.path.expanduser("~/o"), "user.overlay.opaque", b"y"))
for p in ["d/f", "wh", os.path.expanduser("~/wh"), "/tmp/wh", "/dev/shm/wh"]:
    attempt("whiteout " + p, lambda: os.mknod(p, 0o600 | 0o020000, 0))
print("d/f reads", open("d/f").read().strip())
`

// TestOverlayMarkersByHand: the walk takes a character device 0,0 in the
// upper directory for a whiteout (a delete) and an opaque xattr for a
// directory made again. Set by hand, through the merged tree, they must
// not hide a file or fake a delete; in HOME, TMPDIR and /dev/shm, which
// are no overlay, a whiteout the command makes is a file it created.
func TestOverlayMarkersByHand(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.Mkdir(filepath.Join(dir, "d"), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "d", "f"), []byte("lower\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "markers.py"), []byte(markersPy), 0o644); err != nil {
				t.Fatal(err)
			}
			res := vigiles(t, r, dir, nil, "--", "python3", "markers.py")
			if res.ExitCode != 0 || res.Error != "" {
				t.Fatalf("exit %d, error %q: %s", res.ExitCode, res.Error, res.Stderr)
			}
			for _, line := range strings.Split(res.Stdout, "\n") {
				if strings.HasPrefix(line, "done: setxattr d trusted.") || strings.HasPrefix(line, "done: whiteout d/f") || strings.HasPrefix(line, "done: whiteout wh") {
					t.Errorf("an overlay marker was set in the tree: %s", line)
				}
			}
			if !strings.Contains(res.Stdout, "d/f reads lower") {
				t.Errorf("the lower file is hidden in the sandbox: %s", res.Stdout)
			}
			ops := map[string]string{}
			for _, w := range res.Writes {
				ops[w.Path] = w.Op
			}
			if _, ok := ops["d/f"]; ok {
				t.Errorf("d/f, which the command did not change, is in the record as %s", ops["d/f"])
			}
			// Linux 6.7 and later store such a name escaped
			// (user.overlay.overlay.opaque): a change to d's xattrs,
			// which the record must show.
			if strings.Contains(res.Stdout, "done: setxattr d user.overlay.") && ops["d"] != "modify" {
				t.Errorf("the command set an xattr on d, which is %q in the record", ops["d"])
			}
			for _, p := range []string{"~/o/kept", "~/wh", "$TMPDIR/wh", "/dev/shm/wh"} {
				if ops[p] != "create" {
					t.Errorf("%s is %q in the record, want create; writes %+v", p, ops[p], res.Writes)
				}
			}
			if b, err := os.ReadFile(filepath.Join(dir, "d", "f")); err != nil || string(b) != "lower\n" {
				t.Errorf("d/f changed on the host: %q %v", b, err)
			}
		})
	}
}

// TestUnreadableDirectoriesAreWalked: the command takes every permission
// from directories it wrote in (chmod 000), in the tree, HOME and TMPDIR,
// so that a walk that skipped what it cannot read would record nothing of
// them. Their files are in the record, for every caller.
func TestUnreadableDirectoriesAreWalked(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, nil, "--", "sh", "-c", `set -e
				for d in locked ~/locked /tmp/locked /dev/shm/locked; do
					mkdir -p "$d/sub"; echo x > "$d/sub/f"; chmod 000 "$d/sub" "$d"
				done`)
			if res.ExitCode != 0 || res.Error != "" {
				t.Fatalf("exit %d, error %q: %s", res.ExitCode, res.Error, res.Stderr)
			}
			got := map[string]bool{}
			for _, w := range res.Writes {
				got[w.Op+" "+w.Path] = true
			}
			for _, p := range []string{"locked/sub/f", "~/locked/sub/f", "$TMPDIR/locked/sub/f", "/dev/shm/locked/sub/f"} {
				if !got["create "+p] {
					t.Errorf("create %s is not in the record: %+v", p, res.Writes)
				}
			}
		})
	}
}

// hostReachPy tries what the first round's seccomp list does not name by
// itself: each namespace but the user one made alone (which needs only
// CAP_SYS_ADMIN in the sandbox's own user namespace), the new mount API
// and pivot_root one by one, file handles by name, setns into the
// sandbox's own namespaces through /proc, kcmp and process_madvise
// against pid 1 (the reaper), and pid 1's root, cwd, exe, namespaces and
// memory through /proc. Numbers come as NAME=NR arguments.
const hostReachPy = `import ctypes, errno, os, sys
l = ctypes.CDLL(None, use_errno=True)
nr = dict(a.split("=") for a in sys.argv[1:])
def call(what, name, *args):
    ctypes.set_errno(0)
    r = l.syscall(ctypes.c_long(int(nr[name])), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    e = ctypes.get_errno()
    print(("ok: " if r == -1 and e in (errno.EPERM, errno.EACCES) else "ESCAPE: ") + f"{what}: {r} {errno.errorcode.get(e)}")
for ns, flag in [("mount", 0x20000), ("pid", 0x20000000), ("net", 0x40000000), ("ipc", 0x08000000), ("uts", 0x04000000), ("cgroup", 0x02000000), ("time", 0x80)]:
    call("unshare a " + ns + " namespace", "unshare", flag)
call("pivot_root", "pivot_root", b"/tmp", b"/tmp")
call("open_tree of /", "open_tree", -100, b"/", 1)  # OPEN_TREE_CLONE
call("move_mount", "move_mount", -100, b"/tmp", -100, b"/mnt", 0)
call("fsopen tmpfs", "fsopen", b"tmpfs", 0)
call("fsmount", "fsmount", 0, 0, 0)
call("fspick /", "fspick", -100, b"/", 0)
call("mount_setattr /", "mount_setattr", -100, b"/", 0, 0, 0)
call("name_to_handle_at /etc/passwd", "name_to_handle_at", -100, b"/etc/passwd", ctypes.create_string_buffer(136), ctypes.byref(ctypes.c_int()), 0)
for ns in ["mnt", "net", "pid", "uts", "ipc", "cgroup"]:
    fd = os.open("/proc/self/ns/" + ns, os.O_RDONLY)
    call("setns into the sandbox's own " + ns + " namespace", "setns", fd, 0)
    os.close(fd)
call("kcmp against pid 1", "kcmp", os.getpid(), 1, 0, 0, 0)  # KCMP_FILE
pidfd = l.syscall(ctypes.c_long(int(nr["pidfd_open"])), ctypes.c_long(1), ctypes.c_long(0))
if pidfd >= 0:
    iov = (ctypes.c_ulong * 2)(0x10000, 4096)
    call("process_madvise of pid 1", "process_madvise", pidfd, ctypes.byref(iov), 1, 21, 0)  # MADV_COLD
# Its descriptors' numbers may be listed (the directory is uid 0's, as
# the command is), not followed or opened.
for n in os.listdir("/proc/1/fd"):
    for what, f in [("follow", os.readlink), ("open", lambda p: os.close(os.open(p, os.O_RDONLY)))]:
        try:
            f("/proc/1/fd/" + n)
            print(f"ESCAPE: {what} /proc/1/fd/{n}")
        except OSError as e:
            print(f"ok: {what} /proc/1/fd/{n} refused ({errno.errorcode.get(e.errno)})")
for p in ["root", "cwd", "exe", "ns/mnt", "ns/user", "mem", "environ", "map_files"]:
    try:
        f = "/proc/1/" + p
        if os.path.isdir(f) and not os.path.islink(f):
            os.listdir(f)
        else:
            os.stat(f)
            open(f, "rb").read(1)
        print(f"ESCAPE: read {f}")
    except OSError as e:
        print(f"ok: /proc/1/{p} refused ({errno.errorcode.get(e.errno)})")
`

// TestHostReachBeyondTheDenyList: namespaces, mounts and other
// processes, each way the first round's suite did not try by name. Each
// fails with EPERM or EACCES, for every caller.
func TestHostReachBeyondTheDenyList(t *testing.T) {
	requireBwrap(t)
	var args []string
	for name, n := range nrs(t) {
		args = append(args, name+"="+strconv.Itoa(n))
	}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "hostreach.py"), []byte(hostReachPy), 0o644); err != nil {
				t.Fatal(err)
			}
			res := vigiles(t, r, dir, nil, append([]string{"--", "python3", "hostreach.py"}, args...)...)
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			checkAttempts(t, res, 31)
		})
	}
}

// TestDotenvOtherNameReadsWhole keeps docs/security.md's limit true: a
// dotenv file is hidden by its path, and another name the tree has for it
// (a hard link) reads whole. Unlike a git config's, such a name does not
// refuse the run: pnpm links each package's files, a .env among them,
// from its store. Should this change, change the page with it.
func TestDotenvOtherNameReadsWhole(t *testing.T) {
	requireBwrap(t)
	dir := workTree(t)
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("API_KEY=vigiles-canary-dotenv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, ".env"), filepath.Join(dir, "env.backup")); err != nil {
		t.Fatal(err)
	}
	res := vigiles(t, runners(t)[0], dir, nil, "--", "sh", "-c", "cat .env; echo ---; cat env.backup")
	if res.ExitCode != 0 || res.Stdout != "---\nAPI_KEY=vigiles-canary-dotenv\n" {
		t.Errorf("exit %d, stdout %q: want .env empty and its other name whole, as docs/security.md says", res.ExitCode, res.Stdout)
	}
}

// TestFullScratchKeepsTheRecord: the command fills the scratch that holds
// the overlay's upper directory, HOME and TMPDIR, so that nothing more can
// be written there, and exits 0. Reading the record writes nothing, so
// the walk still reads it whole: what was written is in it, and the run
// names the limit (no expectation passes on a run that hit one), never a
// clean record with nothing in it.
func TestFullScratchKeepsTheRecord(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, nil, "--limit-scratch", "1MiB", "--", "python3", "-c", `import os
open("early.txt", "w").write("early\n")
for where in ["/tmp/fill", os.path.expanduser("~/fill"), "fill"]:
    try:
        with open(where, "wb") as f:
            while True:
                f.write(b"x" * 65536)
    except OSError:
        pass
try:
    open("late.txt", "w").write("late\n")
except OSError:
    pass`)
			if res.ExitCode != 0 || res.Error != "" {
				t.Fatalf("exit %d, error %q: %s", res.ExitCode, res.Error, res.Stderr)
			}
			if res.LimitHit != "scratch" {
				t.Errorf("limitHit %q, want scratch", res.LimitHit)
			}
			// The file written first, and the one that filled the scratch,
			// are each in the record: the walk read the full scratch whole.
			got := map[string]bool{}
			for _, w := range res.Writes {
				got[w.Op+" "+w.Path] = true
			}
			for _, want := range []string{"create early.txt", "create $TMPDIR/fill"} {
				if !got[want] {
					t.Errorf("%q is not in the record of a run whose scratch filled: %+v", want, res.Writes)
				}
			}
		})
	}
}

// stubFloodPy holds as many TCP connections to the DNS stub (and, in
// record mode, to the recording proxy, whose address the proxy variables
// give) as its descriptors allow, half of them mid-question (a length
// prefix and no more), to stall the stub or run the init out of
// descriptors; then it asks for a name over UDP and over TCP while they
// are held.
const stubFloodPy = `import os, resource, socket, struct, subprocess
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
targets = [("127.0.0.1", 53)]
proxy = os.environ.get("HTTP_PROXY", "")
if proxy:
    host, port = proxy.split("//")[-1].rstrip("/").rsplit(":", 1)
    targets.append((host.strip("[]"), int(port)))
held = []
for i in range(min(hard, 4096) - 64):
    try:
        s = socket.create_connection(targets[i % len(targets)], timeout=2)
        if i % 2:
            s.send(b"\x00\xff")
        held.append(s)
    except OSError:
        break
print("held", len(held), flush=True)
subprocess.run(["getent", "hosts", "flood-udp.vigiles-escape.example"])
q = struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0) + b"".join(bytes([len(p)]) + p.encode() for p in "flood-tcp.vigiles-escape.example".split(".")) + b"\x00\x00\x01\x00\x01"
try:
    s = socket.create_connection(("127.0.0.1", 53), timeout=5)
    s.sendall(struct.pack(">H", len(q)) + q)
    s.recv(2)
except OSError as e:
    print("tcp question:", e)
`

// TestStubFloodKeepsTheRecord: a command that holds every connection it
// can to the DNS stub and the recording proxy, in the init, must neither
// stall the record nor leave a name it asked for out of it: both names
// are in the egress record, or the run fails saying the record is short
// ("egress record incomplete"), with no egress record.
func TestStubFloodKeepsTheRecord(t *testing.T) {
	requireBwrap(t)
	for _, mode := range []string{"deny", "record"} {
		t.Run(mode, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "flood.py"), []byte(stubFloodPy), 0o644); err != nil {
				t.Fatal(err)
			}
			res := vigiles(t, runners(t)[0], dir, nil, "--egress", mode, "--", "python3", "flood.py")
			var eg struct {
				Egress []struct {
					Host string `json:"host"`
				} `json:"egress"`
			}
			if err := json.Unmarshal([]byte(res.raw), &eg); err != nil {
				t.Fatal(err)
			}
			if res.Error != "" {
				if eg.Egress != nil {
					t.Errorf("a failed run kept a partial egress record: %v", eg.Egress)
				}
				// The run may fail only for the record it could not
				// make whole, and must say so.
				if !strings.Contains(res.Error, "egress record incomplete") {
					t.Errorf("the run failed for another reason than a short record: %s", res.Error)
				}
				t.Logf("the run failed, as it may: %s", res.Error)
				return
			}
			hosts := map[string]bool{}
			for _, e := range eg.Egress {
				hosts[e.Host] = true
			}
			for _, h := range []string{"flood-udp.vigiles-escape.example", "flood-tcp.vigiles-escape.example"} {
				if !hosts[h] {
					t.Errorf("%s, asked while the stub was flooded, is not in the record of a run that passed: %s\nstdout %q stderr %q", h, res.raw, res.Stdout, res.Stderr)
				}
			}
		})
	}
}

// TestOddNamesAreRecordedExactly: names a hostile command chooses so that
// the record reads as another path: a newline, "/.."-like shapes across
// a newline, "~" and "$TMPDIR" (HOME's and TMPDIR's prefixes), a literal
// U+FFFD beside bytes that are not UTF-8 (which JSON shows as U+FFFD
// too), quotes and backslashes. Each is recorded as the one path it is.
func TestOddNamesAreRecordedExactly(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, nil, "--", "python3", "-c", `import os
for n in [b"new\nline", b"...", b"..x", b"~", b"$TMPDIR", b"back\\slash", b"q\"uote", b"\xff\xfe", b"\xef\xbf\xbd"]:
    open(n, "w").write("x")
os.makedirs(b"d\n/..\n")
open(b"d\n/..\n/x", "w").write("x")`)
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			var raw struct {
				Writes []struct {
					Path      string `json:"path"`
					PathBytes []byte `json:"pathBytes"`
				} `json:"writes"`
			}
			if err := json.Unmarshal([]byte(res.raw), &raw); err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, w := range raw.Writes {
				p := w.Path
				if w.PathBytes != nil {
					p = string(w.PathBytes)
				}
				got[p] = true
			}
			for _, want := range []string{"new\nline", "...", "..x", "./~", "./$TMPDIR", "back\\slash", "q\"uote", "\xff\xfe", "\uFFFD", "d\n/..\n/x"} {
				if !got[want] {
					t.Errorf("%q is not in the record: %v", want, got)
				}
			}
			if len(raw.Writes) != 10 {
				t.Errorf("%d writes, want 10: %v", len(raw.Writes), got)
			}
		})
	}
}

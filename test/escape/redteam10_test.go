package escape

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestHostCountsOfAIOQueuesPtysAndPortsAreLeft: what the tenth round
// tried of the host's counts a hook could take while it runs
// (scripts/redteam10.py), for every caller and for a --root-sandbox run:
// a native AIO context (io_setup), whose events count against one limit
// for the whole host (fs.aio-max-nr); a POSIX message queue, whose bytes
// count against the host uid's RLIMIT_MSGQUEUE; a pty through /dev/ptmx
// or /dev/pts/ptmx, which counts against kernel.pty.max, one count for
// every devpts instance of the host; and the port of a listener on the
// host's 127.0.0.1, which in the sandbox's own network namespace is free
// to bind and leads to nothing. Each is stopped (io_setup with ENOSYS,
// the queue and the ptys with EACCES), and the run ends as the script
// did.
func TestHostCountsOfAIOQueuesPtysAndPortsAreLeft(t *testing.T) {
	requireBwrap(t)
	const want = 6
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			args := []string{"--env", fmt.Sprintf("PORT=%d", port), "--", "python3", "redteam10.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			checkScriptRan(t, res, want)
		})
	}
}

// aioHoldPy makes native AIO contexts of 4,096 events, up to 16 (the
// whole of the kernel's default fs.aio-max-nr), until the kernel refuses
// one, says how many events it holds and what the last call answered, and
// holds them until its stdin ends.
const aioHoldPy = `import ctypes, errno, platform, sys
l = ctypes.CDLL(None, use_errno=True)
io_setup = {"x86_64": 206, "aarch64": 0}[platform.machine()]
ctxs, held, why = [], 0, "none refused"
while held < 16 * 4096:
    ctx = ctypes.c_ulong(0)
    ctypes.set_errno(0)
    if l.syscall(io_setup, 4096, ctypes.byref(ctx)) != 0:
        why = errno.errorcode.get(ctypes.get_errno(), "?")
        break
    ctxs.append(ctx)
    held += 4096
print("held", held, why, flush=True)
sys.stdin.read()
print("released", flush=True)
`

// ioSetup makes a native AIO context of n events for the test's own
// process and destroys it, and returns what io_setup answered.
func ioSetup(n uintptr) error {
	var ctx uint64
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, n, uintptr(unsafe.Pointer(&ctx)), 0); e != 0 {
		return e
	}
	unix.Syscall(unix.SYS_IO_DESTROY, uintptr(ctx), 0, 0)
	return nil
}

// TestHostAIOContextsAreLeft: the kernel counts the events of every
// native AIO context against one limit for the whole host,
// fs.aio-max-nr (65,536 by default), whatever its maker's uid and
// namespaces, and refuses a context past it (EAGAIN) to every process,
// root's too. A hook held all of it here with sixteen io_setup calls of
// 4,096 events, and while it did, the host's own io_setup failed with
// EAGAIN (it would have until the run ended). For every caller and for a
// --root-sandbox run,
// the hook's first io_setup fails with ENOSYS and it holds none, and the
// host's own process makes a context of 4,096 events while the hook holds
// what it could.
func TestHostAIOContextsAreLeft(t *testing.T) {
	requireBwrap(t)
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("the hook's script knows io_setup's number on x86_64 and aarch64 alone, not on %s", runtime.GOARCH)
	}
	if err := ioSetup(4096); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and this host makes no AIO context before the run: %v", err)
		}
		t.Skipf("this host makes no AIO context of its own (%v): nothing to compare", err)
	}
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "aiohold.py"), []byte(aioHoldPy), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--", "python3", "aiohold.py"}
			args = c.withArgs(args)
			h := startHolding(t, r, dir, args...)
			if h.first != "held 0 ENOSYS\n" {
				t.Errorf("the hook's AIO contexts: %q, want none held, the first io_setup ENOSYS", strings.TrimSpace(h.first))
			}
			// While the hook holds what it could, the host makes a
			// context of its own (as the caller).
			probe := exec.Command("/usr/bin/python3", "-c", aioProbePy)
			if r.cred != nil {
				probe.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
			}
			if out, err := probe.CombinedOutput(); err != nil {
				t.Errorf("while the hook ran, the host could make no AIO context of 4,096 events: %v %s", err, out)
			}
			h.finish(t)
		})
	}
}

// aioProbePy makes one native AIO context of 4,096 events and destroys
// it, failing with the error io_setup gave.
const aioProbePy = `import ctypes, os, platform, sys
l = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": (206, 207), "aarch64": (0, 1)}[platform.machine()]
ctx = ctypes.c_ulong(0)
if l.syscall(nr[0], 4096, ctypes.byref(ctx)) != 0:
    sys.exit(os.strerror(ctypes.get_errno()))
l.syscall(nr[1], ctx)
`

// evictPy asks the kernel to drop the page cache of the file its first
// argument names, which it opens for reading, the way its second names:
// posix_fadvise's DONTNEED over the whole file ("fadvise") or
// MADV_PAGEOUT over a mapping of it ("pageout"); it prints what the call
// answered.
const evictPy = `import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    if sys.argv[2] == "fadvise":
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    else:
        m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        m.read()  # maps every page: MADV_PAGEOUT looks at mapped ones alone
        m.madvise(21)  # MADV_PAGEOUT
    print("advised 0")
except OSError as e:
    print("advised", e.errno)
`

// resident says how many of the file's pages are in the host's page
// cache, through a mapping of it and mincore, and how many it has.
func resident(t *testing.T, path string) (in, all int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	for _, v := range vec {
		in += int(v & 1)
	}
	return in, len(vec)
}

// cachedHostFile writes a file of 16 pages outside the masks, under
// /var/lib, for r's sandbox to reach: the sandbox's uid's where r names
// the tree's owner, written back to the disk so that its pages are
// clean (a dirty page is not dropped), and every page of it in the host's
// cache, as it was just written.
func cachedHostFile(t *testing.T, r runner) string {
	t.Helper()
	target := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-cache-"), "file")
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Repeat([]byte("host page\n"), 6554)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r.owner != nil {
		if err := os.Chown(target, int(r.owner.Uid), int(r.owner.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	if in, all := resident(t, target); in != all {
		t.Fatalf("the host caches %d of the file's %d pages before the run", in, all)
	}
	return target
}

// TestHostPageCacheIsLeft: the page cache is the host's, one for each
// file whatever mount it is read through, and the command opens much of
// the host for reading through the read-only root. A hook's
// posix_fadvise(POSIX_FADV_DONTNEED) of a host file it read dropped all
// 17 of the file's cached pages from the host's memory, and MADV_PAGEOUT
// over a mapping did so where its uid owns the file or may write it; the
// host's programs and libraries are files it reads, which every host
// process that reads them next would wait on the disk for. The file
// here, outside every mask, belongs to the
// sandbox's host uid (nobody's, or root's for --root-sandbox) so that
// MADV_PAGEOUT's ownership test passes too. For every caller and for a
// --root-sandbox run, each call answers 0 and the host's page cache
// still holds every page of the file once the run is over.
func TestHostPageCacheIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the file is made for the sandbox's uid outside the masks, under /var/lib")
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		for _, how := range []string{"fadvise", "pageout"} {
			t.Run(name+"/"+how, func(t *testing.T) {
				dir := workTree(t)
				if err := os.WriteFile(filepath.Join(dir, "evict.py"), []byte(evictPy), 0o644); err != nil {
					t.Fatal(err)
				}
				target := cachedHostFile(t, r)
				args := []string{"--", "python3", "evict.py", target, how}
				args = c.withArgs(args)
				res := vigiles(t, r, dir, nil, args...)
				if !strings.Contains(res.Stdout, "advised 0\n") || res.ExitCode != 0 {
					t.Errorf("the hook's advice answered otherwise than 0: exit %d\nstdout: %s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
				}
				if in, all := resident(t, target); in != all {
					t.Errorf("after the run the host caches %d of the file's %d pages, all before", in, all)
				}
			})
		}
	}
}

// writeBackPy asks the kernel, every way it knows, to write back the
// host file its argument names, which it opens for reading: syncfs,
// fsync, fdatasync, sync_file_range (write and wait), msync over a
// shared mapping of it, and sync of every file system; it prints what
// each answered.
const writeBackPy = `import ctypes, mmap, os, sys
l = ctypes.CDLL(None, use_errno=True)
l.mmap.restype = ctypes.c_void_p
l.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
got = []
def call(name, r):
    got.append(f"{name}={r if r == 0 else ctypes.get_errno()}")
call("syncfs", l.syncfs(fd))
call("fsync", l.fsync(fd))
call("fdatasync", l.fdatasync(fd))
call("sync_file_range", l.sync_file_range(fd, ctypes.c_long(0), ctypes.c_long(0), 7))
addr = l.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
call("msync", l.msync(ctypes.c_void_p(addr), ctypes.c_size_t(size), 4))  # MS_SYNC
l.sync()
print("wrote back", *got)
`

// dirtyPages says how many of the file's pages the host's page cache
// holds and how many of those are dirty, by cachestat (Linux 6.5).
func dirtyPages(path string) (cached, dirty uint64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var rng [2]uint64  // struct cachestat_range: off, len (0: to the end)
	var stat [5]uint64 // struct cachestat: nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted
	if _, _, e := unix.Syscall6(451, f.Fd(), uintptr(unsafe.Pointer(&rng)), uintptr(unsafe.Pointer(&stat)), 0, 0, 0); e != 0 {
		return 0, 0, e
	}
	return stat[0], stat[1], nil
}

// dirtyHostFile writes a file of 257 pages outside the masks, under
// /var/lib, and leaves it to the kernel's flusher: it returns its path and
// how many of its pages are dirty (some), which a test compares with the
// count after a run. It fails under CI, and skips elsewhere, where the
// kernel tells no file's dirty pages.
func dirtyHostFile(t *testing.T) (string, uint64) {
	t.Helper()
	target := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-dirty-"), "file")
	if err := os.WriteFile(target, bytes.Repeat([]byte("host page\n"), 104858), 0o644); err != nil {
		t.Fatal(err)
	}
	_, dirty, err := dirtyPages(target)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and this kernel tells no file's dirty pages (cachestat, Linux 6.5): %v", err)
		}
		t.Skipf("this kernel tells no file's dirty pages (cachestat, Linux 6.5): %v", err)
	}
	if dirty == 0 {
		t.Fatalf("the host's file has no dirty page before the run: nothing to compare")
	}
	return target, dirty
}

// TestHostWriteBackIsLeft: everything the command may write is in tmpfs,
// where writing back to a disk has nothing to do, and what sync, syncfs,
// fsync, fdatasync, sync_file_range and msync would write back is the
// host's: a hook's fsync, through a descriptor opened for reading alone,
// of a host file a host process had written and left to the kernel's
// flusher wrote back all 256 of its dirty pages, and a loop of such
// calls puts the host's disk to work for every process of the host. For
// every caller and for a --root-sandbox run, each call answers 0, and the
// host's file, outside every mask, is as dirty after the run as before
// (the flusher writes back a page dirty for 30 s by default, far longer
// than the run).
func TestHostWriteBackIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the file is made outside the masks, under /var/lib")
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "writeback.py"), []byte(writeBackPy), 0o644); err != nil {
				t.Fatal(err)
			}
			target, before := dirtyHostFile(t)
			args := []string{"--", "python3", "writeback.py", target}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			if !strings.Contains(res.Stdout, "wrote back syncfs=0 fsync=0 fdatasync=0 sync_file_range=0 msync=0\n") || res.ExitCode != 0 {
				t.Errorf("the hook's write-backs answered otherwise than 0: exit %d\nstdout: %s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
			}
			if _, after, err := dirtyPages(target); err != nil || after != before {
				t.Errorf("after the run the host's file has %d dirty pages (%v), %d before", after, err, before)
			}
		})
	}
}

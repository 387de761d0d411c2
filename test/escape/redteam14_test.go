package escape

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// coldPages is the size, in pages, of the host file whose page cache
// TestRedteam14HostPageCacheStaysActive watches.
const coldPages = 64

// TestRedteam14HostPageCacheStaysActive: the fourteenth round's
// madvise(MADV_COLD) over the hook's mapping of a host file it reads
// through the read-only root (scripts/redteam14cold.py), a file root owns
// in a directory the test makes under /var/lib, for every caller and a
// --root-sandbox run. The kernel moves to the inactive list, the first it
// reclaims when memory runs short, the pages of the mapping that no other
// process maps, and asks neither that the caller own the file nor that it
// may write it (as it asks for MADV_PAGEOUT): a hook of an unprivileged
// caller (nobody, which may only read the file) moved all 64 pages the
// host had kept active to the inactive list, where they stayed after the
// run. The call now answers 0 and leaves them where they are: each is
// still active after the run, as /proc/kpageflags tells the host.
func TestRedteam14HostPageCacheStaysActive(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test reads the host's page flags (/proc/kpageflags) and keeps its file outside the masks, under /var/lib")
	if b, err := os.ReadFile("/sys/kernel/mm/lru_gen/enabled"); err == nil && strings.TrimSpace(string(b)) != "0x0000" {
		lacking(t, "a page cache of active and inactive lists to watch (the multi-generational LRU is on: /sys/kernel/mm/lru_gen/enabled "+strings.TrimSpace(string(b))+")")
	}
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			target := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-cold-"), "file")
			data := make([]byte, coldPages*os.Getpagesize())
			rand.Read(data)
			if err := os.WriteFile(target, data, 0o644); err != nil {
				t.Fatal(err)
			}
			before := activate(t, target)
			res := vigiles(t, r, dir, nil, c.withArgs([]string{"--env", "HOSTFILE=" + target, "--", "python3", "redteam14cold.py"})...)
			checkScriptRan(t, res, 1)
			if after := activePages(t, target); after < before {
				t.Errorf("after the run %d of the host file's %d pages are active, %d before: the hook's MADV_COLD moved the host's page cache to the inactive list", after, coldPages, before)
			}
		})
	}
}

// activate reads the file at p until the kernel keeps all its pages on the
// active list (a page read twice is moved there), as a host process that
// reads it often has them, and returns how many are; the test fails where
// fewer than half are after ten reads, since it would watch too little.
func activate(t *testing.T, p string) int {
	t.Helper()
	b := make([]byte, coldPages*os.Getpagesize())
	n := 0
	for range 10 {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.ReadAt(b, 0)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n = activePages(t, p); n == coldPages {
			return n
		}
	}
	if n < coldPages/2 {
		t.Fatalf("the host file read ten times has %d of its %d pages active: nothing to watch", n, coldPages)
	}
	return n
}

// pageSink keeps the reads of activePages, which fault each page of its
// mapping in, from being left out as unused.
var pageSink byte

// activePages counts the pages of the file at p, as cached now, that the
// kernel keeps on the active list: it maps the file for as long as it
// takes to read each page's frame in /proc/self/pagemap, unmaps it (so
// that the hook's mapping is the only one the kernel sees), and reads each
// frame's flags in /proc/kpageflags (KPF_ACTIVE). Both need root.
func activePages(t *testing.T, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size := coldPages * os.Getpagesize()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < size; i += os.Getpagesize() {
		pageSink += m[i]
	}
	base := uint64(uintptr(unsafe.Pointer(&m[0]))) / uint64(os.Getpagesize())
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		unix.Munmap(m)
		t.Fatal(err)
	}
	entries := make([]byte, 8*coldPages)
	_, err = pagemap.ReadAt(entries, int64(base*8))
	pagemap.Close()
	unix.Munmap(m)
	if err != nil {
		t.Fatal(err)
	}
	flags, err := os.Open("/proc/kpageflags")
	if err != nil {
		lacking(t, fmt.Sprintf("/proc/kpageflags (CONFIG_PROC_PAGE_MONITOR): %v", err))
	}
	defer flags.Close()
	const present, pfnMask, kpfActive = 1 << 63, 1<<55 - 1, 1 << 6
	active := 0
	for i := range coldPages {
		e := binary.LittleEndian.Uint64(entries[8*i:])
		if e&present == 0 || e&pfnMask == 0 {
			t.Fatalf("page %d of the host file has no frame in /proc/self/pagemap (%#x): this test must read it as root", i, e)
		}
		b := make([]byte, 8)
		if _, err := flags.ReadAt(b, int64(8*(e&pfnMask))); err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint64(b)&kpfActive != 0 {
			active++
		}
	}
	return active
}

// TestRedteam14SamePageMergingIsRefused: kernel same-page merging (KSM)
// merges the identical pages of every process that asked for it, the
// host's among them (virtual machines, systemd's units of MemoryKSM=yes),
// into one page, and a write to a merged page takes longer: it tells a
// process that another holds a page of the same bytes. The fourteenth
// round's hook (scripts/redteam14ksm.py) asked for it for its own memory
// with madvise(MADV_MERGEABLE) and prctl(PR_SET_MEMORY_MERGE), and both
// answered 0, its /proc/self/ksm_stat "ksm_merge_any: yes"; on this
// test's host KSM is stopped (/sys/kernel/mm/ksm/run 0) and nothing was
// merged, but a host may start it while a run goes on, and the test may
// not start it itself. Each call, and MADV_UNMERGEABLE and
// PR_GET_MEMORY_MERGE, now fails with EINVAL, as on a kernel built without
// KSM, and nothing of the hook's memory may be merged, for every caller
// and a --root-sandbox run.
func TestRedteam14SamePageMergingIsRefused(t *testing.T) {
	requireBwrap(t)
	if b, err := os.ReadFile("/sys/kernel/mm/ksm/run"); err == nil {
		t.Logf("this host's KSM: /sys/kernel/mm/ksm/run %s (1 merges, 0 does not): the hook's answers show the filter either way", strings.TrimSpace(string(b)))
	} else {
		t.Logf("this host's kernel has no KSM (%v): its answers are EINVAL either way", err)
	}
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			res := vigiles(t, r, workTree(t), nil, c.withArgs([]string{"--", "python3", "redteam14ksm.py"})...)
			checkScriptRan(t, res, 7)
		})
	}
}

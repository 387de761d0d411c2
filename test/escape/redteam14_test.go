package escape

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestRedteam14SchedulingAndPlacementAreTheHooksOwn: what else the
// fourteenth round tried (scripts/redteam14.py) on the scheduler, the I/O
// priorities and the placement of memory, with a host process the test
// starts outside the sandbox: of the sandbox's host uid where the test
// knows it (nobody's, and root's for a --root-sandbox run), and root's
// for a root caller's own run, whose unused uid owns nothing on the host.
// None of it reaches the host's process, whose nice value, policy, I/O
// priority and slice are as they were after the run, and the rest is
// pinned as the kernel answers:
//
//   - ioprio_set of the best-effort class's highest level (0) for the
//     hook itself answers 0, as it does for any user: the block layer's
//     schedulers weigh the class, and BFQ alone the level, against the
//     host's processes of the same class (this host's disks have none or
//     mq-deadline, and no BFQ). The realtime class needs CAP_SYS_ADMIN or
//     CAP_SYS_NICE (EPERM).
//   - ioprio_set and setpriority by process group and by user reach only
//     the processes of the sandbox's pid namespace: the kernel skips a
//     process without a pid there, and the host's process of the same uid
//     kept its priorities (EPERM, or 0, by what the sandbox's processes
//     hold). A host uid not root is no uid of the sandbox's user namespace,
//     and the host's pid no pid of its pid namespace (ESRCH).
//   - sched_setattr: a slice of 100 ms for the hook's own fair task (Linux
//     6.12) answers 0; its share of the CPU is still its nice value's.
//     Utilisation clamps are EOPNOTSUPP on a kernel without
//     CONFIG_UCLAMP_TASK (as here), and elsewhere the task's own request
//     within the host's bounds; SCHED_DEADLINE and SCHED_FIFO are EPERM.
//   - membarrier's global commands answer 0: they interrupt only the CPUs
//     that run a process registered for them, and wait for the kernel's
//     grace period, the caller's own wait.
//   - set_mempolicy and madvise(MADV_HUGEPAGE, MADV_COLLAPSE) of the
//     hook's own memory answer 0; moving pages other processes map needs
//     CAP_SYS_NICE (mbind's MPOL_MF_MOVE_ALL: EPERM); migrate_pages and
//     move_pages of the host's pid are ESRCH.
//   - cachestat of a host file the hook neither owns nor may write is
//     EPERM, and mincore says each of its pages is resident, cached or
//     not: neither tells what the host has cached of a file not the
//     hook's uid's. Of a file its uid owns, both answer (see the honest
//     limits in docs/security.md).
//   - madvise(MADV_WILLNEED, MADV_POPULATE_READ, MADV_HUGEPAGE) of a
//     host file's mapping answers 0: the first two read it into the host's
//     page cache, as a read does.
func TestRedteam14SchedulingAndPlacementAreTheHooksOwn(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test starts its host process as the sandbox's uid and keeps its files outside the masks, under /var/lib")
	for _, c := range callers(t) {
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			files := openTempDir(t, "/var/lib", "vigiles-escape-placement-")
			own, root := filepath.Join(files, "own"), filepath.Join(files, "root")
			for _, p := range []string{own, root} {
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				// 16 pages the host never reads: none is cached.
				if err := os.Truncate(p, int64(16*os.Getpagesize())); err != nil {
					t.Fatal(err)
				}
			}
			// The host process: the sandbox's uid's where the test knows
			// it, root's otherwise.
			cred := &syscall.Credential{}
			if r.owner != nil {
				cred = r.owner
				if err := os.Chown(own, int(r.owner.Uid), int(r.owner.Gid)); err != nil {
					t.Fatal(err)
				}
			}
			host := exec.Command("sleep", "1000")
			host.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { host.Process.Kill(); host.Wait() })
			before := schedOf(t, host.Process.Pid)
			want := 31
			args := []string{"--env", "OWNFILE=" + own, "--env", "ROOTFILE=" + root, "--env", "HOSTPID=" + strconv.Itoa(host.Process.Pid)}
			if r.owner != nil || rootSandbox {
				args = append(args, "--env", "OWNED=1")
			}
			if rootSandbox {
				args = append(args, "--env", "ROOTOWNED=1")
			}
			if r.owner != nil {
				args = append(args, "--env", "HOSTUID="+strconv.Itoa(int(r.owner.Uid)))
				want += 2
			}
			res := vigiles(t, r, dir, nil, c.withArgs(append(args, "--", "python3", "redteam14.py"))...)
			checkScriptRan(t, res, want)
			if after := schedOf(t, host.Process.Pid); after != before {
				t.Errorf("after the run the host's process of uid %d has %s, %s before", cred.Uid, after, before)
			}
		})
	}
}

// schedOf reads what of the host's process pid the hook tried to change:
// its nice value and policy (/proc/PID/stat), its I/O priority
// (ioprio_get) and its slice (/proc/PID/sched's se.slice, where the kernel
// has one).
func schedOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the name's ")": the state is the third of stat(5).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 39 {
		t.Fatalf("/proc/%d/stat has %d fields after the name", pid, len(f))
	}
	prio, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, 1, uintptr(pid), 0) // IOPRIO_WHO_PROCESS
	if e != 0 {
		t.Fatalf("ioprio_get(%d): %v", pid, e)
	}
	slice := "none"
	if s, err := os.ReadFile(fmt.Sprintf("/proc/%d/sched", pid)); err == nil {
		for _, l := range strings.Split(string(s), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "se.slice" {
				slice = strings.TrimSpace(v)
			}
		}
	}
	return fmt.Sprintf("nice %s, policy %s, I/O priority %#x, slice %s", f[16], f[38], prio, slice)
}

// mergeAnyWrapper sets same-page merging on for all of its process's
// memory (prctl PR_SET_MEMORY_MERGE, 1), which a process keeps across
// execve and hands its children, and execs its arguments: vigiles, as it
// would run under a service manager that turned merging on for its
// processes (systemd's MemoryKSM=yes). It exits 3 where the kernel has no
// such prctl.
const mergeAnyWrapper = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(67, 1, 0, 0, 0) != 0:
    print("PR_SET_MEMORY_MERGE:", os.strerror(ctypes.get_errno()), file=sys.stderr)
    sys.exit(3)
os.execv(sys.argv[1], sys.argv[1:])
`

// TestRedteam14MergingCarriedInIsCleared: a hook cannot ask for
// same-page merging (TestRedteam14SamePageMergingIsRefused), nor may it
// get it from whoever started vigiles: the kernel keeps a process's
// merge-any across execve and fork, so a vigiles started with it on (a
// service manager's unit of MemoryKSM=yes) handed it through bubblewrap,
// the init and the reaper to the hook, whose /proc/self/ksm_stat read
// "ksm_merge_any: yes". The reaper turns it off before the hook starts.
func TestRedteam14MergingCarriedInIsCleared(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test starts vigiles itself, as root, under a process that set merging on")
	if _, err := os.Stat("/proc/self/ksm_stat"); err != nil {
		lacking(t, fmt.Sprintf("a kernel with same-page merging and /proc/self/ksm_stat (Linux 6.1 with KSM: %v)", err))
	}
	dir := workTree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", mergeAnyWrapper, vigilesBin, "run", "--json", "--workdir", dir, "--",
		"sh", "-c", "grep -h ksm_merge_any /proc/self/ksm_stat; grep -h ksm_merge_any /proc/1/ksm_stat 2>&1")
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		lacking(t, fmt.Sprintf("prctl(PR_SET_MEMORY_MERGE) (Linux 6.4 with KSM): %s", ee.Stderr))
	}
	var res result
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		t.Fatalf("vigiles under merge-any: %v; no JSON result (%v): %s", err, jerr, out)
	}
	if res.Tier != "confined" || res.ExitCode != 0 {
		t.Fatalf("tier %s exit %d (refusal %q, error %q, stderr %q)", res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "ksm_merge_any: no") || strings.Contains(res.Stdout, "ksm_merge_any: yes") {
		t.Errorf("the hook's same-page merging, with vigiles started under merge-any: %q; want ksm_merge_any: no", res.Stdout)
	}
}

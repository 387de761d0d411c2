package escape

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRedteam11NewerCalls: what the eleventh round tried of the kernel's
// newer calls from the command itself (scripts/redteam11calls.py), for
// every caller and for a --root-sandbox run. process_madvise with
// MADV_PAGEOUT over the command's own mapping of a host file its uid
// owns, which the kernel allows a process on itself without
// CAP_SYS_NICE: it dropped every cached page of the file from the host's
// memory, around the madvise rule that leaves MADV_PAGEOUT undone, and
// now fails with EPERM, through a pidfd of itself and through
// PIDFD_SELF, the host still caching every page after the run. clone3
// into a cgroup of its choosing (CLONE_INTO_CGROUP) is ENOSYS, as every
// clone3; listmount reaches no mount namespace but its own (ENOENT for
// every other id); setxattrat of overlayfs's trusted opaque mark is
// EPERM, as setxattr is; and Landlock the command applies to itself
// confines it alone: the file it wrote before is in the record, the one
// after fails with EACCES, and the run ends as the script did.
func TestRedteam11NewerCalls(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the host file is made for the sandbox's uid outside the masks, under /var/lib")
	const want = 6
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.Mkdir(filepath.Join(dir, "dd"), 0o755); err != nil {
				t.Fatal(err)
			}
			target := cachedHostFile(t, r)
			args := []string{"--env", "HOSTFILE=" + target, "--", "python3", "redteam11calls.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			checkScriptRan(t, res, want)
			got := res.writeLines()
			if strings.Join(got, ", ") != "create before" {
				t.Errorf("the record holds %q, want only the file written before Landlock created\n%s", got, res.raw)
			}
			if in, all := resident(t, target); in != all {
				t.Errorf("after the run the host caches %d of the file's %d pages, all before", in, all)
			}
		})
	}
}

// TestRedteam11OverlayInternalsAreRecordedExactly: what the eleventh
// round tried of overlayfs's internals and the kernel's newer file calls
// on the work tree (scripts/redteam11.py), for every caller, a
// --root-sandbox run, and both ways of recording writes: two files
// swapped by renameat2(RENAME_EXCHANGE); a rename that leaves a whiteout
// (RENAME_WHITEOUT: EINVAL on the overlay, a character device 0,0 in the
// copy); an O_TMPFILE given a name with linkat; copy_file_range and
// FICLONE over a file (EXDEV on the overlay), and a hole punched in a
// file of at most 1 MiB and in a larger one, each with its size and time
// put back; a whiteout made by hand where a file was and under a new
// name (EPERM on the overlay); a directory moved away, a symlink out of
// the tree in its place, and the directory moved back. The script says,
// for each entry of the tree's top, what it was and is; the record names
// exactly those that changed, each with the operation that says how.
func TestRedteam11OverlayInternalsAreRecordedExactly(t *testing.T) {
	requireBwrap(t)
	for _, c := range callers(t) {
		r := c.runner
		for _, method := range []string{"overlay", "copy"} {
			t.Run(c.name()+"/"+method, func(t *testing.T) {
				dir := workTree(t)
				files := map[string][]byte{
					"a": []byte("aaaa\n"), "b": []byte("bbbb\n"), "c": []byte("cccc\n"),
					"e1": []byte("e1\n"), "e2": []byte("e2\n"), "wo": []byte("wo\n"), "x": []byte("x\n"),
					"mid": bytes.Repeat([]byte("m"), 64<<10),
					"big": bytes.Repeat([]byte("B"), 2<<20),
				}
				for n, b := range files {
					if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Mkdir(filepath.Join(dir, "dd"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "dd", "q"), []byte("q\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				args := []string{"--writes", method, "--", "python3", "redteam11.py"}
				args = c.withArgs(args)
				res := vigiles(t, r, dir, nil, args...)
				if !strings.Contains(res.Stdout, "\ndone\n") || res.ExitCode != 0 || res.Error != "" {
					t.Fatalf("the run did not end as the script did: exit %d, error %q\nstdout: %s\nstderr: %s", res.ExitCode, res.Error, res.Stdout, res.Stderr)
				}
				var want []string
				for _, line := range strings.Split(res.Stdout, "\n") {
					f := strings.Fields(line)
					if len(f) != 5 || f[0] != "entry" || f[4] == "same" {
						continue
					}
					switch was, now := f[2], f[3]; {
					case was == "-":
						want = append(want, "create "+f[1])
					case now == "-":
						want = append(want, "delete "+f[1])
					default:
						want = append(want, "modify "+f[1])
					}
				}
				got := res.writeLines()
				sort.Strings(want)
				sort.Strings(got)
				if strings.Join(got, ", ") != strings.Join(want, ", ") {
					t.Errorf("the record holds\n  %s\nwhere the tree changed by\n  %s\nstdout: %s", strings.Join(got, ", "), strings.Join(want, ", "), res.Stdout)
				}
				for _, must := range []string{"big", "mid", "e1", "e2", "tmplinked"} {
					if !strings.Contains(", "+strings.Join(want, ", ")+",", " "+must+",") {
						t.Errorf("the script saw no change to %s\nstdout: %s", must, res.Stdout)
					}
				}
			})
		}
	}
}

// TestRedteam11HugetlbPoolIsLeft: the kernel's hugetlb pool
// (vm.nr_hugepages) is one for the whole host, set aside for its
// databases and packet processors, and nothing bounds what an
// unprivileged process takes of it through an anonymous mapping: a
// hook's mmap(MAP_HUGETLB) took all 8 pages the test set aside, and
// while it held them the host's mmap(MAP_HUGETLB) failed with ENOMEM.
// For every caller and for a --root-sandbox run, mmap(MAP_HUGETLB),
// memfd_create(MFD_HUGETLB) and shmget(SHM_HUGETLB)
// (scripts/redteam11hugetlb.py) fail with ENOMEM, as on a host whose
// pool is empty, and the pool has as many free pages while the hook runs
// as before it.
func TestRedteam11HugetlbPoolIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test sets huge pages aside in the host's hugetlb pool (vm.nr_hugepages)")
	const pool = "/proc/sys/vm/nr_hugepages"
	b, err := os.ReadFile(pool)
	if err != nil {
		lacking(t, "a hugetlb pool to set pages aside in: "+err.Error())
	}
	had, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(pool, []byte(strconv.Itoa(had)), 0o644); err != nil {
			t.Errorf("giving the pool back its %d pages: %v", had, err)
		}
	})
	if err := os.WriteFile(pool, []byte(strconv.Itoa(had+8)), 0o644); err != nil {
		t.Fatalf("setting 8 huge pages aside: %v", err)
	}
	free := hugePagesFree(t)
	if free < 8 {
		lacking(t, fmt.Sprintf("8 free huge pages in the pool (the kernel set aside only %d)", free))
	}
	// The host's own mapping takes one, so that an ENOMEM under the
	// filter is not the pool's.
	m, err := unix.Mmap(-1, 0, 2<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_HUGETLB)
	if err != nil {
		t.Fatalf("the host's mmap(MAP_HUGETLB) with %d pages free: %v", free, err)
	}
	m[0] = 1
	unix.Munmap(m)
	const want = 3
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			args := []string{"--", "python3", "redteam11hugetlb.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			checkScriptRan(t, res, want)
			if !strings.Contains(res.Stdout, fmt.Sprintf("\nfree %d\n", free)) {
				t.Errorf("while the hook held what it got, the pool's free pages were not the %d before it\nstdout: %s", free, res.Stdout)
			}
		})
	}
}

// hugePagesFree is the hugetlb pool's count of free pages, from
// /proc/meminfo.
func hugePagesFree(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "HugePages_Free:" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("/proc/meminfo has no HugePages_Free line")
	return 0
}

// TestRedteam11WriteBackAroundFsyncIsLeft: the filter leaves fsync and
// its kin undone, since all the command writes is in tmpfs and what they
// would write back is the host's; but a read with O_DIRECT writes back
// the dirty pages of what it reads first, and an extent map asked for
// with FIEMAP_FLAG_SYNC the whole file's, each through a descriptor
// opened for reading alone: a hook's O_DIRECT read of a host file a host
// process had written wrote back all 257 of its dirty pages, and its
// FS_IOC_FIEMAP did the same. For every caller and for a --root-sandbox
// run (scripts/redteam11writeback.py), open with O_DIRECT and
// fcntl(F_SETFL) setting it fail with EINVAL, openat2 with ENOSYS and
// FS_IOC_FIEMAP with EOPNOTSUPP, and the host's file, outside every mask,
// is as dirty after the run as before (the flusher writes back a page
// dirty for 30 s by default, far longer than the run).
func TestRedteam11WriteBackAroundFsyncIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the file is made outside the masks, under /var/lib")
	const want = 4
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			target, before := dirtyHostFile(t)
			args := []string{"--env", "HOSTFILE=" + target, "--", "python3", "redteam11writeback.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			checkScriptRan(t, res, want)
			if _, after, err := dirtyPages(target); err != nil || after != before {
				t.Errorf("after the run the host's file has %d dirty pages (%v), %d before", after, err, before)
			}
		})
	}
}

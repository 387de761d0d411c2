package escape

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.Mkdir(filepath.Join(dir, "dd"), 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-cache-"), "file")
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			// Written back to the disk, so that its pages are clean: a
			// dirty page is not dropped.
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
			args := []string{"--env", "HOSTFILE=" + target, "--", "python3", "redteam11calls.py"}
			if rootSandbox {
				args = append([]string{"--root-sandbox"}, args...)
			}
			res := vigiles(t, r, dir, nil, args...)
			checkAttempts(t, res, want)
			if !strings.Contains(res.Stdout, "\nran 6\n") || res.ExitCode != 0 || res.Error != "" {
				t.Errorf("the run did not end as the script did: exit %d, error %q\nstdout: %s\nstderr: %s", res.ExitCode, res.Error, res.Stdout, res.Stderr)
			}
			var got []string
			for _, w := range res.Writes {
				got = append(got, w.Op+" "+w.Path)
			}
			if strings.Join(got, ", ") != "create before" {
				t.Errorf("the record holds %q, want only the file written before Landlock created\n%s", got, res.raw)
			}
			if in, all := resident(t, target); in != all {
				t.Errorf("after the run the host caches %d of the file's %d pages, all before", in, all)
			}
		})
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHostGlobIsFilepathGlob: hostGlob finds what filepath.Glob finds, in
// its order, for the patterns of systemCredentialPaths and
// unitEnvironmentPaths on this host and for a tree of the shapes they meet:
// a link to a directory, a link to nothing, a dot file, a file where a
// directory was asked for, a directory it may not list, a wildcard in a
// directory's name, a name with a byte that is not UTF-8.
func TestHostGlobIsFilepathGlob(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"etc/profile.d/a.sh", "etc/profile.d/.b.sh", "etc/profile.d/c.txt", "etc/profile.d/d\xff.sh",
		"sys/x.service.d/p.conf", "sys/y.service.d/q.conf", "sys/y.service.d/r.txt", "sys/z.service",
		"usr/share/gradle-8.1/gradle.properties", "usr/share/gradle/gradle.properties", "usr/share/gradlex/other",
		"shut/d/a.conf", "plain/f.service.d"} {
		p := filepath.Join(d, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"sys/l.service.d": "y.service.d", "sys/gone.service": "nowhere", "etc/profile.d/e.sh": "a.sh"} {
		if err := os.Symlink(to, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(d, "shut/d"), 0o311); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(d, "shut/d"), 0o755) })
	patterns := []string{"etc/profile.d/*.sh", "etc/profile.d/*", "sys/*.service.d/*.conf", "sys/*.service", "sys/*",
		"usr/share/gradle*/gradle.properties", "usr/share/gradle-*/gradle.properties", "shut/*/a.conf", "shut/d/*",
		"plain/*.service.d/*", "missing/*", "missing/x/*.conf", "etc/profile.d/a.sh", "etc/profile.d/none.sh", "sys/gone.service"}
	for i, p := range patterns {
		patterns[i] = filepath.Join(d, p)
	}
	patterns = append(patterns, systemCredentialPaths...)
	patterns = append(patterns, unitEnvironmentPaths...)
	g := newHostGlob()
	for _, p := range patterns {
		want, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.glob(p); !slices.Equal(got, want) {
			t.Errorf("glob(%q) = %q, filepath.Glob: %q", p, got, want)
		}
	}
}

// TestUnitEnvironmentValuesSeeAChange: what unitEnvironmentValues keeps of
// a unit is taken again only while the file its path leads to is the
// same: a unit just written is not kept; one kept and then rewritten, at
// the same size, to name another file is read anew, and so is its link
// turned to another unit.
func TestUnitEnvironmentValuesSeeAChange(t *testing.T) {
	d := t.TempDir()
	u, other, link := filepath.Join(d, "a.service"), filepath.Join(d, "b.service"), filepath.Join(d, "l.service")
	write := func(p, v string) {
		t.Helper()
		if err := os.WriteFile(p, []byte("[Service]\nEnvironmentFile=-"+v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(u, "/etc/default/one")
	write(other, "/etc/default/two")
	if err := os.Symlink("a.service", link); err != nil {
		t.Fatal(err)
	}
	if got := unitEnvironmentValues(u, coarseNow()); !slices.Equal(got, []string{"/etc/default/one"}) {
		t.Fatalf("values = %q", got)
	}
	if _, kept := unitChecks.Load(u); kept {
		t.Fatal("a unit changed within racyMargin was kept")
	}
	var st unix.Stat_t
	if err := unix.Stat(u, &st); err != nil {
		t.Fatal(err)
	}
	future := st.Ctim.Nano() + 2*racyMargin.Nanoseconds()
	for _, p := range []string{u, link} {
		unitEnvironmentValues(p, future)
		if _, kept := unitChecks.Load(p); !kept {
			t.Fatalf("%s, older than racyMargin on a local file system, was not kept", p)
		}
	}
	was := st.Ctim
	for bound := time.Now().Add(10 * time.Second); st.Ctim == was; {
		if time.Now().After(bound) {
			t.Fatal("the unit's ctime did not change in 10 s of rewrites")
		}
		time.Sleep(5 * time.Millisecond)
		write(u, "/etc/default/six")
		if err := unix.Stat(u, &st); err != nil {
			t.Fatal(err)
		}
	}
	if got := unitEnvironmentValues(u, future); !slices.Equal(got, []string{"/etc/default/six"}) {
		t.Errorf("the unit rewritten, same size: values = %q", got)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.service", link); err != nil {
		t.Fatal(err)
	}
	if got := unitEnvironmentValues(link, future); !slices.Equal(got, []string{"/etc/default/two"}) {
		t.Errorf("the link turned to another unit: values = %q", got)
	}
}

// TestResolveInDirIsEvalSymlinks: resolveInDir leads each path where
// filepath.EvalSymlinks does, and fails where it fails, with an error
// ignorable alike, for paths that share their directories: a directory
// that is a link, a file that is a link (into another directory, to
// nothing, in a loop), a file where a directory was asked for, a missing
// directory, and this host's system-wide paths.
func TestResolveInDirIsEvalSymlinks(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"etc/a.conf", "etc/b.conf", "real/c.conf", "other/d.conf"} {
		p := filepath.Join(d, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"etc/dir": "../real", "etc/e.conf": "../other/d.conf", "etc/gone.conf": "nowhere",
		"etc/loop1": "loop2", "etc/loop2": "loop1", "up": "etc"} {
		if err := os.Symlink(to, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, p := range []string{"etc/a.conf", "etc/b.conf", "etc/dir/c.conf", "etc/dir/none", "etc/e.conf", "etc/gone.conf",
		"etc/loop1", "etc/loop1/x", "etc/a.conf/x", "missing/x", "up/a.conf", "up/dir/c.conf", "etc/none"} {
		paths = append(paths, filepath.Join(d, p))
	}
	paths = append(paths, systemCredentialFilePaths()...)
	dirs := map[string]resolved{}
	for _, p := range paths {
		want, werr := filepath.EvalSymlinks(p)
		got, gerr := resolveInDir(dirs, p)
		if got != want || (werr == nil) != (gerr == nil) || (werr != nil && ignorable(werr) != ignorable(gerr)) {
			t.Errorf("resolveInDir(%q) = %q, %v; EvalSymlinks: %q, %v", p, got, gerr, want, werr)
		}
	}
}

// TestExistingSecretFilesIsGlob: existingSecretFiles finds on this host
// the regular files filepath.Glob and a stat of each find for secretFiles
// and namedSecretFiles.
func TestExistingSecretFilesIsGlob(t *testing.T) {
	var want []string
	for _, p := range slices.Concat(secretFiles, namedSecretFiles()) {
		ms, _ := filepath.Glob(p)
		for _, m := range ms {
			if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && !slices.Contains(want, m) {
				want = append(want, m)
			}
		}
	}
	if got := existingSecretFiles(); !slices.Equal(got, want) {
		t.Errorf("existingSecretFiles() = %q, filepath.Glob: %q", got, want)
	}
	if len(want) == 0 {
		t.Error("no secret file on this host: the comparison says nothing (every Debian has /etc/shadow)")
	}
}

// TestMayReachInIsMayReach: with what it found of each directory kept
// for a view's later questions, mayReachIn answers as mayReach does: for
// files below a directory the uid may not search (asked before and after
// one beside it, so that the kept answer is the one used), one it may,
// a missing one, and this host's secret and system-wide files.
func TestMayReachInIsMayReach(t *testing.T) {
	requireRoot(t, "files of other owners are made with chown")
	const uid, gid = 2000001234, 2000001234
	d := tempDirIn(t, "/var/lib", "reach-", 0o755)
	for _, dm := range []struct {
		dir  string
		mode os.FileMode
	}{{"open", 0o755}, {"shut", 0o700}, {"shut/sub", 0o755}, {"x", 0o711}} {
		if err := os.Mkdir(filepath.Join(d, dm.dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(d, dm.dir), dm.mode); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, f := range []string{"shut/sub/h", "open/f", "shut/g", "x/y", "open/none", "shut/sub/h", "open/f", "x/y"} {
		p := filepath.Join(d, f)
		if err := os.WriteFile(p, nil, 0o644); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	os.Remove(filepath.Join(d, "open/none"))
	paths = append(paths, secretFiles...)
	paths = append(paths, systemCredentialFilePaths()...)
	searched := new(sync.Map)
	var reached int
	for _, p := range paths {
		for _, perm := range []uint32{0o4, 0o2} {
			got, want := mayReachIn(searched, p, uid, gid, perm), mayReach(p, uid, gid, perm)
			if got != want {
				t.Errorf("mayReachIn(%q, %o) = %v, mayReach: %v", p, perm, got, want)
			}
			if want {
				reached++
			}
		}
	}
	if reached == 0 || !mayReach(filepath.Join(d, "open/f"), uid, gid, 0o4) || mayReach(filepath.Join(d, "shut/sub/h"), uid, gid, 0o4) {
		t.Error("the tree does not tell a searchable directory from one that is not")
	}
}

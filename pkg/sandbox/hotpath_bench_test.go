package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkBwrapArgs times the pure argv build of one confined run.
func BenchmarkBwrapArgs(b *testing.B) {
	for _, tt := range []struct {
		name string
		p    plan
	}{
		{"default", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/home/runner/work/repo/repo", InitArgs: []string{initArg}}},
		{"strict-fs", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/src/repo", StrictFS: true, InitArgs: []string{initArg}}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(bwrapArgs(tt.p)) == 0 {
					b.Fatal("empty argv")
				}
			}
		})
	}
}

// benchTrees caches synthetic lower trees by size across sub-benchmark
// invocations (building 100,000 files takes seconds).
var benchTrees sync.Map // int -> string

func lowerTree(b *testing.B, root string, n int) string {
	b.Helper()
	if d, ok := benchTrees.Load(n); ok {
		return d.(string)
	}
	dir := filepath.Join(root, fmt.Sprintf("lower-%d", n))
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.txt", i%1000)), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchTrees.Store(n, dir)
	return dir
}

// packageTree builds a tree of n small files shaped as a project's
// dependencies are (node_modules, vendor): ten files a directory, fifty
// directories a package, so n/10 leaf directories under n/500 packages.
func packageTree(b *testing.B, root string, n int) string {
	b.Helper()
	dir := filepath.Join(root, fmt.Sprintf("packages-%d", n))
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	for i := 0; i < n; i += 10 {
		sub := filepath.Join(dir, "node_modules", fmt.Sprintf("p%03d", i/500), fmt.Sprintf("lib%02d", i/10%50))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 10; j++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.js", j)), []byte("x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return dir
}

// upperDir builds an upper directory holding `writes` new files in a new
// directory, one modified lower file (d000/f0000.txt) and, as root, one
// whiteout (d000/f0001.txt deleted).
func upperDir(b *testing.B, root string, writes int) string {
	b.Helper()
	dir := filepath.Join(root, fmt.Sprintf("upper-%d", writes))
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Join(dir, "new"), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < writes; i++ {
		if err := os.WriteFile(filepath.Join(dir, "new", fmt.Sprintf("w%05d", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "d000"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d000", "f0000.txt"), []byte("y\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := unix.Mknod(filepath.Join(dir, "d000", "f0001.txt"), unix.S_IFCHR, 0); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkReadUpper times the write record read from an overlay upper
// directory: its cost must follow the number of writes, not the size of
// the lower tree (compare lower=100 with lower=100000 at the same writes).
func BenchmarkReadUpper(b *testing.B) {
	root := b.TempDir()
	for _, tt := range []struct{ lower, writes int }{
		{100, 1}, {100000, 1}, {100, 1000}, {100000, 1000}, {100, 10000}, {100000, 10000},
	} {
		b.Run(fmt.Sprintf("lower=%d/writes=%d", tt.lower, tt.writes), func(b *testing.B) {
			lower := lowerTree(b, root, tt.lower)
			upper := upperDir(b, root, tt.writes)
			want := tt.writes + 2 // the new dir's files, the modify, the delete (root)
			if os.Geteuid() != 0 {
				want--
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ws, err := readUpper(upper, lower, "", nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(ws) != want {
					b.Fatalf("readUpper found %d writes, want %d", len(ws), want)
				}
			}
		})
	}
}

// BenchmarkGitTreesUnder times the broker's search of a work tree for
// nested checkouts, which every confined run pays before bubblewrap
// starts: a full walk reads every directory of the tree once (a tree's
// first walk in a process; record= from its second on, which records it
// for the next); revalidate=packages=100000 is a later run's walk of the
// same tree unchanged, taken from the cache (treeCache) at one fstatat a
// directory.
func BenchmarkGitTreesUnder(b *testing.B) {
	root := b.TempDir()
	for _, tt := range []struct {
		name   string
		tree   func() string
		record bool // kept for a later walk (a tree's second walk in a process on)
		again  bool // from an earlier walk of the tree
	}{
		{"lower=100", func() string { return lowerTree(b, root, 100) }, false, false},
		{"lower=100000", func() string { return lowerTree(b, root, 100000) }, false, false},
		{"packages=100000", func() string { return packageTree(b, root, 100000) }, false, false},
		{"record=packages=100000", func() string { return packageTree(b, root, 100000) }, true, false},
		{"revalidate=packages=100000", func() string { return packageTree(b, root, 100000) }, true, true},
	} {
		b.Run(tt.name, func(b *testing.B) {
			lower := tt.tree()
			var old *treeNode
			if tt.again {
				// Its directories older than the racy window, so that
				// the walk trusts them.
				time.Sleep(racyMargin + 500*time.Millisecond)
				_, n, err := walkTree(lower, "", nil, coarseNow())
				if err != nil {
					b.Fatal(err)
				}
				old = n
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var t0 int64 // a tree's first walk in a process: nothing kept
				if tt.record {
					t0 = coarseNow()
				}
				w, _, err := walkTree(lower, "", old, t0)
				if err != nil || w.out != nil || (tt.again && w.listed != 0) {
					b.Fatal(w.out, err)
				}
			}
		})
	}
}

// BenchmarkSnapshotDiff times the copy method's diff of a tree whose
// directories were all deleted: its cost must follow the tree's size
// (compare dirs=1000 with dirs=10000: ten times, not a hundred).
func BenchmarkSnapshotDiff(b *testing.B) {
	for _, dirs := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("dirs=%d", dirs), func(b *testing.B) {
			root := b.TempDir()
			snap := snapshotOfDeletedDirs(b, root, dirs)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ws, err := snap.diff(root)
				if err != nil {
					b.Fatal(err)
				}
				if len(ws) < dirs {
					b.Fatalf("the diff found %d writes, want at least %d", len(ws), dirs)
				}
			}
		})
	}
}

// BenchmarkSystemCredentialFilePaths times what every confined run pays,
// twice in a process's first run (its early look, checkSystemCredentialFiles,
// and its view) and once in each later one, to know which system-wide
// files to check for a credential: systemCredentialPaths' globs expanded
// (hostGlob) and the EnvironmentFile= lines of the host's own systemd
// units read, or, after its first loop, taken from unitChecks
// (unitEnvironmentFiles). It reads this host's real /etc, /usr/share and
// /opt, so its figure is this host's.
func BenchmarkSystemCredentialFilePaths(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		systemCredentialFilePaths()
	}
}

// BenchmarkSystemCredentialFiles times the whole of what every confined
// run's view pays for the system-wide files (systemCredentialFiles):
// BenchmarkSystemCredentialFilePaths' look, each path resolved where its
// links lead (readableSystemFiles) and each file's check, after the first
// loop taken from fileChecks. It reads this host's real files, as the
// caller's own view sees them.
func BenchmarkSystemCredentialFiles(b *testing.B) {
	v, _, _ := runView(false, nil, os.Getenv)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := systemCredentialFiles(v); err != nil {
			b.Fatal(err)
		}
	}
}

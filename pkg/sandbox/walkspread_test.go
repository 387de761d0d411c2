package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkSpreadsOverWorkers: a walk of four workers, which hand each
// other halves of their listings, finds what a walk of one finds (the
// same checkouts, dotenv files, entries and directories) and records the
// same nodes, and hands work over at all.
func TestWalkSpreadsOverWorkers(t *testing.T) {
	root := t.TempDir()
	// 40 packages of 25 libraries each, every fifth with a .env, every
	// seventh a checkout of its own.
	for i := range 40 {
		for j := range 25 {
			d := filepath.Join(root, "node_modules", fmt.Sprintf("p%02d", i), fmt.Sprintf("lib%02d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.js", k)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if (i*25+j)%5 == 0 {
				if err := os.WriteFile(filepath.Join(d, ".env.staging"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if (i*25+j)%7 == 0 {
				if err := os.Mkdir(filepath.Join(d, ".git"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Every walk is given the one start: which directories a walk
	// trusts depends on its start (a ctime older by racyMargin), and a
	// slow machine's walks, each from its own clock, would record the
	// last-made directories trusted in one walk and not in the next.
	t0 := coarseNow()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, oneRoot, err := walkTree(root, "", nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.out) != 143 || len(one.dotenv) != 200 || one.listed != 1042 || one.handed != 0 {
		t.Fatalf("a walk of one worker found %d checkouts, %d dotenv files, listed %d directories and handed %d halves over; want 143, 200, 1042, 0",
			len(one.out), len(one.dotenv), one.listed, one.handed)
	}
	runtime.GOMAXPROCS(4)
	handed := 0
	for range 5 {
		four, fourRoot, err := walkTree(root, "", nil, t0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(four.out, one.out) || !slices.Equal(four.dotenv, one.dotenv) ||
			four.sh.seen.Load() != one.sh.seen.Load() || four.listed != one.listed {
			t.Fatalf("a walk of four workers found %d checkouts, %d dotenv files, %d entries in %d directories; one worker %d, %d, %d in %d",
				len(four.out), len(four.dotenv), four.sh.seen.Load(), four.listed, len(one.out), len(one.dotenv), one.sh.seen.Load(), one.listed)
		}
		if d := sameNodes(oneRoot, fourRoot, "."); d != "" {
			t.Fatalf("a walk of four workers recorded other nodes than one of one: %s", d)
		}
		handed += four.handed
	}
	if handed == 0 {
		t.Error("five walks of four workers never handed a half of a listing to another worker")
	}
}

// sameNodes says where the trees of nodes a and b, recorded at rel,
// differ ("" where they do not).
func sameNodes(a, b *treeNode, rel string) string {
	if (a == nil) != (b == nil) {
		return rel + ": a node in one walk only"
	}
	if a == nil {
		return ""
	}
	if a.dev != b.dev || a.ino != b.ino || a.ctime != b.ctime || a.trusted != b.trusted || a.entries != b.entries ||
		a.dotGit != b.dotGit || a.bare != b.bare || !slices.Equal(a.dotenv, b.dotenv) || len(a.subs) != len(b.subs) {
		return rel + ": the directory recorded otherwise"
	}
	for i := range a.subs {
		if a.subs[i].name != b.subs[i].name {
			return rel + ": subdirectories in another order"
		}
		if d := sameNodes(a.subs[i].node, b.subs[i].node, joinRel(rel, a.subs[i].name)); d != "" {
			return d
		}
	}
	return ""
}

// TestWalkOfWorkersRefusesAlike: a tree too deep for the walk, one of
// many branches, is refused by a walk of four workers with the words a
// walk of one gives, and the walk leaves no descriptor open behind it.
func TestWalkOfWorkersRefusesAlike(t *testing.T) {
	root := t.TempDir()
	for i := range 64 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("b%02d", i), "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	deepChain(t, filepath.Join(root, "b40"), maxGitDepth+2)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, _, one := walkTree(root, "", nil, 0)
	if one == nil || !strings.Contains(one.Error(), "directories deep") {
		t.Fatalf("a walk of one worker: %v; want a refusal of the depth", one)
	}
	runtime.GOMAXPROCS(4)
	for range 5 {
		if _, _, four := walkTree(root, "", nil, 0); four == nil || four.Error() != one.Error() {
			t.Fatalf("a walk of four workers: %v; one of one: %v; want the same refusal", four, one)
		}
	}
	if open := fdsUnder(t, root); len(open) > 0 {
		t.Errorf("five failed walks left descriptors open on the tree: %v", open)
	}
}

// fdsUnder lists this process's open descriptors on what lies in dirs
// (their targets): a walk of a tree in dirs leaves none behind. Other
// descriptors come and go with the package's other tests, and are left
// out.
func fdsUnder(t *testing.T, dirs ...string) []string {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, e := range es {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // closed since the listing
		}
		for _, d := range dirs {
			if target == d || strings.HasPrefix(target, d+"/") {
				open = append(open, e.Name()+" → "+target)
			}
		}
	}
	return open
}

// deepChain makes n directories d, each in the one before, below dir:
// deeper than PATH_MAX where n is, so made one at a time, each relative
// to the one before.
func deepChain(t *testing.T, dir string, n int) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := unix.Mkdirat(fd, "d", 0o755); err != nil {
			unix.Close(fd)
			t.Fatal(err)
		}
		c, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = c
	}
	unix.Close(fd)
}

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// reviewTree writes a tree of many shapes for the walk's workers to split:
// wide directories (many halves to hand over), a deep chain below a wide
// one, the skipped directory in the second half of a wide one (so that
// another worker than the first meets it), checkouts, bare git dirs and
// dotenv files at every depth.
func reviewTree(t *testing.T) (root, skip string) {
	t.Helper()
	root = t.TempDir()
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	put := func(rel string) {
		mk(filepath.Dir(rel))
		if err := os.WriteFile(filepath.Join(root, rel), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		for j := range 12 {
			d := fmt.Sprintf("w%02d/s%02d", i, j)
			mk(d)
			if (i+j)%4 == 0 {
				put(d + "/.env")
			}
			if (i*12+j)%9 == 0 {
				mk(d + "/.git")
			}
			if (i*12+j)%13 == 0 {
				put(d + "/bare/HEAD")
				put(d + "/bare/config")
				mk(d + "/bare/objects")
			}
		}
	}
	// A chain 200 deep in the second half of a wide directory.
	chain := "w25/s11"
	for k := range 200 {
		chain += fmt.Sprintf("/c%d", k%10)
	}
	mk(chain)
	put(chain + "/.env.local")
	mk(chain + "/deep/.git")
	// The skipped directory, in the second half of w20, holds what would
	// be found were it entered.
	skip = filepath.Join(root, "w20", "s10")
	put("w20/s10/.env")
	mk("w20/s10/inner/.git")
	return root, skip
}

// TestWalkReview21WorkerCountsAgree: on a tree of many shapes, with the
// skipped directory among those another worker is handed, walks of 1, 2,
// 4 and 8 workers (GOMAXPROCS; at most maxWalkers work) find the same
// checkouts, dotenv files and entries, record the same nodes, never
// report the skipped directory or what it holds, and leave no descriptor
// open; a walk from an earlier walk's nodes, after some directories
// changed, finds what a full walk finds at every worker count.
func TestWalkReview21WorkerCountsAgree(t *testing.T) {
	requireCtimeKept(t, t.TempDir())
	root, skip := reviewTree(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// A t0 well after every ctime, so that every node is trusted: the
	// cached walks below take what is unchanged.
	t0 := coarseNow() + int64(time.Hour)
	ref, refRoot, err := walkTree(root, skip, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range slices.Concat(ref.out, ref.dotenv) {
		if strings.HasPrefix(p, skip+"/") || p == skip {
			t.Fatalf("a walk of one worker reported %s, in the skipped %s", p, skip)
		}
	}
	if len(ref.out) == 0 || len(ref.dotenv) == 0 {
		t.Fatalf("a walk of one worker found %v and %v", ref.out, ref.dotenv)
	}
	handed := 0
	for _, procs := range []int{1, 2, 4, 8} {
		runtime.GOMAXPROCS(procs)
		for range 10 {
			w, n, err := walkTree(root, skip, nil, t0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(w.out, ref.out) || !slices.Equal(w.dotenv, ref.dotenv) ||
				w.sh.seen.Load() != ref.sh.seen.Load() || w.listed != ref.listed {
				t.Fatalf("GOMAXPROCS %d: %d checkouts, %d dotenv files, %d entries, %d directories; one worker: %d, %d, %d, %d",
					procs, len(w.out), len(w.dotenv), w.sh.seen.Load(), w.listed, len(ref.out), len(ref.dotenv), ref.sh.seen.Load(), ref.listed)
			}
			if d := sameNodes(refRoot, n, "."); d != "" {
				t.Fatalf("GOMAXPROCS %d: nodes differ from one worker's: %s", procs, d)
			}
			handed += w.handed
		}
	}
	if handed == 0 {
		t.Error("no walk of several workers handed a half of a listing over")
	}
	if open := fdsUnder(t, root); len(open) > 0 {
		t.Errorf("the walks left descriptors open on the tree: %v", open)
	}

	// Change a few directories, in halves other workers are handed: a
	// new .env, a new checkout, a removed branch.
	for _, f := range []string{"w29/s11/.env.production", "w17/s06/new/.git/x", "w25/s11/c0/c1/c2/.envrc"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(root, "w03")); err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(1)
	full, fullRoot, err := walkTree(root, skip, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 4, 8} {
		runtime.GOMAXPROCS(procs)
		for range 5 {
			w, n, err := walkTree(root, skip, refRoot, t0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(w.out, full.out) || !slices.Equal(w.dotenv, full.dotenv) || w.sh.seen.Load() != full.sh.seen.Load() {
				t.Fatalf("GOMAXPROCS %d: the walk from the earlier nodes found %d checkouts, %d dotenv files, %d entries; a full walk %d, %d, %d",
					procs, len(w.out), len(w.dotenv), w.sh.seen.Load(), len(full.out), len(full.dotenv), full.sh.seen.Load())
			}
			if d := sameNodes(fullRoot, n, "."); d != "" {
				t.Fatalf("GOMAXPROCS %d: the walk from the earlier nodes recorded other nodes than a full walk: %s", procs, d)
			}
		}
	}
}

// TestWalkReview21TreeChangingUnderWorkers: walks of eight workers of a
// tree whose directories are renamed, removed, made anew and replaced by
// links to a directory outside it while they run neither fail nor
// report anything outside the tree, nor anything of the skipped
// directory, and leave no descriptor open. Run under -race, it is the
// test of the workers' sharing of nodes while the tree moves.
func TestWalkReview21TreeChangingUnderWorkers(t *testing.T) {
	root, skip := reviewTree(t)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "stolen", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, ".env"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Add(1)
	go func() {
		defer churn.Done()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			i := k % 30
			d := filepath.Join(root, fmt.Sprintf("w%02d", i), "s05")
			moved := d + ".moved"
			// Renamed away and back, removed and made anew, and for a
			// while a link to a directory outside the tree.
			os.Rename(d, moved)
			os.Symlink(outside, d)
			os.Remove(d)
			os.Rename(moved, d)
			os.RemoveAll(filepath.Join(d, "x"))
			os.MkdirAll(filepath.Join(d, "x", ".git"), 0o755)
		}
	}()
	for range 200 {
		w, _, err := walkTree(root, skip, nil, 0)
		if err != nil {
			close(stop)
			churn.Wait()
			t.Fatalf("a walk of a changing tree failed: %v", err)
		}
		for _, p := range slices.Concat(w.out, w.dotenv) {
			if !strings.HasPrefix(p, root+"/") || strings.Contains(p, "/stolen") || strings.HasPrefix(p, skip+"/") || p == skip {
				close(stop)
				churn.Wait()
				t.Fatalf("a walk of a changing tree reported %s", p)
			}
		}
	}
	close(stop)
	churn.Wait()
	if open := fdsUnder(t, root, outside); len(open) > 0 {
		t.Errorf("the walks left descriptors open on the tree or what its links led to: %v", open)
	}
}

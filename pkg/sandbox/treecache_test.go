package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// requireCtimeKept fails in CI and skips elsewhere where dir lies on a
// file system whose directories the tree's cache does not trust
// (ctimeKept): there every walk lists every directory, and what these
// tests check of the cache would not be tried.
func requireCtimeKept(t *testing.T, dir string) {
	t.Helper()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if ctimeKept(int64(fs.Type)) {
		return
	}
	why := fmt.Sprintf("the test's temporary directory lies on a file system of type %#x, whose directories the cache of the tree's walk lists at every walk", fs.Type)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI's must be a local one (ext4, xfs, btrfs, tmpfs, overlay)", why)
	}
	t.Skipf("%s; give TMPDIR on a local file system", why)
}

// settle waits until what was just written is older than the racy
// window, so that a walk now trusts it (treeCache).
func settle() { time.Sleep(racyMargin + 500*time.Millisecond) }

// walkOf walks root with old (nil: anew), failing the test on an error.
func walkOf(t *testing.T, root, skip string, old *treeNode) (*gitWalk, *treeNode) {
	t.Helper()
	w, n, err := walkTree(root, skip, old, coarseNow())
	if err != nil {
		t.Fatal(err)
	}
	return w, n
}

// sameAsFullWalk fails the test where w found other than a walk of root
// with no earlier one finds now.
func sameAsFullWalk(t *testing.T, w *gitWalk, root, skip string) {
	t.Helper()
	full, _, err := walkTree(root, skip, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.out, full.out) || !slices.Equal(w.dotenv, full.dotenv) || w.sh.seen.Load() != full.sh.seen.Load() {
		t.Errorf("the walk from the cache found checkouts %v, dotenv files %v, %d entries; a full walk finds %v, %v, %d",
			w.out, w.dotenv, w.sh.seen.Load(), full.out, full.dotenv, full.sh.seen.Load())
	}
}

// nodeAt is the node a walk recorded for the directory rel below n.
func nodeAt(t *testing.T, n *treeNode, rel string) *treeNode {
	t.Helper()
	for _, name := range strings.Split(rel, "/") {
		i := slices.IndexFunc(n.subs, func(s treeSub) bool { return s.name == name })
		if i < 0 || n.subs[i].node == nil {
			t.Fatalf("the walk recorded no directory %s", rel)
		}
		n = n.subs[i].node
	}
	return n
}

// cachedTree writes a work tree with what the walk looks for: dotenv files,
// a nested checkout, a bare git dir, a link, a project's dependencies.
func cachedTree(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		".env": "K=1\n", ".env.example": "K=\n", "src/main.go": "package main\n",
		"vendor/lib/.git/config": "[core]\n", "vendor/lib/.env.local": "K=2\n",
		"mirror.git/HEAD": "ref: refs/heads/main\n", "mirror.git/config": "[core]\n\tbare = true\n", "mirror.git/objects/info/x": "",
		"apps/web/.env.production": "K=3\n", "apps/leaf/x.ts": "\n",
	}
	for i := range 30 {
		for j := range 4 {
			files[fmt.Sprintf("node_modules/pkg%d/lib/f%d.js", i, j)] = "\n"
		}
		files[fmt.Sprintf("node_modules/pkg%d/package.json", i)] = "{}\n"
	}
	root := makeTree(t, files)
	if err := os.Symlink("apps/web/.env.production", filepath.Join(root, "apps", ".env")); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestTreeCacheTakesWhatAWalkFinds: a walk of an unchanged tree after an
// earlier one lists no directory (one fstatat each) and finds what a walk
// with no earlier one finds: the checkouts, the bare git dir, the dotenv
// files, the same count of entries; with a directory skipped too (a CI
// workspace around the tree), and through scanTree's cache.
func TestTreeCacheTakesWhatAWalkFinds(t *testing.T) {
	root := cachedTree(t)
	requireCtimeKept(t, root)
	settle()
	w1, n1 := walkOf(t, root, "", nil)
	if !n1.trusted {
		t.Fatalf("a directory written %v before the walk was not trusted", racyMargin)
	}
	if want := []string{root + "/mirror.git", root + "/vendor/lib"}; !slices.Equal(w1.out, want) {
		t.Errorf("checkouts %v, want %v", w1.out, want)
	}
	w2, n2 := walkOf(t, root, "", n1)
	sameAsFullWalk(t, w2, root, "")
	if w2.listed != 0 || w2.reused != w1.listed || n2 != n1 {
		t.Errorf("the second walk listed %d directories and took %d of %d from the first (its root's node kept: %v); want none listed, all taken", w2.listed, w2.reused, w1.listed, n2 == n1)
	}
	skip := root + "/vendor"
	w3, _ := walkOf(t, root, skip, n1)
	sameAsFullWalk(t, w3, root, skip)
	if slices.Contains(w3.out, root+"/vendor/lib") {
		t.Errorf("the walk entered %s, which it was told to skip", skip)
	}
	for range 2 {
		gits, dotenv, err := scanTree(root, "")
		if err != nil || !slices.Equal(gits, w1.out) || !slices.Equal(dotenv, w1.dotenv) {
			t.Errorf("scanTree = %v, %v, %v; want %v, %v", gits, dotenv, err, w1.out, w1.dotenv)
		}
	}
}

// TestTreeCacheSeesWhatTheHostAdds: what the host adds between two walks
// is found by the second, where the first's record of the tree is
// trusted: a .env in an old directory, a .env.staging in a new
// subdirectory, a nested checkout's .git in an old directory, a bare git
// dir renamed into place, a directory replaced by another of the same
// name (whose subdirectory of an old name is a new one), and a .env in a
// directory whose mtime was then set back as it was (ctime is what is
// asked). The directories not changed are not listed again.
func TestTreeCacheSeesWhatTheHostAdds(t *testing.T) {
	root := cachedTree(t)
	for _, d := range []string{"old/a/b", "parent", "into", "replace/dir/deep", "backdated/x", "app/src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	requireCtimeKept(t, root)
	// Built beside the tree, on its file system, to be renamed in.
	out := filepath.Join(root, "..", filepath.Base(root)+"-staging")
	t.Cleanup(func() { os.RemoveAll(out) })
	writeFile(t, filepath.Join(out, "bare.git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(out, "bare.git/config"), "[core]\n\tbare = true\n")
	writeFile(t, filepath.Join(out, "bare.git/objects/pack/x"), "")
	writeFile(t, filepath.Join(out, "newdir/.env"), "K=REPLACED\n")
	writeFile(t, filepath.Join(out, "newdir/deep/.git/config"), "[core]\n")
	settle()
	backdated := filepath.Join(root, "backdated/x")
	var before unix.Stat_t
	if err := unix.Stat(backdated, &before); err != nil {
		t.Fatal(err)
	}
	w1, n1 := walkOf(t, root, "", nil)
	for _, d := range []string{"old/a/b", "parent", "into", "replace/dir/deep", "backdated/x", "app"} {
		if !nodeAt(t, n1, d).trusted {
			t.Fatalf("%s, written %v before the walk, was not trusted", d, racyMargin)
		}
	}

	writeFile(t, filepath.Join(root, "old/a/b/.env"), "K=OLD\n")
	writeFile(t, filepath.Join(root, "parent/sub/.env.staging"), "K=STAGING\n")
	if err := os.Mkdir(filepath.Join(root, "app/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(out, "bare.git"), filepath.Join(root, "into/bare.git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "replace/dir"), filepath.Join(out, "replaced")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(out, "newdir"), filepath.Join(root, "replace/dir")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(backdated, ".env"), "K=BACKDATED\n")
	if err := unix.UtimesNano(backdated, []unix.Timespec{before.Atim, before.Mtim}); err != nil {
		t.Fatal(err)
	}
	var after unix.Stat_t
	if err := unix.Stat(backdated, &after); err != nil {
		t.Fatal(err)
	}
	if after.Mtim != before.Mtim || after.Ctim == before.Ctim {
		t.Fatalf("backdated/x: mtime %v then %v, ctime %v then %v; want the mtime set back, the ctime moved", before.Mtim, after.Mtim, before.Ctim, after.Ctim)
	}

	w2, _ := walkOf(t, root, "", n1)
	sameAsFullWalk(t, w2, root, "")
	for _, want := range []string{root + "/app", root + "/into/bare.git", root + "/replace/dir/deep"} {
		if !slices.Contains(w2.out, want) {
			t.Errorf("the second walk did not find the checkout %s: %v", want, w2.out)
		}
	}
	for _, want := range []string{"/old/a/b/.env", "/parent/sub/.env.staging", "/replace/dir/.env", "/backdated/x/.env"} {
		if !slices.Contains(w2.dotenv, root+want) {
			t.Errorf("the second walk did not find the dotenv file %s: %v", root+want, w2.dotenv)
		}
	}
	// Listed: old/a/b, parent and its new sub, app, into and the bare
	// git dir with its objects and pack, replace with its new dir and
	// deep, backdated/x. The rest, node_modules too, is taken.
	if w2.listed > 14 || w2.reused < w1.listed-14 {
		t.Errorf("the second walk listed %d directories and took %d of the first's %d; want at most the 14 changed or new listed", w2.listed, w2.reused, w1.listed)
	}
}

// TestTreeCacheRacyWindow: a directory whose ctime is within racyMargin of
// the walk's start is not trusted (a change in the same clock tick as its
// listing would leave its ctime as it was), so what is added there right
// after the walk is found by the next.
func TestTreeCacheRacyWindow(t *testing.T) {
	root := makeTree(t, map[string]string{"d/x.js": "\n", "d/e/y.js": "\n"})
	requireCtimeKept(t, root)
	_, n1 := walkOf(t, root, "", nil)
	if nodeAt(t, n1, "d").trusted || nodeAt(t, n1, "d/e").trusted {
		t.Fatal("a directory changed within the racy window was trusted")
	}
	writeFile(t, filepath.Join(root, "d/.env"), "K=RACY\n")
	writeFile(t, filepath.Join(root, "d/e/.env.staging"), "K=RACY\n")
	w2, _ := walkOf(t, root, "", n1)
	sameAsFullWalk(t, w2, root, "")
	if want := []string{root + "/d/.env", root + "/d/e/.env.staging"}; !slices.Equal(w2.dotenv, want) {
		t.Errorf("dotenv files %v, want %v", w2.dotenv, want)
	}
}

// TestTreeCacheRefusesAlike: a tree that grew past maxGitDepth below a
// directory the cache holds is refused by the walk from the cache as by a
// full walk, with the same words.
func TestTreeCacheRefusesAlike(t *testing.T) {
	root := makeTree(t, map[string]string{"a/b/x.js": "\n"})
	requireCtimeKept(t, root)
	settle()
	_, n1 := walkOf(t, root, "", nil)
	// Deeper than maxGitDepth and PATH_MAX.
	deepChain(t, filepath.Join(root, "a/b"), maxGitDepth+2)
	_, _, full := walkTree(root, "", nil, 0)
	_, _, cached := walkTree(root, "", n1, coarseNow())
	if full == nil || cached == nil || full.Error() != cached.Error() {
		t.Errorf("a full walk: %v; the walk from the cache: %v; want the same refusal", full, cached)
	}
}

// TestDotenvAddedBetweenRunsReadsEmpty: three confined runs in one
// process over one tree, the third's walk taken from the second's where
// nothing changed (the first's is not kept): a .env with a secret the
// host adds between them, in an old directory and in a new one, reads as
// empty in the third.
func TestDotenvAddedBetweenRunsReadsEmpty(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{"apps/web/src/x.ts": "\n", "README": "hi\n"})
	requireCtimeKept(t, tree)
	settle()
	script := `cat apps/web/.env apps/new/.env.staging 2>&1; ls -a apps/web | tr '\n' ' '`
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		t.Fatal(err)
	}
	kept := func() bool {
		trees.mu.Lock()
		defer trees.mu.Unlock()
		return trees.walks[[2]string{real, ""}] != nil && trees.walks[[2]string{real, ""}].root != nil
	}
	// A tree's first walk in a process is not kept (a vigiles run of one
	// command pays nothing for it); its second is.
	for i, want := range []bool{false, true} {
		res := run(t, Spec{Dir: tree, Command: sh(script)})
		if res.Tier != TierConfined || res.Error != "" {
			t.Fatalf("run %d: tier %s error %q refusal %q stderr %q", i+1, res.Tier, res.Error, res.Refusal, res.Stderr)
		}
		if kept() != want {
			t.Fatalf("after run %d the walk of %s is kept: %v, want %v", i+1, real, !want, want)
		}
	}
	writeFile(t, filepath.Join(tree, "apps/web/.env"), "API_KEY=ADDEDSECRET\n")
	writeFile(t, filepath.Join(tree, "apps/new/.env.staging"), "API_KEY=NEWDIRSECRET\n")
	res := run(t, Spec{Dir: tree, Command: sh(script)})
	if res.Tier != TierConfined || res.Error != "" || res.ExitCode != 0 {
		t.Fatalf("third run: tier %s exit %d error %q refusal %q stderr %q", res.Tier, res.ExitCode, res.Error, res.Refusal, res.Stderr)
	}
	if strings.Contains(res.Stdout, "SECRET") {
		t.Errorf("the third run read a dotenv file the host added after the second: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, ".env ") || strings.Contains(res.Stdout, "No such file") {
		t.Errorf("stdout %q; want the dotenv files there, emptied", res.Stdout)
	}
}

// TestTreeCacheConcurrentWalks: walks of one tree at once (an audit's
// --jobs) share the cache: each finds what a full walk finds, before and
// after a change the host makes between two rounds of them.
func TestTreeCacheConcurrentWalks(t *testing.T) {
	root := cachedTree(t)
	requireCtimeKept(t, root)
	settle()
	round := func(want string) {
		t.Helper()
		full, _, err := walkTree(root, "", nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				for range 5 {
					gits, dotenv, err := scanTree(root, "")
					if err == nil && (!slices.Equal(gits, full.out) || !slices.Equal(dotenv, full.dotenv)) {
						err = fmt.Errorf("scanTree found %v, %v; a full walk %v, %v", gits, dotenv, full.out, full.dotenv)
					}
					if err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		if want != "" && !slices.Contains(full.dotenv, want) {
			t.Errorf("a full walk did not find %s: %v", want, full.dotenv)
		}
	}
	round("")
	writeFile(t, filepath.Join(root, "node_modules/pkg7/lib/.env"), "K=ADDED\n")
	round(root + "/node_modules/pkg7/lib/.env")
}

package runner

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// linkView resolves where a symlink a run wrote leads, as the sandbox
// that made it saw the file system: its throwaway HOME (sandbox.Home),
// TMPDIR (/tmp) and /dev/shm, which held only what the run put there; the
// work tree at its own path (tree, inside them or not), as the host has it
// but for what the run changed; the rest, the host's, read-only.
type linkView struct {
	tree  string            // the work tree's absolute path, symlinks resolved
	links map[string]string // absolute path -> target, of each symlink the run left
	dirs  map[string]bool   // absolute paths the run left a directory at
	gone  map[string]bool   // absolute paths the run deleted or replaced
}

// sandboxTmp is the throwaway TMPDIR a confined run's records name
// $TMPDIR (docs/result-format.md).
const sandboxTmp = "/tmp"

func newLinkView(tree string, ws []evidence.Write) *linkView {
	if tree == "" {
		// Unknown (a record read back): no path of the host is the
		// tree, and only what the record says of it is known.
		tree = "/nonexistent/work-tree"
	} else if r, err := filepath.EvalSymlinks(tree); err == nil {
		tree = r
	}
	v := &linkView{tree: tree, links: map[string]string{}, dirs: map[string]bool{}, gone: map[string]bool{}}
	for _, w := range ws {
		a := v.abs(w.Path)
		if w.Op != evidence.OpDelete {
			// What the run left a path in is a directory.
			for d := path.Dir(a); d != "/" && !v.dirs[d]; d = path.Dir(d) {
				v.dirs[d] = true
			}
		}
		switch {
		case w.Op == evidence.OpDelete:
			v.gone[a] = true
		case w.Kind == "symlink":
			v.links[a] = w.Target
		case w.Kind == "dir":
			v.dirs[a] = true
		default:
			v.gone[a] = w.Was != "" // a link or a directory the run replaced
		}
	}
	return v
}

// abs is the absolute path, in the sandbox, of a recorded path.
func (v *linkView) abs(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return path.Join(sandbox.Home, p[2:])
	case strings.HasPrefix(p, "$TMPDIR/"):
		return path.Join(sandboxTmp, p[len("$TMPDIR/"):])
	case strings.HasPrefix(p, shmDir):
		return path.Clean(p)
	}
	return path.Join(v.tree, strings.TrimPrefix(p, "./"))
}

// recorded is the recorded path of an absolute one, false where it lies
// outside every place a run's writes are recorded (the host's read-only
// rest, where a write through a link fails as a write there does).
func (v *linkView) recorded(a string) (string, bool) {
	under := func(root string) (string, bool) {
		if a == root {
			return ".", true
		}
		r, ok := strings.CutPrefix(a, root+"/")
		return r, ok
	}
	if r, ok := under(v.tree); ok {
		return evidence.TreePath(r), true
	}
	for _, area := range []struct{ root, name string }{{sandbox.Home, "~"}, {sandboxTmp, "$TMPDIR"}, {strings.TrimSuffix(shmDir, "/"), strings.TrimSuffix(shmDir, "/")}} {
		if r, ok := under(area.root); ok {
			if r == "." {
				return area.name, true
			}
			return area.name + "/" + r, true
		}
	}
	return "", false
}

// throwaway says whether a lies in the sandbox's own HOME, TMPDIR or
// /dev/shm, outside the work tree: what is there the run made.
func (v *linkView) throwaway(a string) bool {
	rp, ok := v.recorded(a)
	return ok && (rp == "~" || rp == "$TMPDIR" || strings.HasPrefix(rp, "~/") || strings.HasPrefix(rp, "$TMPDIR/") || strings.HasPrefix(rp, shmDir) || rp == strings.TrimSuffix(shmDir, "/"))
}

// linkAt says whether the absolute path a is a symlink in the sandbox at
// the run's end, and its target.
func (v *linkView) linkAt(a string) (string, bool) {
	if t, ok := v.links[a]; ok {
		return t, true
	}
	if v.gone[a] || v.dirs[a] || v.throwaway(a) {
		return "", false
	}
	fi, err := os.Lstat(a)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	t, err := os.Readlink(a)
	return t, err == nil
}

// isDir says whether the absolute path a is a directory at the run's end.
func (v *linkView) isDir(a string) bool {
	if v.dirs[a] {
		return true
	}
	if _, ok := v.links[a]; ok || v.gone[a] || v.throwaway(a) {
		return false
	}
	fi, err := os.Lstat(a)
	return err == nil && fi.IsDir()
}

// systemPath says whether a, outside every place writes are recorded, is
// in the system's own directories (a virtualenv's python links to
// /usr/bin/python3), where a user's session may not write and the
// sandbox's writes fail: a link there is not judged, as a write there is
// not recorded. Anywhere else (another checkout, a real HOME under /home,
// /etc) a write through the link could land for real, and it leads out.
func systemPath(a string) bool {
	for _, d := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"} {
		if a == d || strings.HasPrefix(a, d+"/") {
			return true
		}
	}
	return false
}

// maxHops bounds the links followed in one resolution, as the kernel's
// ELOOP does (40).
const maxHops = 40

// resolve follows p, an absolute path, component by component, each link
// on the way (the run's, the tree's, the host's) in place, as the kernel
// would for a write through it: a ".." after a link climbs from where the
// link leads, not from the link. false where the links loop.
func (v *linkView) resolve(p string) (string, bool) {
	rest := strings.Split(p, "/")
	cur, hops := "/", 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		t, ok := v.linkAt(next)
		if !ok {
			cur = next
			continue
		}
		if hops++; hops > maxHops {
			return "", false
		}
		if path.IsAbs(t) {
			cur = "/"
		}
		rest = append(strings.Split(t, "/"), rest...)
	}
	return cur, true
}

// linkLeadsOut says whether w, a symlink the run left that wrote-only's
// patterns ps allow, leads where they do not: a write through it later (by
// Claude Code, or the hook's next run, in a tree that keeps it) lands
// there. It is resolved as the kernel would resolve it at the run's end,
// through the links the run made and those already there; what it leads
// to is judged as a write to that path (a directory pattern's own path
// only where a directory is there). A link that leads out of every place
// writes are recorded leads out, but into the system's directories
// (systemPath). A loop leads out. The path it leads to is returned as a
// recorded path, else absolute (a loop: the target).
func (v *linkView) linkLeadsOut(ps []PathPattern, w evidence.Write) (string, bool) {
	if w.Kind != "symlink" || w.Op == evidence.OpDelete || w.Target == "" {
		return "", false
	}
	at := v.abs(w.Path)
	start := w.Target
	if !path.IsAbs(start) {
		start = path.Dir(at) + "/" + start
	}
	to, ok := v.resolve(start)
	if !ok {
		return w.Target, true
	}
	rp, in := v.recorded(to)
	if !in {
		return to, !systemPath(to)
	}
	kind := "file"
	if v.isDir(to) {
		kind = "dir"
	}
	return rp, !anyPath(ps, rp, kind)
}

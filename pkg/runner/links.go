package runner

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/evidence"
)

// A symlink a run leaves is judged by wrote-only as the writes a later
// write through it would make: by Claude Code, or by the hook's next run,
// on the host, where the tree, HOME and TMPDIR are the real ones and not
// the sandbox's. Only what the record and the tree say for certain is
// followed, so the rule is narrow (linkLeadsOut):
//
//   - a relative target is walked from the link's directory within the
//     place the link is in (the work tree, ~/, $TMPDIR/, /dev/shm/,
//     /var/tmp/, /run/lock/, /run/user/UID/): a
//     ".." may not climb out of it, no component on the way may be a link
//     (the run's, or one the tree has: a ".." after a link climbs from
//     where the link leads, which the host decides), and the last may be
//     a link the run made, judged so in turn (40 hops at most); a tree path
//     ./~/x is never HOME's ~/x;
//   - an absolute target leads out, but into the system's own read-only
//     directories but /usr/local (a virtualenv's python3 -> /usr/bin/python3) or to
//     /dev/null, where a write lands nowhere it could matter;
//   - where it leads must be a path the patterns allow (a directory
//     pattern's own path only where a directory is there).

// maxHops bounds the links followed from one link, as the kernel's
// ELOOP does (40).
const maxHops = 40

// maxLinkWork bounds the bytes of path the judging of one run's links
// looks up, so that links in directories nested 10,000 deep cannot make
// it run for hours: past it, a link is not judged, and fails.
const maxLinkWork = 64 << 20

// linkView is what the record says of a run's links and directories.
type linkView struct {
	tree  string            // the work tree on the host ("": unknown)
	links map[string]string // recorded path -> target, of each symlink the run left
	dirs  map[string]bool   // recorded paths the run left a directory at
	gone  map[string]bool   // recorded paths the run deleted, or made other than they were
	kept  []string          // the recorded paths the run left something at, sorted
	work  int               // bytes of path looked up so far
}

func newLinkView(tree string, ws []evidence.Write) *linkView {
	if tree != "" {
		if r, err := filepath.EvalSymlinks(tree); err == nil {
			tree = r
		}
	}
	v := &linkView{tree: tree, links: map[string]string{}, dirs: map[string]bool{}, gone: map[string]bool{}}
	for _, w := range ws {
		p := w.Path // a tree path whose first name is ~ or $TMPDIR is ./~/…, never HOME's ~/…
		switch {
		case w.Op == evidence.OpDelete:
			v.gone[p] = true
			continue
		case w.Kind == "symlink":
			v.links[p] = w.Target
		case w.Kind == "dir":
			v.dirs[p] = true
		}
		if w.Was != "" {
			v.gone[p] = w.Kind != "dir"
		}
		v.kept = append(v.kept, p)
	}
	slices.Sort(v.kept)
	return v
}

// holds says whether the run left something below k: then k is a
// directory at the run's end.
func (v *linkView) holds(k string) bool {
	k += "/"
	i, _ := slices.BinarySearch(v.kept, k)
	return i < len(v.kept) && strings.HasPrefix(v.kept[i], k)
}

// area splits a recorded path into the place it is in ("" for the work
// tree, "~/", "$TMPDIR/", shmDir, varTmpDir, a run area under /run
// ("/run/lock/", "/run/user/1000/"), or "/" for any other absolute path: a
// runner's tool cache, recorded by its path on the host) and its path
// there.
func area(p string) (string, string) {
	if a, rest, ok := runArea(p); ok && rest != "" {
		return p[:len(a)+1], rest // a throwaway, as /var/tmp: it started empty
	}
	for _, a := range []string{"~/", "$TMPDIR/", shmDir, varTmpDir, "/"} {
		if r, ok := strings.CutPrefix(p, a); ok {
			return a, r
		}
	}
	return "", strings.TrimPrefix(p, "./")
}

// hostPath is where rel in place a is on the host, to look at it there:
// in the work tree, or at its own path in a tool cache (place "/", which
// the run showed as the host has it); "" in a place that started empty.
func (v *linkView) hostPath(a, rel string) string {
	switch {
	case a == "/":
		return "/" + rel
	case a == "" && v.tree != "":
		return filepath.Join(v.tree, filepath.FromSlash(rel))
	}
	return ""
}

// key is the recorded path of rel in place a, as the record writes it
// (a tree path ./~/x is not HOME's ~/x).
func key(a, rel string) string {
	if a == "" {
		return evidence.TreePath(rel)
	}
	return a + rel
}

// isLink says whether rel in place a is a symlink at the run's end, and
// its target where the run made it; a link the tree has (on the host,
// where the run did not change the path) is one too, target unknown.
func (v *linkView) isLink(a, rel string) (target string, link, ours bool) {
	k := key(a, rel)
	v.work += len(k)
	if t, ok := v.links[k]; ok {
		return t, true, true
	}
	h := v.hostPath(a, rel)
	if h == "" || v.gone[k] || v.dirs[k] || v.holds(k) {
		return "", false, false
	}
	fi, err := os.Lstat(h)
	return "", err == nil && fi.Mode()&os.ModeSymlink != 0, false
}

// isDir says whether rel in place a is a directory at the run's end.
func (v *linkView) isDir(a, rel string) bool {
	k := key(a, rel)
	if rel == "." || v.dirs[k] || v.holds(k) {
		return true // a place's own root is a directory
	}
	h := v.hostPath(a, rel)
	if h == "" || v.gone[k] {
		return false
	}
	if _, ok := v.links[k]; ok {
		return false
	}
	fi, err := os.Lstat(h)
	return err == nil && fi.IsDir()
}

// systemTarget says whether an absolute target is one a write through
// which lands nowhere that matters: /dev/null, or the system's own
// read-only directories, where a user's session may not write and the
// sandbox's writes fail, unrecorded, as a direct write there would.
func systemTarget(t string) bool {
	t = path.Clean(t)
	if t == "/dev/null" {
		return true
	}
	if t == "/usr/local" || strings.HasPrefix(t, "/usr/local/") {
		return false // often the user's own (Homebrew's, a group's)
	}
	for _, d := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if t == d || strings.HasPrefix(t, d+"/") {
			return true
		}
	}
	return false
}

// linkLeadsOut says whether w, a symlink the run left, leads where
// wrote-only's patterns ps do not allow (see the rule above), and names
// where: a recorded path, else the target.
func (v *linkView) linkLeadsOut(ps []PathPattern, w evidence.Write) (string, bool) {
	shown, kind, known, ok := v.resolve(w)
	if !ok {
		return "", false
	}
	if !known {
		return shown, true
	}
	return shown, !anyPath(ps, shown, kind)
}

// linkLeadsInto says whether w, a symlink the run left, leads where
// no-write's patterns ps forbid, and names where: a write through it
// later (Claude Code's, or the hook's next run) lands there, as it would
// for a link wrote-only judges. Only where the record and the tree say
// for certain where it leads (resolve): a path a pattern matches, or a
// directory above the literal start of a glob (a link to .git/hooks or
// to the work tree's root, of no-write: [.git/hooks/**]).
func (v *linkView) linkLeadsInto(ps []PathPattern, w evidence.Write) (string, bool) {
	shown, kind, known, ok := v.resolve(w)
	if !ok || !known {
		return "", false
	}
	if anyPath(ps, shown, kind) || anyPathFolded(ps, shown, kind) {
		return shown, true
	}
	if kind != "dir" {
		return "", false
	}
	for _, p := range ps {
		if p.holdsBelow(shown) {
			return shown, true
		}
	}
	return "", false
}

// resolve follows w, a symlink the run left, as the rule above says, to
// the recorded path it leads to and that path's kind ("dir" or "file"),
// known true; known false where the rule does not follow it (an absolute
// target, a ".." out of its place, a link on the way, a link the tree
// has, too many hops), shown then naming the target or that tree link,
// or "" where it is an absolute target a write through which lands
// nowhere that matters (systemTarget). ok is false for a write that is
// no symlink to follow.
func (v *linkView) resolve(w evidence.Write) (shown, kind string, known, ok bool) {
	if w.Kind != "symlink" || w.Op == evidence.OpDelete || w.Target == "" {
		return "", "", false, false
	}
	a, rel := area(w.Path)
	target := w.Target
	for hop := 0; ; hop++ {
		if hop >= maxHops || v.work > maxLinkWork {
			return w.Target, "", false, true
		}
		if path.IsAbs(target) {
			if systemTarget(target) {
				return "", "", false, false
			}
			return target, "", false, true
		}
		to, ok := v.walk(a, path.Dir(rel), target)
		if !ok {
			return w.Target, "", false, true
		}
		if next, link, ours := v.isLink(a, to); link {
			if !ours {
				return key(a, to), "", false, true // a link the tree has: where it leads is the host's
			}
			rel, target = to, next
			continue
		}
		shown := key(a, to)
		if to == "." {
			switch a {
			case "":
				shown = "."
			case "/":
				shown = "/"
			default:
				shown = strings.TrimSuffix(a, "/")
			}
		}
		kind := "file"
		if v.isDir(a, to) {
			kind = "dir"
		}
		return shown, kind, true, true
	}
}

// walk follows target's components from dir (a path in place a) by their
// text: false where a ".." climbs out of the place, or a component before
// the last is a link (or passes the work bound).
func (v *linkView) walk(a, dir, target string) (string, bool) {
	cur := dir
	comps := strings.Split(target, "/")
	last := -1 // the index of the last component that names something
	for i, c := range comps {
		if c != "" && c != "." {
			last = i
		}
	}
	for i, c := range comps {
		v.work += len(cur)
		if v.work > maxLinkWork {
			return "", false
		}
		switch c {
		case "", ".":
			continue
		case "..":
			if cur == "." {
				return "", false
			}
			cur = path.Dir(cur)
			continue
		}
		cur = path.Join(cur, c)
		if i != last {
			if _, link, _ := v.isLink(a, cur); link {
				return "", false
			}
		}
	}
	return cur, true
}

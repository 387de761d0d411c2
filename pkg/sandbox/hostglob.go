package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// hostGlob expands filepath.Glob's patterns over the host's files, as
// filepath.Glob does, but lists each directory once however many
// patterns list it (/usr/share for Gradle's and Maven's installations,
// /etc/systemd/system for the drop-ins and the units), with one open and
// getdents64 pass a directory and no os.File: which system-wide files to
// check (systemCredentialFilePaths) is found again in every run, and
// filepath.Glob's listings were most of its cost. A hostGlob serves one
// such look and is then dropped: a listing kept longer would miss a file
// made since.
type hostGlob struct {
	lists map[string][]string
	buf   []byte
}

func newHostGlob() *hostGlob { return &hostGlob{lists: map[string][]string{}} }

// glob is filepath.Glob(pattern) for a well-formed pattern: the paths
// that match, each directory's in the order of their names; a pattern
// without a wildcard is itself where a file (or a link) is there.
func (g *hostGlob) glob(pattern string) []string {
	if !strings.ContainsAny(pattern, `*?[\`) {
		var st unix.Stat_t
		if unix.Lstat(pattern, &st) != nil {
			return nil
		}
		return []string{pattern}
	}
	dir, file := filepath.Split(pattern)
	if dir != "/" {
		dir = strings.TrimSuffix(dir, "/")
	}
	dirs := []string{dir}
	if strings.ContainsAny(dir, `*?[\`) {
		dirs = g.glob(dir)
	}
	var out []string
	for _, d := range dirs {
		for _, n := range g.list(d) {
			if ok, _ := filepath.Match(file, n); ok {
				out = append(out, filepath.Join(d, n))
			}
		}
	}
	return out
}

// list is the sorted names of the directory dir (a link to one
// followed, as filepath.Glob follows it), listed at its first call:
// none where it is missing, not a directory or cannot be read.
func (g *hostGlob) list(dir string) []string {
	if names, ok := g.lists[dir]; ok {
		return names
	}
	var names []string
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0); err == nil {
		if g.buf == nil {
			g.buf = make([]byte, 16<<10)
		}
		if eachDirent(fd, g.buf, func(name []byte, _ byte) { names = append(names, string(name)) }) != nil {
			names = nil
		}
		unix.Close(fd)
		slices.Sort(names)
	}
	g.lists[dir] = names
	return names
}

// unitCheck is what a unit's or drop-in's EnvironmentFile= lines named
// (their values, as environmentFileValues takes them), with the identity
// and change time of the file it was read from, taken before the read.
type unitCheck struct {
	dev, ino    uint64
	size, ctime int64
	values      []string
}

// unitChecks holds unitCheck by a unit's path for the process's later
// runs, as fileChecks does for the files they name: an audit's every run
// looks at the same units, and reading each was the other part of the
// look's cost.
var unitChecks sync.Map

// unitEnvironmentValues is the EnvironmentFile= values of the unit or
// drop-in at u (its link, systemctl link's, followed), read now or, where
// the file it leads to has the device, inode, size and change time it had
// when it was read before, as read then; kept on the terms fileChecks
// keeps a file's check (fileHoldsCredentialAt). A unit that is gone,
// unreadable, of another kind or past maxSystemCredentialFile names none.
func unitEnvironmentValues(u string, t0 int64) []string {
	var st unix.Stat_t
	if unix.Stat(u, &st) != nil {
		return nil
	}
	now := unitCheck{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, ctime: st.Ctim.Nano()}
	if c, ok := unitChecks.Load(u); ok {
		if c := c.(unitCheck); c.dev == now.dev && c.ino == now.ino && c.size == now.size && c.ctime == now.ctime {
			return c.values
		}
	}
	real, err := filepath.EvalSymlinks(u)
	if err != nil {
		return nil
	}
	b, err := readSmallRegular(real, maxSystemCredentialFile)
	if err != nil || b == nil {
		return nil
	}
	now.values = environmentFileValues(b)
	var fs unix.Statfs_t
	if t0 != 0 && now.ctime < t0-racyMargin.Nanoseconds() && unix.Statfs(real, &fs) == nil && ctimeKept(int64(fs.Type)) {
		unitChecks.Store(u, now)
	}
	return now.values
}

// environmentFileValues are the values of the EnvironmentFile= lines of
// a unit's text b: a leading - dropped; a value with a specifier or not
// absolute passed over.
func environmentFileValues(b []byte) []string {
	var out []string
	for _, m := range environmentFileLine().FindAllSubmatch(b, -1) {
		v := strings.TrimPrefix(strings.Trim(strings.TrimSpace(string(m[1])), `"'`), "-")
		if filepath.IsAbs(v) && !strings.Contains(v, "%") {
			out = append(out, v)
		}
	}
	return out
}

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// unmappedSandboxID names the first of the SandboxUID uids (or gids) that
// this process's user namespace does not map, with the file that says
// so, or "" when every one is mapped. A root caller in a rootless
// container (its root mapped, and 65536 ids with it) has none of them:
// the kernel refuses a setuid to one (bubblewrap's fork/exec fails with
// EINVAL), so a run is refused before one is chosen. A map that cannot be
// read refuses nothing: starting bubblewrap says what failed then.
func unmappedSandboxID() (id uint32, file string) {
	for _, f := range []string{"/proc/self/uid_map", "/proc/self/gid_map"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if id, ok := idRangeMapped(string(b), SandboxUID, SandboxUIDs); !ok {
			return id, f
		}
	}
	return 0, ""
}

// idRangeMapped says whether the map text (of /proc/PID/uid_map or
// gid_map, read by a process of that namespace: "inside outside count"
// per line) holds every id from first on, n of them, and when it does
// not, the first id it lacks. A line it cannot parse holds nothing.
func idRangeMapped(text string, first, n uint32) (uint32, bool) {
	type span struct{ lo, hi uint64 } // [lo, hi)
	var spans []span
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		in, err1 := strconv.ParseUint(f[0], 10, 32)
		count, err2 := strconv.ParseUint(f[2], 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		spans = append(spans, span{in, in + count})
	}
	id := uint64(first)
	for end := uint64(first) + uint64(n); id < end; {
		next := id
		for _, s := range spans {
			if s.lo <= id && id < s.hi {
				next = s.hi
				break
			}
		}
		if next == id {
			return uint32(id), false
		}
		id = next
	}
	return 0, true
}

// unmappedRefusal is why a root-owned work tree's run is refused when
// this user namespace lacks the uid it would run as, and what to do.
func unmappedRefusal(dir string, id uint32, file string) string {
	what := "uid"
	if strings.HasSuffix(file, "gid_map") {
		what = "gid"
	}
	return fmt.Sprintf("%s %d is not in this user namespace's %s map (%s: a rootless container's, as a rule, which maps only its own ids), and the work tree %s is root's, whose sandbox runs as an unprivileged uid from %d; fix: give a work tree owned by a non-root user, whom the sandbox then runs as (chown -R 1000:1000 %s), or accept a sandbox whose uid 0 is the host's root with --root-sandbox",
		what, id, what, file, dir, SandboxUID, dir)
}

package fsx

import (
	"os"
	"slices"
	"strings"
)

// Mount is one mount of /proc/self/mountinfo: its mount point (escapes
// undone), its file system type, and its source: the device of the file
// system (major:minor) and the path within it that the mount shows (its
// root: "/" for a whole file system, the directory or file a bind mount
// was made of).
type Mount struct {
	Point, Type string
	Dev, Root   string
}

// Mounts lists the mounts of this process's mount namespace, from
// /proc/self/mountinfo, in the order the kernel lists them; a path mounted
// on more than once is listed as often.
func Mounts() ([]Mount, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return parseMounts(string(b)), nil
}

// MountsAt lists the mounts a mountinfo file lists (/proc/PID/mountinfo:
// another process's mount namespace's, paths in its view), as Mounts.
func MountsAt(mountinfo string) ([]Mount, error) {
	b, err := os.ReadFile(mountinfo)
	if err != nil {
		return nil, err
	}
	return parseMounts(string(b)), nil
}

// parseMounts reads mountinfo's lines: ID PARENT MAJ:MIN ROOT POINT
// OPTIONS [OPTIONAL…] - TYPE SOURCE SUPER-OPTIONS, each field after one
// space. Split at spaces alone: the kernel escapes only space, tab,
// newline and backslash, and a mount point may hold any other byte
// (vertical tab, carriage return, U+00A0), which strings.Fields would
// take for a separator, reading another path and another type.
func parseMounts(mountinfo string) []Mount {
	var out []Mount
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Split(line, " ")
		if len(f) <= 4 {
			continue
		}
		m := Mount{Point: unescapeMountPath(f[4]), Dev: f[2], Root: unescapeMountPath(f[3])}
		if i := slices.Index(f[5:], "-"); i >= 0 && 5+i+1 < len(f) {
			m.Type = f[5+i+1]
		}
		out = append(out, m)
	}
	return out
}

// unescapeMountPath undoes the octal escapes the kernel writes in a mount
// point (and a mount's root) of /proc/self/mountinfo (show_path: space, tab, newline and
// backslash as \040, \011, \012, \134). Compared escaped, a mask at a
// path with a space (a HOME or RUNNER_TEMP of "/opt/actions runner/…") was
// taken for no mount at all and stayed writable for the command.
func unescapeMountPath(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

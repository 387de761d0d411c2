package sandbox

import (
	"io/fs"
	"os"
	"slices"
	"testing"
	"time"
)

// TestHostRunAreas: /run/lock and the caller's /run/user/UID are named
// where the host has each as a directory the caller may write, and only
// there: a link, a file, one the caller may not write or none is passed
// over.
func TestHostRunAreas(t *testing.T) {
	dir := fakeInfo{mode: fs.ModeDir | 0o777}
	for _, c := range []struct {
		name     string
		host     map[string]fakeInfo
		writable []string
		want     []string
	}{
		{"neither", nil, nil, nil},
		{"both", map[string]fakeInfo{"/run/lock": dir, "/run/user/1000": dir}, []string{"/run/lock", "/run/user/1000"}, []string{"/run/lock", "/run/user/1000"}},
		{"another user's runtime dir", map[string]fakeInfo{"/run/lock": dir, "/run/user/1001": dir}, []string{"/run/lock", "/run/user/1001"}, []string{"/run/lock"}},
		{"not writable", map[string]fakeInfo{"/run/lock": dir, "/run/user/1000": dir}, []string{"/run/user/1000"}, []string{"/run/user/1000"}},
		{"a link and a file", map[string]fakeInfo{"/run/lock": {mode: fs.ModeSymlink | 0o777}, "/run/user/1000": {mode: 0o600}}, []string{"/run/lock", "/run/user/1000"}, nil},
	} {
		lstat := func(p string) (os.FileInfo, error) {
			if fi, ok := c.host[p]; ok {
				return fi, nil
			}
			return nil, fs.ErrNotExist
		}
		got := hostRunAreas(1000, lstat, func(p string) bool { return slices.Contains(c.writable, p) })
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: hostRunAreas = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRunAreaMode: the init takes /run/lock and /run/user/UID alone, each
// with the host's usual mode, and refuses any other path.
func TestRunAreaMode(t *testing.T) {
	for p, want := range map[string]os.FileMode{"/run/lock": 0o777 | os.ModeSticky, "/run/user/0": 0o700, "/run/user/1000": 0o700} {
		if got, err := runAreaMode(p); err != nil || got != want {
			t.Errorf("runAreaMode(%q) = %v, %v; want %v", p, got, err, want)
		}
	}
	for _, p := range []string{"/run", "/run/user", "/run/user/", "/run/user/01000", "/run/user/1000/..", "/run/user/x", "/run/secrets", "/run/overlay", "/etc"} {
		if _, err := runAreaMode(p); err == nil {
			t.Errorf("runAreaMode(%q): no error, want a refusal", p)
		}
	}
}

// TestRuntimeDirAlias: a non-root caller's runtime directory is shown
// again at /run/user/0, the uid the command runs as; a root caller's is
// /run/user/0 already, and /run/lock alone or none names no alias.
func TestRuntimeDirAlias(t *testing.T) {
	for _, c := range []struct {
		paths    []string
		from, to string
	}{
		{nil, "", ""},
		{[]string{"/run/lock"}, "", ""},
		{[]string{"/run/lock", "/run/user/0"}, "", ""},
		{[]string{"/run/user/0"}, "", ""},
		{[]string{"/run/lock", "/run/user/1000"}, "/run/user/1000", "/run/user/0"},
		{[]string{"/run/user/65534"}, "/run/user/65534", "/run/user/0"},
	} {
		if from, to := runtimeDirAlias(c.paths); from != c.from || to != c.to {
			t.Errorf("runtimeDirAlias(%q) = %q, %q; want %q, %q", c.paths, from, to, c.from, c.to)
		}
	}
}

type fakeInfo struct{ mode fs.FileMode }

func (f fakeInfo) Name() string       { return "" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return nil }

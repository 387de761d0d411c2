package runner

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// TestTreeErr: an error of reading a declaration file that no dead link
// explains ("cannot read …") names the tree's paths relative to it, not
// where the work tree is on the host.
func TestTreeErr(t *testing.T) {
	c := &claudeDisc{dir: "/srv/link", dirReal: "/srv/tree"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"the file itself", &fs.PathError{Op: "open", Path: "/srv/tree/.claude/agents/x.md", Err: syscall.EACCES}, "permission denied"},
		{"the file by the tree's name", &fs.PathError{Op: "lstat", Path: "/srv/link/.claude/agents/x.md", Err: syscall.EACCES}, "permission denied"},
		{"a directory on the way", &fs.PathError{Op: "lstat", Path: "/srv/tree/.claude/agents", Err: syscall.EACCES}, ".claude/agents: permission denied"},
		{"what a link leads to", &fs.PathError{Op: "open", Path: "/srv/tree/src/agents/x.md", Err: syscall.EIO}, "src/agents/x.md: input/output error"},
		{"a path outside", &fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}, "permission denied"},
		{"another error naming the tree", errors.New("/srv/link/.claude/agents/x.md: something else"), ".claude/agents/x.md: something else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.treeErr(".claude/agents/x.md", tt.err); got != tt.want {
				t.Errorf("treeErr = %q, want %q", got, tt.want)
			}
		})
	}
}

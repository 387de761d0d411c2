package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vigiles/action/internal/safewrite"
)

// The action writes files at paths its inputs name in the workspace (the
// sarif file; the runner writes the baseline) and reads the repository
// there. The workspace is a checkout of the code under review, which can
// commit symbolic links: `v.sarif -> /some/victim`, or a directory
// `out -> /elsewhere`. Whether a path stays inside is a question of where
// its links lead, not of its text (insideWorkspace), and in a container
// the engine runs as root with RUNNER_TEMP mounted at the same path, so
// a file written through such a link could be the runner's own (its event
// file, a later step's file commands). The runner refuses such links for
// .vigiles.yml and the baseline inside the repository (its beneath and
// linkedOut, which it does not export); resolveInWorkspace looks a path
// up with the same lookup (safewrite.Resolve), one component at a time,
// against the workspace, and writeInWorkspace writes as the runner's
// WriteBaseline does (internal/safewrite), to a temporary file in the
// checked directory, held open, renamed over the name, so that a link put
// in its place at the last moment is replaced, not followed.

// afterResolve, when set (by tests), runs between the lookup and the
// write: where a link put in place at the last moment would be.
var afterResolve func()

// linkedOutError is a path of the workspace that a symbolic link leads
// out of it.
type linkedOutError struct {
	link   string // the link, relative to the workspace
	target string // what it says
}

func (e *linkedOutError) Error() string {
	return fmt.Sprintf("the symbolic link %s (-> %s) leads it outside the workspace; vigiles does not write or read there", e.link, e.target)
}

// realWorkspace is the workspace's absolute path with every link
// followed: the runner's choice, not the repository's.
func realWorkspace(ws string) (string, error) {
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// resolveInWorkspace looks rel (relative to the workspace ws) up as the
// kernel would, following every symbolic link of the part that exists,
// and returns where it leads: an absolute path under the workspace's real
// path whose existing part holds no link (what does not exist yet is
// made there). A link that leads outside, by an absolute target or by
// "..", is a *linkedOutError, found before anything outside is looked at.
// The lookup is safewrite.Resolve's, the runner's own for the repository.
func resolveInWorkspace(ws, rel string) (string, error) {
	root, err := realWorkspace(ws)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is not relative to the workspace", rel)
	}
	p, _, err := safewrite.Resolve(root, rel, true)
	if errors.Is(err, safewrite.ErrOutside) {
		return "", fmt.Errorf("%s climbs out of the workspace", rel)
	}
	if err != nil {
		return "", inWorkspace(root, err)
	}
	return p, nil
}

// inWorkspace says err of safewrite's in the workspace's words: a
// *safewrite.LinkedOutError is a *linkedOutError, its link relative to
// the workspace's real path root, which the inputs are relative to.
func inWorkspace(root string, err error) error {
	var lo *safewrite.LinkedOutError
	if !errors.As(err, &lo) {
		return err
	}
	l, _ := filepath.Rel(root, lo.Link)
	return &linkedOutError{link: filepath.ToSlash(l), target: lo.Target}
}

// writeInWorkspace writes data to the file rel names in the workspace ws,
// or where a link at that name leads inside it (resolveInWorkspace),
// making its directories: its directory is opened from the workspace's
// root with each link followed only while it stays inside, the missing
// directories made on the way (safewrite.OpenDirWithin, as the runner's
// WriteBaseline does), so a link leading out is refused however late it
// was put there; the file goes through a temporary file there renamed over
// the name (safewrite.Replace), which replaces whatever has the name, a
// link too, without following it. The file is 0644.
func writeInWorkspace(ws, rel string, data []byte) error {
	d, name, err := dirInWorkspace(ws, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	return safewrite.Replace(d, d.Name(), name, data, 0o644)
}

// dirInWorkspace opens the directory of the file rel names in the
// workspace ws, or of where a link at that name leads inside it
// (resolveInWorkspace), making the directories that are missing, each
// link on the way followed only while it stays inside
// (safewrite.OpenDirWithin); it returns the directory and the file's name
// in it. A link leading out is a *linkedOutError.
func dirInWorkspace(ws, rel string) (*os.File, string, error) {
	root, err := realWorkspace(ws)
	if err != nil {
		return nil, "", err
	}
	// Where it leads: a link at the name that stays inside is followed.
	p, err := resolveInWorkspace(ws, rel)
	if err != nil {
		return nil, "", err
	}
	if afterResolve != nil {
		afterResolve()
	}
	d, err := safewrite.OpenDirWithin(root, filepath.Dir(p))
	if err != nil {
		return nil, "", inWorkspace(root, err)
	}
	return d, filepath.Base(p), nil
}

package sandbox

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// checkEnvFile says what is wrong with Spec's EnvFile and EnvFileVar: the
// path must be clean, relative to HOME and beneath it, and come with a
// variable to name it.
func checkEnvFile(p, name string) error {
	if p == "" && name == "" {
		return nil
	}
	if !beneathHome(p) {
		return fmt.Errorf("env file %q: want a clean path relative to HOME, beneath it", p)
	}
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("env file %q: want a variable name to give it to the command", p)
	}
	return nil
}

// beneathHome says whether p is a clean path relative to HOME, beneath it.
func beneathHome(p string) bool {
	return !strings.ContainsRune(p, 0) && p != "" && p != "." && !path.IsAbs(p) && path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../")
}

// checkHomeDirs checks Spec.HomeDirs.
func checkHomeDirs(dirs []string) error {
	for _, d := range dirs {
		if !beneathHome(d) {
			return fmt.Errorf("home directory %q: want a clean path relative to HOME, beneath it", d)
		}
	}
	return nil
}

// HomeFilesFit says what is wrong with spec.HomeFiles, as the broker
// checks them: each path clean and beneath HOME; none where a made
// directory (HomeDirs), the env file or another made file must be, nor
// above one of those (where one of them is a directory of its path), nor
// beneath the env file; none with a name longer than NAME_MAX (255
// bytes) or a path longer than PATH_MAX, which the init could not make;
// none at, above or in the work tree's place where
// the tree lies in the command's HOME (/root/proj: the init mounts it
// there, over what it made, which the command would never see and the
// record would read as changed); at most MaxHomeFiles of them, of at most
// MaxHomeFileBytes together. A made file may lie in a made directory,
// or in the env file's directory.
func HomeFilesFit(spec Spec) error {
	if len(spec.HomeFiles) > MaxHomeFiles {
		return fmt.Errorf("%d home files: at most %d", len(spec.HomeFiles), MaxHomeFiles)
	}
	total := 0
	tree, inHome := treeInHome(spec.Dir)
	for _, f := range slices.Sorted(maps.Keys(spec.HomeFiles)) {
		if !beneathHome(f) {
			return fmt.Errorf("home file %q: want a clean path relative to HOME, beneath it", f)
		}
		if len(sandboxHome)+1+len(f) >= unix.PathMax || slices.ContainsFunc(strings.Split(f, "/"), func(n string) bool { return len(n) > unix.NAME_MAX }) {
			// A work tree's transcript at a long path: the init
			// could make none, and would refuse the run.
			return fmt.Errorf("home file %q: a name longer than %d bytes, or a path longer than %d", f, unix.NAME_MAX, unix.PathMax-1)
		}
		total += len(spec.HomeFiles[f])
		// The paths that must stay free of it: at f or beneath it.
		clash := func(p string) bool { return p == f || strings.HasPrefix(p, f+"/") }
		for _, d := range spec.HomeDirs {
			if clash(d) {
				return fmt.Errorf("home file %q: the home directory %q is to be made there", f, d)
			}
		}
		if inHome && (tree == "." || clash(tree) || strings.HasPrefix(f, tree+"/")) {
			return fmt.Errorf("home file %q: the work tree is to be mounted there, over it", f)
		}
		if spec.EnvFile != "" && (clash(spec.EnvFile) || strings.HasPrefix(f, spec.EnvFile+"/")) {
			return fmt.Errorf("home file %q: the env file %q is to be there", f, spec.EnvFile)
		}
		for g := range spec.HomeFiles {
			if g != f && clash(g) {
				return fmt.Errorf("home file %q: the home file %q is to be made beneath it", f, g)
			}
		}
	}
	if total > MaxHomeFileBytes {
		return fmt.Errorf("home files of %d bytes together: at most %d", total, MaxHomeFileBytes)
	}
	return nil
}

// readEnvFile reads what the command left at rel under home (the scratch
// directory mounted as its HOME) once every process of the run is gone, so
// nothing changes it while it is read. It follows no symbolic link, at the
// path's end or on the way: what a link leads to is not the command's to
// show (the init may read what the command could not), so a link is
// reported as one, unread. Nothing there, or a file where a directory of
// the path should be, is kind "none".
func readEnvFile(home, rel string) (*evidence.EnvFile, error) {
	empty := ""
	ef := &evidence.EnvFile{Path: "~/" + rel, Kind: "none", Content: &empty}
	p := home
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		p += "/" + part
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				return ef, nil
			}
			return nil, err
		}
		last := i == len(parts)-1
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if last {
				ef.Kind = "dir"
			}
			continue
		case unix.S_IFLNK:
			ef.Kind = "symlink"
		case unix.S_IFREG:
			if last {
				return readEnvContent(ef, p)
			}
			// a file where a directory should be: no env file
		default:
			ef.Kind = "other"
		}
		return ef, nil
	}
	return ef, nil
}

// readEnvContent reads at most evidence.MaxEnvFile bytes of the regular
// file at p into ef.
func readEnvContent(ef *evidence.EnvFile, p string) (*evidence.EnvFile, error) {
	f, st, err := openRegularAt(unix.AT_FDCWD, p)
	if errors.Is(err, errNotRegular) {
		return nil, fmt.Errorf("%s changed while it was read", ef.Path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, evidence.MaxEnvFile+1))
	if err != nil {
		return nil, err
	}
	ef.Kind, ef.Size = "file", st.Size
	if len(b) > evidence.MaxEnvFile {
		b, ef.Truncated = b[:evidence.MaxEnvFile], true
	}
	if int64(len(b)) < st.Size {
		ef.Truncated = true
	}
	if ef.Truncated {
		// Cut at a character's start, not inside one.
		i := len(b) - 1
		for i > 0 && len(b)-i < utf8.UTFMax && !utf8.RuneStart(b[i]) {
			i--
		}
		if i >= 0 && !utf8.FullRune(b[i:]) {
			b = b[:i]
		}
	}
	s := string(b)
	if !utf8.ValidString(s) {
		s, ef.Encoding = base64.StdEncoding.EncodeToString(b), "base64"
	}
	ef.Content = &s
	return ef, nil
}

// treeInHome is where the work tree dir (the working directory when "")
// lies relative to the command's HOME, as the broker resolves it ("."
// for HOME itself), and whether it lies there at all.
func treeInHome(dir string) (string, bool) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if abs == sandboxHome {
		return ".", true
	}
	return strings.CutPrefix(abs, sandboxHome+"/")
}

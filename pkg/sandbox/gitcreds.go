package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/vigiles/action/internal/procwait"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"golang.org/x/sys/unix"
)

// Git credentials in and around the work tree.
//
// A CI checkout leaves the job's token in the repository's git config:
// actions/checkout writes `http.<url>.extraheader = AUTHORIZATION: basic …`
// into .git/config (and into every submodule's config) unless told
// persist-credentials: false, and scripts put `https://user:TOKEN@host`
// into remote URLs. The work tree is the one part of the host a command
// must see, so these are hidden the way the command sees them:
//
//   - in the work tree (its .git/config, .git/modules/**/config), the init
//     puts a scrubbed copy of each such file in a layer of its own above the
//     tree (credentialLayer), so the command sees the config without the
//     credentials and may still change it; the write record is read against
//     that layer (a run that leaves the scrubbed file as it was wrote
//     nothing);
//   - outside it (the repository of a work tree that is a subdirectory, a
//     submodule's git dir, a linked worktree's, a common dir, another
//     checkout in the CI workspace beside the tree), the broker has
//     bubblewrap cover each such file that the command could see with a
//     read-only scrubbed copy (outsideGitConfigs, plan.DataFiles).
//
// Not only the tree's own repository: the broker searches the tree (the
// CI workspace, where the tree lies in one the command sees) for every
// directory holding a .git and every bare git dir (gitTreesUnder), since a
// job may check out several repositories, or keep a mirror or a cache of
// one, each with the token in its own config; the init scrubs those in the
// tree (initConfig.NestedGits) like the tree's own.
// A CI runner's other workspaces are masked whole (callerSecrets).

// credentialsFix is the fix a run refused for credentials it could not
// hide names.
const credentialsFix = "check out without persisting them (actions/checkout: persist-credentials: false), or remove them from the repository's git config"

// scrubGitConfig returns the text of a git config file without the
// credentials a CI checkout or a script leaves in it: every `extraheader`
// variable, every `credential.helper` (an inline helper, `!f() { echo
// password=…; }; f`, holds the token itself, and a helper is no use in a
// sandbox that reaches no host by it), `sendemail.smtpPass`, each with its
// continuation lines; the password of every URL that carries one, the whole
// user part of an http(s) URL, and the value of a URL's token-like query
// parameter (`?access_token=…`). changed says whether anything was taken
// out.
func scrubGitConfig(in []byte) (out []byte, changed bool) {
	b := in
	var buf bytes.Buffer
	dropping := false // a dropped variable's value goes on
	section := ""     // the section the lines are in, lower case, without its subsection
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		b = b[len(line):]
		if dropping {
			dropping = continues(line)
			continue
		}
		rest := bytes.TrimLeft(line, " \t")
		if len(buf.Bytes()) == 0 && len(in)-len(b) == len(line) {
			// git skips a UTF-8 byte order mark that starts the file.
			rest = bytes.TrimLeft(bytes.TrimPrefix(rest, []byte("\xef\xbb\xbf")), " \t")
		}
		var head []byte // section headers, which a variable may follow on their line
		for len(rest) > 0 && rest[0] == '[' {
			end := headerEnd(rest)
			if end < 0 {
				break
			}
			section = sectionName(rest[1:end])
			head, rest = line[:len(line)-len(rest)+end+1], bytes.TrimLeft(rest[end+1:], " \t")
		}
		if !secretVariable(section, rest) {
			buf.Write(line)
			continue
		}
		if len(head) > 0 {
			buf.Write(head)
			buf.WriteByte('\n')
		}
		dropping = continues(rest)
	}
	out = urlPassword().ReplaceAll(buf.Bytes(), []byte("${1}@"))
	out = httpUser().ReplaceAll(out, []byte("${1}"))
	out = queryToken().ReplaceAll(out, []byte("${1}"))
	return out, !bytes.Equal(out, in)
}

// urlPassword matches the user information of a URL that has a password:
// scheme://user:password@; a quote or a line continuation git reads
// through (`x:"TOKEN"@`, `x:TO\` then `KEN@`) is part of it.
var urlPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://(?:[^\s/@:"]|\\\r?\n)*):(?:[^\s/@]|\\\r?\n)*@`)
})

// httpUser matches the user information of an http(s) URL, password or
// not: a token is often given as the user name alone
// (https://TOKEN@host/…), and an http remote needs no user name of the
// config's. An ssh URL keeps its user (git@), which names no secret.
var httpUser = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(https?://)(?:[^\s/@]|\\\r?\n)*@`)
})

// queryToken matches the value of a URL query parameter whose name says
// it holds a credential (GitLab's private_token, OAuth's access_token, a
// signed URL's sig): what stays is the parameter's name and its '='.
var queryToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)([?&;](?:access_token|private_token|oauth_token|id_token|job_token|token|auth|password|passwd|secret|api_?key|key|sig|signature)=)[^&;#\s"]+`)
})

// sectionName returns the section of a header's text (what lies between
// its brackets), lower case: `credential "https://x"` and the old
// `credential.https://x` are both credential.
func sectionName(h []byte) string {
	h = bytes.TrimLeft(h, " \t")
	if i := bytes.IndexAny(h, " \t\".]"); i >= 0 {
		h = h[:i]
	}
	return strings.ToLower(string(h))
}

// secretVariable says whether s (leading blanks allowed), a line of a
// config in section, starts a variable that holds a credential: an
// extraheader in any section, a credential helper, sendemail's password.
func secretVariable(section string, s []byte) bool {
	switch {
	case isVariable(s, "extraheader"):
		return true
	case section == "credential":
		return isVariable(s, "helper")
	case section == "sendemail":
		return isVariable(s, "smtppass")
	}
	return false
}

// headerEnd returns the index of the ']' that ends the section header at
// the start of s, or -1: a quoted subsection may hold ']' and escapes.
func headerEnd(s []byte) int {
	quoted := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			return -1
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return i
		}
	}
	return -1
}

// isVariable says whether s (leading blanks allowed) starts a variable
// of that name (lower case); git's variable names are case-insensitive.
func isVariable(s []byte, name string) bool {
	s = bytes.TrimLeft(s, " \t")
	if len(s) < len(name) || !strings.EqualFold(string(s[:len(name)]), name) {
		return false
	}
	if len(s) == len(name) {
		return true
	}
	c := s[len(name)]
	return !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// continues says whether a line goes on on the next one: it ends in an odd
// number of backslashes. A backslash ending a comment does not continue a
// line in git, but dropping one line too many is safe, one too few is not.
func continues(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	n := 0
	for n < len(line) && line[len(line)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// gitDir resolves the git dir of a repository whose work tree is dir:
// dir/.git itself when a directory, or where a symlink there or a
// `gitdir: PATH` file leads. It returns "" when there is none.
func gitDir(dir string) string { return gitDirMapped(dir, nil) }

// gitDirsOf lists the git dirs of dir, a directory gitTreesUnder found (or
// the tree, or one above it): the one its .git leads to (gitDirMapped), and
// dir itself where it is a bare git dir (bareGitDir). A directory may be
// both; each holds configs of its own.
func gitDirsOf(dir string, mapAbs func(string) string) []string {
	var out []string
	if g := gitDirMapped(dir, mapAbs); g != "" {
		out = append(out, g)
	}
	if bareGitDir(dir) && !slices.Contains(out, filepath.Clean(dir)) {
		out = append(out, filepath.Clean(dir))
	}
	return out
}

// bareGitDir says whether the directory dir (not a link) is a bare git dir
// (bareAt).
func bareGitDir(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return bareAt(fd)
}

// bareAt says whether the open directory fd is a bare git dir (git clone
// --bare or --mirror, a CI cache of one, a submodule's git dir): one that
// holds a HEAD (a regular file, or a link, which old gits made and git
// still reads; not followed), an objects directory and a regular config,
// the one file of it that keeps a token. git's own test is HEAD, objects
// and refs; refs is not asked for: a copy that dropped empty directories
// (an artifact, some caches) or whose refs are all packed may lack it, and
// its config is as readable to the command without it. objects must be a
// directory, not a link, as git makes it.
func bareAt(fd int) bool {
	var st unix.Stat_t
	if unix.Fstatat(fd, "HEAD", &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG && st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return false
	}
	if unix.Fstatat(fd, "objects", &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	return unix.Fstatat(fd, "config", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
}

// gitDirMapped is gitDir, with an absolute path the symlink or the
// gitdir file names read where mapAbs says (nil: where it says).
func gitDirMapped(dir string, mapAbs func(string) string) string {
	p := filepath.Join(dir, ".git")
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return p
	case fi.Mode()&fs.ModeSymlink != 0:
		var t string
		if mapAbs != nil {
			t, err = evalMapped(p, mapAbs)
		} else {
			t, err = filepath.EvalSymlinks(p)
		}
		if err != nil {
			return ""
		}
		return t
	case fi.Mode().IsRegular() && fi.Size() < 4096:
		b, err := readGitFile(p)
		if err != nil {
			return ""
		}
		t, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if t = strings.TrimSpace(t); !ok || t == "" {
			return ""
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		if mapAbs != nil {
			// Its links too, each hop read where mapAbs says.
			if r, err := evalMapped(t, mapAbs); err == nil {
				return r
			}
		}
		return filepath.Clean(t)
	}
	return ""
}

// evalMapped is filepath.EvalSymlinks of the absolute path p, each
// absolute path on the way (p itself, and every link's target) read where
// mapAbs says: a link of the tree that names a place in the tree by its
// host path is followed into the tree the init reads, hop by hop.
func evalMapped(p string, mapAbs func(string) string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: not absolute", p)
	}
	p = mapAbs(filepath.Clean(p))
	for hops := 0; hops < 40; hops++ {
		parts := strings.Split(p, "/")[1:]
		cur, link := "/", false
		for i, part := range parts {
			next := filepath.Join(cur, part)
			fi, err := os.Lstat(next)
			if err != nil {
				return "", err
			}
			if fi.Mode()&fs.ModeSymlink == 0 {
				cur = next
				continue
			}
			t, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(t) {
				t = mapAbs(filepath.Clean(t))
			} else {
				t = filepath.Join(cur, t)
			}
			p = filepath.Join(append([]string{t}, parts[i+1:]...)...)
			link = true
			break
		}
		if !link {
			return p, nil
		}
		p = mapAbs(filepath.Clean(p))
	}
	return "", unix.ELOOP
}

// gitConfigs lists the config files of the git dir g (gitScan.configs,
// for one git dir alone).
func gitConfigs(g string) ([]string, error) { return (&gitScan{}).configs(g) }

// gitScan reads the git configs of one run: each git dir, common dir and
// modules directory once by its path (any number of .git files may name
// one shared git dir), the entries it reads bounded for the run, not per
// git dir, and each config read and scrubbed once (by device and inode:
// hard links of one share its copy), the copies kept bounded in all
// (maxGitKept): a repository's .git is its own to make as large, and as
// linked, as it likes. A directory is known by its path, not its inode:
// the callers keep a config by where its path lies (in the tree or not),
// so one reached by two paths is listed under each, and two spellings of
// one large directory cost its entries twice, within the one bound.
type gitScan struct {
	// mapAbs, where set, says where an absolute commondir is read
	// (treeCredentials); nil reads it where it says.
	mapAbs  func(string) string
	walked  map[string]bool
	entries int
	read    map[devIno]scrubbed
	kept    int64
}

type devIno [2]uint64

type scrubbed struct {
	clean   []byte
	changed bool
}

// maxGitKept bounds the bytes of the scrubbed copies of one run's git
// configs: past it the run is refused (fail closed), not run with some
// of them unscrubbed.
const maxGitKept = 64 << 20

// linksOf is the number of names the file fi has (1 where not known).
func linksOf(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func keyOf(fi os.FileInfo) (devIno, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return devIno{}, false
	}
	return devIno{uint64(st.Dev), st.Ino}, true
}

// first says whether the directory d (by its cleaned path) is met for
// the first time in the scan.
func (s *gitScan) first(d string) bool {
	d = filepath.Clean(d)
	if s.walked == nil {
		s.walked = map[string]bool{}
	}
	if s.walked[d] {
		return false
	}
	s.walked[d] = true
	return true
}

// configs lists the config files of the git dir g: its own, its common
// dir's (a linked worktree's), its submodules' (modules/**/config) and its
// linked worktrees' own (worktrees/*/config.worktree: a worktree the
// command does not see, or that lies outside what was searched, leaves it
// in view in the git dir), leaving out the directories the scan has met
// already. Errors that only
// mean a file is missing or unreadable are no error: what cannot be read
// here is no more readable to the command.
func (s *gitScan) configs(g string) ([]string, error) {
	var out []string
	// config, and config.worktree, a worktree's own (git config
	// --worktree, with extensions.worktreeConfig).
	addConfig := func(d string) {
		for _, name := range []string{"config", "config.worktree"} {
			if fi, err := os.Lstat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
				out = append(out, filepath.Join(d, name))
			}
		}
	}
	// A submodule's name may contain '/', so every directory below
	// modules/ but a git dir's own is walked. The walk follows no link (a
	// modules that leads to / would have it read the host's whole file
	// system) and is bounded, as gitTreesUnder is.
	// list lists the directory d once in the scan, within its entry
	// budget; nothing where d is no directory (a link is none), was
	// listed before, or is gone.
	list := func(d string) ([]os.DirEntry, error) {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() || !s.first(d) {
			return nil, nil
		}
		ents, err := os.ReadDir(d)
		if s.entries += len(ents); s.entries > maxGitWalk {
			return nil, fmt.Errorf("listing the git configs of %s: more than %d entries below the modules and worktrees directories of the run's git dirs, more than vigiles reads", g, maxGitWalk)
		}
		if err != nil {
			if ignorable(err) {
				return nil, nil
			}
			return nil, fmt.Errorf("listing the git configs of %s: %w", g, err)
		}
		return ents, nil
	}
	var modules func(d string, depth int) error
	modules = func(d string, depth int) error {
		if depth > 32 {
			return nil
		}
		ents, err := list(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if sub := filepath.Join(d, e.Name()); e.IsDir() && !gitInternal[e.Name()] {
				addConfig(sub)
				if err := modules(sub, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	// A linked worktree's git dir is one level below worktrees/, its name
	// git's own (no '/'); the listing is bounded with the modules'.
	worktrees := func(d string) error {
		ents, err := list(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if sub := filepath.Join(d, e.Name()); e.IsDir() && s.first(sub) {
				addConfig(sub)
			}
		}
		return nil
	}
	dirs := []string{g}
	if b, err := readGitFile(filepath.Join(g, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(g, c)
		} else if s.mapAbs != nil {
			c = s.mapAbs(filepath.Clean(c))
		}
		if c = filepath.Clean(c); c != g {
			dirs = append(dirs, c)
		}
	}
	for _, d := range dirs {
		if !s.first(d) {
			continue
		}
		addConfig(d)
		if err := modules(filepath.Join(d, "modules"), 0); err != nil {
			return nil, err
		}
		if err := worktrees(filepath.Join(d, "worktrees")); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scrub is scrubFile, once for each file (by device and inode: hard links
// of one config are read once and share its copy), with the copies kept
// bounded by maxGitKept.
func (s *gitScan) scrub(p string) ([]byte, bool, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return scrubFile(p)
	}
	k, ok := keyOf(fi)
	clean, changed := []byte(nil), false
	if r, seen := s.read[k]; ok && seen {
		clean, changed = r.clean, r.changed
	} else if clean, changed, err = scrubFile(p); err != nil {
		return nil, false, err
	}
	// Each path gets a copy of its own where the caller puts it (a file
	// of the layer, a memfd): every copy counts, not every inode.
	if changed {
		if s.kept += int64(len(clean)); s.kept > maxGitKept {
			return nil, false, fmt.Errorf("the git configs with credentials the run must cover pass %d bytes in all, more than vigiles keeps (the last: %s)", maxGitKept, p)
		}
	}
	if ok {
		if s.read == nil {
			s.read = map[devIno]scrubbed{}
		}
		r := scrubbed{changed: changed}
		if changed {
			r.clean = clean // only a copy the run keeps is held
		}
		s.read[k] = r
	}
	return clean, changed, nil
}

// readGitFile reads a small file of a git dir (commondir, a .git file):
// a regular file of at most 4 KiB, opened without blocking and without
// following a link, as scrubFile opens a config. A FIFO or a device the
// repository put there (/dev/zero) is read as no file, not waited on or
// read without end.
func readGitFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return nil, fs.ErrNotExist
	}
	return io.ReadAll(io.LimitReader(f, 4096))
}

// gitInternal are the directories of a git dir that hold no config of a
// submodule.
var gitInternal = map[string]bool{"objects": true, "refs": true, "logs": true, "hooks": true,
	"info": true, "lfs": true, "worktrees": true, "rr-cache": true, "branches": true}

func ignorable(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
}

// scrubFile reads the git config file p and returns it scrubbed, and
// whether that took anything out. A file that is missing, unreadable or
// not a regular one holds nothing to take out, to whoever cannot read it.
func scrubFile(p string) (clean []byte, changed bool, err error) {
	b, err := readSmallRegular(p, maxGitConfig)
	if err != nil || b == nil {
		return nil, false, err
	}
	clean, changed = scrubGitConfig(b)
	return clean, changed, nil
}

// treeCredentials lists the git configs in the work tree that hold
// credentials, each scrubbed: those of the tree's own repository and of
// every checkout and bare git dir nested in it (nested: their directories
// relative to the tree, as gitTreesUnder found them), where their git dirs
// lie inside the tree.
// The tree is read where the init sees it (tree), but a .git file, a .git
// link or a commondir may name a git dir by its absolute path on the host
// (git worktree add, git clone --separate-git-dir): a path under host,
// the work tree's own, is read at its place in tree (mapAbs), or no one
// would scrub it: the broker leaves what lies in the tree to the init.
func treeCredentials(tree, host string, nested []string) ([]scrubbedConfig, error) {
	var out []scrubbedConfig
	mapAbs := func(p string) string {
		if host != "" && fsx.Under(p, host) {
			r, _ := filepath.Rel(host, p)
			return filepath.Join(tree, r)
		}
		return p
	}
	scan := gitScan{mapAbs: mapAbs}
	listed := map[string]bool{}
	for _, rel := range slices.Concat([]string{"."}, nested) {
		if !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("a nested checkout %q is not inside the work tree", rel)
		}
		// One the broker found and the sandbox does not have (its name
		// changed on the way, or the tree under the run) would keep its
		// token unscrubbed wherever it now is: refused, not skipped.
		if _, err := os.Lstat(filepath.Join(tree, rel)); err != nil {
			return nil, fmt.Errorf("the nested checkout %q, found before the run, is not there now: %w", rel, err)
		}
		for _, g := range gitDirsOf(filepath.Join(tree, rel), mapAbs) {
			if !fsx.Under(g, tree) {
				continue // outside the tree: the broker's
			}
			configs, err := scan.configs(g)
			if err != nil {
				return nil, err
			}
			for _, c := range configs {
				// A common dir outside the tree is the broker's; a
				// submodule's config is reached from its superproject
				// and from its own .git file.
				if !fsx.Under(c, tree) || listed[c] {
					continue
				}
				listed[c] = true
				clean, changed, err := scan.scrub(c)
				if err != nil {
					return nil, err
				}
				if changed {
					out = append(out, scrubbedConfig{c, clean})
				}
			}
		}
	}
	return out, nil
}

// maxGitWalk bounds the entries gitTreesUnder reads: a larger tree is
// refused (fail closed), not searched in part.
const maxGitWalk = 2_000_000

// gitTreesUnder lists the directories below root (root itself not) that
// hold a .git: checkouts nested in the work tree (actions/checkout's path:
// beside or inside another), submodules, linked worktrees; and those that
// are bare git dirs (bareAt: a mirror, a CI cache of a repository). Each
// may keep a token in its config like the tree's own. Links are not
// followed, no .git directory is entered, nor skip (the work tree, when
// root is the workspace around it; "" for none); a bare git dir is
// entered like any directory (it was before it was looked for: its
// entries cost what they did, and nothing below it goes unsearched); a
// directory root's reader may search but not list is asked for a .git and
// dotenv files by name (gitWalk.byName), and one it may not search is
// skipped (no less hidden from the command).
func gitTreesUnder(root, skip string) ([]string, error) {
	gits, _, err := scanTree(root, skip)
	return gits, err
}

// scanTree is gitTreesUnder, and the dotenv files (isDotenv) of the
// directories it lists, by their paths: the same walk, every directory
// listed once, or found unchanged since this process last walked root
// (treeCache).
func scanTree(root, skip string) (gits, dotenv []string, err error) {
	return trees.scan(root, skip)
}

// isDotenv says whether a file's name is a dotenv file's, where projects
// keep the keys a program reads from its environment (.env, .env.local,
// .env.production, direnv's .envrc), a developer's own or one a CI step
// wrote from the job's secrets, and which git is told to ignore: not a
// template committed for others to copy (.env.example, .env.sample,
// .env.template, .env.dist, .env.defaults, .env.schema).
func isDotenv(name string) bool {
	if name == ".env" || name == ".envrc" {
		return true
	}
	rest, ok := strings.CutPrefix(name, ".env.")
	if !ok || rest == "" {
		return false
	}
	switch strings.ToLower(rest) {
	case "example", "sample", "template", "tmpl", "dist", "defaults", "default", "schema":
		return false
	}
	return true
}

// gitWalk is one search of gitTreesUnder. Directories are opened relative
// to their parent's descriptor, so a tree deeper than PATH_MAX is searched
// too; one an earlier walk recorded is asked for, and opened where it
// changed, by its path relative to root's descriptor (check).
//
// Every directory is listed, a leaf too: a leaf's listing (an open, two
// getdents64 and a close) costs fewer system calls than asking it for its
// .git and a few dotenv names one stat each did, where directories are as
// small as a project's dependencies' (ten files: 191 against 98 ms for a
// tree of 100,000 files in 10,000 directories, BenchmarkGitTreesUnder),
// and it finds every dotenv name, .env.staging too. A subdirectory is
// opened as the listing names it (its d_type), with no stat of its own.
//
// Each directory listed is recorded as a treeNode: what its listing found,
// and its identity and change time as fstat'ed before it was listed. Given
// an earlier walk's nodes of the same root, the walk lists only the
// directories that are not known unchanged since (check), and takes the
// others' findings from their nodes: what a full walk would find, at one
// fstatat a directory (treeCache says why that is sound).
//
// A walk's listing is spread over up to maxWalkers cores (walkShare):
// its system calls are nearly all its cost, and those of two directories
// run side by side in the kernel (a tree of 100,000 files in 10,000
// directories: about 78 against 123 ms on two idle cores, for a tenth
// more CPU time); an earlier walk's directories found unchanged (reuse) are
// checked by the worker that meets them. What a walk finds, and the
// nodes it records, do not depend on how the work was spread
// (TestWalkSpreadsOverWorkers).
type gitWalk struct {
	root, skip string
	buf        []byte // a directory of a thousand files in one read
	out        []string
	dotenv     []string // isDotenv files, by path

	rootFD int             // root's, which an earlier walk's directories are asked relative to
	t0     int64           // CLOCK_REALTIME_COARSE before the walk, in ns; 0: no directory is trusted
	kept   map[uint64]bool // by device: whether its file system stamps ctime itself (ctimeKept)
	listed int             // directories listed by this walk
	reused int             // directories taken unchanged from an earlier walk
	handed int             // halves of a listing handed to another worker (split)

	sh *walkShare // what this walk's workers share
}

// walkShare is what the workers of one walk share. Each worker is a
// gitWalk of its own (its buffer, findings and counts), merged into the
// first's when the walk ends. A worker that goes through a directory's
// subdirectories hands the second half of those left to a worker that
// waits for work, where one does (enterSubs, split): the walk spreads
// over the cores in a few hand-offs, and where no worker waits it costs
// an atomic load a subdirectory.
type walkShare struct {
	seen   atomic.Int64        // entries read by every worker (maxGitWalk)
	tasks  chan func(*gitWalk) // nil: one worker, nothing handed off
	idle   atomic.Int32        // workers waiting for a task
	wg     sync.WaitGroup      // tasks handed off and not yet done
	mu     sync.Mutex
	err    error // the first a worker met
	failed atomic.Bool
}

// maxWalkers bounds the workers of one walk: the cores it may keep busy
// (runtime.GOMAXPROCS, at most this many).
const maxWalkers = 4

// errWalkStopped is what a worker's listing returns once another worker
// failed: the walk's error is that one's (walkShare.err).
var errWalkStopped = errors.New("the walk stopped")

// fail records err as the walk's where it is the first.
func (sh *walkShare) fail(err error) {
	sh.mu.Lock()
	if sh.err == nil && err != errWalkStopped {
		sh.err = err
		sh.failed.Store(true)
	}
	sh.mu.Unlock()
}

// handOff gives t to a worker that waits for work, and says whether one
// took it.
func (sh *walkShare) handOff(t func(*gitWalk)) bool {
	if sh.tasks == nil {
		return false
	}
	sh.wg.Add(1)
	select {
	case sh.tasks <- t:
		return true
	default:
		sh.wg.Done()
		return false
	}
}

// work runs the tasks handed to w until the walk ends.
func (sh *walkShare) work(w *gitWalk) {
	for {
		sh.idle.Add(1)
		t, ok := <-sh.tasks
		sh.idle.Add(-1)
		if !ok {
			return
		}
		t(w)
		sh.wg.Done()
	}
}

// maxGitDepth bounds how deep gitTreesUnder goes: a deeper tree is
// refused, as one of too many entries is.
const maxGitDepth = 1024

// walkTree searches root (skip aside) as gitTreesUnder and scanTree do,
// with old the root's node of an earlier walk (nil: none), whose unchanged
// directories are not listed again, and t0 the coarse realtime clock read
// before it (0: record no directory as trusted). It returns the walk,
// whose out and dotenv are sorted, and root's node.
func walkTree(root, skip string, old *treeNode, t0 int64) (*gitWalk, *treeNode, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if ignorable(err) {
			return &gitWalk{sh: &walkShare{}}, nil, nil
		}
		return nil, nil, err
	}
	defer unix.Close(fd)
	sh := &walkShare{}
	worker := func() *gitWalk {
		return &gitWalk{root: root, skip: skip, rootFD: fd, t0: t0, sh: sh}
	}
	w := worker()
	var others []*gitWalk
	var exited sync.WaitGroup
	if n := min(runtime.GOMAXPROCS(0), maxWalkers); n > 1 {
		sh.tasks = make(chan func(*gitWalk))
		for range n - 1 {
			o := worker()
			others = append(others, o)
			exited.Add(1)
			go func() {
				defer exited.Done()
				sh.work(o)
			}()
		}
	}
	var n *treeNode
	var st unix.Stat_t
	if old != nil && old.trusted && unix.Fstat(fd, &st) == nil && old.same(&st) {
		n, err = w.reuse(".", root, 0, old)
	} else {
		n, err = w.dir(fd, ".", root, 0, old)
	}
	if err != nil {
		sh.fail(err)
	}
	if sh.tasks != nil {
		// This worker joins the others until every task handed off is
		// done, and then they all stop.
		go func() {
			sh.wg.Wait()
			close(sh.tasks)
		}()
		sh.work(w)
		exited.Wait()
	}
	if sh.err != nil {
		return nil, nil, sh.err
	}
	for _, o := range others {
		w.out = append(w.out, o.out...)
		w.dotenv = append(w.dotenv, o.dotenv...)
		w.listed += o.listed
		w.reused += o.reused
		w.handed += o.handed
	}
	slices.Sort(w.out)
	slices.Sort(w.dotenv)
	return w, n, nil
}

// dir searches the open directory fd, at path (rel relative to root), and
// returns its node. old is the node an earlier walk recorded at that path
// (nil: none): a subdirectory of the same name there is checked for reuse
// (check) rather than walked anew, since each is known by its own identity.
func (w *gitWalk) dir(fd int, rel, path string, depth int, old *treeNode) (*treeNode, error) {
	if w.sh.failed.Load() {
		return nil, errWalkStopped
	}
	if depth > maxGitDepth {
		return nil, fmt.Errorf("%s is more than %d directories deep, past what vigiles searches for nested checkouts", w.root, maxGitDepth)
	}
	n := &treeNode{}
	// Its identity and change time before it is listed: a change after
	// this stamps a later ctime (treeCache).
	var st unix.Stat_t
	if w.t0 != 0 && unix.Fstat(fd, &st) == nil { // t0 0: nothing kept
		n.dev, n.ino, n.ctime = uint64(st.Dev), st.Ino, st.Ctim.Nano()
		// One whose children's paths relative to root could not be
		// asked for (PATH_MAX) is listed each time, from its parent.
		n.trusted = len(rel)+1+255 < unix.PathMax && w.trusts(fd, &st)
	}
	w.listed++
	bareNames := 0    // HEAD, objects and config seen, a bit each: bareAt asks what they are
	if w.buf == nil { // a worker's first listing: one that lists none needs none
		w.buf = make([]byte, 64<<10)
	}
	err := eachDirent(fd, w.buf, func(name []byte, typ byte) {
		n.entries++
		switch string(name) {
		case ".git":
			n.dotGit = true
			return
		case "HEAD":
			bareNames |= 1
		case "objects":
			bareNames |= 2
		case "config":
			bareNames |= 4
		}
		if (typ == unix.DT_REG || typ == unix.DT_LNK || typ == unix.DT_UNKNOWN) && isDotenv(string(name)) {
			// Taken where it is a regular file, or a link to one in the
			// tree (nestedGitsFor, hiddenInLayer).
			n.dotenv = append(n.dotenv, string(name))
		}
		// A link is never entered; an entry of no known type is tried
		// as a directory, opened O_NOFOLLOW: what is none is left.
		if typ == unix.DT_DIR || typ == unix.DT_UNKNOWN {
			n.subs = append(n.subs, treeSub{name: string(name)})
		}
	})
	if err != nil {
		if !ignorable(err) {
			return nil, fmt.Errorf("listing %s: %w", path, err)
		}
		n.trusted = false // listed in part
	}
	if bareNames == 7 && !n.dotGit && bareAt(fd) {
		n.bare = true
	}
	if err := w.take(n, path, depth); err != nil {
		return nil, err
	}
	var prev map[string]*treeNode
	if old != nil {
		prev = make(map[string]*treeNode, len(old.subs))
		for _, s := range old.subs {
			prev[s.name] = s.node
		}
	}
	if err := w.enterSubs(fd, n, rel, path, depth, prev, 0, len(n.subs)); err != nil {
		return nil, err
	}
	return n, nil
}

// enterSubs searches the subdirectories of n, the open directory fd at
// path (rel), from the i-th to the one before end, with prev the nodes an
// earlier walk recorded of its subdirectories by name. Where another
// worker of the walk waits for work and two or more are left, it hands
// that worker the second half (split), so that the work spreads in
// halves from wherever it is: a few hand-offs for a tree, not one a
// directory.
func (w *gitWalk) enterSubs(fd int, n *treeNode, rel, path string, depth int, prev map[string]*treeNode, i, end int) error {
	for ; i < end; i++ {
		if end-i > 1 && w.sh.idle.Load() > 0 {
			if mid := i + (end-i)/2; w.split(fd, n, rel, path, depth, prev, mid, end) {
				end = mid
			}
		}
		name := n.subs[i].name
		p := path + "/" + name
		if p == w.skip {
			continue
		}
		sub := joinRel(rel, name)
		var err error
		if o := prev[name]; o != nil && len(sub) < unix.PathMax {
			n.subs[i].node, err = w.check(sub, p, depth+1, o)
		} else {
			n.subs[i].node, err = w.open(fd, name, sub, p, depth+1, o)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// split hands n's subdirectories from the mid-th to the one before end
// (enterSubs) to a worker that waits for work, with a descriptor of its
// own for fd, and says whether one took them. Each subdirectory's node is
// set by the worker that searched it, before the walk ends.
func (w *gitWalk) split(fd int, n *treeNode, rel, path string, depth int, prev map[string]*treeNode, mid, end int) bool {
	c, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return false
	}
	if w.sh.handOff(func(x *gitWalk) {
		defer unix.Close(c)
		if err := x.enterSubs(c, n, rel, path, depth, prev, mid, end); err != nil {
			x.sh.fail(err)
		}
	}) {
		w.handed++
		return true
	}
	unix.Close(c)
	return false
}

// open opens name, a subdirectory of the open directory fd (or its path
// relative to fd), and searches it (dir) as a directory at rel and path;
// what it cannot open as one gives no node (nil), and is tried anew at the
// next walk.
func (w *gitWalk) open(fd int, name, rel, path string, depth int, old *treeNode) (*treeNode, error) {
	c, err := w.openSub(fd, name, path)
	if c < 0 {
		return nil, err
	}
	defer unix.Close(c)
	return w.dir(c, rel, path, depth, old)
}

// openSub opens name, a subdirectory of the open directory fd (or its
// path relative to fd), at path, for listing; -1 where there is none to
// list: one its reader may search but not list is asked by name instead
// (byName), and what is gone or no directory is left.
func (w *gitWalk) openSub(fd int, name, path string) (int, error) {
	// O_NONBLOCK: an entry of no known type that is a FIFO is refused by
	// O_DIRECTORY before any wait, and this says so twice.
	c, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err == unix.EACCES {
		// A directory its reader may search but not list (mode 0711)
		// gives a file whose name is known to whoever may search it: its
		// .git and the commonest dotenv names are asked for by name.
		return -1, w.byName(fd, name, path)
	}
	if err != nil {
		if ignorable(err) {
			return -1, nil
		}
		return -1, fmt.Errorf("listing %s: %w", path, err)
	}
	return c, nil
}

// check searches the directory at rel (path), whose node an earlier walk
// recorded as old: where old is trusted and one fstatat relative to root,
// not following a link, finds the same directory (device, inode) with the
// same ctime, old's findings are taken (reuse); otherwise it is listed
// anew. rel is shorter than PATH_MAX. Its directories were each found the
// same by this walk just before; one the host swaps for a link in between
// is followed as a full walk's descriptor would follow the directory
// moved, a race of the host's with the walk either way, and the next walk
// sees the parent changed.
func (w *gitWalk) check(rel, path string, depth int, old *treeNode) (*treeNode, error) {
	var st unix.Stat_t
	if old.trusted && unix.Fstatat(w.rootFD, rel, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && old.same(&st) {
		return w.reuse(rel, path, depth, old)
	}
	return w.open(w.rootFD, rel, rel, path, depth, old)
}

// reuse takes old's findings for the directory at rel (path), found
// unchanged, and checks its subdirectories. old is left as it is (another
// walk may be reading it): where a subdirectory's node changed, a copy of
// old with the new one is returned.
func (w *gitWalk) reuse(rel, path string, depth int, old *treeNode) (*treeNode, error) {
	if w.sh.failed.Load() {
		return nil, errWalkStopped
	}
	if depth > maxGitDepth {
		return nil, fmt.Errorf("%s is more than %d directories deep, past what vigiles searches for nested checkouts", w.root, maxGitDepth)
	}
	w.reused++
	if err := w.take(old, path, depth); err != nil {
		return nil, err
	}
	var subs []treeSub // old's, copied at the first that changed
	for i, s := range old.subs {
		p := path + "/" + s.name
		if p == w.skip {
			continue
		}
		// A trusted directory's rel leaves room for its children's.
		sub := joinRel(rel, s.name)
		var n *treeNode
		var err error
		if s.node != nil {
			n, err = w.check(sub, p, depth+1, s.node)
		} else {
			n, err = w.open(w.rootFD, sub, sub, p, depth+1, nil)
		}
		if err != nil {
			return nil, err
		}
		if n != s.node && subs == nil {
			subs = slices.Clone(old.subs)
		}
		if subs != nil {
			subs[i].node = n
		}
	}
	if subs == nil {
		return old, nil
	}
	n := *old
	n.subs = subs
	return &n, nil
}

// take adds what the directory at path was found to hold (n) to the
// walk's findings, and its entries to those the walk has read.
func (w *gitWalk) take(n *treeNode, path string, depth int) error {
	seen := w.sh.seen.Add(int64(n.entries))
	if (n.dotGit || n.bare) && path != w.root {
		if len(path) >= unix.PathMax { // gitDir could not read it
			return fmt.Errorf("a checkout %d directories deep in %s has a path longer than vigiles reads", depth+1, w.root)
		}
		w.out = append(w.out, path)
	}
	for _, d := range n.dotenv {
		w.dotenv = append(w.dotenv, path+"/"+d)
	}
	if seen > maxGitWalk {
		return fmt.Errorf("%s holds more than %d files and directories, past what vigiles searches for nested checkouts", w.root, maxGitWalk)
	}
	return nil
}

// trusts says whether the directory fd, whose fstat is st, may be taken
// from this walk's node at a later walk where its ctime is unchanged: on a
// file system that stamps ctime from this kernel's clock (ctimeKept),
// with a ctime older than the walk's start by racyMargin.
func (w *gitWalk) trusts(fd int, st *unix.Stat_t) bool {
	if w.t0 == 0 {
		return false
	}
	kept, ok := w.kept[uint64(st.Dev)]
	if !ok {
		var fs unix.Statfs_t
		kept = unix.Fstatfs(fd, &fs) == nil && ctimeKept(int64(fs.Type))
		if w.kept == nil {
			w.kept = map[uint64]bool{}
		}
		w.kept[uint64(st.Dev)] = kept
	}
	return kept && st.Ctim.Nano() < w.t0-racyMargin.Nanoseconds()
}

// joinRel is name's path relative to root, in the directory at rel.
func joinRel(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// unlistedDotenv are the dotenv names asked for by name in a directory
// the walk may search but not list: the commonest, not every .env.*.
var unlistedDotenv = []string{".env", ".envrc", ".env.local", ".env.production", ".env.development"}

// byName asks name, a directory of the open directory fd that its reader
// may search but not list (or its path relative to fd), at path, for its
// .git and unlistedDotenv. Such a directory has no node: it is asked anew
// at every walk.
func (w *gitWalk) byName(fd int, name, path string) error {
	var st unix.Stat_t
	if unix.Fstatat(fd, name+"/.git", &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		if len(path) >= unix.PathMax {
			return fmt.Errorf("a checkout in %s has a path longer than vigiles reads", w.root)
		}
		w.out = append(w.out, path)
	}
	for _, f := range unlistedDotenv {
		if unix.Fstatat(fd, name+"/"+f, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && (st.Mode&unix.S_IFMT == unix.S_IFREG || st.Mode&unix.S_IFMT == unix.S_IFLNK) {
			w.dotenv = append(w.dotenv, path+"/"+f)
		}
	}
	return nil
}

// nestedGits is what gitTreesUnder found in the work tree.
type nestedGits struct {
	dirs   []string
	dotenv []string // its dotenv files (scanTree)
	err    error
}

// nestedGitsFor gives the init what the tree's walk found, once
// bubblewrap has started: the checkouts nested in it (cfg.NestedGits) and
// its dotenv files (among cfg.CredentialFiles). A nested checkout's git dir
// may lie outside the tree (a linked worktree of a repository elsewhere);
// a config with credentials there, not among those bubblewrap already
// covers (covered), can no longer be hidden, and the run is refused.
func nestedGitsFor(cfg *initConfig, found nestedGits, tree string, covered []scrubbedConfig, v hostView) error {
	if found.err != nil {
		return fmt.Errorf("%w: searching the work tree for checkouts whose git credentials to hide: %v; fix: give a smaller work tree (%s)", ErrRefused, found.err, workTreeFlags)
	}
	for _, n := range found.dirs {
		if rel, err := filepath.Rel(tree, n); err == nil && filepath.IsLocal(rel) {
			cfg.NestedGits = append(cfg.NestedGits, rel)
		}
	}
	// Its dotenv files read as empty, as the credential files the
	// caller's environment names do: a developer's .env or one a CI step
	// wrote holds the host's keys, and what a hook copies of it (into its
	// env file, its output) would reach the report and the baseline.
	// A link (.env -> config/prod.env) is the file it leads to, where
	// that lies in the tree; one out of it leads where the masks decide.
	for _, n := range found.dotenv {
		if fi, err := os.Lstat(n); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if n, err = filepath.EvalSymlinks(n); err != nil {
				continue
			}
		}
		if rel, err := filepath.Rel(tree, n); err == nil && filepath.IsLocal(rel) && !slices.Contains(cfg.CredentialFiles, rel) {
			cfg.CredentialFiles = append(cfg.CredentialFiles, rel)
		}
	}
	var gits []string
	for _, n := range found.dirs {
		for _, g := range gitDirsOf(n, nil) {
			if !fsx.Under(g, tree) {
				gits = append(gits, g)
			}
		}
	}
	late, err := scrubbedOutside(gits, tree, v)
	if err != nil {
		return fmt.Errorf("%w: hiding the git credentials of the checkouts in the work tree: %w; fix: %s", ErrRefused, err, credentialsFix)
	}
	for _, c := range late {
		if !slices.ContainsFunc(covered, func(s scrubbedConfig) bool { return s.path == c.path }) {
			return fmt.Errorf("%w: a checkout in the work tree keeps its git config %s outside the tree, with credentials vigiles does not hide there; fix: %s", ErrRefused, c.path, credentialsFix)
		}
	}
	return nil
}

// gitSearchRoot is where the broker searches for checkouts (gitTreesUnder):
// the work tree, or the CI workspace (GITHUB_WORKSPACE) that holds it where
// the command sees that workspace (a self-hosted runner's, outside the
// masked directories), since its other checkouts are then in view too.
func gitSearchRoot(tree string, v hostView, getenv func(string) string) string {
	ws := getenv("GITHUB_WORKSPACE")
	if ws == "" || !filepath.IsAbs(ws) {
		return tree
	}
	if r, err := filepath.EvalSymlinks(ws); err == nil && r != tree && fsx.Under(tree, r) && v.sees(r) {
		return r
	}
	return tree
}

// hiddenInTree returns a path that a confined run hides (a masked
// directory, a secret file) and that the work tree is or holds, or "".
// The tree is bound whole at its own path, beside the masks, not below
// them: a mask inside it would hide nothing.
func hiddenInTree(tree string, v hostView, files []string) string {
	for _, h := range hiddenPaths(v, files) {
		if fsx.Under(h, tree) {
			return h
		}
	}
	return ""
}

// hiddenPaths are the paths hiddenInTree looks for: the masked
// directories (each of maskedDirs that is a link at where it leads too:
// /var/home, where /home -> var/home; the view holds them, but for
// --strict-fs, which shows none of them and still binds a tree at its
// path), the caller's secrets, the secret files (a glob's directory).
func hiddenPaths(v hostView, files []string) []string {
	hidden := slices.Concat(v.masked, maskedDirs, v.held, files)
	if v.strict {
		hidden = append(hidden, maskedDirsAt(lookupHostPath, filepath.EvalSymlinks)...)
	}
	for _, f := range secretFiles {
		if strings.ContainsAny(f, "*?[") {
			f = filepath.Dir(f)
		}
		hidden = append(hidden, f)
	}
	return hidden
}

// hiddenMountInTree returns a mount point strictly inside the work tree
// whose source is, holds or lies in a path a confined run hides
// (hiddenPaths), that path, and which of the three; or "". The tree is
// shown whole, its mounts with it: the caller's HOME bind-mounted at
// TREE/h showed h/.ssh, though HOME is masked at its own path. Compared by
// path alone, hiddenInTree saw no mask there. A mount's source is its
// file system (major:minor) and its root within it; a hidden path's is
// that of the mount it lies in. A mount whose source lies inside the
// tree's own (a bind of one of the tree's directories at another place in
// it) shows nothing the tree does not; one from elsewhere in the mask the
// tree lies in (another user's home into a tree in /home, a directory of
// /tmp into a tree in /tmp) shows what the mask hides, and is refused.
func hiddenMountInTree(tree string, v hostView, files []string, mounts []fsx.Mount) (point, hidden, how string) {
	// Most trees hold no mount: then no hidden path is resolved (the
	// check runs in every confined run's set-up).
	if inside, _ := mountsInside(tree, mounts); len(inside) == 0 {
		return "", "", ""
	}
	type source struct{ path, dev, root string }
	var sources []source
	for _, h := range hiddenPaths(v, files) {
		r, err := filepath.EvalSymlinks(h)
		if err != nil {
			continue // nothing there to show
		}
		if dev, root, ok := mountSource(r, mounts); ok {
			sources = append(sources, source{h, dev, root})
		}
	}
	rt, err := filepath.EvalSymlinks(tree)
	if err != nil {
		rt = tree
	}
	treeDev, treeRoot, treeKnown := mountSource(rt, mounts)
	for _, m := range mounts {
		if m.Point == tree || !fsx.Under(m.Point, tree) {
			continue
		}
		// A mount of a part of the tree itself (its own file system, a
		// root inside the tree's) shows what the tree shows.
		ownPart := treeKnown && m.Dev == treeDev && fsx.Under(m.Root, treeRoot)
		// A hidden path the mount is or holds is named before one it
		// lies in: a HOME kept in /tmp is named as the HOME.
		lies := ""
		for _, s := range sources {
			switch {
			case m.Dev != s.dev:
			case m.Root == s.root:
				return m.Point, s.path, "is"
			case fsx.Under(s.root, m.Root):
				return m.Point, s.path, "holds"
			case fsx.Under(m.Root, s.root) && !ownPart && lies == "":
				lies = s.path
			}
		}
		if lies != "" {
			return m.Point, lies, "lies in"
		}
	}
	return "", "", ""
}

// mountSource is the file system (major:minor) and the path within it of
// p (absolute, its links resolved), by the mount it lies in: the last
// listed of the deepest mount points that hold it (the one on top).
func mountSource(p string, mounts []fsx.Mount) (dev, root string, ok bool) {
	best := -1
	for i, m := range mounts {
		if fsx.Under(p, m.Point) && (best < 0 || len(m.Point) >= len(mounts[best].Point)) {
			best = i
		}
	}
	if best < 0 {
		return "", "", false
	}
	rel, err := filepath.Rel(mounts[best].Point, p)
	if err != nil {
		return "", "", false
	}
	return mounts[best].Dev, filepath.Join(mounts[best].Root, rel), true
}

type scrubbedConfig struct {
	path  string
	clean []byte
}

// maxGitConfig bounds what is read of one git config; a larger one is an
// error (fail closed), not a config read in part.
const maxGitConfig = 4 << 20

// credentialLayer writes into layer (an empty directory) a scrubbed copy of
// every git config in the work tree lower that holds credentials (its own
// repository's and those of the checkouts nested in it), with each
// directory leading to it given the mode, owner, times and xattrs of the
// tree's, so that the layer, put above the tree, changes nothing else the
// command sees. It returns whether it wrote any.
func credentialLayer(lower, host, layer string, nested, emptied []string) (bool, error) {
	configs, err := hiddenInLayer(lower, lower, host, nested, emptied)
	if err != nil {
		return false, err
	}
	var dirs []string // made in layer, parents first
	made := map[string]bool{".": true}
	for _, c := range configs {
		rel, err := filepath.Rel(lower, c.path)
		if err != nil {
			return false, err
		}
		var chain []string
		for d := filepath.Dir(rel); !made[d]; d = filepath.Dir(d) {
			chain = append(chain, d)
			made[d] = true
		}
		for i := len(chain) - 1; i >= 0; i-- {
			if err := os.Mkdir(filepath.Join(layer, chain[i]), 0o700); err != nil {
				return false, err
			}
			dirs = append(dirs, chain[i])
		}
		dst := filepath.Join(layer, rel)
		if err := os.WriteFile(dst, c.clean, 0o600); err != nil {
			return false, err
		}
		if err := copyState(c.path, dst); err != nil {
			return false, err
		}
	}
	// Children first, so that making one does not move its parent's times.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := copyState(filepath.Join(lower, dirs[i]), filepath.Join(layer, dirs[i])); err != nil {
			return false, err
		}
	}
	return len(configs) > 0, nil
}

// hiddenInLayer is treeCredentials, and an empty copy of each file
// emptied names (relative to tree; credential files the caller's
// environment names: envCredentialFiles) that is a regular file there.
//
// orig is the tree as the host has it (tree itself, or what a copy of it
// was made from): a config with credentials there with a name the scan
// did not find, a hard link elsewhere in the tree, is refused
// (otherNames).
func hiddenInLayer(tree, orig, host string, nested, emptied []string) ([]scrubbedConfig, error) {
	configs, err := treeCredentials(tree, host, nested)
	if err != nil {
		return nil, err
	}
	if err := otherNames(tree, orig, configs); err != nil {
		return nil, err
	}
	for _, rel := range emptied {
		p := filepath.Join(tree, rel)
		if !filepath.IsLocal(rel) || slices.ContainsFunc(configs, func(c scrubbedConfig) bool { return c.path == p }) {
			continue
		}
		// Where a link leads is read where it leads: the broker names
		// files by their real paths, so a link here is not the file.
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			configs = append(configs, scrubbedConfig{path: p, clean: []byte{}})
		}
	}
	return configs, nil
}

// otherNames refuses a config of configs (paths under tree, scrubbed)
// whose file in orig, at the same place, has more names (links) than the
// configs found for it: its other names, hard links elsewhere in the tree
// (cp -al, rsync --link-dest, a tool's own cache of a checkout) or beside
// it, would show the command the credentials the copy at this path hides.
// A name where a mask may hide it is refused as well: its place is not
// known. (The broker's configs outside the tree, the host's system git
// configs and its system-wide files with a credential: tree and orig "/".)
func otherNames(tree, orig string, configs []scrubbedConfig) error {
	found := map[devIno]int{}
	keys := make([]devIno, len(configs))
	links := make([]uint64, len(configs))
	for i, c := range configs {
		rel, err := filepath.Rel(tree, c.path)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("scrubbing %s: not under %s", c.path, tree)
		}
		fi, err := os.Lstat(filepath.Join(orig, rel))
		if err != nil {
			return err
		}
		keys[i], _ = keyOf(fi)
		links[i] = linksOf(fi)
		found[keys[i]]++
	}
	// The first in the scan's order is named: the same refusal each run.
	for i, c := range configs {
		if n := uint64(found[keys[i]]); links[i] > n {
			name, _ := filepath.Rel(tree, c.path)
			if tree == "/" {
				name = c.path
			}
			find := "find -samefile " + name
			if tree == "/" {
				find = "find / -xdev -samefile " + name
			}
			return fmt.Errorf("%s holds credentials and has %d other name(s), hard links no copy shown in its place covers (%s lists them): remove them", name, links[i]-n, find)
		}
	}
	return nil
}

// scrubInPlace takes the credentials out of the git configs of a copy of
// the work tree (the copy method), keeping each file's mode and times. It
// returns what it left in each file it rewrote, by its path under tree:
// the record compares such a file with that, what the command is shown.
// orig is the tree the copy was made from (see hiddenInLayer).
func scrubInPlace(tree, orig, host string, nested, emptied []string) (map[string][]byte, error) {
	configs, err := hiddenInLayer(tree, orig, host, nested, emptied)
	if err != nil {
		return nil, err
	}
	shown := make(map[string][]byte, len(configs))
	for _, c := range configs {
		rel, err := filepath.Rel(tree, c.path)
		if err != nil || !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("scrubbing %s: not under %s", c.path, tree)
		}
		shown[rel] = c.clean
		var st unix.Stat_t
		if err := unix.Lstat(c.path, &st); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_TRUNC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(c.clean)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, c.path, []unix.Timespec{st.Atim, st.Mtim}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, err
		}
	}
	return shown, nil
}

// copyState gives dst the mode, owner (where the user namespace maps it),
// user xattrs and ACLs (where it can) and times of src.
func copyState(src, dst string) error {
	s, err := unix.Open(src, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	d, err := unix.Open(dst, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	var st unix.Stat_t
	if err := unix.Fstat(s, &st); err != nil {
		return err
	}
	copyXattrs(s, d, layerXattrs)
	// An owner the namespace does not map cannot be given.
	_ = unix.Fchown(d, int(st.Uid), int(st.Gid))
	if err := unix.Fchmod(d, st.Mode&0o7777); err != nil {
		return fmt.Errorf("giving %s the state of %s: %w", dst, src, err)
	}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, dst, []unix.Timespec{st.Atim, st.Mtim}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("giving %s the state of %s: %w", dst, src, err)
	}
	return nil
}

// hostView says which host paths a confined run sees at their own path:
// not under a masked directory (nor the tmpfs /tmp and /run, nor the
// runner's directories masked for this run), and with --strict-fs only
// under the system directories it binds.
type hostView struct {
	strict bool
	masked []string
	lookup func(string) (kind, target string)
	// may says whether the sandbox's uid gets perm on a host path (nil:
	// it is the caller's, who got it); what it cannot read needs no
	// mask, and bubblewrap, as that uid, could not put one there.
	may func(p string, perm uint32) bool
	// held are the caller's secrets (callerSecrets), masked or not: a
	// work tree must not hold one (hiddenInTree).
	held []string
}

func (v hostView) reads(p string, perm uint32) bool {
	return v.sees(p) && (v.may == nil || v.may(p, perm))
}

// mayRead is reads answered for the caller too: where the run is the
// caller's own identity (may nil), whether the kernel grants the caller
// perm (access(2): its groups and ACLs count, which bubblewrap, unprivileged,
// cannot drop). A secret only root may read needs no mask then.
func (v hostView) mayRead(p string, perm uint32) bool {
	return v.sees(p) && v.grants(p, perm)
}

// grants is mayRead's question of the permissions alone, for a path the
// run shows though the view does not (a tool cache in the caller's HOME).
func (v hostView) grants(p string, perm uint32) bool {
	if v.may != nil {
		return v.may(p, perm)
	}
	return unix.Access(p, perm) == nil
}

// runView is the host as a run as cred (nil: the caller itself) sees it,
// built once for the broker and the doctor: the fixed masks, then the
// caller's secrets (callerSecrets), which the run also masks: dirs with a
// tmpfs, files with /dev/null.
func runView(strict bool, cred *syscall.Credential, getenv func(string) string) (v hostView, dirs, files []string) {
	v = hostView{strict: strict, lookup: lookupHostPath, masked: []string{"/tmp", "/run"}}
	if !strict {
		// Where bwrapArgs makes them: a link's at the directory it
		// leads to (/var/home, where /home -> var/home).
		v.masked = append(v.masked, maskedDirsAt(lookupHostPath, filepath.EvalSymlinks)...)
	}
	if cred != nil {
		searched := new(sync.Map)
		v.may = func(p string, perm uint32) bool { return mayReachIn(searched, p, cred.Uid, cred.Gid, perm) }
	}
	dirs, files, v.held = callerSecrets(getenv, v, ownHomes(cred), runnerRoots())
	for _, r := range otherRunners(getenv, hostRunnerRoots(), runnerRoots()) {
		if !v.sees(r) || slices.ContainsFunc(dirs, func(d string) bool { return fsx.Under(r, d) }) {
			continue // hidden already (under /home, HOME)
		}
		dirs = slices.DeleteFunc(dirs, func(d string) bool { return fsx.Under(d, r) })
		files = slices.DeleteFunc(files, func(f string) bool { return fsx.Under(f, r) })
		dirs = append(dirs, r)
		v.held = append(v.held, r)
	}
	v.masked = append(v.masked, dirs...)
	return v, dirs, files
}

// hostRunnerRoots lists the directories of the GitHub Actions runners
// of this host that this process can tell, read once a process: those
// running (each process whose program is a runner's: <root>/bin/
// Runner.Listener or Runner.Worker, by /proc/PID/exe where this process
// may read it, every user's for root, the caller's own otherwise, and by
// the command line of another user's, runnerByCmdline), and those
// installed as a service
// (svc.sh install: the WorkingDirectory of a systemd unit
// actions.runner.*.service, or of its drop-ins, runnerUnits), running or
// not.
var hostRunnerRoots = sync.OnceValue(func() []string {
	var roots []string
	readConfigFiles(runnerUnits, maxSystemCredentialFile, func(b []byte) {
		for _, d := range unitWorkingDirs(b) {
			if !slices.Contains(roots, d) {
				roots = append(roots, d)
			}
		}
	})
	// This process's ancestors: one of them that is a runner is the
	// runner it runs under (runnerRoots), and one this process may not
	// read (a step that dropped to another user to start vigiles) is
	// not taken for another by its command line.
	ancestors := map[string]bool{}
	for pid, i := os.Getpid(), 0; pid > 1 && i < 256; i++ {
		ppid, _, err := procwait.Stat(pid)
		if err != nil {
			break
		}
		ancestors[strconv.Itoa(ppid)] = true
		pid = ppid
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if errors.Is(err, fs.ErrPermission) && !ancestors[e.Name()] {
			exe, err = runnerByCmdline(e.Name())
		}
		if err != nil {
			continue
		}
		exe = strings.TrimSuffix(exe, " (deleted)")
		if slices.Contains(runnerBinaries, filepath.Base(exe)) {
			if root := filepath.Dir(filepath.Dir(exe)); !slices.Contains(roots, root) {
				roots = append(roots, root)
			}
		}
	}
	return roots
})

// runnerUnits are where a runner installed as a service (svc.sh install)
// has its systemd unit, and the drop-ins (systemctl edit) that may move
// its WorkingDirectory.
var runnerUnits = []string{"/etc/systemd/system/actions.runner.*.service", "/etc/systemd/system/actions.runner.*.service.d/*.conf"}

// unitWorkingDirs lists the absolute WorkingDirectory settings of the
// unit file b, as systemd reads them: spaces around the =, and a - before
// a directory that may be missing.
func unitWorkingDirs(b []byte) []string {
	var out []string
	for _, line := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' }) {
		k, d, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "WorkingDirectory" {
			continue
		}
		d = strings.TrimPrefix(strings.TrimSpace(d), "-")
		if filepath.IsAbs(d) {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// runnerByCmdline is the program of the process pid, another user's
// whose /proc/PID/exe this process may not read, as its command line
// names it, where that is a runner's (runnerBinaries) by its absolute
// path and a regular file of that name is there: run.sh and the
// service's RunnerService.js start the runner so, and its command line
// is every user's to read. A process may name any program there, but
// only one whose owner could put a runner's program in a directory has
// that directory masked.
func runnerByCmdline(pid string) (string, error) {
	b, err := readSmallRegular(filepath.Join("/proc", pid, "cmdline"), maxSystemCredentialFile)
	if err != nil {
		return "", err
	}
	arg0, _, _ := strings.Cut(string(b), "\x00")
	if !filepath.IsAbs(arg0) || !slices.Contains(runnerBinaries, filepath.Base(arg0)) {
		return "", fs.ErrNotExist
	}
	if fi, err := os.Stat(arg0); err != nil || !fi.Mode().IsRegular() {
		return "", fs.ErrNotExist
	}
	return filepath.Clean(arg0), nil
}

// otherRunners lists, of the host's runners (hosts), those that this
// process does not run under (own, and the one whose work
// folder holds the job's RUNNER_WORKSPACE or RUNNER_TEMP), with their
// links resolved: several runners on one machine (one for each
// repository or organization, each in its own directory, under one
// user) keep their credentials (.credentials_rsaparams, with which a
// process takes that runner's jobs), logs (_diag) and work folder (_work,
// where a job that runs now has its step scripts, secrets filled in, and
// its checkouts) in their directories, which the run masks whole. A
// directory in a system directory (a runner in /usr/local/bin) is passed
// over, as masks there would break the run, and so is one that holds
// /opt.
func otherRunners(getenv func(string) string, hosts, own []string) []string {
	var mine []string
	for _, r := range own {
		if r, err := filepath.EvalSymlinks(r); err == nil {
			mine = append(mine, r)
		}
	}
	var jobs []string
	for _, k := range []string{"RUNNER_WORKSPACE", "RUNNER_TEMP"} {
		if p, err := callerPath(getenv(k)); err == nil {
			jobs = append(jobs, p)
		}
	}
	var out []string
	for _, r := range hosts {
		r, err := filepath.EvalSymlinks(r)
		if err != nil || slices.Contains(mine, r) || slices.Contains(out, r) || systemDir(r) || inSystemDir(r) || fsx.Under("/opt", r) {
			continue
		}
		if slices.ContainsFunc(jobs, func(j string) bool { return fsx.Under(j, r) }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// inMask reports whether p lies strictly inside a directory the run
// replaces with a tmpfs: bubblewrap makes it there itself.
func (v hostView) inMask(p string) bool {
	return slices.ContainsFunc(v.masked, func(m string) bool { return fsx.Under(p, m) && p != m })
}

// hides says whether the run hides p from the command: a mask over it or
// over a directory that holds it, bubblewrap's (v) or one of maskDirs
// (those made after v: the sockets', CI's), or --strict-fs's.
func (v hostView) hides(p string, maskDirs []string) bool {
	return !v.sees(p) || slices.ContainsFunc(maskDirs, func(d string) bool { return fsx.Under(p, d) })
}

// hidesBelow says whether a mask hides p, inside home, that does not hide
// home itself: one between them (~/.config), or p itself.
func (v hostView) hidesBelow(p, home string, maskDirs []string) bool {
	return slices.ContainsFunc(slices.Concat(v.masked, maskDirs), func(d string) bool { return fsx.Under(p, d) && !fsx.Under(home, d) })
}

// inOwnKernelDirs says whether r lies in /dev, /proc or /sys, of which the
// sandbox has its own (its /dev and /proc) or the kernel's (/sys): no file
// there is the caller's, and a mask or a bind there would cover the
// sandbox's own.
func inOwnKernelDirs(r string) bool {
	return fsx.Under(r, "/dev") || fsx.Under(r, "/proc") || fsx.Under(r, "/sys")
}

func (v hostView) sees(p string) bool {
	for _, m := range v.masked {
		if fsx.Under(p, m) {
			return false
		}
	}
	if !v.strict {
		return true
	}
	for _, d := range strictFSDirs {
		if kind, _ := v.lookup(d); kind == "dir" && fsx.Under(p, d) {
			return true
		}
	}
	return false
}

// outsideGitConfigs lists the git configs holding credentials that a
// command in the work tree dir could read outside the tree: those of the
// git dir its .git leads to when that is outside it (a submodule's, a
// linked worktree's), those of every repository above it (a work tree that
// is a subdirectory of a checkout, or of a bare git dir) and those of the
// checkouts and bare git dirs (absolute) that gitTreesUnder found beside
// it or in it, each scrubbed. The broker
// has bubblewrap put each scrubbed copy over its config (plan.DataFiles),
// so git still works there.
func outsideGitConfigs(dir string, nested []string, v hostView) ([]scrubbedConfig, error) {
	var dirs []string
	for d := dir; ; d = filepath.Dir(d) {
		// The tree's own git dir too: its commondir may lead out of the
		// tree (configs in the tree are the init's, below).
		dirs = append(dirs, gitDirsOf(d, nil)...)
		if d == "/" || d == "." {
			break
		}
	}
	for _, n := range nested {
		if v.sees(n) {
			dirs = append(dirs, gitDirsOf(n, nil)...)
		}
	}
	return scrubbedOutside(dirs, dir, v)
}

// systemGitConfigPaths are the system git configs, which every git of the
// host reads whatever repository it is in: a distribution's git's
// (/etc/gitconfig) and that of a git built from source under /usr/local.
// An image or a self-hosted runner set up with git config --system keeps
// a token there as a checkout does in its own (an extraheader, a URL with
// a token in an insteadOf section's name, an inline credential helper),
// and the file is world-readable.
var systemGitConfigPaths = []string{"/etc/gitconfig", "/usr/local/etc/gitconfig"}

// systemCredentialsFix is what to do where a system git config with
// credentials cannot be hidden.
const systemCredentialsFix = "remove the credentials from the host's system git config (git config --system --unset), or keep them in a file only root may read"

// systemGitConfigs lists the system git configs (systemGitConfigPaths,
// and the one the caller's GIT_CONFIG_SYSTEM names, which the command's
// git is not told of and the command may still read) that hold
// credentials and that the command could read, each scrubbed,
// at the path their links lead to, which the copy bubblewrap puts there
// covers for every name that leads to it (a hard link, which it does not,
// refuses the run, as for the configs around the tree).
func systemGitConfigs(v hostView, getenv func(string) string) ([]scrubbedConfig, error) {
	var out []scrubbedConfig
	var scan gitScan
	paths := systemGitConfigPaths
	if p, err := callerPath(getenv("GIT_CONFIG_SYSTEM")); err == nil {
		paths = append(slices.Clip(paths), p)
	}
	reals, err := readableSystemFiles(paths, v)
	if err != nil {
		return nil, err
	}
	for _, real := range reals {
		clean, changed, err := scan.scrub(real)
		if err != nil {
			return nil, err
		}
		if changed {
			out = append(out, scrubbedConfig{path: real, clean: clean})
		}
	}
	if err := otherNames("/", "/", out); err != nil {
		return nil, err
	}
	return out, nil
}

// scrubbedOutside lists, each once and scrubbed, the configs of the git
// dirs gits that hold credentials, lie outside the work tree and that the
// command could read.
func scrubbedOutside(gits []string, tree string, v hostView) ([]scrubbedConfig, error) {
	var out, hidden []scrubbedConfig
	var scan gitScan
	listed := map[string]bool{}
	for _, g := range gits {
		configs, err := scan.configs(g)
		if err != nil {
			return nil, err
		}
		for _, c := range configs {
			if fsx.Under(c, tree) || listed[c] {
				continue
			}
			listed[c] = true
			if !v.reads(c, 0o4) {
				// Hidden at its path (a mask over /tmp or HOME); a
				// name it has elsewhere, a hard link into the work
				// tree, is not.
				if fi, err := os.Lstat(c); err == nil && linksOf(fi) > 1 {
					if _, changed, err := scan.scrub(c); err == nil && changed {
						hidden = append(hidden, scrubbedConfig{path: c})
					}
				}
				continue
			}
			if clean, changed, err := scan.scrub(c); err != nil {
				return nil, err
			} else if changed {
				out = append(out, scrubbedConfig{path: c, clean: clean})
			}
		}
	}
	// The copy bubblewrap puts over each covers its path alone, and a
	// mask a hidden one's: another name (a hard link into the work tree)
	// would show the token.
	if err := otherNames("/", "/", slices.Concat(out, hidden)); err != nil {
		return nil, err
	}
	return out, nil
}

// callerSecrets lists what the caller keeps outside the masked directories
// that the command must not read, as getenv describes this caller: its HOME
// wherever it is (a container job's /github/home, a service account's
// /var/lib/…), its TMPDIR, XDG_RUNTIME_DIR, GNUPGHOME, XDG base
// directories (xdgDirVars) and password store wherever they are (but in a
// system directory, inSystemDir), a CI runner's temporary directory (RUNNER_TEMP: the rendered
// step scripts, the file-command files, which hold what earlier steps put
// in GITHUB_ENV and GITHUB_OUTPUT, the credentials file actions/checkout
// includes from the repository's config), its file-command directories and
// its other workspaces and a self-hosted runner's logs (_diag beside its
// _work directory), each masked with an empty tmpfs; and a self-hosted
// runner's own secret files (runnerSecretFiles, beside its _work
// directory), covered with /dev/null; and homes, the homes the passwd
// file gives the caller and the sandbox's uid (ownHomes), masked as HOME
// is whatever HOME says. Only what a run would see is
// listed, each path absolute (a relative one against the working
// directory, as the caller's tools take it) with its symlinks resolved;
// held lists all of them, seen or not (hiddenInTree).
func callerSecrets(getenv func(string) string, v hostView, homes, runners []string) (dirs, files, held []string) {
	addDir := func(d string) {
		// A relative one (HOME=., TMPDIR=tmp) against the working
		// directory, as the caller's tools take it: passed over, it was
		// shown whole.
		r, err := callerPath(d)
		// A mask over / would hide the whole host (HOME=// or a link
		// to /): the run would fail on a missing /etc. So would one over
		// a system directory or one that holds it (systemDir: a system
		// user's HOME=/bin, XDG_CONFIG_HOME=/etc), which hold the host's
		// programs and configuration, not the caller's own files: it is
		// passed over.
		if err != nil || systemDir(r) || slices.Contains(held, r) {
			return
		}
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			held = append(held, r)
			// The sandbox's /dev is its own (bubblewrap's --dev) and its
			// /dev/shm the run's scratch: nothing of the host's shows
			// there (TMPDIR=/dev/shm/$USER), and a mask would cover the
			// command's own /dev/shm, read-only. Its /proc is its own
			// too (--proc: its own processes alone), and /sys the
			// kernel's, where no file is the caller's: a mask over them
			// (TMPDIR=/proc) would refuse the run for nothing hidden.
			if v.reads(r, 0o1) && !inOwnKernelDirs(r) {
				dirs = append(dirs, r)
			}
		}
	}
	addDir(getenv("HOME"))
	// The caller's own temporary directory, wherever it is: other tools'
	// files and sockets (an ssh-agent's $TMPDIR/ssh-*/agent.*, which
	// answers the sandbox as the caller) are there as in /tmp, which is
	// masked.
	addDir(getenv("TMPDIR"))
	// Its runtime directory, wherever it is (/run/user/UID is masked with
	// /run; a login without systemd-logind's has it in /tmp or /var): its
	// agents' and services' sockets (gpg-agent, dbus, podman, pipewire,
	// ssh-agent), which answer the sandbox as the caller, and its
	// Wayland display. And its GnuPG home moved out of HOME (GNUPGHOME):
	// its private keys and its agent's sockets.
	addDir(getenv("XDG_RUNTIME_DIR"))
	addDir(getenv("GNUPGHOME"))
	// Its XDG base directories moved out of HOME: its config (gh's
	// hosts.yml token, rclone's remotes, any tool's login), its data (its
	// GNOME keyrings, under keyrings/, browser profiles and their cookies),
	// its state (shell history, which holds the secrets typed on a
	// command line) and its cache (a Hugging Face token, sessions);
	// and its password store (pass's PASSWORD_STORE_DIR), whose names
	// say which accounts it has the passwords of.
	// One of them in a system directory (XDG_DATA_HOME=/usr/share,
	// XDG_CONFIG_HOME=/etc/xdg: a careless value) holds the system's
	// files, which the command may need, and no secret of the caller's
	// that the run's uid could read: it is passed over (inSystemDir).
	for _, k := range append(slices.Clip(xdgDirVars), "PASSWORD_STORE_DIR") {
		if r, err := callerPath(getenv(k)); err == nil && !inSystemDir(r) {
			addDir(r)
		}
	}
	// Its Kerberos ticket caches, where KRB5CCNAME names a collection
	// (DIR:): every cache of it, the caller's tickets.
	addDir(krb5CollectionDir(getenv("KRB5CCNAME")))
	for _, h := range homes {
		addDir(h)
	}
	temp := getenv("RUNNER_TEMP")
	addDir(temp)
	for _, k := range []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"} {
		if f := getenv(k); f != "" {
			addDir(filepath.Dir(f))
		}
	}
	// A runner's other workspaces, beside this job's (RUNNER_WORKSPACE):
	// the checkouts of every repository it serves, each with its token in
	// its config. Its tool cache (RUNNER_TOOL_CACHE, _tool there by
	// default) stays, since hooks run the tools set up in it.
	if ws, err := callerPath(getenv("RUNNER_WORKSPACE")); err == nil {
		tools, _ := callerPath(getenv("RUNNER_TOOL_CACHE"))
		root := filepath.Dir(ws)
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			p := filepath.Join(root, e.Name())
			if p != ws && (tools == "" || !fsx.Under(tools, p)) {
				addDir(p)
			}
		}
	}
	// A self-hosted runner's own directory, beside its _work: its logs
	// (_diag), where each worker writes the whole message of every job it
	// ran, of every repository it serves, are masked like the other
	// workspaces; its secret files are covered below.
	// Its directory is known by its _work, or, whatever its work folder
	// (config.sh --work), by the runner the caller runs under (runners).
	if temp != "" && filepath.Base(filepath.Dir(filepath.Clean(temp))) == "_work" {
		runners = append([]string{filepath.Dir(filepath.Dir(filepath.Clean(temp)))}, runners...)
	}
	var runnerRoots []string
	for _, r := range runners {
		if r, err := filepath.EvalSymlinks(r); err == nil && !slices.Contains(runnerRoots, r) {
			runnerRoots = append(runnerRoots, r)
			addDir(filepath.Join(r, "_diag"))
		}
	}
	// One tmpfs over a directory hides what is below it.
	dirs = slices.DeleteFunc(dirs, func(d string) bool {
		return slices.ContainsFunc(dirs, func(o string) bool { return o != d && fsx.Under(d, o) })
	})
	for _, root := range runnerRoots {
		for _, n := range runnerSecretFiles {
			p, err := filepath.EvalSymlinks(filepath.Join(root, n))
			if err != nil || slices.Contains(held, p) {
				continue
			}
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			held = append(held, p)
			if v.reads(p, 0o4) && !slices.ContainsFunc(dirs, func(d string) bool { return fsx.Under(p, d) }) {
				files = append(files, p)
			}
		}
	}
	return dirs, files, held
}

// xdgDirVars name the caller's XDG base directories, each masked whole
// wherever it is (callerSecrets).
var xdgDirVars = []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"}

// systemDir says whether r (absolute, symlinks resolved) is a directory a
// mask must not cover: /, or a system directory (systemDirs), or a
// directory that holds one. Those hold the host's programs and
// configuration, which the command needs and every user reads, not the
// caller's own files; a tmpfs over /usr or /etc would break every run.
// Each is taken where its links lead too: with a merged /usr, HOME=/bin is
// /usr/bin.
func systemDir(r string) bool {
	return slices.ContainsFunc(systemDirs(), func(d string) bool { return fsx.Under(d, r) })
}

// inSystemDir says whether r (absolute, symlinks resolved) lies in a
// system directory (systemDirs): /usr/share, /etc/xdg. A directory in /opt
// (/opt/ci/config) may be the caller's own.
func inSystemDir(r string) bool {
	return slices.ContainsFunc(systemDirs(), func(d string) bool { return fsx.Under(r, d) })
}

// systemDirs are strictFSDirs but /opt and, for each that is a link, where
// it leads, read once a process. /opt holds the tools installed there (a
// hosted runner's tool cache), but no variable names it there; one that
// does (a service user's HOME=/opt) says the caller's own files are there,
// its ~/.ssh among them, and it is masked as any HOME is.
var systemDirs = sync.OnceValue(func() []string { return systemDirsBut(strictFSDirs, "/opt") })

// systemDirsBut returns dirs but skip and, for each that is a link, where
// it leads (not where skip leads: /opt -> /data/opt leaves /data/opt the
// caller's as /opt is).
func systemDirsBut(dirs []string, skip string) []string {
	var out []string
	for _, d := range dirs {
		if d != skip && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, d := range dirs {
		if r, err := filepath.EvalSymlinks(d); d != skip && err == nil && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// runnerBinaries are the names of a GitHub Actions runner's programs in
// its bin directory: a job's steps run below its Runner.Worker, which runs
// below its Runner.Listener.
var runnerBinaries = []string{"Runner.Worker", "Runner.Listener"}

// runnerRoots lists the directories of the runners this process runs
// under: for each ancestor whose program is a runner's (<root>/bin/
// Runner.Worker), <root>, where the runner keeps its credentials and logs
// whatever its work folder. An ancestor whose program cannot be read (a
// process of another user, for a non-root caller) is passed over; a step
// runs as the runner's user. Read once a process: a process's ancestors
// do not change under it, but an audit sets up hundreds of runs.
var runnerRoots = sync.OnceValue(findRunnerRoots)

func findRunnerRoots() []string {
	var roots []string
	pid := os.Getppid()
	for i := 0; pid > 1 && i < 256; i++ {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
			// A runner that updated itself runs on from a file since
			// replaced.
			exe = strings.TrimSuffix(exe, " (deleted)")
			if slices.Contains(runnerBinaries, filepath.Base(exe)) {
				if root := filepath.Dir(filepath.Dir(exe)); !slices.Contains(roots, root) {
					roots = append(roots, root)
				}
			}
		}
		ppid, _, err := procwait.Stat(pid)
		if err != nil {
			break
		}
		pid = ppid
	}
	return roots
}

// runnerSecretFiles are a self-hosted runner's secret files in its own
// directory: its credentials and their key, the credentials of an auth
// migration, its credential store (encrypted with a key drawn from
// /etc/machine-id, which any process reads), and .env, where the runner's
// documentation puts the proxy settings it starts with, credentials in
// the URL (https_proxy=http://user:password@…), which the environment
// allowlist keeps from the command.
var runnerSecretFiles = []string{".credentials", ".credentials_rsaparams", ".credentials_migrated", ".credential_store", ".env"}

// dataFile returns a descriptor, at offset 0, of an anonymous file holding
// b, for bubblewrap's --ro-bind-data.
func dataFile(name string, b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

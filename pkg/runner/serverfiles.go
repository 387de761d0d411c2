package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/vigiles/action/pkg/report"
)

// A server Claude Code starts runs files of the work tree: the program
// its command names where that is a path in the tree, and the script an
// interpreter is given (scriptsRun). A baseline keeps the SHA-256 of each
// (BaselineServer.Files), so that a server.js rewritten under the same
// command line is not the server accepted.

// maxServerFiles bounds the files of the tree a baseline keeps of one
// server; maxServerFileSize the size of one that is hashed. Each is read
// whole, once an audit against a baseline: a bound on the work a tree
// can make it do.
const (
	maxServerFiles    = 64
	maxServerFileSize = 256 << 20
)

// serverFiles are the files of the work tree that sv's command runs
// (dataDir its plugin's data directory, as Server.expand takes it), each
// hashed, sorted by path: never nil. problems says, one a line, what
// could not be hashed (a file with SHA256 "": larger than
// maxServerFileSize, unreadable, no regular file) and where files past
// maxServerFiles were left out: a change there cannot be ruled out.
//
// A stdio server's words are its command and args, expanded; a
// monitor's, a settings command's and a remote server's headersHelper
// are shell lines, every simple command of which is read, and so is the
// line sh -c, bash -c … are given (to maxShellDepth). A relative path is
// taken from the directory the command runs in (the work tree for a
// plugin's, its project's for a project's), and after a cd from where it
// leads; after a cd vigiles cannot follow, only a path that begins with
// ${CLAUDE_PLUGIN_ROOT} or ${CLAUDE_PROJECT_DIR} is. A path that still
// holds a variable, begins with ~, leads out of the tree (by "..", or
// through a symbolic link), or is not there, or is a directory, is not
// among them.
func (s *session) serverFiles(sv *Server, dataDir string) (files []BaselineFile, problems []string) {
	w := s.walkServer(sv, dataDir, true)
	return w.files, w.problems
}

// walkServer walks the files of the tree sv's command runs, as
// serverFiles says, hashing each where hash says so; the walk's missing
// are those it names that are not there.
func (s *session) walkServer(sv *Server, dataDir string, hash bool) *fileWalk {
	pluginRoot, projectDir := sv.dirs()
	w := s.newFileWalk(pluginRoot, projectDir, hash)
	switch {
	case sv.Kind == ServerMod:
		// Its hooks module, and what that imports of the plugin's.
		w.add(sv.Command)
		w.modImports(pluginRoot)
	case sv.Kind == ServerMonitor || sv.Kind == ServerSettings:
		w.line(sv.Command, projectDir, 0)
	case sv.Type == "stdio":
		argv := []string{sv.expand(sv.Command, dataDir)}
		for _, a := range sv.Args {
			argv = append(argv, sv.expand(a, dataDir))
		}
		dir := projectDir
		w.command(argv, &dir, 0)
	case sv.HeadersHelper != "":
		w.line(sv.HeadersHelper, projectDir, 0)
	}
	slices.SortFunc(w.files, func(a, b BaselineFile) int { return strings.Compare(a.Path, b.Path) })
	if w.more {
		w.problems = append(w.problems, fmt.Sprintf("it runs more than the %d files of the tree vigiles hashes for one server: the rest are not compared", maxServerFiles))
	}
	return w
}

// runFiles are, by run id, the files of the work tree that the command
// of each run of plan runs (as serverFiles finds a server's: the program
// where it is a path, the script an interpreter is given, in every
// command of a shell line), each hashed, sorted by path, [] where it runs
// none; and, one a line, what of them could not be hashed. A baseline
// keeps them (BaselineRun.Files), so that a guard script gutted to exit 0
// under the same command, which the audit's payloads show allowing what
// the guard allowed, is not the hook accepted: the command's own drift
// (compareRuns) says of a new command what this says of a new script.
// Read before any hook runs, as the servers' files are (hashServerFiles);
// the walk is hookFiles', hashing. The hooks no payload selects, which a
// baseline accepts as not run (NotRunFiles), are walked here too, each as
// a run of its hook's id.
// A hook's files are hashed once a session (hashedWalks), however many
// runs it has and whoever asks: a shard's plan digest (planDigest) and
// the baseline's comparison of the same runs.
func (s *session) runFiles(plan []*plannedRun) (files map[string][]BaselineFile, unhashed map[string][]string) {
	files, unhashed = map[string][]BaselineFile{}, map[string][]string{}
	if s.hashedWalks == nil {
		s.hashedWalks = map[*Hook]hashedWalk{}
	}
	for _, p := range plan {
		h := p.Hook
		if h == nil || !h.Executable() {
			continue
		}
		wk, ok := s.hashedWalks[h]
		if !ok {
			w, projectDir := s.walkHook(h, true)
			w.sourced(projectDir)
			slices.SortFunc(w.files, func(a, b BaselineFile) int { return strings.Compare(a.Path, b.Path) })
			if w.more {
				w.problems = append(w.problems, fmt.Sprintf("it runs more than the %d files of the tree vigiles hashes for one command: the rest are not compared", maxServerFiles))
			}
			wk = hashedWalk{w.files, w.problems}
			s.hashedWalks[h] = wk
		}
		files[p.ID] = wk.files
		if len(wk.problems) > 0 {
			unhashed[p.ID] = wk.problems
		}
	}
	return files, unhashed
}

// zeroIdioms and sourceIdioms are the ways a shell script names a
// directory of its own, as a word reads once its quotes are gone
// ("$(dirname "$0")/lib.sh" is $(dirname $0)/lib.sh): $0's, the script
// the shell was started with (which a file it sources shares), and
// BASH_SOURCE's, the file the line is in.
var (
	zeroIdioms   = []string{"$(dirname $0)/", "$(dirname ${0})/", "${0%/*}/"}
	sourceIdioms = []string{"$(dirname $BASH_SOURCE)/", "$(dirname ${BASH_SOURCE})/", "$(dirname ${BASH_SOURCE[0]})/", "${BASH_SOURCE%/*}/", "${BASH_SOURCE[0]%/*}/"}
)

// sourced adds to the walk the files of the tree that the shell scripts
// among its files (shellScriptLines) source (. FILE, source FILE) or run
// (scriptsRun of each command of each line), and theirs in turn, to
// maxShellDepth: a guard.sh that sources lib.sh runs lib.sh's code, and
// lib.sh gutted is the guard gutted. A path is read as the hook's command
// reads one (from projectDir, with ${CLAUDE_PLUGIN_ROOT} and
// ${CLAUDE_PROJECT_DIR}), and one that begins with a directory of the
// script's own (zeroIdioms, sourceIdioms) from that directory; another
// variable ($DIR/lib.sh) is not followed.
func (w *fileWalk) sourced(projectDir string) {
	type cand struct {
		p      string
		source bool // sourced: its $0 is the sourcer's
	}
	dirOf := func(rel string) string { return filepath.Join(w.s.dir, filepath.FromSlash(path.Dir(rel))) + "/" }
	depth := map[string]int{}
	zero := map[string]string{} // by file: the file $0 names in it, where not itself
	for i := 0; i < len(w.files); i++ {
		f := w.files[i].Path
		if depth[f] >= maxShellDepth {
			continue
		}
		started := f
		if z, ok := zero[f]; ok {
			started = z
		}
		for _, l := range w.s.shellScriptLines(f) {
			for _, words := range commandsOf(l.text) {
				var cands []cand
				for _, p := range scriptsRun(words) {
					cands = append(cands, cand{p, false})
				}
				if (words[0] == "." || words[0] == "source") && len(words) > 1 {
					cands = append(cands, cand{words[1], true})
				}
				for _, c := range cands {
					p := c.p
					for _, idioms := range []struct {
						l   []string
						dir string
					}{{zeroIdioms, dirOf(started)}, {sourceIdioms, dirOf(f)}} {
						for _, idiom := range idioms.l {
							if rest, ok := strings.CutPrefix(p, idiom); ok {
								p = idioms.dir + rest
							}
						}
					}
					rel, ok := w.s.treePath(p, w.vars, projectDir)
					if !ok || w.seen[rel] {
						continue
					}
					depth[rel] = depth[f] + 1
					if c.source {
						zero[rel] = started
					}
					w.add(rel)
				}
			}
		}
	}
}

// serverMissingScripts names each file of the tree that sv's command
// runs (as serverFiles finds them) that is not there: Claude Code's
// start of it fails (RuleMissingScript). A warning, not an error as for
// a hook: vigiles runs no server, and one that cannot start runs
// nothing; a notice where off (its own finding's "turned off: …; ")
// says the settings turn it off.
func (s *session) serverMissingScripts(sv *Server, dataDir, off string) {
	if sv.Kind == ServerSkillShell {
		return
	}
	w := s.walkServer(sv, dataDir, false)
	for _, rel := range w.missing {
		sev := report.SeverityWarning
		msg := fmt.Sprintf("%s runs %s, which is not in the tree: Claude Code's start of it fails", serverWho(sv), shownName(rel))
		if !sv.InProject && sv.PluginRoot != "." && !strings.HasPrefix(rel, sv.PluginRoot+"/") {
			// Taken from the directory Claude Code starts it in.
			msg += fmt.Sprintf(" (a relative path is taken from the directory Claude Code runs it in, the project's, not the plugin's: write ${CLAUDE_PLUGIN_ROOT}/%s for the plugin's file)", shownName(rel))
		}
		if off != "" {
			sev, msg = report.SeverityNotice, off+msg
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleMissingScript, Severity: sev, Location: sv.Location, Message: msg})
	}
}

// fileWalk gathers the files of the tree a server's commands run
// (serverFiles): each once, in the order named, to maxServerFiles.
type fileWalk struct {
	s        *session
	vars     *strings.Replacer
	seen     map[string]bool
	files    []BaselineFile
	problems []string
	more     bool
	// hash says whether the files are hashed; missing are those named
	// that are not there, in the order named.
	hash    bool
	missing []string
}

// newFileWalk is a walk of the files of the tree the commands of a
// plugin's (pluginRoot, "" for none) or project's, run in projectDir,
// run: hashed where hash says so.
func (s *session) newFileWalk(pluginRoot, projectDir string, hash bool) *fileWalk {
	return &fileWalk{s: s, vars: treeVars(pluginRoot, projectDir), seen: map[string]bool{}, files: []BaselineFile{}, hash: hash}
}

// line reads the shell line text, run in dir (relative to the work tree)
// at depth.
func (w *fileWalk) line(text, dir string, depth int) {
	for _, c := range shellCommands(text) {
		w.command(c.words, &dir, depth)
	}
}

// command reads one simple command's words, run in *dir ("" where a cd
// led where vigiles cannot follow), which a cd changes for the commands
// after it.
func (w *fileWalk) command(words []string, dir *string, depth int) {
	words = commandWords(words)
	if len(words) == 0 {
		return
	}
	if w.s.cd(words, w.vars, dir) {
		return
	}
	if c := shellCArg(words); c != "" && depth < maxShellDepth {
		// Its own shell: a cd there leaves this one's directory be.
		w.line(c, *dir, depth+1)
		return
	}
	for _, p := range scriptsRun(words) {
		if rel, ok := w.s.treePath(p, w.vars, *dir); ok {
			w.add(rel)
		}
	}
}

// cd says whether words (past commandWords) are a cd or pushd, and
// then sets *dir to where it leads (relative to the work tree, read with
// vars from *dir): "" where vigiles cannot follow it (a variable left,
// out of the tree, more than one operand).
func (s *session) cd(words []string, vars *strings.Replacer, dir *string) bool {
	if words[0] != "cd" && words[0] != "pushd" {
		return false
	}
	to := ""
	if len(words) == 2 {
		to, _ = s.treePath(words[1], vars, *dir)
	}
	*dir = to
	return true
}

// add hashes the file rel names, where it is one of the tree.
func (w *fileWalk) add(rel string) {
	if w.seen[rel] {
		return
	}
	abs, fi, err := beneath(w.s.dir, w.s.dir, filepath.Join(w.s.dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) && len(w.missing) < maxServerFiles {
		w.seen[rel] = true
		w.missing = append(w.missing, rel)
	}
	if err != nil || fi.IsDir() {
		return // not there, a directory, or through a link out of the tree
	}
	w.seen[rel] = true
	if len(w.files) == maxServerFiles {
		w.more = true
		return
	}
	if !w.hash {
		w.files = append(w.files, BaselineFile{Path: rel})
		return
	}
	sum, why := hashTreeFile(abs, fi)
	if why != "" {
		w.problems = append(w.problems, shownName(rel)+" "+why)
	}
	w.files = append(w.files, BaselineFile{Path: rel, SHA256: sum})
}

// hashTreeFile is the hex SHA-256 of the file at abs (no link on its
// way: beneath resolved it), whose Lstat info is fi, read as a stream;
// "" and why where it is not hashed: no regular file, larger than
// maxServerFileSize, or unreadable.
func hashTreeFile(abs string, fi fs.FileInfo) (sum, why string) {
	if !fi.Mode().IsRegular() {
		return "", "is " + fileKind(fi.Mode()) + ", not a file vigiles hashes"
	}
	if fi.Size() > maxServerFileSize {
		return "", fmt.Sprintf("is larger than the %d MiB vigiles hashes", maxServerFileSize>>20)
	}
	// O_NOFOLLOW: a link put in its place since is not followed;
	// O_NONBLOCK: nor does a FIFO put there block the audit.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", "could not be read: " + unwrapPathError(err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", "could not be read: it is no longer a regular file"
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxServerFileSize+1))
	switch {
	case err != nil:
		return "", "could not be read: " + unwrapPathError(err)
	case n > maxServerFileSize:
		return "", fmt.Sprintf("is larger than the %d MiB vigiles hashes", maxServerFileSize>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), ""
}

// unwrapPathError is err without the path an *fs.PathError names (the
// checkout's, which a finding does not show).
func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// shellCArg is the line a shell's -c gives it to run (sh -c 'node x.js',
// bash -lc …), "" where words run no shell so.
func shellCArg(words []string) string {
	switch progName(words[0]) {
	case "sh", "bash", "zsh", "dash":
	default:
		return ""
	}
	for i, a := range words[1:] {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return ""
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if strings.Contains(a, "c") && i+2 < len(words) {
			return words[i+2]
		}
	}
	return ""
}

// hashServerFiles fills, once, the files of the tree each server Claude
// Code starts runs (startedServer.files, serverFiles), which a baseline
// keeps and compares: before the hooks run, so that what a run of one
// with --sandbox off leaves in the tree is not taken for the checkout's.
func (s *session) hashServerFiles() {
	for _, l := range [][]startedServer{s.started, s.projectStarted} {
		for i := range l {
			if l[i].files == nil {
				l[i].files, l[i].unhashed = s.serverFiles(l[i].sv, l[i].dataDir)
			}
		}
	}
}

// hashedWalk is what runFiles found of one hook's command: the files of
// the tree it runs, hashed, and what of them could not be.
type hashedWalk struct {
	files    []BaselineFile
	problems []string
}

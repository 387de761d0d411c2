package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// missingPaths matches the paths a failed hook's stderr says are not
// there: a shell's "PATH: not found" or "PATH: No such file or
// directory" (a path, holding a '/'), Python's "can't open file 'PATH'"
// and "No such file or directory: 'PATH'", Node.js's "Cannot find module
// 'PATH'" of an absolute or relative path (Bun's adds " from 'FILE'",
// the importing file, whose directory a relative path is read from), and
// a script's own "not found at PATH" (an absolute path), and a shell's
// "cannot create PATH: Directory nonexistent" of a redirection, dash's
// "sh: 0: cannot open PATH: No such file" (older dash's "Can't open
// PATH") of a script it was given, and a shell's line of its own ("/bin/sh: 1: PATH: not found", "bash: line 1:
// PATH: No such file or directory"), where an absolute path is read to
// the end of the line, blanks and all (/Users/me/My Project/x.sh), but
// not across ": " (bash's "x.py: /usr/bin/python: bad interpreter: No
// such file or directory" names the interpreter, not the script). The
// path is the match's one group that is not empty but the importing
// file's (6).
var missingPaths = lazyRE(`(?m:^(?:/bin/|/usr/bin/)?(?:da)?sh: \d+: (?:cannot|Can't) open (.+?)(?:: No such file)?$)|(?m:^(?:/bin/|/usr/bin/)?(?:ba|da|z|k)?sh: (?:\d+: |line \d+: )?(/(?:[^:\n]|:[^ \n])*?): (?:not found|No such file or directory)$)|([^\s:'"]*/[^\s:'"]*): (?:not found|No such file or directory)|can't open file '([^']+)'|Cannot find module '([./][^']*)'(?: from '([^']+)')?|No such file or directory: '([^']+)'|not found at (/[^\s:'"]+)|cannot create (/[^\s:'"]+): Directory nonexistent`)

// installedCopy matches, in a path of the run's throwaway HOME, where
// Claude Code keeps its own copy of what it installs: a marketplace's
// (.claude/plugins/marketplaces/NAME/…) or a plugin's
// (.claude/plugins/cache/MARKETPLACE/PLUGIN/VERSION/…). The group is what
// follows, the path within the copy.
var installedCopy = lazyRE(`/\.claude/plugins/(?:marketplaces/[^/]+|cache/[^/]+/[^/]+/[^/]+)/(.+)$`)

// missingPathCause says why a path r's stderr names as missing is not
// there, where the tree (the run's work tree, tree) or this machine
// shows it: a symbolic link of the tree that leads outside it to a path
// this machine lacks; a path of the tree, named absolute (Node.js names
// a missing main script so), or relative where the command itself names
// it, that the tree does not hold (one in the directory of the hook's
// plugin the plugin does not ship, notShipped; a plugin's hook's
// relative path is read from the project's directory, not the plugin's,
// relativeMissing); a path out of
// the tree, relative (../../shared/lib.sh) or beside it in the directory
// that holds it, which the hook climbed out to; a path in the run's
// throwaway HOME, TMPDIR or /dev/shm, which each confined run
// starts empty (where it is Claude Code's copy of an installed
// marketplace or plugin, installedCopyCause); a path this machine has
// that vigiles hides from a
// confined hook (the home directories and the like); an absolute path
// outside the tree this machine lacks (its author's own, most often:
// /home/them/…, /workspace/…), with the tree's file of the same name
// where it has one. The second and what follows are said only of the
// first path named. "" where none of these holds.
func missingPathCause(r report.HookRun, tree string) string {
	if tree == "" {
		return ""
	}
	cwd := tree
	if dir, ok := strings.CutPrefix(r.Context, "project:"); ok {
		cwd = filepath.Join(tree, dir)
	}
	for _, m := range missingPaths().FindAllStringSubmatch(r.Stderr, 8) {
		p, from := m[1]+m[2]+m[3]+m[4]+m[5]+m[7]+m[8]+m[9], m[6]
		if strings.HasPrefix(p, "~/") {
			if m[1]+m[2]+m[3] == "" {
				// Python's open, Node's require: no shell read it.
				return fmt.Sprintf("it names %s, a ~ nothing expanded: only a shell reads ~ as the home directory (a script's open or import, or an exec-form command, does not), so it is a directory named ~ in the one the hook runs in; expand it in the hook (os.path.expanduser, os.homedir(), $HOME)", shownName(p))
			}
			// A shell expands a ~ it reads unquoted before it runs the
			// command, and says the path it made: this one was quoted.
			return fmt.Sprintf("it names %s, a ~ the shell did not expand, as it was quoted: a path of a directory named ~ in the one the hook runs in, not of the home directory; write \"$HOME\"/%s, or leave the ~ unquoted", shownName(p), shownName(strings.TrimPrefix(p, "~/")))
		}
		if why := emptyVarCause(r, tree, p); why != "" {
			return why
		}
		if why := backslashCause(tree, cwd, p, from); why != "" {
			return why
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
			if filepath.IsAbs(from) {
				abs = filepath.Join(filepath.Dir(from), p)
			}
		}
		abs = filepath.Clean(abs)
		if rel, err := filepath.Rel(tree, abs); err == nil && !leavesDir(rel) {
			if link, target, hidden := linkOut(tree, rel); link != "" {
				lacks := "which this machine lacks"
				if hidden {
					lacks = "under a directory vigiles hides from a confined hook, which finds nothing there whether or not this machine has it"
				}
				return fmt.Sprintf("it runs %s, a symbolic link in the tree to %s, outside it, %s: a link out of the repository works only where its target is; commit the file itself, or a relative link that stays in the repository",
					shownName(link), shownName(target), lacks)
			}
			// A relative path is told where the command itself names
			// it: read from the directory the hook runs in, not one a
			// script changed to.
			relative := !filepath.IsAbs(p) && !filepath.IsAbs(from)
			written, named := p, false
			if relative {
				named = commandNames(r.Command, p)
			} else if rc, err := filepath.Rel(cwd, abs); err == nil && from == "" && filepath.IsLocal(rc) {
				// Named relative, reported absolute (Python's can't
				// open file, Node.js's Cannot find module).
				for _, w := range []string{rc, "./" + rc} {
					if commandNames(r.Command, w) {
						relative, named, written = true, true, w
						break
					}
				}
			}
			if (!relative || named) && !moduleThere(tree, rel) {
				if why := relativeMissing(r, tree, written); relative && why != "" {
					return why
				}
				if other := sameNameElsewhere(tree, filepath.ToSlash(rel)); other != "" {
					return fmt.Sprintf("it names %s, which the tree does not hold, and the tree has %s: the hook builds a path to it from a directory that is not its own (a plugin root another plugin's ${CLAUDE_PLUGIN_ROOT} stands for, a script's directory a helper it sources changed), and fails so wherever it runs; name the file from where it is", shownName(filepath.ToSlash(rel)), shownName(other))
				}
				if why := notShipped(r, filepath.ToSlash(rel)); why != "" {
					return why
				}
				return fmt.Sprintf("it names %s, which the tree does not hold: a file a build makes that the repository does not commit (dist/, build/), one its .gitignore keeps out, or one removed; commit it, or build it before vigiles runs, as it is built where the hook is used", shownName(filepath.ToSlash(rel)))
			}
			continue
		}
		if parent := filepath.Dir(tree); !filepath.IsAbs(p) && !filepath.IsAbs(from) || parent != "/" && !slices.Contains(sandbox.Throwaway(), parent) && under(abs, parent) {
			// A relative path out of the tree, or a path beside the
			// tree, in the directory that holds it: the hook climbed
			// out of its repository (cd ../../..), which the
			// throwaway HOME or TMPDIR the tree may lie in would not
			// explain.
			return fmt.Sprintf("it names %s, outside the work tree (%s from the tree): the hook climbs out of its repository, where nothing of the tree's is, and fails so wherever it runs (a plugin is installed as a copy of its own directory, so a path that leaves the plugin fails too); keep what the hook uses inside it (${CLAUDE_PLUGIN_ROOT}/…)",
				shownName(p), shownName(relOrAbs(tree, abs)))
		}
		if under(abs, sandbox.Throwaway()...) {
			if why := installedCopyCause(r, tree, p, abs); why != "" {
				return why
			}
			if rel := inTreeSuffix(tree, abs); rel != "" && under(abs, sandbox.Throwaway()[0]) {
				// The tree's own file, which an installer copies into
				// HOME where the hook is used.
				return fmt.Sprintf("it names %s, in the run's throwaway HOME, which each confined run starts empty, and the tree has %s: an installer that copies the tree's files into HOME puts it there where the hook is used, so this run records the hook without it; name it from the tree (\"$CLAUDE_PROJECT_DIR\"/%s) so that vigiles runs the hook at work", shownName(p), shownName(rel), shownName(rel))
			}
			return fmt.Sprintf("it names %s, in the run's throwaway HOME, TMPDIR or /dev/shm, which each confined run starts empty: what an earlier hook of the session (a SessionStart that installs into ${CLAUDE_PLUGIN_DATA}) or an earlier session would have left there is not there, so this run records the hook without it", shownName(p))
		}
		if under(abs, hiddenFromHook()...) {
			// Not looked up: whether this machine has a path there is
			// what vigiles hides, and a hook could ask it so.
			return fmt.Sprintf("it names %s, under a directory vigiles hides from a confined hook (the home directories and the like, so that the secrets there stay unread), where the hook finds nothing whether or not this machine has it: a hook that names its author's own paths fails wherever else it runs (name the tree's files with \"$CLAUDE_PROJECT_DIR\"/…), and one that runs what is installed there is run here without it (install it outside them, in /usr/local/bin, say)", shownName(p))
		}
		if has, known := onHost(tree, abs); has || !known {
			continue
		}
		why := fmt.Sprintf("it names %s, an absolute path outside the work tree that this machine lacks: a hook that names its author's own paths fails wherever else it runs; name the tree's files with \"$CLAUDE_PROJECT_DIR\"/… (a plugin's with ${CLAUDE_PLUGIN_ROOT}/…)", shownName(p))
		if rel := inTreeSuffix(tree, abs); rel != "" {
			why += fmt.Sprintf("; the tree has %s: \"$CLAUDE_PROJECT_DIR\"/%s", shownName(rel), shownName(rel))
		}
		return why
	}
	return ""
}

// notShipped says, of rel, a path of the tree that it does not hold, in
// the directory of r's plugin, that the plugin does not ship it (named
// relative to the plugin): Claude Code installs a plugin as a copy of
// its directory, so the hook fails so wherever it is installed. "" for
// a project's hook, or a path outside its plugin.
func notShipped(r report.HookRun, rel string) string {
	root, ok := strings.CutPrefix(r.Context, "plugin:")
	if !ok || commandCheckRun(r) {
		// A command: check's "plugin" is the repository, installed
		// nowhere: what its command lacks, the tree lacks.
		return ""
	}
	in := rel
	if root != "." {
		if in, ok = strings.CutPrefix(rel, root+"/"); !ok {
			return ""
		}
	}
	return fmt.Sprintf("it names %s, a file of %s that the plugin does not ship: the tree does not hold it (a file a build makes that the repository does not commit, dist/ or build/, one its .gitignore keeps out, or one removed), and Claude Code installs a plugin as a copy of its own directory, so the hook fails so wherever the plugin is installed; add the file to the plugin, or name one it has",
		shownName(in), pluginAt(r, rel))
}

// pluginAt names r's plugin and rel, a path in its directory: "plugin p
// (p/hooks/x.sh)", or "the plugin at p (p/hooks/x.sh)" where the run
// has no plugin's name.
func pluginAt(r report.HookRun, rel string) string {
	if r.Plugin == "" {
		root, _ := strings.CutPrefix(r.Context, "plugin:")
		return fmt.Sprintf("the plugin at %s (%s)", shownName(root), shownName(rel))
	}
	return fmt.Sprintf("plugin %s (%s)", shownName(r.Plugin), shownName(rel))
}

// relativeMissing says of p, a relative path a plugin's hook r names
// that the tree does not hold from the directory the hook runs in (the
// project's), that it was read from there, not from the plugin's
// directory: where the plugin holds it, name it by
// ${CLAUDE_PLUGIN_ROOT}; where it does not, the plugin does not ship it
// either. "" for a project's hook.
func relativeMissing(r report.HookRun, tree, p string) string {
	root, ok := strings.CutPrefix(r.Context, "plugin:")
	if !ok || commandCheckRun(r) {
		// A command: check runs in the repository, its plugin's root:
		// no other directory to read a relative path from.
		return ""
	}
	in := path.Clean(filepath.ToSlash(p))
	rel := path.Join(root, in)
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return ""
	}
	why := fmt.Sprintf("it names %s, a relative path, which a hook reads from the directory it runs in, the project's, not the plugin's, and the tree does not hold it there", shownName(p))
	if moduleThere(tree, rel) {
		return why + fmt.Sprintf("; the plugin has %s: write ${CLAUDE_PLUGIN_ROOT}/%s", shownName(rel), shownName(in))
	}
	return why + fmt.Sprintf(", and %s does not ship it either: Claude Code installs a plugin as a copy of its own directory, so the hook fails so wherever the plugin is installed; add the file to the plugin and name it ${CLAUDE_PLUGIN_ROOT}/%s", pluginAt(r, rel), shownName(in))
}

// changesDir matches a command that changes its directory (cd, pushd).
var changesDir = lazyRE(`(?:^|[\s;&|(])(?:cd|pushd)\s`)

// commandNames says whether cmd names p as a word of its own, and
// changes no directory first (cd, pushd): a relative path it names is
// then read from the directory the hook runs in.
func commandNames(cmd, p string) bool {
	if changesDir().MatchString(cmd) {
		return false
	}
	return regexp.MustCompile(`(?:^|[\s"'=])` + regexp.QuoteMeta(p) + `(?:$|[\s"';&|)])`).MatchString(cmd)
}

// varPath matches a variable followed by a path in a command,
// $VAR/rest, ${VAR}/rest or "$VAR"/rest: the name is group 1, the path
// group 2, up to the first character a shell would end a word at or
// expand.
var varPath = lazyRE(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?["']?(/[^\s"'` + "`" + `;|&<>()$]*)`)

// emptyVarCause says, of p, an absolute path r's stderr names as missing,
// that it is a path r's command builds from a variable that was empty
// ($PLUGIN_ROOT/hooks/x.sh run as /hooks/x.sh), where the command does
// not set the variable itself: one named like Claude Code's own
// (PLUGIN_ROOT, CLAUDE_PLUGIN_DIR), which Claude Code does not set, fails
// wherever the hook runs, and so does a project's hook that names
// ${CLAUDE_PLUGIN_ROOT}, which Claude Code sets for a plugin's only;
// another (GOPATH, NVM_BIN) was empty in this run, whose environment is
// not a user's. For a plugin's hook whose
// plugin holds the file, the fix names it by ${CLAUDE_PLUGIN_ROOT}. ""
// where p is no such path.
func emptyVarCause(r report.HookRun, tree, p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	for _, ref := range varPath().FindAllStringSubmatch(r.Command, 16) {
		name := ref[1]
		if path.Clean(ref[2]) != p || setsVar(r.Command, name) {
			continue
		}
		written := strings.NewReplacer(`"`, "", "'", "").Replace(ref[0])
		why := fmt.Sprintf("it names %s, the command's %s with $%s empty: ", shownName(p), shownName(written), name)
		switch {
		case name == "CLAUDE_PLUGIN_ROOT":
			// Only a project's hook gets it empty: a plugin's has it.
			return why + "Claude Code sets it for a plugin's and a skill's hooks only, and this hook is the project's, so it fails wherever it runs; name the project's files with \"$CLAUDE_PROJECT_DIR\"/… (its discovery/missing-script error names the file)"
		case strings.Contains(name, "CLAUDE") || strings.Contains(name, "PLUGIN"):
			why += fmt.Sprintf("Claude Code sets no %s (it sets CLAUDE_PROJECT_DIR, and CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA for a plugin's hooks), so it fails wherever it runs", name)
		default:
			why += fmt.Sprintf("a confined hook gets what Claude Code sets for it, the session's settings env and the caller's PATH, LANG and TERM, not a user's whole environment, so it works only where %s is set; set it in the settings' env so that vigiles runs the hook at work", name)
		}
		if root, ok := strings.CutPrefix(r.Context, "plugin:"); ok && tree != "" {
			rel := path.Join(root, strings.TrimPrefix(path.Clean(ref[2]), "/"))
			if filepath.IsLocal(filepath.FromSlash(rel)) && treeEntry(tree, rel) != nil {
				fix := "${CLAUDE_PLUGIN_ROOT}"
				if name == "PLUGIN_ROOT" && treeEntry(tree, path.Join(root, ".codex-plugin/plugin.json")) != nil {
					// The plugin is OpenAI Codex's too, which sets
					// PLUGIN_ROOT and reads the same hooks file.
					fix = "${CLAUDE_PLUGIN_ROOT:-$PLUGIN_ROOT}"
					why += "; the plugin is OpenAI Codex's too (.codex-plugin/plugin.json), whose hooks get PLUGIN_ROOT and read this same file"
				}
				why += fmt.Sprintf("; the plugin has %s: write %s%s", shownName(rel), fix, shownName(path.Clean(ref[2])))
			}
		}
		return why
	}
	return ""
}

// setsVar says whether cmd sets the variable name itself: an assignment
// (name=…), a read into it, a loop over it.
func setsVar(cmd, name string) bool {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9_$])` + q + `=|\bread\b[^;|&\n]*\b` + q + `\b|\bfor\s+` + q + `\s+in\b`).MatchString(cmd)
}

// treeEntry looks rel (with slashes) up in tree as the tree holds it,
// through links only while they stay inside it (beneath): nil where it is
// not there, or leads out. A cause never looks the host up through a link
// of the tree's, whose answer would tell a pull request what the host
// holds.
func treeEntry(tree, rel string) fs.FileInfo {
	_, fi := treeResolve(tree, rel)
	return fi
}

// backslashCause says why a path p that holds a backslash is missing
// where, read with / for each \ (from the directory cwd, or that of the
// importing file from), it names a file of the tree: a Windows path
// ("${CLAUDE_PLUGIN_ROOT}\scripts\x.cmd"), whose backslashes sh on
// Linux and macOS keeps as part of a file's name, so that the hook fails
// on every machine but Windows. "" otherwise.
func backslashCause(tree, cwd, p, from string) string {
	if !strings.Contains(p, `\`) {
		return ""
	}
	q := strings.ReplaceAll(p, `\`, "/")
	abs := q
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, q)
		if filepath.IsAbs(from) {
			abs = filepath.Join(filepath.Dir(from), q)
		}
	}
	rel, err := filepath.Rel(tree, filepath.Clean(abs))
	if err != nil || leavesDir(rel) || treeEntry(tree, rel) == nil {
		return ""
	}
	return fmt.Sprintf("it names %s, a path written with backslashes, which Windows reads as separators and sh on Linux and macOS as part of a file's name, so the hook finds nothing there and fails on every machine but Windows; the tree has %s: write the path with /, which Windows reads too",
		shownName(p), shownName(filepath.ToSlash(rel)))
}

// treeResolve is treeEntry with the path the entry is at, relative to
// the tree (with slashes), where links inside it led: "", nil where it
// is not there, or leads out.
func treeResolve(tree, rel string) (string, fs.FileInfo) {
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return "", nil
	}
	resolved, fi, err := beneath(tree, real, filepath.Join(tree, filepath.FromSlash(rel)))
	if err != nil {
		return "", nil
	}
	if r, err := filepath.Rel(real, resolved); err == nil {
		rel = filepath.ToSlash(r)
	}
	return rel, fi
}

// relOrAbs is abs relative to tree (../x), or abs where it has none.
func relOrAbs(tree, abs string) string {
	if rel, err := filepath.Rel(tree, abs); err == nil {
		return filepath.ToSlash(rel)
	}
	return abs
}

// under says whether abs is one of dirs ("" and "/" aside) or lies below
// one of them. A dir "." is the root of relative paths (a plugin at the
// work tree's root): every relative path lies below it but one that
// climbs out ("..", "../x").
func under(abs string, dirs ...string) bool {
	for _, d := range dirs {
		switch {
		case d == "" || d == "/":
		case d == ".":
			if abs != "" && !strings.HasPrefix(abs, "/") && !leavesDir(abs) {
				return true
			}
		case abs == d || strings.HasPrefix(abs, d+"/"):
			return true
		}
	}
	return false
}

// linkOut finds, along rel (a path in tree), the first symbolic link
// whose target is an absolute path outside tree that this machine lacks,
// or one in a directory vigiles hides (hidden, not looked up: whether
// the machine has it is what vigiles hides), and returns it (relative to
// tree) and its target; "" where there is none.
func linkOut(tree, rel string) (link, target string, hidden bool) {
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for i := range segs {
		at := filepath.Join(segs[:i+1]...)
		fi, err := os.Lstat(filepath.Join(tree, at))
		if err != nil {
			return "", "", false
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		t, err := os.Readlink(filepath.Join(tree, at))
		if err != nil || !filepath.IsAbs(t) {
			return "", "", false // a relative link is the tree's to follow
		}
		if r, err := filepath.Rel(tree, t); err == nil && !leavesDir(r) {
			return "", "", false
		}
		if under(t, hiddenFromHook()...) {
			return filepath.ToSlash(at), t, true
		}
		if has, known := onHost(tree, t); known && !has {
			return filepath.ToSlash(at), t, false
		}
		return "", "", false
	}
	return "", "", false
}

// hiddenFromHook are the host's directories a confined hook never sees:
// sandbox.Hidden's and the caller's HOME. Whether the host has a path
// in one is not looked up for a cause.
func hiddenFromHook() []string {
	home, _ := os.UserHomeDir()
	return append(sandbox.Hidden(), home)
}

// maxHostLinks bounds the links onHost follows, as the kernel's lookup
// is bounded.
const maxHostLinks = 40

// hostLookups holds, by work tree, what a confined run on it could look
// up of the host itself (sandbox.HostLookup), built once.
var hostLookups sync.Map // string -> func() func(string) bool

// lookable says whether a confined run on tree could look p up itself
// (sandbox.HostLookup): not in a directory the run masks, in one its uid
// may search.
func lookable(tree, p string) bool {
	v, _ := hostLookups.LoadOrStore(tree, sync.OnceValue(func() func(string) bool { return sandbox.HostLookup(tree) }))
	return v.(func() func(string) bool)()(p)
}

// onHost says whether this machine has abs (known false where that is not
// told): it is looked up a component at a time, following links by hand,
// and each component only where a confined run on tree could look it up
// itself (lookable: not in a directory the run masks, such as the home
// directories, the caller's own and its secrets' directories, and in a
// directory the run's uid may search), never in /proc, /sys or /dev
// (where /proc/self/root leads anywhere), so that what a cause says of a
// path cannot tell a pull request more of the host than its hook could
// learn.
func onHost(tree, abs string) (has, known bool) {
	hidden := append(hiddenFromHook(), "/proc", "/sys", "/dev")
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(abs), "/"), "/")
	cur, hops := "/", 0
	for i := 0; i < len(parts); i++ {
		next := filepath.Join(cur, parts[i])
		if under(next, hidden...) || !lookable(tree, next) {
			return false, false
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return false, errors.Is(err, fs.ErrNotExist)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		t, err := os.Readlink(next)
		if hops++; err != nil || hops > maxHostLinks {
			return false, false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(cur, t)
		}
		parts = append(strings.Split(strings.TrimPrefix(filepath.Clean(t), "/"), "/"), parts[i+1:]...)
		cur, i = "/", -1
	}
	return true, true
}

// inTreeSuffix is the longest tail of abs, two path elements or more,
// that names a regular file of tree (relative to it, with slashes), ""
// where none does: /workspace/.claude/hooks/x.sh is the tree's
// .claude/hooks/x.sh.
func inTreeSuffix(tree, abs string) string {
	segs := strings.Split(strings.TrimPrefix(filepath.ToSlash(abs), "/"), "/")
	for i := 1; i+2 <= len(segs); i++ {
		rel := strings.Join(segs[i:], "/")
		if fi := treeEntry(tree, rel); fi != nil && fi.Mode().IsRegular() {
			return rel
		}
	}
	return ""
}

// installedCopyCause says, of a path p (abs, cleaned) in the run's
// throwaway HOME that a failed hook names, that it is in Claude Code's
// copy of an installed marketplace or plugin: a hook that reaches its
// own files through where Claude Code installs them, not through
// ${CLAUDE_PLUGIN_ROOT}, finds nothing where the plugin is not installed
// so (a confined run's HOME, a marketplace added under another name, a
// plugin loaded from its directory), and this run recorded the hook
// without them. Where the tree holds the file, the fix names it: below
// the run's plugin, by ${CLAUDE_PLUGIN_ROOT}. "" where p is not in such
// a copy.
func installedCopyCause(r report.HookRun, tree, p, abs string) string {
	m := installedCopy().FindStringSubmatch(filepath.ToSlash(abs))
	if m == nil {
		return ""
	}
	why := fmt.Sprintf("it names %s, in Claude Code's own copy of an installed marketplace or plugin under ~/.claude/plugins, which a confined run's throwaway HOME does not hold: a hook that reaches its files there, not through ${CLAUDE_PLUGIN_ROOT}, finds nothing wherever the plugin is installed otherwise (under another marketplace name, a new version, loaded from its directory), so this run records the hook without them; name them with ${CLAUDE_PLUGIN_ROOT}/…, the plugin's directory wherever it is", shownName(p))
	// The path within a plugin's copy is the plugin's; within a
	// marketplace's, the repository's; else the longest tail the tree
	// has.
	root, inPlugin := strings.CutPrefix(r.Context, "plugin:")
	rel := ""
	for _, c := range []string{path.Join(root, m[1]), m[1]} {
		if fi := treeEntry(tree, c); fi != nil && fi.Mode().IsRegular() && filepath.IsLocal(filepath.FromSlash(c)) {
			rel = c
			break
		}
	}
	if rel == "" {
		rel = inTreeSuffix(tree, "/"+m[1])
	}
	if rel == "" {
		return why
	}
	if in, ok := strings.CutPrefix(rel, root+"/"); inPlugin && (ok || root == ".") {
		if root == "." {
			in = rel
		}
		return why + fmt.Sprintf("; the tree has %s: ${CLAUDE_PLUGIN_ROOT}/%s", shownName(rel), shownName(in))
	}
	return why + fmt.Sprintf("; the tree has %s", shownName(rel))
}

// moduleThere says whether rel, a path of tree a script imports or runs,
// is there as Node.js and Bun find it: the path itself, or the same name
// with another script extension (Bun reads "./x.js" as x.ts too), or a
// directory's index; looked up in the tree only (treeEntry).
func moduleThere(tree, rel string) bool {
	rel = filepath.ToSlash(rel)
	if treeEntry(tree, rel) != nil {
		return true
	}
	base := strings.TrimSuffix(rel, path.Ext(rel))
	for _, ext := range []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"} {
		for _, c := range []string{base + ext, rel + ext, path.Join(rel, "index"+ext)} {
			if treeEntry(tree, c) != nil {
				return true
			}
		}
	}
	return false
}

// maxElsewhere bounds the entries sameNameElsewhere looks at.
const maxElsewhere = 50_000

// treeNames holds, by work tree, its regular files by base name (each
// relative to it, with slashes), read once: what sameNameElsewhere looks
// a name up in, however many paths it is asked about.
var treeNames sync.Map // string -> func() map[string][]string

// namesOf is tree's files by base name: dot-directories and node_modules
// are not searched, and the search stops after maxElsewhere entries.
func namesOf(tree string) map[string][]string {
	v, _ := treeNames.LoadOrStore(tree, sync.OnceValue(func() map[string][]string {
		names := map[string][]string{}
		seen := 0
		_ = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
			if seen++; seen > maxElsewhere {
				return filepath.SkipAll
			}
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != tree && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if r, err := filepath.Rel(tree, p); err == nil && d.Type().IsRegular() {
				names[d.Name()] = append(names[d.Name()], filepath.ToSlash(r))
			}
			return nil
		})
		return names
	}))
	return v.(func() map[string][]string)()
}

// sameNameElsewhere is the regular file of tree (relative to it, with
// slashes) that has the longest tail of path elements, two or more (its
// name and its directory's), in common with rel, a path the tree does
// not hold, "" where none has, or where rel is a build's output (below
// dist/ or build/), which another of its name says nothing of. The
// tree's files are read once (namesOf).
func sameNameElsewhere(tree, rel string) string {
	want := strings.Split(rel, "/")
	if slices.Contains(want, "dist") || slices.Contains(want, "build") {
		return ""
	}
	best, bestLen := "", 0
	for _, r := range namesOf(tree)[path.Base(rel)] {
		got := strings.Split(r, "/")
		n := 0
		for n < len(got) && n < len(want) && got[len(got)-1-n] == want[len(want)-1-n] {
			n++
		}
		if n > bestLen || n == bestLen && r < best {
			best, bestLen = r, n
		}
	}
	if bestLen < 2 {
		return ""
	}
	return best
}

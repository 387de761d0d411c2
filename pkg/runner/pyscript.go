package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A Python script of the tree may name, in its inline metadata (PEP
// 723's "# /// script" block), packages uv fetches and installs before it
// runs the script: `uv run script.py`, `uv run --script script`, or the
// script run as a program where its first line is
// "#!/usr/bin/env -S uv run --script", or handed as an argument to one
// that may run it (a wrapper that runs "$@"). The script is in the tree, its
// dependencies are not: they are code fetched at run time
// (RuleFetchedCode), pinned where the block gives each an exact version
// (NAME==1.2.3), where a lock beside the script (uv lock --script, which
// uv run uses while the metadata matches it) or an exclude-newer date in
// its [tool.uv] table holds the resolution fixed.

// maxScriptRead bounds how much of a script vigiles reads for its
// inline metadata.
const maxScriptRead = 1 << 20

// maxShebang bounds the first line of a script vigiles reads to tell
// whether uv runs it (Linux reads 256 bytes of it).
const maxShebang = 256

// uvRunScript is the script `uv run` runs with args (uv run's, past
// "run"), where uv reads it as a script with inline metadata: a .py or
// .pyw file, or any file after --script, as the directory uv was started
// in names it (a relative one from --directory's: uvOptions.inDir). ""
// where it runs a module (-m), its input (-), a command of the
// environment (uv run pytest), or where an option vigiles does not know
// comes first (readUvOptions).
func uvRunScript(args []string) string {
	o := readUvOptions(args, true)
	if o.unsure != "" || o.module || len(o.rest) == 0 || o.rest[0] == "-" {
		return ""
	}
	if o.script || isPyFile(o.rest[0]) {
		return o.inDir(o.rest[0])
	}
	return ""
}

// isPyFile says whether uv run reads the file p as a Python script.
func isPyFile(p string) bool {
	return strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".pyw")
}

// uvShebang matches a script's first line that runs it with uv run
// (#!/usr/bin/env -S uv run --script, #!/usr/bin/env -S uv run).
var uvShebang = lazyRE(`^#![^\n]*\buv\s+run\b`)

// scriptMetaBlock matches PEP 723's "# /// script" block: its lines,
// each "#" alone or "# " and text, up to the "# ///" that closes it.
var scriptMetaBlock = lazyRE(`(?m)^# /// script[ \t]*\r?\n((?:#(?:[ \t][^\r\n]*)?\r?\n)*?)# ///[ \t]*\r?$`)

// scriptMeta is what a script's inline metadata says of what uv fetches
// for it: its dependencies (ok false where the block is there and they
// could not be read), and the exclude-newer date of its [tool.uv] table.
type scriptMeta struct {
	deps         []string
	ok           bool
	excludeNewer string
}

// readScriptMeta reads the inline metadata of the script text src; false
// where it has no "# /// script" block.
func readScriptMeta(src string) (scriptMeta, bool) {
	m := scriptMetaBlock().FindStringSubmatch(src)
	if m == nil {
		return scriptMeta{}, false
	}
	var toml strings.Builder
	for _, line := range strings.SplitAfter(m[1], "\n") {
		line = strings.TrimPrefix(line, "#")
		toml.WriteString(strings.TrimPrefix(line, " "))
	}
	meta := scriptMeta{ok: true}
	tomlWalk(toml.String(), func(name, value string, table bool) {
		switch {
		case table:
		case name == "dependencies":
			meta.deps, _, meta.ok = tomlStringArray(value)
		case name == "tool.uv.exclude-newer":
			if s, _, ok := tomlString(strings.TrimSpace(value)); ok {
				meta.excludeNewer = s
			}
		}
	})
	return meta, true
}

// tomlWalk reads the TOML text as far as vigiles needs it, line by line:
// each line that opens a table ([name], [[name]]) is given to fn with
// the table's name and table true, and each key = value with the key's
// full name (the table's and its own, dotted: tool.uv.exclude-newer) and
// the text of the value, over as many lines as it takes (an array, an
// inline table, a multi-line string: tomlValueEnd), so that no line
// inside it is read as a key or a table. Quotes around a name's parts
// are taken off; a quoted part that holds a dot is read as two.
func tomlWalk(text string, fn func(name, value string, table bool)) {
	table := ""
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text) - i
		}
		line := strings.TrimSpace(text[i : i+end])
		next := i + end + 1
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '[':
			name, _, _ := strings.Cut(strings.TrimLeft(line, "["), "]")
			table = tomlName(name)
			fn(table, "", true)
		default:
			key, _, ok := strings.Cut(line, "=")
			if !ok {
				break
			}
			name := tomlName(key)
			if table != "" {
				name = table + "." + name
			}
			eq := i + strings.IndexByte(text[i:], '=') + 1
			n := tomlValueEnd(text[eq:])
			fn(name, text[eq:eq+n], false)
			next = eq + n + 1
		}
		i = next
	}
}

// tomlName is the dotted name s (a table's or a key's) with the blanks
// and quotes around each part taken off.
func tomlName(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// tomlValueEnd is how much of s a TOML value s begins with takes: up to
// the line break that ends it, past those inside its brackets or braces
// (an array or inline table over lines), its strings (a multi-line one
// whole) and its comments; all of s where it does not end.
func tomlValueEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], "'''"):
			k := strings.Index(s[i+3:], s[i:i+3])
			if k < 0 {
				return len(s)
			}
			i += 3 + k + 3
		case c == '"' || c == '\'':
			_, n, ok := tomlString(s[i:])
			if !ok {
				n = 1 // no string: read on
			}
			i += n
		case c == '#':
			k := strings.IndexByte(s[i:], '\n')
			if k < 0 {
				return len(s)
			}
			i += k
		case c == '[' || c == '{':
			depth++
			i++
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
			i++
		case c == '\n' && depth == 0:
			return i
		default:
			i++
		}
	}
	return len(s)
}

// tomlStringArray reads the TOML array of strings that s begins with
// (after blanks), over lines, comments and a trailing comma: its strings,
// how much of s it took, and false where s holds anything else there.
func tomlStringArray(s string) ([]string, int, bool) {
	i := len(s) - len(strings.TrimLeft(s, " \t"))
	if i >= len(s) || s[i] != '[' {
		return nil, 0, false
	}
	out := []string{}
	i++
	comma := true
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#':
			if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
				i += k
			} else {
				i = len(s)
			}
		case c == ']':
			return out, i + 1, true
		case c == ',' && !comma:
			comma = true
			i++
		case (c == '"' || c == '\'') && comma:
			v, n, ok := tomlString(s[i:])
			if !ok {
				return nil, 0, false
			}
			out = append(out, v)
			i += n
			comma = false
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// tomlString reads the one-line TOML string s begins with: a basic one
// ("…", its escapes of quote and backslash read) or a literal one ('…').
func tomlString(s string) (string, int, bool) {
	if s == "" || s[0] != '"' && s[0] != '\'' {
		return "", 0, false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			return "", 0, false
		case c == q:
			return b.String(), i + 1, true
		case c == '\\' && q == '"' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// commandsOf is each simple command of the shell line s, as the words it
// runs (commandWords), for treeScriptFetches.
func commandsOf(s string) [][]string {
	var out [][]string
	for _, c := range shellCommands(s) {
		if w := commandWords(c.words); len(w) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// treeScriptFetches is what uv fetches for the tree's Python scripts and
// projects that cmds (each a command's words) run: the dependencies a
// script's inline metadata names, where uv runs it (uv run x.py, or the
// script as the program, or as an argument the command hands on, where
// its first line runs uv run), and those of the project uv run brings up
// to date where it runs no such script (uvProjectFetch); and what Bun
// installs on the fly for a plugin's script it runs (bunRun). pluginRoot is
// the plugin's directory relative to the work tree ("" outside a
// plugin), which ${CLAUDE_PLUGIN_ROOT} names, and projectDir the
// directory the commands run in, relative to it, which
// ${CLAUDE_PROJECT_DIR} names and a relative path is taken from, or
// from where a cd leads. A path that still holds a variable, or leads
// out of the tree, is not read. Each script and project is named once.
func (s *session) treeScriptFetches(cmds [][]string, pluginRoot, projectDir string) []fetched {
	t := &treeRead{s: s, vars: treeVars(pluginRoot, projectDir), seen: map[string]bool{}, plugin: pluginRoot}
	dir := projectDir
	for _, words := range cmds {
		t.command(words, &dir, 0)
	}
	return t.out
}

// treeRead is one reading of what uv fetches for the commands of a
// hook, server or line (treeScriptFetches): the variables their paths
// are read with, the scripts and projects named already (by their path
// relative to the work tree), and the fetches found.
type treeRead struct {
	s    *session
	vars *strings.Replacer
	seen map[string]bool
	out  []fetched
	// plugin is the plugin's directory ("" outside a plugin): the uv
	// project of a plugin's command is read only inside it.
	plugin string
}

// noRun are programs that read, list or change the files their
// arguments name but never run them (chmod +x x.py): an argument of
// theirs is no script the command hands on.
var noRun = map[string]bool{"chmod": true, "chown": true, "chgrp": true, "cp": true, "mv": true, "ln": true, "rm": true,
	"touch": true, "cat": true, "ls": true, "stat": true, "test": true, "[": true, "echo": true, "printf": true,
	"mkdir": true, "head": true, "tail": true, "wc": true, "diff": true, "file": true, "grep": true, "source": true, ".": true}

// command reads one command's words (past commandWords), run in *dir
// ("" after a cd vigiles could not follow), which a cd (or pushd)
// changes for the commands after it. The line a shell's -c is given is
// read in turn, to maxShellDepth, in a directory of its own.
func (t *treeRead) command(words []string, dir *string, depth int) {
	words = commandWords(words)
	if len(words) == 0 {
		return
	}
	if t.s.cd(words, t.vars, dir) {
		return
	}
	if c := shellCArg(words); c != "" {
		if depth < maxShellDepth {
			inner := *dir
			for _, w := range commandsOf(c) {
				t.command(w, &inner, depth+1)
			}
		}
		return
	}
	switch {
	case progName(words[0]) == "uv":
		if args, ok := uvRunArgs(words[1:]); ok {
			t.uvRun(args, *dir, depth)
		}
	case progName(words[0]) == "bun":
		t.bunRun(words[1:], *dir)
	case strings.Contains(words[0], "/"):
		t.program(words[0], *dir)
	}
	t.handed(words, *dir)
}

// uvRun reads what uv run, given args (uv run's, uvRunArgs), run in dir,
// fetches for the tree: the inline metadata's dependencies of the script
// it runs; else, where it runs a module, a command, or a script with no
// such metadata (and no --script), those of the project it brings up to
// date, and what the command it runs fetches in turn (uv run uv run …),
// run where --directory has uv change to. Nothing where an option
// vigiles does not know comes first, or it runs its input or a URL.
func (t *treeRead) uvRun(args []string, dir string, depth int) {
	o := readUvOptions(args, true)
	if o.unsure != "" || len(o.rest) == 0 || o.rest[0] == "-" || urlScheme().MatchString(o.rest[0]) {
		return
	}
	script := uvRunScript(args)
	if script != "" {
		rel, ok := t.s.treePath(script, t.vars, dir)
		if !ok || t.seen[rel] {
			return
		}
		meta, block, read := t.s.scriptMetaOf(rel)
		switch {
		case !read:
			return
		case block:
			t.inline(rel, "uv run "+shownCut(rel, maxFetchSpec), meta)
			return
		case o.script:
			return // run apart from the project all the same
		}
	}
	t.project(o, dir)
	if script == "" && !o.module && depth < maxShellDepth {
		inner := dir
		if o.directory != "" {
			inner, _ = t.s.treePath(o.directory, t.vars, dir)
		}
		t.command(o.rest, &inner, depth+1)
	}
}

// program reads the file of the tree the command runs as its program
// (word, run in dir), where its first line runs it with uv run: its
// inline metadata's dependencies, or, where it has none and that line
// has no --script, those of the project uv run brings up to date, found
// from dir as the line's own --directory and --project say.
func (t *treeRead) program(word, dir string) {
	rel, ok := t.s.treePath(word, t.vars, dir)
	if !ok || t.seen[rel] {
		return
	}
	args, known, ok := t.s.uvShebangOf(rel)
	if !ok {
		return
	}
	meta, block, read := t.s.scriptMetaOf(rel)
	switch {
	case !read:
	case block:
		t.inline(rel, "uv run "+shownCut(rel, maxFetchSpec), meta)
	case known:
		if o := readUvOptions(args, true); o.unsure == "" && !o.script {
			t.project(o, dir)
		}
	}
}

// handed reads each argument of the command words (run in dir) that
// names a file of the tree whose first line runs it with uv run, as
// program reads the program, its inline metadata alone: the command
// hands it to the program it runs, which may run it
// ($CLAUDE_PLUGIN_ROOT/bin/wrap x.py, where wrap runs "$@"). Not an
// option, a word with no / (a program on the PATH, not a file), the
// program itself or the script an interpreter is given (python3 x.py
// runs it with python3, to which its first line is a comment), nor an
// argument of a program that never runs its files (noRun).
func (t *treeRead) handed(words []string, dir string) {
	if noRun[progName(words[0])] {
		return
	}
	own := map[string]bool{}
	for _, p := range scriptsRun(words) {
		if rel, ok := t.s.treePath(p, t.vars, dir); ok {
			own[rel] = true
		}
	}
	prog := shownCut(words[0], maxMonitorName)
	if rel, ok := t.s.treePath(words[0], t.vars, dir); ok && strings.Contains(words[0], "/") {
		prog = shownCut(rel, maxMonitorName)
	}
	for i, a := range words[1:] {
		if i == maxFetchPackages {
			break
		}
		if strings.HasPrefix(a, "-") || !strings.Contains(a, "/") {
			continue
		}
		rel, ok := t.s.treePath(a, t.vars, dir)
		if !ok || own[rel] || t.seen[rel] {
			continue
		}
		if _, _, ok := t.s.uvShebangOf(rel); !ok {
			continue
		}
		if meta, block, read := t.s.scriptMetaOf(rel); read && block {
			t.inline(rel, fmt.Sprintf("uv run %s (the command hands the script to %s, and its first line runs it with uv run)", shownCut(rel, maxFetchSpec), prog), meta)
		}
	}
}

// inline adds what uv fetches for the script rel, whose inline metadata
// is meta, as runner fetches it.
func (t *treeRead) inline(rel, runner string, meta scriptMeta) {
	t.seen[rel] = true
	_, locked := t.s.treeFile(rel + ".lock")
	t.out = append(t.out, inlineMetaFetches(rel, runner, meta, locked)...)
}

// project adds what uv run, with the options o, run in dir, fetches for
// the project it brings up to date (uvProjectFetch), found from
// --project's directory, else --directory's, else dir: nothing where a
// cd, or one of them, leads where vigiles cannot follow.
func (t *treeRead) project(o uvOptions, dir string) {
	start := dir
	for _, d := range []string{o.directory, o.project} {
		if d == "" || start == "" && !hasAnyPrefix(d, "/", "$") {
			continue
		}
		start, _ = t.s.treePath(d, t.vars, start)
	}
	if start == "" {
		return
	}
	within := ""
	if t.plugin != "" && t.plugin != "." {
		// A plugin's command runs in the user's project, which is not
		// the tree's: only a project of the plugin's own, where
		// --directory, --project or a cd leads, is the tree's to read.
		within = t.plugin
	}
	if f, ok := t.s.uvProjectFetch(o, start, within, t.seen); ok {
		t.out = append(t.out, f)
	}
}

// scriptMetaOf reads the inline metadata of the script rel (relative to
// the work tree): block says it has a "# /// script" block, read that
// the script could be read.
func (s *session) scriptMetaOf(rel string) (meta scriptMeta, block, read bool) {
	src, ok := s.readTreeFile(rel, maxScriptRead)
	if !ok {
		return scriptMeta{}, false, false
	}
	meta, block = readScriptMeta(src)
	return meta, block, true
}

// uvShebangOf says whether the first line of the file rel (relative to
// the work tree) runs it with uv run (uvShebang), and, where vigiles
// reads that line's words (#!/usr/bin/env -S uv run --script), uv
// run's arguments on it (known).
func (s *session) uvShebangOf(rel string) (args []string, known, ok bool) {
	head, read := s.readTreeFile(rel, maxShebang)
	if !read || !uvShebang().MatchString(head) {
		return nil, false, false
	}
	line, _, _ := strings.Cut(strings.TrimPrefix(head, "#!"), "\n")
	if cmds := shellCommands(strings.TrimSuffix(line, "\r")); len(cmds) > 0 {
		if words := commandWords(cmds[0].words); len(words) > 0 && progName(words[0]) == "uv" {
			args, known = uvRunArgs(words[1:])
		}
	}
	return args, known, true
}

// treeVars substitutes ${CLAUDE_PLUGIN_ROOT} (where pluginRoot is not "")
// and ${CLAUDE_PROJECT_DIR}, or their $ forms, with the directories,
// relative to the work tree, they name.
func treeVars(pluginRoot, projectDir string) *strings.Replacer {
	pairs := []string{"${CLAUDE_PROJECT_DIR}", projectDir, "$CLAUDE_PROJECT_DIR", projectDir}
	if pluginRoot != "" {
		pairs = append(pairs, "${CLAUDE_PLUGIN_ROOT}", pluginRoot, "$CLAUDE_PLUGIN_ROOT", pluginRoot)
	}
	return strings.NewReplacer(pairs...)
}

// treePath is the path p (as written in a command run in dir, relative
// to the work tree), with vars substituted, relative to the work tree
// and cleaned: false where it still holds a variable, begins with ~, is
// relative to a directory vigiles could not follow (dir "", after a cd
// it could not: a path that begins with ${CLAUDE_PLUGIN_ROOT} or
// ${CLAUDE_PROJECT_DIR} is still read), or leads out by "..".
func (s *session) treePath(p string, vars *strings.Replacer, dir string) (string, bool) {
	anchored := strings.HasPrefix(p, "${CLAUDE_") || strings.HasPrefix(p, "$CLAUDE_")
	p = vars.Replace(p)
	if p == "" || strings.ContainsAny(p, "$`") || strings.HasPrefix(p, "~") {
		return "", false
	}
	var rel string
	switch {
	case filepath.IsAbs(p):
		r, err := relTo(s.dir, filepath.Clean(p))
		if err != nil {
			return "", false
		}
		rel = r
	case dir == "" && !anchored:
		return "", false
	default:
		if anchored {
			dir = "."
		}
		rel = filepath.ToSlash(filepath.Clean(filepath.Join(dir, p)))
	}
	if leavesDir(rel) {
		return "", false
	}
	return rel, true
}

// readTreeFile reads up to limit bytes of the regular file rel
// (relative to the work tree), where it is one beneath the tree.
func (s *session) readTreeFile(rel string, limit int64) (string, bool) {
	abs, ok := s.treeFile(rel)
	if !ok {
		return "", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// treeFile is where the regular file rel (relative to the work tree)
// is, where it is one beneath the tree.
func (s *session) treeFile(rel string) (string, bool) {
	abs, fi, err := beneath(s.dir, s.dir, filepath.Join(s.dir, rel)) // s.dir has no link on it
	return abs, err == nil && fi.Mode().IsRegular()
}

// inlineMetaFetches is what uv fetches, as runner does, for the script
// rel, whose inline metadata is meta, locked saying a lock of uv's lies
// beside it.
func inlineMetaFetches(rel, runner string, meta scriptMeta, locked bool) []fetched {
	fix := fmt.Sprintf("pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script %s", shownCut(rel, maxFetchSpec))
	if !meta.ok {
		return []fetched{{runner: runner, spec: "its inline metadata's dependencies",
			why: "a dependencies list vigiles cannot read, so not sure to be pinned", fix: fix}}
	}
	var out []fetched
	for i, dep := range meta.deps {
		if i == maxFetchPackages {
			out = append(out, fetched{runner: runner, spec: "dependencies …", unread: unreadPackages,
				why: fmt.Sprintf("more packages than vigiles reads one by one (%d): the rest are not read", maxFetchPackages), fix: fix})
			break
		}
		f, ok := pypiFetch(runner, dep)
		if !ok {
			continue
		}
		switch {
		case locked:
			f.pinned, f.why, f.fix = true, "the lock "+shownCut(filepath.Base(rel)+".lock", maxFetchSpec)+" beside the script (uv lock --script), which uv run keeps to while the metadata matches it", ""
		case meta.excludeNewer != "":
			f.pinned, f.why, f.fix = true, "the exclude-newer date "+shownCut(meta.excludeNewer, maxMonitorName)+" of its [tool.uv] table, which keeps uv to what the registry held then", ""
		case !f.pinned:
			f.fix = fix
		}
		out = append(out, f)
	}
	return out
}

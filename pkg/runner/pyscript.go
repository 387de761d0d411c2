package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A Python script of the tree may name, in its inline metadata (PEP
// 723's "# /// script" block), packages uv fetches and installs before it
// runs the script: `uv run script.py`, `uv run --script script`, or the
// script run as a program where its first line is
// "#!/usr/bin/env -S uv run --script". The script is in the tree, its
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
var uvShebang = regexp.MustCompile(`^#![^\n]*\buv\s+run\b`)

// scriptMetaBlock matches PEP 723's "# /// script" block: its lines,
// each "#" alone or "# " and text, up to the "# ///" that closes it.
var scriptMetaBlock = regexp.MustCompile(`(?m)^# /// script[ \t]*\r?\n((?:#(?:[ \t][^\r\n]*)?\r?\n)*?)# ///[ \t]*\r?$`)

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
	m := scriptMetaBlock.FindStringSubmatch(src)
	if m == nil {
		return scriptMeta{}, false
	}
	var toml strings.Builder
	for _, line := range strings.SplitAfter(m[1], "\n") {
		line = strings.TrimPrefix(line, "#")
		toml.WriteString(strings.TrimPrefix(line, " "))
	}
	meta := scriptMeta{ok: true}
	table := ""
	text := toml.String()
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text) - i
		}
		line := strings.TrimSpace(text[i : i+end])
		next := i + end + 1
		switch {
		case strings.HasPrefix(line, "["):
			table = strings.TrimSpace(strings.Trim(line, "[]"))
		case table == "" && tomlKeyIs(line, "dependencies"):
			_, value, _ := strings.Cut(text[i:], "=")
			deps, used, ok := tomlStringArray(value)
			meta.deps, meta.ok = deps, ok
			if ok {
				next = i + strings.Index(text[i:], "=") + 1 + used
			}
		case table == "tool.uv" && tomlKeyIs(line, "exclude-newer"):
			_, value, _ := strings.Cut(line, "=")
			if s, _, ok := tomlString(strings.TrimSpace(value)); ok {
				meta.excludeNewer = s
			}
		}
		i = next
	}
	return meta, true
}

// tomlKeyIs says whether the TOML line sets the bare (or quoted) key.
func tomlKeyIs(line, key string) bool {
	k, _, ok := strings.Cut(line, "=")
	k = strings.TrimSpace(k)
	return ok && (k == key || k == `"`+key+`"` || k == "'"+key+"'")
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

// treeScriptFetches is what uv fetches for the tree's Python scripts
// that cmds (each a command's words) run: the dependencies their inline
// metadata names. pluginRoot is the plugin's directory relative to the
// work tree ("" outside a plugin), which ${CLAUDE_PLUGIN_ROOT} names, and
// projectDir the directory the command runs in, relative to it, which
// ${CLAUDE_PROJECT_DIR} names and a relative path is taken from. A path
// that still holds a variable, or leads out of the tree, is not read.
func (s *session) treeScriptFetches(cmds [][]string, pluginRoot, projectDir string) []fetched {
	vars := treeVars(pluginRoot, projectDir)
	var out []fetched
	for _, words := range cmds {
		if len(words) == 0 {
			continue
		}
		script, direct := "", false
		switch {
		case progName(words[0]) == "uv":
			if args, ok := uvRunArgs(words[1:]); ok {
				script = uvRunScript(args)
			}
		case strings.Contains(words[0], "/"):
			script, direct = words[0], true
		}
		if script == "" {
			continue
		}
		rel, ok := s.treePath(script, vars, projectDir)
		if !ok {
			continue
		}
		if direct {
			// Its first line says whether uv runs it: the rest is
			// read only then.
			if head, ok := s.readTreeFile(rel, maxShebang); !ok || !uvShebang.MatchString(head) {
				continue
			}
		}
		src, ok := s.readTreeFile(rel, maxScriptRead)
		if !ok {
			continue
		}
		meta, ok := readScriptMeta(src)
		if !ok {
			continue
		}
		_, locked := s.treeFile(rel + ".lock")
		out = append(out, inlineMetaFetches(filepath.ToSlash(rel), meta, locked)...)
	}
	return out
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
	if rel == ".." || strings.HasPrefix(rel, "../") {
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

// inlineMetaFetches is what uv fetches for the script rel, whose inline
// metadata is meta, locked saying a lock of uv's lies beside it.
func inlineMetaFetches(rel string, meta scriptMeta, locked bool) []fetched {
	runner := "uv run " + shownCut(rel, maxFetchSpec)
	fix := fmt.Sprintf("pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script %s", shownCut(rel, maxFetchSpec))
	if !meta.ok {
		return []fetched{{runner: runner, spec: "its inline metadata's dependencies",
			why: "a dependencies list vigiles cannot read, so not sure to be pinned", fix: fix}}
	}
	var out []fetched
	for i, dep := range meta.deps {
		if i == maxFetchPackages {
			out = append(out, fetched{runner: runner, spec: "dependencies …",
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

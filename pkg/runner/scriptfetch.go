package runner

import (
	"fmt"
	"path"
	"strings"
)

// A hook's command often runs a shell script of the tree, which runs the
// package runner or the install itself (a SessionStart setup.sh that runs
// uvx pkg, or npm install -g tool): what fetchesIn reads in a command, it
// reads in each line of such a script too, and names where.

// maxScriptLines bounds the lines of one script read for what they fetch.
const maxScriptLines = 10_000

// scriptLineFetches is what the shell scripts of the tree that hook h's
// command runs (hookFiles) fetch, line by line, each fetch's runner
// naming the script and line. A script is a file named *.sh or *.bash,
// or whose first line runs sh, bash, dash or zsh. Each script is read
// once, however many hooks run it (s.lineFetches).
func (s *session) scriptLineFetches(h *Hook) []fetched {
	var out []fetched
	for _, f := range s.hookFiles(h) {
		fs, seen := s.lineFetches[f.Path]
		if !seen {
			fs = s.readScriptFetches(f.Path)
			if s.lineFetches == nil {
				s.lineFetches = map[string][]fetched{}
			}
			s.lineFetches[f.Path] = fs
		}
		out = append(out, fs...)
	}
	return out
}

// readScriptFetches reads the tree's file rel, where it is a shell
// script, for what each of its lines fetches (shellScriptLines).
func (s *session) readScriptFetches(rel string) []fetched {
	var out []fetched
	for _, l := range s.shellScriptLines(rel) {
		for _, f := range fetchesInShell(l.text, 0) {
			f.runner = fmt.Sprintf("%s, in %s line %d,", f.runner, shownCut(rel, maxFetchSpec), l.at)
			out = append(out, f)
			if len(out) == maxFetchPackages {
				return out
			}
		}
	}
	return out
}

// scriptLine is one line of a shell script as the shell reads it: a line
// continued with a backslash joined whole, at the number of its first.
type scriptLine struct {
	at   int
	text string
}

// shellScriptLines reads the tree's file rel, where it is a shell script
// (named *.sh or *.bash, or whose first line runs a shell), as the lines
// the shell reads (scriptLine) among its first maxScriptLines, blank ones
// and comments left out; nil where it is no shell script or cannot be
// read.
func (s *session) shellScriptLines(rel string) []scriptLine {
	src, ok := s.readTreeFile(rel, maxScriptRead)
	if !ok {
		return nil
	}
	first, _, _ := strings.Cut(src, "\n")
	if ext := path.Ext(rel); ext != ".sh" && ext != ".bash" && !(strings.HasPrefix(first, "#!") && shellShebang(first)) {
		return nil
	}
	var out []scriptLine
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines) && i < maxScriptLines; i++ {
		at, line := i+1, lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, scriptLine{at, line})
		}
	}
	return out
}

// shellShebang says whether the first line of a file, a #! line, runs a
// shell (directly or through env).
func shellShebang(first string) bool {
	for _, w := range strings.Fields(strings.TrimPrefix(first, "#!")) {
		switch path.Base(w) {
		case "env", "-S":
			continue
		case "sh", "bash", "dash", "zsh", "ksh":
			return true
		}
		return false
	}
	return false
}

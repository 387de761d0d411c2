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
// script, for what each of its lines fetches (a line continued with a
// backslash read whole; a comment not).
func (s *session) readScriptFetches(rel string) []fetched {
	src, ok := s.readTreeFile(rel, maxScriptRead)
	if !ok {
		return nil
	}
	first, _, _ := strings.Cut(src, "\n")
	ext := path.Ext(rel)
	if ext != ".sh" && ext != ".bash" && !(strings.HasPrefix(first, "#!") && shellShebang(first)) {
		return nil
	}
	var out []fetched
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines) && i < maxScriptLines; i++ {
		at, line := i+1, lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, f := range fetchesInShell(line, 0) {
			f.runner = fmt.Sprintf("%s, in %s line %d,", f.runner, shownCut(rel, maxFetchSpec), at)
			out = append(out, f)
			if len(out) == maxFetchPackages {
				return out
			}
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

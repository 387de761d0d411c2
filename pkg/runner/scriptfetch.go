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
// naming the script and line; a git clone or pull is pinned by a
// checkout of a full commit on a later line too. A script is a file named *.sh or *.bash,
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
// script, for what each of its lines fetches (shellScriptLines), up to
// maxFetchPackages fetches, then one that says more are there
// (fetched.unread).
func (s *session) readScriptFetches(rel string) []fetched {
	var out []fetched
	for _, l := range s.shellScriptLines(rel) {
		for _, words := range commandsOf(l.text) {
			if commit := gitCheckoutCommit(words); commit != "" {
				pinCheckedOut(out, commit)
			}
		}
		for _, f := range fetchesInShell(l.text, 0) {
			f.runner = fmt.Sprintf("%s, in %s line %d,", f.runner, shownCut(rel, maxFetchSpec), l.at)
			if len(out) == maxFetchPackages {
				// The rest are not read, but said to be there.
				return append(out, fetched{runner: "the script " + shownCut(rel, maxFetchSpec), spec: "…", unread: unreadScriptFetches,
					why: fmt.Sprintf("more fetches than vigiles reads one by one of a script (%d): the rest are not read", maxFetchPackages)})
			}
			out = append(out, f)
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
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, scriptLine{at, line})
		// The bodies of the here-documents this line opens are text the
		// command reads (cat <<'EOF' … a reminder that names npx), not
		// commands: a quoted delimiter's body is taken as it is, and of
		// an unquoted one's only what the shell runs in it, its command
		// substitutions; a body a shell reads (bash <<EOF) is commands.
		// A body whose delimiter never comes is read as lines, as
		// before: a << taken wrongly must not hide the rest.
		for _, h := range hereDocs(line) {
			end := -1
			for k := i + 1; k < len(lines) && k < maxScriptLines; k++ {
				body := strings.TrimSuffix(lines[k], "\r")
				if h.tabs {
					body = strings.TrimLeft(body, "\t")
				}
				if body == h.delim {
					end = k
					break
				}
			}
			if end < 0 {
				break
			}
			for k := i + 1; k < end; k++ {
				switch {
				case h.shell:
					if t := strings.TrimSpace(lines[k]); t != "" && !strings.HasPrefix(t, "#") {
						out = append(out, scriptLine{k + 1, lines[k]})
					}
				case !h.quoted:
					subs, _ := substitutions(lines[k])
					for _, sub := range subs {
						out = append(out, scriptLine{k + 1, sub})
					}
				}
			}
			i = end
		}
	}
	return out
}

// hereDoc is a here-document a line opens: its delimiter, whether it was
// quoted (its body then expands nothing), whether <<- strips the body's
// leading tabs, whether a shell reads the body as its commands (bash
// <<EOF, sh -s <<EOF).
type hereDoc struct {
	delim               string
	quoted, tabs, shell bool
}

// hereDocs is the here-documents line opens, in order (each body follows
// the last), read as the shell reads the line: a << inside quotes, in a
// comment, in an arithmetic expression or as <<< opens none, and the
// delimiter is the word after it with its quotes taken out (E"O"F is
// EOF, quoted).
func hereDocs(line string) []hereDoc {
	var out []hereDoc
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || strings.IndexByte(" \t;&|()", line[i-1]) >= 0):
			return out // a comment, to the end of the line
		case strings.HasPrefix(line[i:], "<<<"):
			i += 2
		case strings.HasPrefix(line[i:], "<<") && !inArithmetic(line[:i]) && !strings.Contains(line[:i], "let "):
			h, end := hereDocAt(line, i)
			if h.delim != "" {
				h.shell = readsAsShell(line[:i])
				out = append(out, h)
			}
			i = end - 1
		}
	}
	return out
}

// hereDocAt reads the here-document operator at s[i:] (<< or <<-, not
// <<<) and its delimiter word: the word with its quotes taken out ('E F',
// E"O"F, \EOF), quoted where any part was, and the index past it.
func hereDocAt(s string, i int) (h hereDoc, end int) {
	j := i + 2
	if j < len(s) && s[j] == '-' {
		h.tabs = true
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	var word strings.Builder
	k, q := j, byte(0)
	for ; k < len(s) && (q != 0 || strings.IndexByte(" \t\n;&|<>()", s[k]) < 0); k++ {
		switch ch := s[k]; {
		case q != 0 && ch == q:
			q = 0
		case q == 0 && (ch == '\'' || ch == '"'):
			q, h.quoted = ch, true
		case q == 0 && ch == '\\':
			h.quoted = true
		default:
			word.WriteByte(ch)
		}
	}
	h.delim = strings.TrimSuffix(word.String(), "\r")
	return h, k
}

// readsAsShell says whether the command before a << is a shell that
// reads its commands from standard input (bash <<EOF, sh -s <<EOF,
// source /dev/stdin <<EOF).
func readsAsShell(before string) bool {
	start := strings.LastIndexAny(before, ";&|(") + 1
	f := strings.Fields(before[start:])
	if len(f) == 0 {
		return false
	}
	switch path.Base(f[0]) {
	case "sh", "bash", "dash", "zsh", "ksh":
		for _, a := range f[1:] {
			if !strings.HasPrefix(a, "-") && a != "pipefail" { // -o pipefail
				return false // a script file: the body is its input, not its commands
			}
		}
		return true
	case "source", ".":
		return len(f) > 1 && (f[1] == "/dev/stdin" || f[1] == "-")
	}
	return false
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

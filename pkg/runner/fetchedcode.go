package runner

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// A command a hook, server, monitor, settings key or skill's shell line
// runs may run code that is not in the tree at all: a package runner
// (npx, uvx, uv run --with, pipx run, bunx, pnpm dlx, yarn dlx, npm
// exec, npm init and the create commands, deno run, deno x, go run,
// dnx) or a container (docker run, podman run) fetches it from a
// registry each time it starts, so does an install (pip install, uv pip
// install, npm install, pnpm, yarn and bun add) whose packages the
// command then runs, so does a git clone or pull of a remote
// repository, whose code the hook or its script then builds or runs, and
// a download piped into a shell, or saved and then run, runs whatever
// the URL serves. vigiles audits what the tree holds: such code it names
// (RuleFetchedCode), a warning where nothing pins what is fetched to one
// immutable version, a notice where something does.

// fetched is one piece of code a command fetches when it runs.
type fetched struct {
	// runner is what fetches it, as the finding names it ("npx",
	// "docker run", "curl | sh", "curl && sh").
	runner string
	// spec is the package, image or URL as written.
	spec string
	// pinned says an exact version or a digest pins it; why says what
	// pins it, or what is missing.
	pinned bool
	why    string
	// fix is the change that pins it ("" where pinned).
	fix string
	// checkout says a git clone or pull not pinned yet, which a
	// checkout of a full commit after it in the same line or script
	// pins (pinCheckedOut).
	checkout bool
	// unread, where not "", says it stands for the fetches past those
	// vigiles reads one by one of one command or script
	// (maxFetchPackages, a bun script's maxBunImports), and names what
	// they are: unreadPackages of a command or a bun script,
	// unreadScriptFetches of a shell script, whose fetches may be
	// clones, images or downloads as well as packages. How many they
	// are is not known, so a finding does not count it as one fetch.
	unread string
}

// The kinds of fetched.unread: what the fetches past those vigiles
// reads one by one are.
const (
	unreadPackages      = "packages"
	unreadScriptFetches = "fetches of a script"
)

// unsureAfter is f where an option vigiles does not know (unsure, ""
// for none) came before its package: a pin it seems to have is not sure
// to be what runner fetches, since the option may take the word after
// it. more ends the fix (where else the option may go).
func (f fetched) unsureAfter(unsure, runner, more string) fetched {
	if unsure == "" || !f.pinned {
		return f
	}
	f.pinned = false
	f.why = fmt.Sprintf("after the option %s, which vigiles does not know: it may take the word after it, so what %s fetches is not sure to be this", shownCut(unsure, maxMonitorName), runner)
	f.fix = "write the option as --name=value" + more
	return f
}

// maxFetchSpec bounds a package, image or URL a finding quotes, and
// maxFetchNamed the fetches one finding names (the rest are counted).
// maxFetchPackages bounds the packages of one option's list (uvx --with
// a,b,…) read one by one: past it, the rest are one fetch, unpinned.
const (
	maxFetchSpec     = 120
	maxFetchNamed    = 3
	maxFetchPackages = 256
)

// maxShellDepth bounds how deep sh -c 'sh -c …' is read.
const maxShellDepth = 3

// shellCmd is one simple command of a shell line, as its words;
// whether its output is piped into the next (pipe), whether the next's
// output is given it as a file (fed: sh <(curl …)), whether the next's
// output is given it as words (subst: eval $(curl …)), the file its
// standard output is redirected to (stdout: curl URL > f) and the one
// its standard input is read from (stdin: sh < f), the last where there
// are more.
type shellCmd struct {
	words         []string
	pipe          bool
	fed           bool
	subst         bool
	stdout, stdin string
}

// shellCommands splits the shell line s into its simple commands, as far
// as sh would at a glance: at unquoted ;, &, &&, ||, |, newlines, (, ),
// $(, <( and backquotes, words honouring quotes and backslashes, with
// redirections (2>&1, >file, <file) and comments left out of the words
// (a file standard output goes to, or standard input comes from, kept
// apart). It does not
// expand anything, and a command substitution inside double quotes stays
// in its word. It is shellWords for every command of the line, not the
// first only.
func shellCommands(s string) []shellCmd {
	var cmds []shellCmd
	var words []string
	var cur strings.Builder
	in, redir, redirOut, redirIn, tick := false, false, false, false, false
	stdout, stdin := "", ""
	var quote byte
	flush := func() {
		if !in {
			return
		}
		w := cur.String()
		cur.Reset()
		in = false
		if redir {
			if redirOut {
				stdout = w
			}
			if redirIn {
				stdin = w
			}
			redir, redirOut, redirIn = false, false, false
			return
		}
		words = append(words, w)
	}
	end := func(pipe, fed bool) {
		flush()
		redir, redirOut, redirIn = false, false, false
		if len(words) > 0 {
			cmds = append(cmds, shellCmd{words: words, pipe: pipe, fed: fed, stdout: stdout, stdin: stdin})
		}
		words, stdout, stdin = nil, "", ""
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case quote == '"':
			switch {
			case ch == '"':
				quote = 0
			case ch == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			default:
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' { // a line continued
				cur.WriteByte(s[i])
				in = true
			}
		case ch == '#' && !in:
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case ch == ' ' || ch == '\t' || ch == '\r':
			flush()
		case ch == '\n' || ch == ';' || ch == '(' || ch == ')':
			end(false, false)
		case ch == '`' || ch == '$' && i+1 < len(s) && s[i+1] == '(':
			// A command substitution: the command before it is
			// given the next's output as words.
			open := ch == '$' || !tick
			if ch == '`' {
				tick = !tick
			} else {
				i++
			}
			n := len(cmds)
			end(false, false)
			if open && len(cmds) > n {
				cmds[len(cmds)-1].subst = true
			}
		case ch == '|':
			if i+1 < len(s) && s[i+1] == '|' {
				i++
				end(false, false)
				break
			}
			if i+1 < len(s) && s[i+1] == '&' {
				i++
			}
			end(true, false)
		case ch == '&':
			if i+1 < len(s) && s[i+1] == '&' {
				i++
			}
			end(false, false)
		case ch == '<' || ch == '>':
			if ch == '<' && i+1 < len(s) && s[i+1] == '(' {
				end(false, true) // <( process substitution )
				i++
				break
			}
			// A file descriptor's number before it is no word; a >
			// with none, or 1, redirects standard output (not >&2,
			// which makes it a copy of another), a < with none, or
			// 0, standard input (not <<, a here-document, <&, <>).
			out, input := ch == '>', ch == '<'
			if in && strings.Trim(cur.String(), "0123456789") == "" {
				out = out && cur.String() == "1"
				input = input && cur.String() == "0"
				cur.Reset()
				in = false
			}
			flush()
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '<' || s[i+1] == '&' || s[i+1] == '|') {
				i++
				out = out && s[i] != '&' && s[i] != '<'
				input = false
			}
			redir, redirOut, redirIn = true, out, input
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	end(false, false)
	return cmds
}

// assignment matches a word that sets a variable before a command.
var assignment = lazyRE(`^[A-Za-z_][A-Za-z0-9_]*=`)

// commandWords is the command cmd runs, past what only sets up how it
// runs: variable assignments (FOO=1 npx …), the shell's keywords and
// builtins that run the words after them (exec, command, time, if, then,
// do, …), and env (its -S read as envCommand reads it), sudo, nohup, nice
// and timeout with their options. nil where it runs nothing (command -v).
func commandWords(words []string) []string {
	skipOpts := func(ws []string, withValue string) []string {
		for len(ws) > 0 && strings.HasPrefix(ws[0], "-") && ws[0] != "-" {
			w := ws[0]
			ws = ws[1:]
			if w == "--" {
				break
			}
			if len(w) == 2 && strings.Contains(withValue, w[1:]) && len(ws) > 0 {
				ws = ws[1:]
			}
		}
		return ws
	}
	splits := 0 // env -S's, across every env of the command
	for len(words) > 0 {
		w := words[0]
		if p := path.Base(w); strings.HasPrefix(w, "/") && (p == "env" || p == "sudo" || p == "doas" || p == "nice" || p == "timeout" || p == "nohup") {
			// A program named by its absolute path (#!/usr/bin/env -S
			// …, /usr/bin/sudo) is that program; the shell's own
			// words are never spelled so.
			w = p
		}
		switch {
		case assignment().MatchString(w):
			words = words[1:]
		case w == "exec":
			words = skipOpts(words[1:], "a")
		case w == "command":
			if len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
				return nil
			}
			words = skipOpts(words[1:], "")
		case w == "time" || w == "!" || w == "{" || w == "}" || w == "then" || w == "do" || w == "else" ||
			w == "if" || w == "elif" || w == "while" || w == "until" || w == "nohup" || w == "builtin":
			words = words[1:]
		case w == "env":
			words = envCommand(words[1:], &splits)
		case w == "sudo" || w == "doas":
			words = skipOpts(words[1:], "ugCDpUrTh")
		case w == "nice":
			words = skipOpts(words[1:], "n")
		case w == "timeout":
			words = skipOpts(words[1:], "sk")
			if len(words) > 0 {
				words = words[1:] // the duration
			}
		default:
			return words
		}
	}
	return nil
}

// envCommand is what env runs with args: the words past its options,
// where -S (--split-string) gives words of its own: its value is split as
// shellCommands splits a line's first command, and those words come
// before the rest, their own options read as env's, as env reads them
// (env -S 'npx -y pkg', env --split-string='-i npx pkg', env -S"npx pkg").
// -u, -C and -S take the rest of their word or the next one. splits
// counts the values split: past maxShellDepth of them (env -S '-S …',
// or env -S env -S …), a -S value is skipped, not split.
func envCommand(args []string, splits *int) []string {
	split := func(value string, rest []string) []string {
		if *splits++; *splits > maxShellDepth {
			return rest
		}
		var words []string
		if cmds := shellCommands(value); len(cmds) > 0 {
			words = cmds[0].words
		}
		return append(slices.Clone(words), rest...)
	}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, value, has := splitOpt(a)
			if name != "split-string" && name != "unset" && name != "chdir" {
				continue
			}
			if !has {
				if len(args) == 0 {
					return nil
				}
				value, args = args[0], args[1:]
			}
			if name == "split-string" {
				args = split(value, args)
			}
			continue
		}
		// A cluster of short options (-iS …), the first that takes a
		// value taking the rest of the word, or the next word.
		for k := 1; k < len(a); k++ {
			if strings.IndexByte("uCS", a[k]) < 0 {
				continue
			}
			value := a[k+1:]
			if value == "" {
				if len(args) == 0 {
					return nil
				}
				value, args = args[0], args[1:]
			}
			if a[k] == 'S' {
				args = split(value, args)
			}
			break
		}
	}
	if len(args) > 0 && args[0] == "-" {
		args = args[1:] // env - cmd: as -i
	}
	return args
}

// progName is the program a command's first word names, for telling a
// package runner: its base name where the word is an absolute path
// (/usr/bin/npx), "" where it is a relative path or starts with a
// variable (./npx, ${CLAUDE_PLUGIN_ROOT}/bin/npx): a file in the tree
// (or one the environment chooses), which the audit reads as it reads
// any script, not the package runner.
func progName(w string) string {
	if strings.HasPrefix(w, "/") {
		return winProg(path.Base(w))
	}
	if strings.ContainsAny(w, "/$") {
		return ""
	}
	return winProg(w)
}

// winProg is the program p names without the .cmd or .exe Windows gives
// it (npx.cmd, cmd.exe, docker.exe).
func winProg(p string) string {
	for _, ext := range []string{".cmd", ".exe", ".CMD", ".EXE"} {
		if q, ok := strings.CutSuffix(p, ext); ok && q != "" {
			return q
		}
	}
	return p
}

// isShell says whether the program p reads a script from its input when
// given none: what a download piped into it runs.
func isShell(p string) bool {
	switch p {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "python", "python3", "node", "perl", "ruby", "php", "pwsh":
		return true
	}
	return false
}

// readsScriptFromInput says whether the program p (one isShell names),
// given args, runs the script its input gives: not where an option gives
// it the program (sh -c, python3 -c or -m, node -e, perl -e, php -r,
// pwsh -Command) or a word names a script file (python3 parse.py), as in
// curl … | python3 -c 'import json…', which only reads the download.
// "-" (and sh -s) is the input.
func readsScriptFromInput(p string, args []string) bool {
	input, _ := scriptSource(p, args)
	return input
}

// scriptSource is where the program p (one isShell names), given args,
// reads the script it runs: its input (readsScriptFromInput), or the
// file a word names (sh ./install.sh, python3 get-pip.py, pwsh -File
// x.ps1); neither where an option gives it the program (sh -c …).
func scriptSource(p string, args []string) (input bool, file string) {
	inline := "c"
	switch p {
	case "python", "python3":
		inline = "cm"
	case "node":
		inline = "ep"
	case "perl", "ruby":
		inline = "eE"
	case "php":
		inline = "rf"
	case "pwsh":
		for i, a := range args {
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				if i+1 < len(args) && args[i+1] == "-" {
					return true, ""
				}
				n := strings.ToLower(strings.TrimLeft(a, "-"))
				if n != "" && strings.HasPrefix("file", n) && i+1 < len(args) {
					return false, args[i+1]
				}
				if strings.HasPrefix("command", n) || strings.HasPrefix("file", n) || n == "encodedcommand" || n == "ec" {
					return false, ""
				}
				continue
			}
			return false, a
		}
		return true, ""
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-":
			return true, ""
		case isShellOnly(p) && (a == "-o" || a == "-O" || a == "+o" || a == "+O") || (p == "python" || p == "python3") && (a == "-W" || a == "-X"):
			i++ // the option's value
		case a == "--":
			// The next word, if any, is a file; none is odd.
			if i+1 < len(args) {
				return false, args[i+1]
			}
			return false, ""
		case strings.HasPrefix(a, "--"):
			if n, _, _ := strings.Cut(a[2:], "="); n == "eval" || n == "print" || n == "command" {
				return false, ""
			}
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") && isShellOnly(p):
			if isShellOnly(p) && strings.Contains(a, "s") {
				return true, ""
			}
			if strings.ContainsAny(a[1:], inline) {
				return false, ""
			}
		default:
			return false, a // a script file
		}
	}
	return true, ""
}

// inputScriptRunner is what runs the script its input gives, where the
// command words (past commandWords) do, as a download piped into it
// names it: a shell or an interpreter that reads its script there
// (readsScriptFromInput: sh, bash -s, python3 -), uv run - (and
// uv run --script -, or a command uv run runs that does: uv run
// python3 -), and deno run -. false where it reads its input as data or
// runs a script of its own, or where an option vigiles does not know
// comes before uv run's command (it may take the "-").
func inputScriptRunner(words []string, depth int) (string, bool) {
	if len(words) == 0 || depth > maxShellDepth {
		return "", false
	}
	p, args := progName(words[0]), words[1:]
	switch {
	case isShell(p):
		return p, readsScriptFromInput(p, args)
	case p == "uv":
		run, ok := uvRunArgs(args)
		if !ok {
			break
		}
		o := readUvOptions(run, true)
		if o.unsure != "" || o.module || len(o.rest) == 0 {
			break
		}
		if o.rest[0] == "-" {
			return "uv run", true
		}
		if sh, ok := inputScriptRunner(commandWords(o.rest), depth+1); ok {
			return "uv run " + sh, true
		}
	case p == "deno" && len(args) > 0 && args[0] == "run":
		// deno run's first word past its options is the script, "-"
		// its input.
		for i := 1; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				return "deno run", i+1 < len(args) && args[i+1] == "-"
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				return "deno run", a == "-"
			}
			if name, _, has := splitOpt(a); denoValue[name] && !has {
				i++
			}
		}
	}
	return "", false
}

// isShellOnly says whether p is a shell (not another interpreter).
func isShellOnly(p string) bool {
	switch p {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "fish":
		return true
	}
	return false
}

// fetchesInShell is what the shell line s fetches (fetchesIn for each of
// its commands), and, for a download piped into a shell, the download.
func fetchesInShell(s string, depth int) []fetched {
	if depth > maxShellDepth {
		return nil
	}
	var out []fetched
	cmds := shellCommands(s)
	var runs fileRuns
	for i, c := range cmds {
		words := commandWords(c.words)
		if len(words) == 0 {
			continue
		}
		if commit := gitCheckoutCommit(words); commit != "" {
			pinCheckedOut(out, commit)
		}
		if p := progName(words[0]); (p == "curl" || p == "wget") && c.pipe && i+1 < len(cmds) {
			// Past any tee, cat or filter that passes the download
			// on (curl … | tee f | sh, curl … | grep -v '^#' | sh).
			j := i + 1
			for j+1 < len(cmds) && cmds[j].pipe && passesInput(commandWords(cmds[j].words)) {
				j++
			}
			if sh, ok := inputScriptRunner(commandWords(cmds[j].words), 0); ok {
				out = append(out, downloadRun(p, words[1:], sh))
				continue
			}
		}
		if p := progName(words[0]); p == "eval" && c.subst && i+1 < len(cmds) {
			// eval $(curl …): the download is the line eval runs.
			if next := commandWords(cmds[i+1].words); len(next) > 0 && (progName(next[0]) == "curl" || progName(next[0]) == "wget") {
				out = append(out, downloadRun(progName(next[0]), next[1:], p))
				continue
			}
		}
		if p := progName(words[0]); (isShell(p) || p == "source" || p == ".") && c.fed && i+1 < len(cmds) {
			// sh <(curl …), source <(curl …): the download is the
			// script it runs.
			if next := commandWords(cmds[i+1].words); len(next) > 0 && (progName(next[0]) == "curl" || progName(next[0]) == "wget") {
				out = append(out, downloadRun(progName(next[0]), next[1:], p))
				continue
			}
		}
		if p := progName(words[0]); p == "curl" || p == "wget" {
			// A download saved to a file that a later command of the
			// line runs (curl -o f URL && sh f, curl URL | tee f && sh f).
			for _, d := range append(savedDownloads(p, words[1:], c.stdout), pipedCopies(cmds, i, p, words[1:])...) {
				if runs == nil {
					runs = readFileRuns(cmds)
				}
				if how, ok := runs.after(i, d.file); ok {
					out = append(out, fetched{runner: p + " && " + how, spec: d.url,
						why: "a download saved to " + shownCut(d.file, maxMonitorName) + " and run, which no version pins: it runs whatever the URL serves that day",
						fix: "put the script in the tree, reviewed, and run it from there"})
				}
			}
		}
		out = append(out, fetchesIn(words, depth)...)
	}
	return out
}

// savedDownload is a URL curl or wget downloads and the file it saves
// the download to.
type savedDownload struct {
	url, file string
}

// curlValue are curl's long options that take a value (in the next
// word: curl takes no --name=value), past --output, --output-dir and
// --url, which savedDownloads reads; curlShort its short options that
// do, in the rest of the word or the next.
var (
	curlValue = map[string]bool{"abstract-unix-socket": true, "alt-svc": true, "aws-sigv4": true, "cacert": true, "capath": true,
		"cert": true, "cert-type": true, "ciphers": true, "config": true, "connect-timeout": true, "connect-to": true,
		"continue-at": true, "cookie": true, "cookie-jar": true, "create-file-mode": true, "crlfile": true, "curves": true,
		"data": true, "data-ascii": true, "data-binary": true, "data-raw": true, "data-urlencode": true, "delegation": true,
		"dns-interface": true, "dns-ipv4-addr": true, "dns-ipv6-addr": true, "dns-servers": true, "doh-url": true,
		"dump-header": true, "egd-file": true, "engine": true, "etag-compare": true, "etag-save": true,
		"expect100-timeout": true, "form": true, "form-string": true, "ftp-account": true, "ftp-method": true,
		"ftp-port": true, "header": true, "hostpubmd5": true, "hostpubsha256": true, "hsts": true, "interface": true,
		"ip-tos": true, "json": true, "keepalive-time": true, "keepalive-cnt": true, "key": true, "key-type": true,
		"krb": true, "libcurl": true, "limit-rate": true, "local-port": true, "login-options": true, "mail-auth": true,
		"mail-from": true, "mail-rcpt": true, "max-filesize": true, "max-redirs": true, "max-time": true,
		"netrc-file": true, "noproxy": true, "oauth2-bearer": true, "parallel-max": true, "pass": true,
		"pinnedpubkey": true, "preproxy": true, "proto": true, "proto-default": true, "proto-redir": true, "proxy": true,
		"proxy-cacert": true, "proxy-header": true, "proxy-user": true, "pubkey": true, "quote": true, "range": true,
		"rate": true, "referer": true, "request": true, "request-target": true, "resolve": true, "retry": true,
		"retry-delay": true, "retry-max-time": true, "socks4": true, "socks4a": true, "socks5": true,
		"socks5-hostname": true, "speed-limit": true, "speed-time": true, "stderr": true, "telnet-option": true,
		"time-cond": true, "tls-max": true, "trace": true, "trace-ascii": true, "unix-socket": true, "upload-file": true,
		"url-query": true, "user": true, "user-agent": true, "variable": true, "write-out": true}
	curlShort = "AbcCdDeEFHKmoPQrtTuUwxXyYz"
)

// wgetValue are wget's long options that take a value (in the next word
// where it has no "="), past --output-document and --directory-prefix,
// which savedDownloads reads; wgetShort its short options that do (-n
// among them: -nv, -nc, -nd are -n's value).
var (
	wgetValue = map[string]bool{"output-file": true, "append-output": true, "execute": true, "input-file": true, "base": true,
		"config": true, "tries": true, "timeout": true, "dns-timeout": true, "connect-timeout": true, "read-timeout": true,
		"wait": true, "waitretry": true, "quota": true, "limit-rate": true, "user-agent": true, "header": true, "user": true,
		"password": true, "http-user": true, "http-password": true, "post-data": true, "post-file": true, "method": true,
		"body-data": true, "body-file": true, "referer": true, "load-cookies": true, "save-cookies": true, "accept": true,
		"reject": true, "domains": true, "exclude-domains": true, "level": true, "ca-certificate": true,
		"ca-directory": true, "certificate": true, "private-key": true, "secure-protocol": true, "bind-address": true,
		"restrict-file-names": true, "default-page": true, "cut-dirs": true, "progress": true}
	wgetShort = "aABDeiIlnoOPQRtTUwX"
)

// maxSavedDownloads bounds the downloads of one curl or wget command
// read for a later command that runs them.
const maxSavedDownloads = maxFetchPackages

// savedDownloads is what curl or wget (prog, with args) saves to files:
// each URL with the file it goes to, stdout ("" for none) the file its
// standard output is redirected to (curl URL > f, wget -qO- URL > f),
// where a download it writes there goes. curl pairs each -o (--output) or
// -O (--remote-name: the URL's last segment; --remote-name-all for every
// URL) with the URLs in order, in --output-dir where given; wget saves
// them all to -O's file (--output-document), else each to its last
// segment (index.html where it has none), in -P's directory
// (--directory-prefix). "-" (standard output) is no file. A URL is a
// word past the options that holds :// or starts as a host name does
// (example.org/x.sh), so that the value of an option vigiles does not
// know is not paired with a file.
func savedDownloads(prog string, args []string, stdout string) []savedDownload {
	var urls, outs []string // an out of "" is -O's
	dir, doc := "", ""
	remoteAll, docSet := false, false
	value := func(i *int, rest string) string {
		if rest != "" || *i+1 >= len(args) {
			return rest
		}
		*i++
		return args[*i]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			urls = append(urls, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--") && prog == "curl":
			switch name := a[2:]; {
			case name == "output":
				outs = append(outs, value(&i, ""))
			case name == "remote-name":
				outs = append(outs, "")
			case name == "remote-name-all":
				remoteAll = true
			case name == "output-dir":
				dir = value(&i, "")
			case name == "url":
				urls = append(urls, value(&i, ""))
			case curlValue[name]:
				i++
			}
		case strings.HasPrefix(a, "--"):
			name, v, has := splitOpt(a)
			if !has && (name == "output-document" || name == "directory-prefix" || wgetValue[name]) {
				v = value(&i, "")
			}
			switch name {
			case "output-document":
				doc, docSet = v, true
			case "directory-prefix":
				dir = v
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			short := curlShort
			if prog == "wget" {
				short = wgetShort
			}
			for k := 1; k < len(a); k++ {
				if prog == "curl" && a[k] == 'O' {
					outs = append(outs, "")
					continue
				}
				if strings.IndexByte(short, a[k]) < 0 {
					continue
				}
				v := value(&i, a[k+1:])
				switch {
				case prog == "curl" && a[k] == 'o':
					outs = append(outs, v)
				case prog == "wget" && a[k] == 'O':
					doc, docSet = v, true
				case prog == "wget" && a[k] == 'P':
					dir = v
				}
				break
			}
		default:
			urls = append(urls, a)
		}
	}
	urls = slices.DeleteFunc(urls, func(u string) bool { return !strings.Contains(u, "://") && !hostPath().MatchString(u) })
	var saved []savedDownload
	add := func(url, file string) {
		if file == "" || file == "-" || len(saved) >= maxSavedDownloads {
			return
		}
		if dir != "" && !strings.HasPrefix(file, "/") {
			file = strings.TrimSuffix(dir, "/") + "/" + file
		}
		saved = append(saved, savedDownload{url: url, file: file})
	}
	if prog == "wget" {
		if docSet {
			if doc == "-" {
				doc = stdout
			}
			if len(urls) > 0 && doc != "" && doc != "-" {
				saved = append(saved, savedDownload{url: urls[0], file: doc}) // -O is not in -P's directory
			}
			return saved
		}
		for _, u := range urls {
			name := urlFileName(u)
			if name == "" {
				name = "index.html"
			}
			add(u, name)
		}
		return saved
	}
	for k, u := range urls {
		switch {
		case k < len(outs) && outs[k] == "-" && stdout != "":
			saved = append(saved, savedDownload{url: u, file: stdout}) // not in --output-dir
		case k < len(outs) && outs[k] != "":
			add(u, outs[k])
		case k < len(outs) || remoteAll:
			add(u, urlFileName(u))
		case stdout != "" && len(saved) < maxSavedDownloads:
			saved = append(saved, savedDownload{url: u, file: stdout})
		}
	}
	return saved
}

// pipedCopies are the files the commands the download of cmds[i] (curl
// or wget, prog, with args) is piped through save it to as they pass it
// on (passesInput): tee's files, and the file the standard output of the
// last is redirected to (curl URL | tee f, curl URL | sed 1d > f).
func pipedCopies(cmds []shellCmd, i int, prog string, args []string) []savedDownload {
	if !cmds[i].pipe {
		return nil
	}
	const piped = "\x00" // no file a line names: what goes down the pipe
	var urls []string
	for _, d := range savedDownloads(prog, args, piped) {
		if d.file == piped {
			urls = append(urls, d.url)
		}
	}
	var files []string
	for j := i + 1; len(urls) > 0 && j < len(cmds) && cmds[j-1].pipe; j++ {
		words := commandWords(cmds[j].words)
		if !passesInput(words) {
			break
		}
		if progName(words[0]) == "tee" {
			opts := true
			for _, w := range words[1:] {
				switch {
				case opts && w == "--":
					opts = false
				case opts && strings.HasPrefix(w, "-") || w == "-":
				default:
					files = append(files, w)
				}
			}
		}
		if cmds[j].stdout != "" {
			files = append(files, cmds[j].stdout)
			break // nothing passes on
		}
	}
	var out []savedDownload
	for _, u := range urls {
		for _, f := range files {
			if len(out) < maxSavedDownloads {
				out = append(out, savedDownload{url: u, file: f})
			}
		}
	}
	return out
}

// hostPath matches a URL written with no scheme, a host name and maybe
// a port and a path (example.org/install.sh), as curl and wget take one.
var hostPath = lazyRE(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:[0-9]+)?(/|$)`)

// urlFileName is the last segment of the URL u's path, which curl -O
// and wget name the file they save it to after ("" where there is
// none).
func urlFileName(u string) string {
	u, _, _ = strings.Cut(u, "#")
	u, _, _ = strings.Cut(u, "?")
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
	}
	k := strings.IndexByte(u, '/')
	if k < 0 {
		return ""
	}
	return u[strings.LastIndexByte(u, '/')+1:]
}

// fileRun is a command of a shell line (its index, idx) that runs a
// file (word, as written): how is the interpreter it is given to (sh,
// python3, source, .), or the file itself, run as the program.
type fileRun struct {
	idx       int
	word, how string
}

// fileRuns are the commands of a line that run a file, by the file's
// base name.
type fileRuns map[string][]fileRun

// readFileRuns reads which of cmds run a file: one given to a shell or
// an interpreter as its script (sh f, bash ./f, python3 f, source f,
// . f) or as its input (sh < f), or given as the program by a path (./f,
// /tmp/f, dir/f), also inside the script of a shell's -c
// (bash -c ./f, sh -c 'sh f'). A name with no / that sh -c runs
// (sh -c f) is looked up on the PATH, not run from the working
// directory: it is none.
func readFileRuns(cmds []shellCmd) fileRuns {
	runs := fileRuns{}
	for idx, c := range cmds {
		runs.read(idx, c, 0)
	}
	return runs
}

// read adds to runs the file the command c, the line's idx-th, runs, or
// those the commands of its sh -c script run, read at depth (as far as
// maxShellDepth).
func (runs fileRuns) read(idx int, c shellCmd, depth int) {
	words := commandWords(c.words)
	if len(words) == 0 {
		return
	}
	p := progName(words[0])
	if script, ok := shellCScript(words[1:]); ok && isShellOnly(p) {
		for _, inner := range shellCommands(script) {
			if depth < maxShellDepth {
				runs.read(idx, inner, depth+1)
			}
		}
		return
	}
	r := fileRun{idx: idx}
	switch {
	case isShell(p):
		input, file := scriptSource(p, words[1:])
		r.word, r.how = file, p
		if input {
			r.word = c.stdin // sh < f
		}
	case p == "source" || p == ".":
		args := words[1:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) > 0 {
			r.word = args[0]
		}
		r.how = p
	case strings.Contains(words[0], "/"):
		r.word, r.how = words[0], shownCut(words[0], maxMonitorName)
	}
	if r.word != "" {
		base := path.Base(path.Clean(r.word))
		runs[base] = append(runs[base], r)
	}
}

// after is how a command past cmds[i] runs file: the first whose word
// is file, or ends /file where file is a relative path (sh /tmp/f and
// sh ./f run f saved in the working directory, /tmp). At most
// maxFetchPackages candidates are looked at.
func (runs fileRuns) after(i int, file string) (string, bool) {
	file = path.Clean(file)
	cands := runs[path.Base(file)]
	k, _ := slices.BinarySearchFunc(cands, i+1, func(r fileRun, idx int) int { return r.idx - idx })
	for n := 0; k < len(cands) && n < maxFetchPackages; k, n = k+1, n+1 {
		w := path.Clean(cands[k].word)
		if w == file || !strings.HasPrefix(file, "/") && strings.HasSuffix(w, "/"+file) {
			return cands[k].how, true
		}
	}
	return "", false
}

// passesInput says whether the command words (past commandWords) write
// their input, whole or filtered, to their output: tee (which copies it
// to files too), cat with no file but its input ("-", or none), tr, and
// a filter that reads no file (filterReadsInput: grep, sed, awk, head,
// tail), as curl … | grep -v '^#' | sh still runs what the URL serves.
func passesInput(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch p := progName(words[0]); p {
	case "tee", "tr":
		// tr reads nothing but its input.
		return true
	case "cat":
		operands, input := false, false
		for k, a := range words[1:] {
			if a == "--" {
				for _, b := range words[k+2:] {
					operands, input = true, input || b == "-"
				}
				break
			}
			if a == "-" || !strings.HasPrefix(a, "-") {
				operands, input = true, input || a == "-"
			}
		}
		return !operands || input
	default:
		if f, ok := filters[p]; ok {
			return f.readsInput(p, words[1:])
		}
	}
	return false
}

// filter is how a filter passesInput reads takes its words: its short
// options that take a value (in the rest of the word or the next) and
// its long ones that do (in the next word where it has no "="), those of
// them that give it its program (grep -e, sed -f, awk -f), after which
// its first operand is a file too, and the options that keep its input
// from its output (mute: grep -q, -c, -l, which print no line of it, -r,
// which reads a directory; sed -i, which edits files in place).
type filter struct {
	value, program, mute             string
	valueLong, programLong, muteLong []string
	// programFirst says its first operand is its program where no
	// option gives one (grep PATTERN, sed SCRIPT, awk PROGRAM).
	programFirst bool
}

// filters are the filters passesInput reads, by program, as GNU's read
// their options: anywhere before "--", among the operands too.
var filters = func() map[string]filter {
	grep := filter{value: "efmABCdD", program: "ef", mute: "qclLrR", programFirst: true,
		valueLong:   []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "label", "include", "exclude", "exclude-from", "exclude-dir", "binary-files", "devices", "directories"},
		programLong: []string{"regexp", "file"},
		muteLong:    []string{"quiet", "silent", "count", "files-with-matches", "files-without-match", "recursive", "dereference-recursive"}}
	awk := filter{value: "fvF", program: "f", programFirst: true,
		valueLong: []string{"file", "assign", "field-separator"}, programLong: []string{"file"}}
	return map[string]filter{
		"grep": grep, "egrep": grep, "fgrep": grep,
		"sed": {value: "efl", program: "ef", mute: "i", programFirst: true,
			valueLong: []string{"expression", "file", "line-length"}, programLong: []string{"expression", "file"}, muteLong: []string{"in-place"}},
		"awk": awk, "gawk": awk, "mawk": awk, "nawk": awk,
		"head": {value: "nc", valueLong: []string{"lines", "bytes"}},
		"tail": {value: "ncs", valueLong: []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"}},
	}
}()

// readsInput says whether the filter f (the program p) given args writes
// its input to its output: no operand past its program names a file but
// "-" (its input), and no option mutes it. An awk operand that sets a
// variable (n=1) is no file.
func (f filter) readsInput(p string, args []string) bool {
	var operands []string
	program := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, has := splitOpt(a)
			if slices.Contains(f.muteLong, name) {
				return false
			}
			program = program || slices.Contains(f.programLong, name)
			if !has && slices.Contains(f.valueLong, name) {
				i++
			}
		case strings.HasPrefix(a, "-") && a != "-":
			// A cluster of short options (-vE), the first that takes
			// a value taking the rest of the word, or the next word.
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(f.mute, a[k]) >= 0 {
					return false
				}
				if strings.IndexByte(f.value, a[k]) < 0 {
					continue
				}
				program = program || strings.IndexByte(f.program, a[k]) >= 0
				if k == len(a)-1 {
					i++
				}
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	if f.programFirst && !program && len(operands) > 0 {
		operands = operands[1:]
	}
	awk := strings.HasSuffix(p, "awk")
	return !slices.ContainsFunc(operands, func(o string) bool { return o != "-" && !(awk && assignment().MatchString(o)) })
}

// downloadRun is the download of curl or wget (prog, with args) piped
// into the shell sh.
func downloadRun(prog string, args []string, sh string) fetched {
	url := "a URL it is given"
	for _, a := range args {
		if strings.Contains(a, "://") {
			url = a
			break
		}
	}
	return fetched{runner: prog + " | " + sh, spec: url, why: "a download piped into a shell, which no version pins: it runs whatever the URL serves that day",
		fix: "put the script in the tree, reviewed, and run it from there"}
}

// fetchesIn is what the command words (its program first, past
// commandWords) fetches when it runs: a package runner's package, a
// container's image, a git clone's or pull's remote repository,
// and what a shell it starts with -c fetches.
func fetchesIn(words []string, depth int) []fetched {
	if len(words) == 0 {
		return nil
	}
	p, args := progName(words[0]), words[1:]
	sub := func(names ...string) ([]string, bool) {
		if len(args) > 0 && slices.Contains(names, args[0]) {
			return args[1:], true
		}
		return nil, false
	}
	switch p {
	case "sh", "bash", "zsh", "dash", "ksh", "ash":
		return shellScriptFetches(args, depth)
	case "cmd":
		// Windows' cmd /c (or /k) runs the line its words make: how
		// Claude Code there starts an npx server ("cmd", ["/c", "npx", …]).
		if len(args) > 0 && (strings.EqualFold(args[0], "/c") || strings.EqualFold(args[0], "/k")) && depth < maxShellDepth {
			return fetchesInShell(strings.Join(args[1:], " "), depth+1)
		}
	case "eval":
		// eval runs its words, joined by spaces, as a shell line.
		if depth >= maxShellDepth {
			return nil
		}
		return scriptFetches(strings.Join(args, " "), depth+1, "eval")
	case "npx":
		return npxFetches("npx", args)
	case "npm":
		// npm takes exec's and init's options before exec or init too
		// (npm --yes exec pkg, npm --yes create x); one it does not
		// know takes no value. init's aliases are create and innit.
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "exec" || a == "x" {
				return npxFetches("npm exec", append(slices.Clone(args[:i]), args[i+1:]...))
			}
			if a == "init" || a == "create" || a == "innit" {
				return createFetches("npm "+a, append(slices.Clone(args[:i]), args[i+1:]...))
			}
			if npmInstallAliases[a] {
				return npmInstallFetches("npm install", append(slices.Clone(args[:i]), args[i+1:]...))
			}
			if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
				break
			}
			if name, _, has := splitOpt(a); !has && (npxFlags[name] || createValue[name]) {
				i++
			}
		}
	case "bunx":
		return npxFetches("bunx", args)
	case "bun":
		if rest, ok := sub("x"); ok {
			return npxFetches("bunx", rest)
		}
		if rest, ok := sub("create"); ok {
			return createFetches("bun create", rest)
		}
		if rest, ok := sub("add", "a", "install", "i"); ok {
			return npmInstallFetches("bun add", rest)
		}
	case "pnpx":
		return npxFetches("pnpm dlx", args)
	case "pnpm":
		// pnpm takes dlx's options (and its own) before dlx too, as
		// its docs write them: pnpm --package=yo dlx yo.
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "dlx" {
				return npxFetches("pnpm dlx", append(slices.Clone(args[:i]), args[i+1:]...))
			}
			if a == "create" {
				return createFetches("pnpm create", append(slices.Clone(args[:i]), args[i+1:]...))
			}
			if a == "add" {
				return npmInstallFetches("pnpm add", append(slices.Clone(args[:i]), args[i+1:]...))
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
			if name, _, has := splitOpt(a); !has && pnpmValue[name] {
				i++
			}
		}
	case "yarn":
		// yarn's own options come before its command (yarn --silent
		// dlx pkg): of them only --cwd takes a value in the next word.
		// They are yarn's, not dlx's.
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "dlx" {
				return npxFetches("yarn dlx", args[i+1:])
			}
			if a == "create" {
				return createFetches("yarn create", args[i+1:])
			}
			if a == "add" {
				return npmInstallFetches("yarn add", args[i+1:])
			}
			if a == "global" && i+1 < len(args) && args[i+1] == "add" {
				return npmInstallFetches("yarn add", args[i+2:])
			}
			if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
				break
			}
			if a == "--cwd" {
				i++
			}
		}
	case "uvx":
		return uvxFetches("uvx", args)
	case "uv":
		if run, ok := uvRunArgs(args); ok {
			return uvRunFetches(run)
		}
		if global, rest := uvGlobal(args); len(rest) > 1 && rest[0] == "tool" && (rest[1] == "run" || rest[1] == "uvx") {
			return uvxFetches("uv tool run", append(global, rest[2:]...))
		} else if len(rest) > 1 && rest[0] == "pip" && rest[1] == "install" {
			return pipInstallFetches("uv pip install", rest[2:])
		}
	case "pipx":
		if rest, ok := sub("run"); ok {
			return pipxFetches(rest)
		}
	case "pip", "pip3":
		if rest, ok := sub("install"); ok {
			return pipInstallFetches("pip install", rest)
		}
	case "python", "python3":
		// python3 -m pip install: the interpreter's own options before
		// -m are few, and none is read here.
		if len(args) > 2 && args[0] == "-m" && args[1] == "pip" && args[2] == "install" {
			return pipInstallFetches("pip install", args[3:])
		}
	case "deno":
		if rest, ok := sub("run"); ok {
			return denoFetches("deno run", rest)
		}
		if rest, ok := sub("x"); ok {
			return denoFetches("deno x", rest)
		}
	case "dx":
		// deno x --install-alias's program, deno x with every
		// permission.
		return denoFetches("dx", args)
	case "go":
		if rest, ok := sub("run"); ok {
			return goFetches(rest)
		}
	case "dnx":
		return dotnetToolFetches("dnx", args)
	case "dotnet":
		// dotnet tool exec (or execute), and dotnet dnx, its hidden
		// alias, which the dnx script runs.
		if rest, ok := sub("dnx"); ok {
			return dotnetToolFetches("dotnet dnx", rest)
		}
		if rest, ok := sub("tool"); ok && len(rest) > 0 && (rest[0] == "exec" || rest[0] == "execute") {
			return dotnetToolFetches("dotnet tool "+rest[0], rest[1:])
		}
	case "git":
		return gitFetches(args)
	case "docker", "podman", "nerdctl":
		// The engine's own options come first (docker --context c
		// run …), every one but engineBool's taking a value.
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
			name, _, has := splitOpt(args[0])
			args = args[1:]
			if !has && !engineBool[name] && len(args) > 0 {
				args = args[1:]
			}
		}
		if len(args) > 0 && args[0] == "run" {
			return imageFetches(p+" run", args[1:])
		}
		if len(args) > 1 && args[0] == "container" && args[1] == "run" {
			return imageFetches(p+" run", args[2:])
		}
	}
	return nil
}

// shellScriptFetches is what sh -c 'script' fetches (args are sh's).
func shellScriptFetches(args []string, depth int) []fetched {
	if script, ok := shellCScript(args); ok {
		return scriptFetches(script, depth+1, "sh -c")
	}
	return nil // a script file, or input: not read here
}

// shellCScript is the script a shell given args runs as sh -c's: the
// first word after the options, one of which holds c (-c, -lc, -ec);
// false where none does.
func shellCScript(args []string) (string, bool) {
	script := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "-O" || a == "+o" || a == "+O":
			i++ // the name of the option set
		case strings.HasPrefix(a, "--"):
			// A long option (--norc, --login); "--" ends them.
			if a == "--" {
				if script && i+1 < len(args) {
					return args[i+1], true
				}
				return "", false
			}
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.Contains(a, "c") {
				script = true
			}
		default:
			return a, script
		}
	}
	return "", false
}

// scriptFetches is what the script of sh -c (or eval, which runner
// names) fetches: a script that is all a download's output
// (sh -c "$(curl …)", eval "$(curl …)") runs the download.
func scriptFetches(script string, depth int, runner string) []fetched {
	t := strings.TrimSpace(script)
	if strings.HasPrefix(t, "$(") || strings.HasPrefix(t, "`") {
		if cmds := shellCommands(t); len(cmds) > 0 {
			if w := commandWords(cmds[0].words); len(w) > 0 && (progName(w[0]) == "curl" || progName(w[0]) == "wget") {
				return []fetched{downloadRun(progName(w[0]), w[1:], runner)}
			}
		}
	}
	return fetchesInShell(script, depth)
}

// splitOpt reads an option word: its name (without dashes) and its value
// where it is given as --name=value.
func splitOpt(w string) (name, value string, hasValue bool) {
	name, value, hasValue = strings.Cut(strings.TrimLeft(w, "-"), "=")
	return name, value, hasValue
}

// npxFlags are the options of npx (npm exec) and of bunx, pnpm dlx and
// yarn dlx that take a value; npxBool those that take none. npm reads an
// option it does not know, given without "=", as one that takes none;
// vigiles says so where it is not sure. -c is apart: npx's --call, which
// takes the command line, but pnpm dlx's --shell-mode, which takes none.
var (
	npxFlags = map[string]bool{"p": true, "package": true, "registry": true, "cache": true, "prefix": true,
		"userconfig": true, "globalconfig": true, "w": true, "workspace": true, "loglevel": true, "script-shell": true, "allow-build": true}
	npxBool = map[string]bool{"y": true, "yes": true, "no": true, "q": true, "quiet": true, "s": true, "silent": true,
		"ignore-existing": true, "no-install": true, "prefer-offline": true, "prefer-online": true, "offline": true,
		"bun": true, "shell-mode": true, "ws": true, "workspaces": true, "include-workspace-root": true, "verbose": true,
		// npm's yes/no options, which npx passes to the install it makes.
		"ignore-scripts": true, "legacy-peer-deps": true, "strict-peer-deps": true, "force": true, "audit": true, "no-audit": true,
		"fund": true, "no-fund": true, "foreground-scripts": true, "update-notifier": true, "no-update-notifier": true,
		"prefer-dedupe": true, "install-links": true, "dry-run": true, "json": true}
)

// npxFetches is what runner (npx, npm exec, bunx, pnpm dlx, yarn dlx)
// fetches with args: the packages of its --package options where it has
// any (then the first word is a command of theirs), else the package
// its first word names. A package npx finds in the project's
// node_modules it runs from there, not fetched: the finding says so.
// npx and npm exec told --no (--no-install, --yes=false) fetch nothing:
// they run a package already installed, or fail.
func npxFetches(runner string, args []string) []fetched {
	var pkgs []string
	unsure := ""
	call, refuse := false, false
	npx := runner == "npx" || runner == "npm exec"
	opts, rest := scanOpts(args, func(name string) bool {
		return name == "p" || name == "package" || npxFlags[name] || npx && (name == "c" || name == "call")
	})
	for _, o := range opts {
		if o.name == "no" || o.name == "no-install" || o.name == "yes" && o.has && o.value == "false" {
			refuse = true
		}
		switch {
		case o.name == "p" || o.name == "package":
			if o.has {
				pkgs = append(pkgs, o.value)
			}
		case o.name == "c" && runner == "pnpm dlx":
			// --shell-mode: the package is still --package's, or
			// the first word.
		case (o.name == "c" || o.name == "call") && npx:
			call = true
		case npxFlags[o.name] || npxBool[o.name] || o.has:
		default:
			unsure = o.word
		}
	}
	if refuse && npx {
		return nil
	}
	if len(pkgs) == 0 && !call && len(rest) > 0 {
		pkgs = append(pkgs, rest[0])
	}
	// One package an option gives, and the command after it: the fix
	// keeps both (with several, which runs the command is not said).
	byOption := len(pkgs) == 1 && len(rest) > 0 && pkgs[0] != rest[0]
	var out []fetched
	for _, spec := range pkgs {
		f, ok := npmFetch(runner, spec)
		if !ok {
			continue
		}
		if byOption {
			f.fix = optionFix(f.fix, "@<version>", "--package=", rest[0])
		}
		// Not "or after the package": what follows it is the command's.
		out = append(out, f.unsureAfter(unsure, runner, " (--name=true for a yes/no one)"))
	}
	return out
}

// optionFix rewrites the fix "pin an exact version: RUNNER NAME<pin>" of a
// package given by an option (npx --package, uvx --from) that runs the
// command cmd of it, which the package's name alone would not: the pin
// goes into the option, the command after it. Another fix is kept.
func optionFix(fix, pin, option, cmd string) string {
	head, ok := strings.CutPrefix(fix, "pin an exact version: ")
	if !ok || !strings.HasSuffix(head, pin) {
		return fix
	}
	i := strings.LastIndexByte(head, ' ')
	if i < 0 {
		return fix
	}
	return fmt.Sprintf("pin an exact version: %s %s%s %s", head[:i], option, head[i+1:], shownCut(cmd, maxMonitorName))
}

// optWord is one option word of a package runner's (scanOpts): the word,
// its name without dashes, and its value where it has one (has), given
// as --name=value or in the next word.
type optWord struct {
	word, name, value string
	has               bool
}

// scanOpts reads the options at the start of args as npm and its peers
// read them: up to the first word that is none ("-" is a word) or past
// "--", an option that takesValue names, given without "=", taking the
// next word as its value. rest are the words after them.
func scanOpts(args []string, takesValue func(name string) bool) (opts []optWord, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return opts, args[i+1:]
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return opts, args[i:]
		}
		o := optWord{word: a}
		o.name, o.value, o.has = splitOpt(a)
		if !o.has && takesValue(o.name) && i+1 < len(args) {
			i++
			o.value, o.has = args[i], true
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// createValue are the options of npm init (and of pnpm, yarn and bun
// create) that take a value in the next word, past npxFlags' and
// pnpmValue's; createBool those that take none, past npxBool's.
var (
	createValue = map[string]bool{"scope": true, "init-author-name": true, "init-author-email": true, "init-author-url": true,
		"init-license": true, "init-module": true, "init-version": true, "filter": true, "F": true, "C": true, "dir": true,
		"reporter": true, "cwd": true}
	createBool = map[string]bool{"f": true, "force": true, "workspaces-update": true, "init-private": true, "no-git": true,
		"open": true}
)

// createFetches is what runner (npm init, npm create, npm innit, yarn
// create, pnpm create, bun create) fetches with args: the package its
// initializer, the first word past the options, names (createPackage),
// which npm runs as npm exec runs it. npm init with no initializer
// (npm init, npm init -y) writes a package.json and fetches nothing.
func createFetches(runner string, args []string) []fetched {
	unsure := ""
	takes := func(name string) bool { return npxFlags[name] || createValue[name] }
	opts, rest := scanOpts(args, takes)
	for _, o := range opts {
		if !takes(o.name) && !npxBool[o.name] && !createBool[o.name] && !o.has {
			unsure = o.word
		}
	}
	if len(rest) == 0 {
		return nil
	}
	pkg, fix, ok := createPackage(runner, rest[0])
	if !ok {
		return nil
	}
	f, ok := npmFetch(runner, pkg)
	if !ok {
		return nil
	}
	if !f.pinned {
		f.fix = fix
	}
	return []fetched{f.unsureAfter(unsure, runner, ", or after the initializer")}
}

// createPackage is the package runner (createFetches') runs for the
// initializer spec, as npm init maps it: foo is create-foo, @scope is
// @scope/create, @scope/foo is @scope/create-foo, a version staying
// after it (foo@1.2.3 is create-foo@1.2.3, @scope@1.0.0 is
// @scope/create@1.0.0), and a hosted git repository's user/project is
// user/create-project (user/project#<commit>, github:user/project, a
// URL of github.com, gitlab.com or bitbucket.org). pnpm create does not
// prefix a name that begins create- again. fix is how to pin it, in the
// form written (npm create foo@<version>); name@npm:other@1.0.0, an
// alias, is create-name@npm:other@1.0.0. false where npm refuses the
// initializer (a path, any other URL, a tarball, name@file:…), and,
// for bun create, where it is no plain
// package name: bun create user/repo, github.com/user/repo or a local
// file copies a template, which no package runs, and is not read here.
func createPackage(runner, spec string) (pkg, fix string, ok bool) {
	if isLocalSpec(spec) || spec == "" {
		return "", "", false
	}
	if runner == "bun create" && (strings.ContainsAny(spec, "/:\\") || strings.HasPrefix(spec, "@")) {
		return "", "", false
	}
	nameEnd := strings.IndexByte(spec, '@')
	if strings.HasPrefix(spec, "@") {
		if nameEnd = strings.IndexByte(spec[1:], '@'); nameEnd >= 0 {
			nameEnd++
		}
	}
	// A hosted repository, alone or as a name's spec
	// (name@github:user/project).
	user, project, hosted := hostedRepo(spec)
	if !hosted && nameEnd > 0 {
		user, project, hosted = hostedRepo(spec[nameEnd+1:])
	}
	if hosted {
		repo, _, _ := strings.Cut(spec, "#")
		return strings.Replace(spec, user+"/"+project, user+"/create-"+project, 1),
			fmt.Sprintf("pin a commit: %s %s#<commit>", runner, shownCut(repo, maxFetchSpec)), true
	}
	name, version := spec, ""
	if nameEnd > 0 {
		name, version = spec[:nameEnd], spec[nameEnd+1:]
	}
	alias, isAlias := strings.CutPrefix(version, "npm:")
	if npmScheme().MatchString(spec) || strings.Contains(name, "/") && !strings.HasPrefix(name, "@") ||
		!strings.HasPrefix(name, "@") && npmTarball().MatchString(name) ||
		!isAlias && (npmScheme().MatchString(version) || strings.Contains(version, "/") || version == "." || version == "..") {
		return "", "", false
	}
	fix = fmt.Sprintf("pin an exact version: %s %s@<version>", runner, shownCut(name, maxFetchSpec))
	if isAlias {
		// name@npm:other@range runs other under create-name's name:
		// other's version is what pins it.
		other, scoped := alias, min(1, len(alias))
		if k := strings.IndexByte(alias[scoped:], '@'); k >= 0 {
			other = alias[:scoped+k]
		}
		fix = fmt.Sprintf("pin an exact version: %s %s@npm:%s@<version>", runner, shownCut(name, maxFetchSpec), shownCut(other, maxFetchSpec))
	}
	scope, base := "", name
	if strings.HasPrefix(name, "@") {
		scope, base, _ = strings.Cut(name, "/")
		scope += "/"
	}
	switch {
	case strings.HasPrefix(name, "@") && base == "":
		pkg = scope + "create"
	case runner == "pnpm create" && strings.HasPrefix(base, "create-"):
		pkg = scope + base
	default:
		pkg = scope + "create-" + base
	}
	if version != "" {
		pkg += "@" + version
	}
	return pkg, fix, true
}

// hostedRepo reads the user and project of a hosted git repository as
// npm reads one: user/project, github:, gitlab: or bitbucket: and
// user/project, or a URL of github.com, gitlab.com or bitbucket.org
// (git+https://github.com/user/project.git, git@github.com:user/project),
// with or without a #ref.
func hostedRepo(spec string) (user, project string, ok bool) {
	s, _, _ := strings.Cut(spec, "#")
	switch {
	case hasAnyPrefix(s, "github:", "gitlab:", "bitbucket:"):
		_, s, _ = strings.Cut(s, ":")
	case strings.Contains(s, "://") || strings.HasPrefix(s, "git@"):
		// [scheme://][user@]host(/ or :)path
		if _, rest, found := strings.Cut(s, "://"); found {
			s = rest
		}
		if at, k := strings.IndexByte(s, '@'), strings.IndexAny(s, "/:"); at >= 0 && (k < 0 || at < k) {
			s = s[at+1:]
		}
		k := strings.IndexAny(s, "/:")
		if k < 0 {
			return "", "", false
		}
		switch s[:k] {
		case "github.com", "www.github.com", "gitlab.com", "bitbucket.org":
		default:
			return "", "", false
		}
		s = strings.TrimSuffix(strings.TrimPrefix(s[k+1:], "/"), "/")
	case strings.HasPrefix(s, "@") || npmScheme().MatchString(s) || isLocalSpec(s):
		return "", "", false
	}
	user, project, found := strings.Cut(s, "/")
	project = strings.TrimSuffix(project, ".git")
	if !found || user == "" || project == "" || strings.ContainsAny(user+project, "/@:") {
		return "", "", false
	}
	return user, project, true
}

// pnpmValue are the options pnpm takes before its command that take a
// value in the next word.
var pnpmValue = map[string]bool{"package": true, "filter": true, "F": true, "C": true, "dir": true, "reporter": true,
	"loglevel": true, "allow-build": true}

// exactSemver matches an exact semantic version, as npm (and jsr) pin a
// package by it (a leading v or = is allowed, a range or tag is not).
var exactSemver = lazyRE(`^[v=]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// partialSemver matches a version npm reads as a range though it has
// no range operator: a partial one (1, 1.2, v2) or one with x or *
// in a place (x, 1.x, 1.2.*). npm forbids a tag that reads as a range,
// so it is never a tag.
var partialSemver = lazyRE(`^[v=]?(0|[1-9][0-9]*|[xX*])(\.(0|[1-9][0-9]*|[xX*])){0,2}$`)

// npmScheme matches a package spec npm reads as a URL or a protocol's
// (github:, file:, npm:, git+ssh:), not as name@version; npmTarball a
// name npm reads as a tarball on disk.
var (
	npmScheme  = lazyRE(`(?i)^(git\+)?[a-z]+:`)
	npmTarball = lazyRE(`(?i)\.(tgz|tar\.gz|tar)$`)
)

// gitCommit matches a full commit hash, which pins a git reference.
var gitCommit = lazyRE(`^[0-9a-f]{40}$`)

// isLocalSpec says whether a package spec names a directory or file of
// the tree's (or the machine's), which nothing fetches.
func isLocalSpec(spec string) bool {
	return spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") ||
		strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "~") || strings.HasPrefix(spec, "file:") || strings.HasPrefix(spec, "$")
}

// hasAnyPrefix says whether s begins with any of prefixes.
func hasAnyPrefix(s string, prefixes ...string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// whyLatest is why a package named with no version is not pinned, and
// whyLocalFirst where the runner runs the project's own copy first
// (npmLocalFirst).
const (
	whyLatest     = "no version: whatever the registry serves as latest"
	whyLocalFirst = "no version: the project's own node_modules copy where one is installed, else whatever the registry serves as latest"
)

// npmLocalFirst says whether runner runs a package named with no version
// from the project's own node_modules where one is installed there, as
// npm exec does (npm init runs it through npm exec, bun create through
// bunx).
func npmLocalFirst(runner string) bool {
	switch runner {
	case "npx", "npm exec", "bunx", "npm init", "npm create", "npm innit", "bun create":
		return true
	}
	return false
}

// npmFetch reads the npm package spec as runner fetches it; false where
// it names a local directory, which is no fetch.
func npmFetch(runner, spec string) (fetched, bool) {
	f := fetched{runner: runner, spec: spec}
	cmd := runner
	if runner == "npx" {
		cmd = "npx -y"
	}
	switch {
	case isLocalSpec(spec):
		return f, false
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		f.why, f.fix = "a URL, which no version pins: it runs whatever the URL serves that day", "put the package in the tree, or pin an exact version of a registry's package"
		return f, true
	case strings.HasPrefix(spec, "npm:"):
		g, ok := npmFetch(runner, strings.TrimPrefix(spec, "npm:"))
		g.spec = spec
		return g, ok
	}
	// name@spec, split where npm splits it (at the first @ past a
	// scope's): a spec that is itself a file, a URL, a git reference or
	// an alias (pkg@file:../x, @s/pkg@github:user/repo#<commit>,
	// pkg@npm:other@1.2.3) is read as that. A name with no scope that
	// ends .tgz, .tar.gz or .tar is a tarball on disk.
	nameEnd := strings.IndexByte(spec, '@')
	if strings.HasPrefix(spec, "@") {
		if nameEnd = strings.IndexByte(spec[1:], '@'); nameEnd >= 0 {
			nameEnd++
		}
	}
	if !npmScheme().MatchString(spec) {
		namePart := spec
		if nameEnd > 0 {
			namePart = spec[:nameEnd]
		}
		if !strings.HasPrefix(namePart, "@") && !strings.Contains(namePart, "/") && npmTarball().MatchString(namePart) {
			return f, false
		}
		if rest := spec[nameEnd+1:]; nameEnd > 0 && (strings.HasPrefix(namePart, "@") || !strings.Contains(namePart, "/")) &&
			(npmScheme().MatchString(rest) || strings.Contains(rest, "/") || rest == "." || rest == "..") {
			g, ok := npmFetch(runner, rest)
			g.spec = spec
			return g, ok
		}
	}
	at := strings.LastIndexByte(spec, '@')
	if strings.Contains(spec, "://") || hasAnyPrefix(spec, "git+", "git@", "github:", "gitlab:", "gist:", "bitbucket:") ||
		(!strings.HasPrefix(spec, "@") && strings.Contains(spec, "/")) {
		repo, ref, _ := strings.Cut(spec, "#")
		if gitCommit().MatchString(ref) {
			f.pinned, f.why = true, "the commit "+ref
			return f, true
		}
		f.why = "a git reference with no commit, which the repository moves"
		if ref != "" {
			f.why = "the git reference " + shownCut(ref, maxMonitorName) + ", which is no commit hash: the repository can move it"
		}
		f.fix = fmt.Sprintf("pin a commit: %s %s#<commit>", cmd, shownCut(repo, maxFetchSpec))
		return f, true
	}
	name, version := spec, ""
	if at > 0 {
		name, version = spec[:at], spec[at+1:]
	}
	fix := fmt.Sprintf("pin an exact version: %s %s@<version>", cmd, shownCut(name, maxFetchSpec))
	switch {
	case version == "" && npmLocalFirst(runner):
		f.why, f.fix = whyLocalFirst, fix
	case version == "":
		f.why, f.fix = whyLatest, fix
	case exactSemver().MatchString(version):
		f.pinned, f.why = true, "the exact version "+version
	case strings.ContainsAny(version, "^~<>=*| ") || strings.ContainsAny(version, "xX") && strings.Contains(version, ".") || partialSemver().MatchString(version):
		f.why, f.fix = "the range "+shownCut(version, maxMonitorName)+", which a new release moves", fix
	default:
		f.why, f.fix = "the tag "+shownCut(version, maxMonitorName)+", which the registry moves", fix
	}
	return f, true
}

// uvxFlags are the options of uvx (uv tool run) that take a value.
var uvxFlags = map[string]bool{"from": true, "with": true, "w": true, "with-editable": true, "with-requirements": true, "p": true, "python": true,
	"index": true, "default-index": true, "index-url": true, "i": true, "extra-index-url": true, "find-links": true, "f": true,
	"c": true, "constraints": true, "overrides": true, "build-constraints": true, "directory": true, "project": true,
	"config-file": true, "cache-dir": true, "python-preference": true, "refresh-package": true, "reinstall-package": true,
	"upgrade-package": true, "exclude-newer": true, "index-strategy": true, "keyring-provider": true, "resolution": true,
	"prerelease": true, "link-mode": true, "color": true, "allow-insecure-host": true, "env-file": true, "P": true,
	"upgrade-group": true, "no-binary-package": true, "only-binary-package": true, "no-build-package": true,
	"no-build-isolation-package": true, "config-setting": true, "C": true, "torch-backend": true,
	"b": true, "build-constraint": true, "constraint": true, "override": true, "python-platform": true, "fork-strategy": true,
	"exclude-newer-package": true, "config-settings-package": true, "preview-features": true, "generate-shell-completion": true}

// uvxBool are uvx's options that take no value.
var uvxBool = map[string]bool{"q": true, "quiet": true, "v": true, "verbose": true, "isolated": true, "no-cache": true, "n": true,
	"offline": true, "refresh": true, "reinstall": true, "upgrade": true, "U": true, "no-config": true, "native-tls": true,
	"no-progress": true, "no-python-downloads": true, "managed-python": true, "no-managed-python": true, "show-resolution": true,
	"no-sources": true, "no-build": true, "no-binary": true, "no-build-isolation": true, "compile-bytecode": true,
	"no-index": true, "lfs": true, "no-env-file": true, "preview": true, "no-preview": true, "h": true, "help": true}

// uvRunValue are uv run's options that take a value, past uvxFlags';
// uvRunBool those that take none, past uvxBool's.
var (
	uvRunValue = map[string]bool{"extra": true, "no-extra": true, "group": true, "no-group": true, "only-group": true,
		"package": true, "trusted-host": true, "config-settings": true}
	uvRunBool = map[string]bool{"all-extras": true, "all-groups": true, "all-packages": true, "active": true, "no-active": true,
		"exact": true, "frozen": true, "locked": true, "module": true, "m": true, "script": true, "s": true, "gui-script": true,
		"no-project": true, "no-workspace": true, "no_workspace": true, "no-sync": true, "dev": true, "no-dev": true,
		"only-dev": true, "no-default-groups": true, "no-editable": true, "compile": true, "force-reinstall": true,
		"no-cache-dir": true}
)

// uvOptions is what the options before uv's command give (uvx's, or uv
// run's): --from's package, the packages of --with (-w), whether they
// were more than maxFetchPackages, an option vigiles does not know
// (unsure), whether uv run is told its command is a module (-m) or a
// script (--script, -s, --gui-script), the directory --directory (a
// global option) has uv change to, the one --project has it look for
// the project in, what uv run is told of the project's environment
// (sync), and the words from the command on (rest).
type uvOptions struct {
	from           string
	with           []string
	withMore       bool
	unsure         string
	module, script bool
	directory      string
	project        string
	sync           uvSync
	rest           []string
}

// uvSync is what uv run's options say of the project environment it
// brings up to date before it runs its command: --no-project (no
// project at all), --no-sync (left as it is), --frozen and --locked
// (installed from uv.lock, and uv exits where there is none), and the
// dependency groups and extras it installs beside the project's own
// dependencies: --group, --no-group, --only-group and --all-groups,
// --dev, --no-dev and --only-dev (the dev group's), --no-default-groups,
// --extra, --no-extra and --all-extras. A group or extra is named as
// given (uvGroupName normalizes it).
type uvSync struct {
	noProject, noSync, frozen, locked bool
	allGroups, noDefaultGroups        bool
	allExtras                         bool
	groups, noGroups, onlyGroups      []string
	extras, noExtras                  []string
}

// readUvOptions reads the options of uvx (run false) or of uv run (run
// true) at the start of args.
func readUvOptions(args []string, run bool) uvOptions {
	var o uvOptions
	isValue := func(name string) bool { return uvxFlags[name] || run && uvRunValue[name] }
	isBool := func(name string) bool { return uvxBool[name] || run && uvRunBool[name] }
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		name, value, has := splitOpt(a)
		if len(a) > 2 && a[1] != '-' {
			// -pVALUE (or -p=VALUE): a short option with its value
			// attached, which may hold an = of its own (-wpkg==1.0).
			name, value, has = a[1:2], strings.TrimPrefix(a[2:], "="), true
			if isBool(name) {
				continue
			}
		}
		switch {
		case isValue(name):
			if !has && i+1 < len(args) {
				i++
				value = args[i]
			}
			switch name {
			case "from":
				o.from = value
			case "directory":
				o.directory = value
			case "project":
				o.project = value
			case "group":
				o.sync.groups = append(o.sync.groups, value)
			case "no-group":
				o.sync.noGroups = append(o.sync.noGroups, value)
			case "only-group":
				o.sync.onlyGroups = append(o.sync.onlyGroups, value)
			case "extra":
				o.sync.extras = append(o.sync.extras, value)
			case "no-extra":
				o.sync.noExtras = append(o.sync.noExtras, value)
			case "with", "w":
				// A list of packages parted by commas.
				for _, w := range strings.Split(value, ",") {
					if w = strings.TrimSpace(w); w != "" {
						o.with = append(o.with, w)
					}
				}
				o.withMore = o.withMore || len(o.with) > maxFetchPackages
				o.with = o.with[:min(len(o.with), maxFetchPackages)]
			}
		case isBool(name):
			o.module = o.module || run && (name == "m" || name == "module")
			o.script = o.script || run && (name == "s" || name == "script" || name == "gui-script")
			if run {
				o.sync.read(name)
			}
		default:
			o.unsure = a
		}
	}
	o.rest = args[i:]
	return o
}

// read notes what uv run's option name, which takes no value, says of
// the project's environment.
func (y *uvSync) read(name string) {
	switch name {
	case "no-project":
		y.noProject = true
	case "no-sync":
		y.noSync = true
	case "frozen":
		y.frozen = true
	case "locked":
		y.locked = true
	case "all-groups":
		y.allGroups = true
	case "no-default-groups":
		y.noDefaultGroups = true
	case "all-extras":
		y.allExtras = true
	case "dev":
		y.groups = append(y.groups, "dev")
	case "no-dev":
		y.noGroups = append(y.noGroups, "dev")
	case "only-dev":
		y.onlyGroups = append(y.onlyGroups, "dev")
	}
}

// inDir is the path p, as uv run is given it, as the directory uv was
// started in names it: a relative one is taken from --directory's, to
// which uv changes before it runs anything ("relative paths are resolved
// with the given directory as the base"). --project's does not move it:
// uv then takes a path from where it was started all the same. A path
// that begins with a variable or ~ is left as written.
func (o uvOptions) inDir(p string) string {
	if o.directory == "" || p == "" || hasAnyPrefix(p, "/", "$", "~") {
		return p
	}
	return path.Join(o.directory, p)
}

// uvGlobal splits uv's arguments into the global options that come
// before its command (uv -q run …, uv --directory d tool run …), which
// are read after it, where uv takes them too, with the command's own,
// and the words from the command on.
func uvGlobal(args []string) (global, rest []string) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" && args[0] != "--" {
		name, _, has := splitOpt(args[0])
		global, args = append(global, args[0]), args[1:]
		if !has && uvxFlags[name] && len(args) > 0 {
			global, args = append(global, args[0]), args[1:]
		}
	}
	return global, args
}

// uvRunArgs is uv run's arguments where uv's (args) run uv run, its
// global options before run among them (uvGlobal); false where they run
// another command.
func uvRunArgs(args []string) ([]string, bool) {
	global, rest := uvGlobal(args)
	if len(rest) == 0 || rest[0] != "run" {
		return nil, false
	}
	return append(global, rest[1:]...), true
}

// withFetches are the fetches of o's --with packages for runner, whose
// fix is written with --with (uv run --with pkg==<version>).
func (o uvOptions) withFetches(runner string) []fetched {
	var out []fetched
	for _, spec := range o.with {
		f, ok := pypiFetch(runner+" --with", spec)
		if !ok {
			continue
		}
		f.runner = runner
		out = append(out, f.unsureAfter(o.unsure, runner, ""))
	}
	if o.withMore {
		out = append(out, fetched{runner: runner, spec: "--with …", unread: unreadPackages,
			why: fmt.Sprintf("more packages than vigiles reads one by one (%d): the rest are not read", maxFetchPackages),
			fix: "keep the packages in a lock file in the tree"})
	}
	return out
}

// uvxFetches is what uvx (or uv tool run) fetches with args: the package
// of --from, or that its first word names, and those of --with.
func uvxFetches(runner string, args []string) []fetched {
	o := readUvOptions(args, false)
	spec := o.from
	if spec == "" && len(o.rest) > 0 {
		spec = o.rest[0]
	}
	var out []fetched
	if spec != "" {
		if f, ok := pypiFetch(runner, spec); ok {
			if o.from != "" && len(o.rest) > 0 {
				f.fix = optionFix(f.fix, "==<version>", "--from ", o.rest[0])
			}
			out = append(out, f.unsureAfter(o.unsure, runner, ""))
		}
	}
	return append(out, o.withFetches(runner)...)
}

// uvRunFetches is what uv run fetches with args: the packages of --with
// (as uvx's; --with-editable's and --with-requirements' are the tree's
// files), and the script it runs where that is a URL, which uv
// downloads and runs. The command or script it runs otherwise is the
// tree's (or the environment's), not fetched.
func uvRunFetches(args []string) []fetched {
	o := readUvOptions(args, true)
	var out []fetched
	if len(o.rest) > 0 && (strings.HasPrefix(o.rest[0], "http://") || strings.HasPrefix(o.rest[0], "https://")) {
		out = append(out, fetched{runner: "uv run", spec: o.rest[0], why: "a URL, which no version pins: it runs whatever the URL serves that day",
			fix: "put the script in the tree, reviewed, and run it from there"})
	}
	return append(out, o.withFetches("uv run")...)
}

// pypiName reads a Python package requirement: its name (with extras)
// and what follows.
var pypiName = lazyRE(`^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$`)

// exactPEP440 matches a version that names one release (no wildcard).
var exactPEP440 = lazyRE(`^v?[0-9]+(\.[0-9]+)*([._-]?(a|b|c|rc|alpha|beta|pre|preview|post|rev|r|dev)[._-]?[0-9]*)*(\+[A-Za-z0-9.]+)?$`)

// urlScheme matches a spec that is a URL (https://…, git+ssh://…), not a
// requirement that ends in one (NAME @ https://…).
var urlScheme = lazyRE(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// pypiFetch reads the Python package spec as runner (uvx, pipx run)
// fetches it; false where it names a local directory or file.
func pypiFetch(runner, spec string) (fetched, bool) {
	f := fetched{runner: runner, spec: spec}
	switch {
	case isLocalSpec(spec) || strings.HasSuffix(spec, ".py") && !strings.Contains(spec, "://"):
		return f, false
	case urlScheme().MatchString(spec) || strings.HasPrefix(spec, "git+"):
		return pypiURLFetch(f, runner, spec), true
	}
	m := pypiName().FindStringSubmatch(spec)
	if m == nil {
		f.why, f.fix = "a requirement vigiles cannot read, so not sure to be pinned", "pin an exact version: "+runner+" NAME==<version>"
		return f, true
	}
	name, rest := m[1]+m[2], strings.TrimSpace(m[3])
	if k := strings.IndexByte(rest, ';'); k >= 0 {
		rest = strings.TrimSpace(rest[:k]) // an environment marker
	}
	if url, ok := strings.CutPrefix(rest, "@"); ok && strings.Contains(url, "://") {
		// A direct reference: NAME @ git+https://host/repo@ref.
		return pypiURLFetch(f, runner, strings.TrimSpace(url)), true
	}
	fix := fmt.Sprintf("pin an exact version: %s %s==<version>", runner, shownCut(name, maxFetchSpec))
	if runner == "pipx run" {
		fix = fmt.Sprintf("pin an exact version: pipx run --spec %s==<version> APP", shownCut(name, maxFetchSpec))
	}
	version := ""
	switch {
	case rest == "":
		f.why, f.fix = "no version: whatever the registry serves as latest", fix
		return f, true
	case strings.HasPrefix(rest, "@"):
		version = strings.TrimSpace(rest[1:])
	case strings.HasPrefix(rest, "==="):
		version = strings.TrimSpace(rest[3:])
	case strings.HasPrefix(rest, "=="):
		version = strings.TrimSpace(rest[2:])
	}
	if version != "" && !strings.Contains(version, ",") && exactPEP440().MatchString(version) {
		f.pinned, f.why = true, "the exact version "+version
		return f, true
	}
	f.why, f.fix = "the requirement "+shownCut(rest, maxMonitorName)+", which a new release moves", fix
	return f, true
}

// pypiURLFetch reads the URL a Python package spec gives (f is the
// fetch so far): a git URL as pip and uv read it
// (git+https://host/repo@ref#egg=name) is pinned where its ref is a full
// commit hash; any other URL never.
func pypiURLFetch(f fetched, runner, url string) fetched {
	if !strings.HasPrefix(url, "git+") {
		f.why, f.fix = "a URL, which no version pins: it runs whatever the URL serves that day", "pin an exact version of a registry's package ("+runner+" NAME==<version>), or put the code in the tree"
		return f
	}
	u, _, _ := strings.Cut(url, "#")
	// The ref follows the first @ of the path, past the host (and
	// the user of git+ssh://git@host/…).
	repo, ref := u, ""
	if _, hostPath, ok := strings.Cut(u, "://"); ok {
		if k := strings.IndexByte(hostPath, '/'); k >= 0 {
			if at := strings.IndexByte(hostPath[k:], '@'); at >= 0 {
				cut := len(u) - len(hostPath) + k + at
				repo, ref = u[:cut], u[cut+1:]
			}
		}
	}
	if gitCommit().MatchString(ref) {
		f.pinned, f.why = true, "the commit "+ref
		return f
	}
	f.why = "a git reference with no commit, which the repository moves"
	if ref != "" {
		f.why = "the git reference " + shownCut(ref, maxMonitorName) + ", which is no commit hash: the repository can move it"
	}
	f.fix = fmt.Sprintf("pin a commit: %s@<commit>", shownCut(repo, maxFetchSpec))
	return f
}

// pipxValue are pipx run's options that take a value in the next word;
// pipxBool those that take none.
var (
	pipxValue = map[string]bool{"spec": true, "python": true, "index-url": true, "i": true, "pip-args": true, "backend": true, "fetch-python": true}
	pipxBool  = map[string]bool{"path": true, "no-cache": true, "pypackages": true, "verbose": true, "v": true, "quiet": true, "q": true,
		"system-site-packages": true, "editable": true, "e": true, "fetch-missing-python": true}
)

// pipxFetches is what pipx run fetches with args: the package of --spec,
// or that its first word names, which --path makes a local path.
func pipxFetches(args []string) []fetched {
	spec := ""
	unsure := ""
	local := false
	opts, rest := scanOpts(args, func(name string) bool { return pipxValue[name] })
	for _, o := range opts {
		switch {
		case o.name == "path":
			local = true
		case o.name == "spec":
			spec = o.value
		case pipxValue[o.name] || pipxBool[o.name]:
		default:
			unsure = o.word
		}
	}
	if spec == "" && len(rest) > 0 && !local {
		spec = rest[0]
	}
	if spec == "" {
		return nil
	}
	f, ok := pypiFetch("pipx run", spec)
	if !ok {
		return nil
	}
	return []fetched{f.unsureAfter(unsure, "pipx run", "")}
}

// npmInstallAliases are the words npm reads as install (its aliases and
// the misspellings it takes).
var npmInstallAliases = map[string]bool{"install": true, "i": true, "in": true, "ins": true, "inst": true, "insta": true,
	"instal": true, "isnt": true, "isnta": true, "isntal": true, "isntall": true, "add": true}

// npmInstallValue are the options of npm install, pnpm add, yarn add and
// bun add that take a value in the next word; npmInstallBool those that
// take none.
var (
	npmInstallValue = map[string]bool{"registry": true, "prefix": true, "cache": true, "w": true, "workspace": true,
		"omit": true, "include": true, "tag": true, "install-strategy": true, "userconfig": true, "globalconfig": true,
		"loglevel": true, "C": true, "dir": true, "filter": true, "F": true, "cwd": true, "reporter": true, "cwd-dir": true,
		"backend": true, "config": true, "c": true}
	npmInstallBool = map[string]bool{"g": true, "global": true, "D": true, "save-dev": true, "dev": true, "E": true,
		"save-exact": true, "exact": true, "P": true, "save-prod": true, "O": true, "save-optional": true, "optional": true,
		"no-save": true, "save": true, "S": true, "force": true, "f": true, "no-audit": true, "no-fund": true,
		"ignore-scripts": true, "legacy-peer-deps": true, "prefer-offline": true, "prefer-online": true, "q": true,
		"quiet": true, "s": true, "silent": true, "y": true, "yes": true, "no-package-lock": true, "frozen-lockfile": true,
		"no-progress": true, "verbose": true, "production": true, "peer": true, "T": true, "trust": true, "no-summary": true}
)

// npmInstallFetches is what runner (npm install, pnpm add, yarn add, bun
// add) fetches with args each time the command runs: every package it
// names, as npm exec would fetch it (npmFetch), whose install scripts
// run as it installs and whose code the command then runs. An install
// that names no package installs the tree's own package.json, as its
// lockfile pins it where one is committed, which vigiles does not read:
// it is not named.
func npmInstallFetches(runner string, args []string) []fetched {
	var out []fetched
	unsure := ""
	for len(args) > 0 {
		opts, rest := scanOpts(args, func(name string) bool { return npmInstallValue[name] })
		for _, o := range opts {
			if !npmInstallValue[o.name] && !npmInstallBool[o.name] {
				unsure = o.word
			}
		}
		if len(rest) == 0 {
			break
		}
		if len(out) == maxFetchPackages {
			out = append(out, fetched{runner: runner, spec: "…", why: "more packages than vigiles reads one by one", unread: unreadPackages})
			break
		}
		if f, ok := npmFetch(runner, rest[0]); ok {
			out = append(out, f)
		}
		args = rest[1:]
	}
	for i := range out {
		out[i] = out[i].unsureAfter(unsure, runner, "")
	}
	return out
}

// pipValue are pip install's options (and uv pip install's) that take a
// value in the next word; pipBool those that take none.
var (
	pipValue = map[string]bool{"r": true, "requirement": true, "c": true, "constraint": true, "e": true, "editable": true,
		"t": true, "target": true, "prefix": true, "root": true, "i": true, "index-url": true, "extra-index-url": true,
		"f": true, "find-links": true, "platform": true, "python-version": true, "implementation": true, "abi": true,
		"src": true, "upgrade-strategy": true, "progress-bar": true, "root-user-action": true, "report": true,
		"C": true, "config-settings": true, "global-option": true, "no-binary": true, "only-binary": true,
		"trusted-host": true, "cert": true, "client-cert": true, "cache-dir": true, "log": true, "proxy": true,
		"retries": true, "timeout": true, "exists-action": true, "python": true, "p": true, "keyring-provider": true,
		"use-feature": true, "use-deprecated": true, "group": true, "index": true, "default-index": true,
		"override": true, "overrides": true, "build-constraint": true, "b": true}
	pipBool = map[string]bool{"U": true, "upgrade": true, "user": true, "no-deps": true, "pre": true, "q": true,
		"quiet": true, "v": true, "verbose": true, "force-reinstall": true, "I": true, "ignore-installed": true,
		"ignore-requires-python": true, "no-build-isolation": true, "no-index": true, "require-hashes": true,
		"no-cache-dir": true, "no-cache": true, "break-system-packages": true, "dry-run": true, "isolated": true,
		"no-input": true, "disable-pip-version-check": true, "no-color": true, "no-warn-script-location": true,
		"compile": true, "no-compile": true, "prefer-binary": true, "no-clean": true, "system": true,
		"no-python-version-warning": true, "reinstall": true, "strict": true, "exact": true}
)

// pipInstallFetches is what runner (pip install, uv pip install) fetches
// with args, each time the command runs: every package it names, and the
// packages of a requirements file (-r), which vigiles does not read: an
// exact version pins a package (pip then takes the file the index serves
// for it); a file is pinned only where --require-hashes makes pip check
// every package's hash, which needs each to name its exact version.
// Installing runs the packages' own build code besides, before the hook
// runs what it installed. A local path (pip install ., -e ./pkg, a wheel
// of the tree's) fetches nothing itself, nor does --no-index.
func pipInstallFetches(runner string, args []string) []fetched {
	var out []fetched
	var files []string
	hashes, unsure := false, ""
	var specs []string
	for len(args) > 0 {
		opts, rest := scanOpts(args, func(name string) bool { return pipValue[name] })
		for _, o := range opts {
			switch {
			case o.name == "no-index":
				return nil
			case o.name == "require-hashes":
				hashes = true
			case (o.name == "r" || o.name == "requirement") && o.has:
				files = append(files, o.value)
			case (o.name == "e" || o.name == "editable") && o.has:
				specs = append(specs, o.value)
			case pipValue[o.name] || pipBool[o.name]:
			default:
				unsure = o.word
			}
		}
		if len(rest) == 0 {
			break
		}
		// pip reads options after the packages too.
		specs = append(specs, rest[0])
		args = rest[1:]
	}
	for _, spec := range specs {
		if len(out) == maxFetchPackages {
			out = append(out, fetched{runner: runner, spec: "…", why: "more packages than vigiles reads one by one", unread: unreadPackages})
			break
		}
		if strings.HasSuffix(spec, ".whl") && !strings.Contains(spec, "://") {
			continue // a wheel on the disk
		}
		if f, ok := pypiFetch(runner, spec); ok {
			if hashes && !f.pinned {
				f.why += "; --require-hashes makes pip refuse it"
			}
			out = append(out, f.unsureAfter(unsure, runner, ""))
		}
	}
	for _, file := range files {
		f := fetched{runner: runner, spec: "-r " + file}
		if hashes {
			f.pinned, f.why = true, "--require-hashes: pip installs only what matches the hash each line gives"
		} else {
			f.why = "the packages the requirements file names, which vigiles does not read: an exact version each still leaves which file the index serves for it open"
			f.fix = "give each requirement of " + shownCut(file, maxFetchSpec) + " its exact version and --hash (pip-compile --generate-hashes, uv pip compile --generate-hashes), and install with --require-hashes"
		}
		out = append(out, f)
	}
	return out
}

// denoValue are deno run's (and deno x's) options that take a value in
// the next word.
var denoValue = map[string]bool{"c": true, "config": true, "import-map": true, "lock": true, "cert": true, "location": true,
	"seed": true, "ext": true, "preload": true, "L": true, "log-level": true}

// denoFetches is what runner (deno run, deno x, dx) fetches with args: a
// script deno run is given as npm:, jsr: or a URL; the package deno x
// (Deno 2.6's package runner) runs, given as those, as a bare npm name
// (deno x cowsay is npm:cowsay) or with -p (--package), and nothing
// where --install-alias only installs dx.
func denoFetches(runner string, args []string) []fetched {
	x := runner != "deno run"
	var out []fetched
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) && len(out) == 0 {
				return denoScript(runner, args[i+1], x)
			}
			return out
		}
		if strings.HasPrefix(a, "-") {
			name, value, has := splitOpt(a)
			switch {
			case x && name == "install-alias":
				return nil
			case x && (name == "p" || name == "package"):
				if !has && i+1 < len(args) {
					i++
					value = args[i]
				}
				out = append(out, denoScript(runner+" -p", value, true)...)
			case denoValue[name] && !has:
				i++
			}
			continue
		}
		if len(out) > 0 {
			return out // -p's package runs the binary a names
		}
		return denoScript(runner, a, x)
	}
	return out
}

// denoScript reads the script (or, for deno x, the package) spec that
// runner is given; bare says a name with no npm:, jsr: or URL is an npm
// package (deno x's), which a runner deno x names (form) runs from the
// project's node_modules first where it has the name's program. The fix
// is written in the form given (deno run npm:pkg@<version>,
// deno x pkg@<version>, deno x -p pkg@<version>).
func denoScript(form, spec string, bare bool) []fetched {
	runner := strings.TrimSuffix(form, " -p")
	prefix := ""
	switch {
	case strings.HasPrefix(spec, "npm:"):
		prefix, spec = "npm:", strings.TrimPrefix(spec, "npm:")
	case strings.HasPrefix(spec, "jsr:") || strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
	case !bare || spec == "" || isLocalSpec(spec) || strings.HasPrefix(spec, "\\") || npmScheme().MatchString(spec) ||
		hasAnyPrefix(path.Ext(spec), ".ts", ".js", ".mjs", ".cjs", ".mts", ".cts", ".tsx", ".jsx"):
		// A file of the tree's (deno x refuses one, and reads no
		// other scheme).
		return nil
	}
	switch {
	case strings.HasPrefix(spec, "jsr:"):
		name := strings.TrimPrefix(spec, "jsr:")
		f := fetched{runner: runner, spec: spec}
		version := ""
		if at := strings.LastIndexByte(name, '@'); at > 0 {
			name, version = name[:at], name[at+1:]
		}
		if k := strings.IndexByte(version, '/'); k >= 0 {
			version = version[:k] // jsr:@scope/pkg@1.2.3/sub
		}
		if exactSemver().MatchString(version) {
			f.pinned, f.why = true, "the exact version "+version
			return []fetched{f}
		}
		f.why = whyLatest
		if version != "" {
			f.why = "the version " + shownCut(version, maxMonitorName) + ", which is no exact version: a new release moves it"
		}
		f.fix = fmt.Sprintf("pin an exact version: %s jsr:%s@<version>", form, shownCut(name, maxFetchSpec))
		return []fetched{f}
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		return []fetched{{runner: runner, spec: spec, why: "a URL, which no version pins: it runs whatever the URL serves that day",
			fix: "put the script in the tree, reviewed, and run it from there"}}
	}
	// name@version/subpath names a file of the package (a program of
	// it, for deno x): the package ends at the first / past its name's
	// scope.
	pkg := spec
	scope := 0
	if strings.HasPrefix(pkg, "@") {
		scope = strings.IndexByte(pkg, '/') + 1
	}
	if k := strings.IndexByte(pkg[scope:], '/'); k >= 0 {
		pkg = pkg[:scope+k]
	}
	f, ok := npmFetch(runner, pkg)
	if !ok {
		return nil
	}
	f.spec = prefix + spec
	if f.fix != "" {
		f.fix = strings.Replace(f.fix, runner+" ", form+" "+prefix, 1)
	}
	if f.why == whyLatest && prefix == "" && form == runner && runner != "deno run" {
		f.why = whyLocalFirst // deno x runs a bare name's local program first
	}
	return []fetched{f}
}

// goValue are go run's build options that take a value in the next word.
var goValue = map[string]bool{"C": true, "p": true, "tags": true, "ldflags": true, "gcflags": true, "asmflags": true, "mod": true,
	"modfile": true, "overlay": true, "pkgdir": true, "toolexec": true, "exec": true, "covermode": true, "coverpkg": true,
	"buildmode": true, "compiler": true, "gccgoflags": true, "installsuffix": true, "pgo": true, "o": true}

// goVersion matches a Go module version that names one release or
// commit: vX.Y.Z, with a pre-release (a pseudo-version's too) or
// +incompatible.
var goVersion = lazyRE(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+incompatible)?$`)

// goFetches is what go run fetches with args: a package given with a
// version (path@version), which go fetches apart from the main module.
// One without a version is the main module's or its go.mod's, not named.
func goFetches(args []string) []fetched {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if name, _, has := splitOpt(a); goValue[name] && !has {
				i++
			}
			continue
		}
		at := strings.LastIndexByte(a, '@')
		if at <= 0 {
			return nil
		}
		mod, version := a[:at], a[at+1:]
		f := fetched{runner: "go run", spec: a}
		if goVersion().MatchString(version) {
			f.pinned, f.why = true, "the exact version "+version
			return []fetched{f}
		}
		if gitCommit().MatchString(version) {
			// go resolves a full commit hash to that commit's
			// pseudo-version, which the checksum database fixes.
			f.pinned, f.why = true, "the commit "+version
			return []fetched{f}
		}
		f.why = "the query " + shownCut(version, maxMonitorName) + ", which is no exact version (vX.Y.Z): the module's repository moves it"
		f.fix = fmt.Sprintf("pin an exact version: go run %s@vX.Y.Z", shownCut(mod, maxFetchSpec))
		return []fetched{f}
	}
	return nil
}

// dotnetValue are the options of dotnet tool exec (and dnx) that take a
// value; dotnetBool those that take none, or true or false after them,
// as System.CommandLine reads a flag.
var (
	dotnetValue = map[string]bool{"version": true, "configfile": true, "source": true, "add-source": true, "a": true, "arch": true,
		"framework": true, "v": true, "verbosity": true}
	dotnetBool = map[string]bool{"y": true, "yes": true, "allow-roll-forward": true, "prerelease": true, "disable-parallel": true,
		"no-cache": true, "no-http-cache": true, "ignore-failed-sources": true, "interactive": true, "h": true, "help": true, "?": true}
)

// nugetVersion matches a version NuGet reads as one release (1.2.3,
// 1.2, 1.2.3.4, 1.2.3-beta.1), which dotnet tool exec takes as exact,
// not as a minimum.
var nugetVersion = lazyRE(`^[0-9]+(\.[0-9]+){0,3}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// dotnetToolFetches is what runner (dnx, dotnet dnx, dotnet tool exec)
// fetches with args: the .NET tool package its first word past the
// options names, at the version after its @ or of --version. Its
// options may come after the package too (System.CommandLine reads them
// anywhere before "--"; what follows "--" is the tool's). A version
// pins it where it is exact (1.2.3, or [1.2.3]; not a floating 1.* or a
// range); with none, the version a local tool manifest
// (.config/dotnet-tools.json) lists runs where it lists the tool. A
// package that only --source's local folders (no URL) serve is the
// machine's, which nothing fetches.
func dotnetToolFetches(runner string, args []string) []fetched {
	pkg, version, unsure := "", "", ""
	byOption, remote, sources := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if pkg == "" {
				pkg = a
			}
			continue
		}
		name, value, has := strings.TrimLeft(a, "-"), "", false
		if k := strings.IndexAny(name, "=:"); k >= 0 {
			name, value, has = name[:k], name[k+1:], true
		}
		switch {
		case dotnetValue[name]:
			if !has && i+1 < len(args) {
				i++
				value = args[i]
			}
			switch name {
			case "version":
				version, byOption = value, true
			case "source", "add-source":
				sources = sources || name == "source"
				remote = remote || strings.Contains(value, "://")
			}
		case dotnetBool[name]:
			if !has && i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
				i++
			}
		case pkg == "":
			unsure = a
		}
	}
	if pkg == "" || isLocalSpec(pkg) || sources && !remote {
		return nil
	}
	if at := strings.IndexByte(pkg, '@'); at > 0 {
		pkg, version, byOption = pkg[:at], pkg[at+1:], false
	}
	spec, fix := pkg, fmt.Sprintf("pin an exact version: %s %s@<version>", runner, shownCut(pkg, maxFetchSpec))
	if byOption {
		fix = fmt.Sprintf("pin an exact version: %s %s --version <version>", runner, shownCut(pkg, maxFetchSpec))
	} else if version != "" {
		spec = pkg + "@" + version
	}
	f := fetched{runner: runner, spec: spec}
	exact := version
	if inner, ok := strings.CutPrefix(version, "["); ok {
		// [1.2.3], or [1.2.3, 1.2.3]: a range of one version.
		inner, closed := strings.CutSuffix(inner, "]")
		lo, hi, two := strings.Cut(inner, ",")
		if lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi); closed && (!two || lo == hi) {
			exact = lo
		}
	}
	switch {
	case version == "":
		f.why, f.fix = "no version: the version a local tool manifest (.config/dotnet-tools.json) lists where one lists it, else whatever the registry serves as latest", fix
	case nugetVersion().MatchString(exact):
		f.pinned, f.why = true, "the exact version "+shownCut(exact, maxMonitorName)
	default:
		f.why, f.fix = "the range "+shownCut(version, maxMonitorName)+", which a new release moves", fix
	}
	return []fetched{f.unsureAfter(unsure, runner, ", or after the package")}
}

// dockerBool are docker run's (and podman's) options that take no value;
// every other takes one, in the next word where it has no "=".
var dockerBool = map[string]bool{"d": true, "detach": true, "i": true, "interactive": true, "t": true, "tty": true, "rm": true,
	"privileged": true, "init": true, "read-only": true, "P": true, "publish-all": true, "no-healthcheck": true,
	"oom-kill-disable": true, "sig-proxy": true, "q": true, "quiet": true, "help": true, "disable-content-trust": true,
	"replace": true, "rmi": true, "no-hosts": true, "tls-verify": true, "env-host": true, "http-proxy": true, "read-only-tmpfs": true,
	"use-api-socket": true, "passwd": true, "unsetenv-all": true, "rootfs": true}

// engineBool are the options docker, podman and nerdctl take before
// their command that take no value.
var engineBool = map[string]bool{"D": true, "debug": true, "tls": true, "tlsverify": true, "r": true, "remote": true,
	"syslog": true, "transient-store": true, "debug-full": true, "insecure-registry": true, "experimental": true,
	"kube-hide-dupe": true, "h": true, "help": true, "v": true, "version": true}

// imageDigest matches an image pinned by its digest.
var imageDigest = lazyRE(`@sha256:[0-9a-f]{64}$`)

// imageFetches is what runner (docker run, podman run) fetches with
// args: the image, its first word past the options; nothing where
// --rootfs (podman's, nerdctl's) makes that word a directory of the
// machine's.
func imageFetches(runner string, args []string) []fetched {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return []fetched{imageFetch(runner, args[i+1])}
			}
			return nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return []fetched{imageFetch(runner, a)}
		}
		if strings.HasPrefix(a, "--") {
			name, value, has := splitOpt(a)
			if on, err := strconv.ParseBool(value); name == "rootfs" && (!has || err == nil && on) {
				return nil
			}
			if !has && !dockerBool[name] {
				i++
			}
			continue
		}
		// A cluster of short options (-it), the first that takes a
		// value taking the rest of the word, or the next word.
		for k := 1; k < len(a); k++ {
			if !dockerBool[a[k:k+1]] {
				if k == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return nil
}

// imageFetch reads the image a container runner is given.
func imageFetch(runner, image string) fetched {
	f := fetched{runner: runner, spec: image}
	if imageDigest().MatchString(image) {
		f.pinned, f.why = true, "its digest"
		return f
	}
	// NAME[:TAG][@DIGEST]: the tag is past the name's last /, the
	// digest past the @.
	name, digest, hasDigest := strings.Cut(image, "@")
	tag := ""
	if k := strings.LastIndexByte(name, ':'); k > strings.LastIndexByte(name, '/') {
		name, tag = name[:k], name[k+1:]
	}
	switch {
	case hasDigest:
		f.why = "the digest " + shownCut(digest, maxFetchSpec) + ", which is not sha256: and its 64 hex digits"
	case tag != "":
		f.why = "the tag " + shownCut(tag, maxMonitorName) + ", which the registry can move: only a digest pins an image"
	default:
		f.why = "no tag or digest: whatever the registry serves as latest"
	}
	f.fix = fmt.Sprintf("pin a digest: %s@sha256:<digest>", shownCut(name, maxFetchSpec))
	return f
}

// gitValue are git's own options (before its command) that take a value
// in the next word where they have no "=" (-C and -c among them);
// gitCloneValue and gitFetchValue those of git clone and of git pull and
// git fetch, with gitCloneShort and gitFetchShort their short options
// that do, in the rest of the word or the next.
var (
	gitValue      = map[string]bool{"C": true, "c": true, "git-dir": true, "work-tree": true, "namespace": true, "config-env": true}
	gitCloneValue = map[string]bool{"origin": true, "branch": true, "upload-pack": true, "reference": true, "reference-if-able": true,
		"separate-git-dir": true, "depth": true, "shallow-since": true, "shallow-exclude": true, "config": true, "server-option": true,
		"filter": true, "template": true, "jobs": true, "revision": true, "bundle-uri": true, "ref-format": true}
	gitCloneShort = "obucj"
	gitFetchValue = map[string]bool{"depth": true, "deepen": true, "shallow-since": true, "shallow-exclude": true, "jobs": true,
		"upload-pack": true, "server-option": true, "negotiation-tip": true, "refmap": true, "recurse-submodules-default": true,
		"strategy": true, "strategy-option": true, "filter": true}
	gitFetchShort = "joXs"
)

// gitCommand is the command git runs with args (clone, pull, checkout),
// past git's own options, and the words after it.
func gitCommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:]
		}
		if name, _, has := splitOpt(a); !has && gitValue[name] && (len(a) == 2 || strings.HasPrefix(a, "--")) {
			i++
		}
	}
	return "", nil
}

// gitOperands reads the words after a git command: its operands, past
// its options (those of long, or of short, that take a value skipping
// theirs), and the value each option that takes one is given, by its
// name ("b", "branch"), the last where it is given twice. "--" ends the
// options.
func gitOperands(args []string, long map[string]bool, short string) (operands []string, values map[string]string) {
	values = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(operands, args[i+1:]...), values
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		var name, value string
		has := false
		if strings.HasPrefix(a, "--") {
			if name, value, has = splitOpt(a); !long[name] {
				continue
			}
		} else {
			// A cluster of short options (-qb main), the first that
			// takes a value taking the rest of the word, or the next.
			k := strings.IndexAny(a[1:], short) + 1
			if k == 0 {
				continue
			}
			name, value, has = a[k:k+1], a[k+1:], k+1 < len(a)
		}
		if !has {
			if i+1 >= len(args) {
				break
			}
			i++
			value = args[i]
		}
		values[name] = value
	}
	return operands, values
}

// gitScheme matches the scheme of a URL git reads (https, ssh, git,
// git+ssh).
var gitScheme = lazyRE(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// gitRemoteURL says whether a git clone or pull's repository u is
// a remote one: a URL (https://, ssh://, git://; not file://) or ssh's
// scp-like [user@]host:path (git@github.com:o/r, a colon before any /;
// not C:, a Windows drive). A path (./r, /srv/r, ../r) is the machine's,
// and a word that holds a variable ("$REPO") is the environment's: not
// read.
func gitRemoteURL(u string) bool {
	if strings.Contains(u, "$") {
		return false
	}
	if scheme, _, ok := strings.Cut(u, "://"); ok {
		return gitScheme().MatchString(scheme) && !strings.EqualFold(scheme, "file")
	}
	c := strings.IndexByte(u, ':')
	return c > 1 && !strings.Contains(u[:c], "/")
}

// gitRemoteName matches the name of a remote (origin, upstream), which
// git pull and git fetch take as well as a URL.
var gitRemoteName = lazyRE(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// gitFix pins a git clone or pull.
const gitFix = "pin a commit: git checkout <commit> (its full 40-hex hash) after the clone or pull, in the same command or script"

// gitFetches is what git run with args fetches: the repository of git
// clone where it is remote (gitRemoteURL), pinned by --revision's full
// commit hash, else by a checkout of one after it (pinCheckedOut), and
// the remote git pull fetches from and merges into the work tree (a URL,
// a remote's name, or with none the upstream of the branch; not a path),
// pinned only by a checkout after it. A branch or tag (--branch main,
// -b v1.2) pins nothing: the repository moves either. git fetch alone is
// none: it updates refs, not the files that run (a hook that counts the
// commits it is behind fetches so), and what then checks one out runs a
// commit the record would have to follow.
func gitFetches(args []string) []fetched {
	cmd, rest := gitCommand(args)
	switch cmd {
	case "clone":
		operands, values := gitOperands(rest, gitCloneValue, gitCloneShort)
		if len(operands) == 0 || !gitRemoteURL(operands[0]) {
			return nil
		}
		f := fetched{runner: "git clone", spec: operands[0]}
		branch := values["branch"]
		if b, ok := values["b"]; ok {
			branch = b
		}
		switch revision := values["revision"]; {
		case gitCommit().MatchString(revision):
			f.pinned, f.why = true, "the commit "+revision
			return []fetched{f}
		case revision != "":
			f.why = "the revision " + shownCut(revision, maxMonitorName) + ", which is no full commit hash: the repository can move it"
		case branch != "":
			f.why = "the branch or tag " + shownCut(branch, maxMonitorName) + ", which the repository can move (a tag too), and no full commit checked out after it"
		default:
			f.why = "no commit: whatever the repository's default branch holds that day, and no full commit checked out after it"
		}
		f.fix, f.checkout = gitFix, true
		return []fetched{f}
	case "pull":
		operands, _ := gitOperands(rest, gitFetchValue, gitFetchShort)
		f := fetched{runner: "git " + cmd, why: "whatever the remote's branch holds that day, and no full commit checked out after it", fix: gitFix, checkout: true}
		switch {
		case len(operands) == 0:
			f.spec = "the upstream of its branch"
		case gitRemoteURL(operands[0]) || gitRemoteName().MatchString(operands[0]):
			f.spec = strings.Join(operands[:min(len(operands), 2)], " ")
		default:
			return nil
		}
		return []fetched{f}
	}
	return nil
}

// gitCheckoutCommit is the full commit hash the command words (past
// commandWords) check out, git checkout <commit> (git -C dir checkout,
// git -c k=v checkout -q <commit>); "" for none, or for a branch, a tag
// or a hash that is not whole.
func gitCheckoutCommit(words []string) string {
	if len(words) == 0 || progName(words[0]) != "git" {
		return ""
	}
	cmd, rest := gitCommand(words[1:])
	if cmd != "checkout" {
		return ""
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if gitCommit().MatchString(a) {
			return a
		}
	}
	return ""
}

// pinCheckedOut pins each git clone or pull of fs not pinned yet
// (fetched.checkout) by commit, which a command after them checks out.
func pinCheckedOut(fs []fetched, commit string) {
	for i := range fs {
		if fs[i].checkout && !fs[i].pinned {
			fs[i].pinned, fs[i].why, fs[i].fix = true, "the commit "+commit+" checked out after it", ""
		}
	}
}

// fetchesInArgv is what a command Claude Code spawns with no shell
// (program and arguments) fetches.
func fetchesInArgv(argv []string) []fetched {
	return fetchesIn(commandWords(argv), 0)
}

// fetchedMessage is the finding's text for what who runs, fetching fs;
// its severity is a warning where any of fs is not pinned. A package
// manager may take what it fetched before from its cache, so the
// message says "at run time", not "each time".
func fetchedMessage(who string, fs []fetched) (string, report.Severity) {
	// Every fetch counts, named or not, and the unpinned are named
	// first.
	sev := report.SeverityNotice
	if slices.ContainsFunc(fs, func(f fetched) bool { return !f.pinned }) {
		sev = report.SeverityWarning
	}
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b fetched) int {
		switch {
		case a.pinned == b.pinned:
			return 0
		case !a.pinned:
			return -1
		}
		return 1
	})
	var parts, fixes []string
	for i, f := range fs {
		if i == maxFetchNamed {
			// The packages past those read one by one (fetched.unread)
			// are not counted as one: "and 254 more" of a command of
			// three hundred said that 257 are fetched.
			// Each kind of the unread is said once, as what it is.
			n, unread := 0, []string(nil)
			for _, f := range fs[i:] {
				switch {
				case f.unread == "":
					n++
				case !slices.Contains(unread, f.unread):
					unread = append(unread, f.unread)
				}
			}
			var tail []string
			if n > 0 || len(unread) == 0 {
				tail = append(tail, fmt.Sprintf("%d more", n))
			}
			for _, u := range unread {
				tail = append(tail, "more "+u+" than vigiles reads one by one")
			}
			parts = append(parts, "and "+strings.Join(tail, ", and "))
			break
		}
		if f.pinned {
			parts = append(parts, fmt.Sprintf("%s fetches %s, pinned by %s", f.runner, shownName(clip(f.spec, maxFetchSpec)), f.why))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s fetches %s (%s)", f.runner, shownName(clip(f.spec, maxFetchSpec)), f.why))
		if f.fix != "" && !slices.Contains(fixes, f.fix) {
			fixes = append(fixes, f.fix)
		}
	}
	what := strings.Join(parts, "; ")
	if sev == report.SeverityNotice {
		return fmt.Sprintf("%s runs code that is not in the tree, fetched at run time: %s; vigiles audits what the tree holds, not what is fetched: review that version apart", who, what), sev
	}
	return fmt.Sprintf("%s runs code that is not in the tree, fetched at run time: %s; what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: %s", who, what, strings.Join(fixes, "; ")), sev
}

// hookFetchedCode names what each command hook of the session fetches
// when it runs: a notice instead of a warning where the settings turn it
// off (Hook.NotRun says so). A hook Claude Code never runs (a plugin
// agent's, a shell-form one that names ${user_config.*}) fetches
// nothing, and is not named. One command that a plugin (or a settings
// file) declares as several hooks, on several events or matchers, is one
// finding, at the first declared, that names them (as a run/hook-error
// names them where it fails alike in each): a package runner's
// dispatcher on every event said the same once an event.
func (s *session) hookFetchedCode() {
	type group struct {
		hooks []*Hook
		fs    []fetched
	}
	groups := map[string]*group{}
	var order []*group
	for _, h := range s.hooks {
		if !h.runs() {
			continue
		}
		var fs []fetched
		var cmds [][]string
		if h.Exec {
			fs, cmds = fetchesInArgv(h.argvOf()), [][]string{commandWords(h.argvOf())}
		} else {
			fs, cmds = fetchesInShell(h.Command, 0), commandsOf(h.Command)
		}
		pluginRoot, projectDir := h.dirs()
		fs = append(fs, s.treeScriptFetches(cmds, pluginRoot, projectDir)...)
		fs = append(fs, s.scriptLineFetches(h)...)
		if len(fs) == 0 {
			continue
		}
		key := strings.Join(append([]string{h.context(), h.Plugin, h.Location.File, h.NotRun, fmt.Sprint(h.Exec), h.Command}, h.argvOf()...), "\x00")
		g := groups[key]
		if g == nil {
			g = &group{fs: fs}
			groups[key] = g
			order = append(order, g)
		}
		g.hooks = append(g.hooks, h)
	}
	for _, g := range order {
		sortByDeclaration(g.hooks)
		h := g.hooks[0]
		who := "hook " + shownCut(h.ID, maxServerLine)
		if len(g.hooks) > 1 {
			who = fmt.Sprintf("the command that %d hooks of %s run (%s)", len(g.hooks), shownName(h.Location.File), hooksNamed(g.hooks))
		}
		msg, sev := fetchedMessage(who, g.fs)
		off, isOff := strings.CutPrefix(h.NotRun, "turned off: ")
		if sev == report.SeverityWarning && !isOff {
			// What vigiles' run of it (an audit's, or a test's check
			// of it) may record: none where the runner is missing, or
			// egress is not denied, and no run at all of a hook turned
			// off.
			msg += "; where vigiles runs it under egress deny, a fetch it tries is blocked (the run's egress names the host), so what the run records is not the code Claude Code runs"
		}
		if isOff {
			sev, msg = report.SeverityNotice, "turned off: "+off+"; "+msg
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleFetchedCode, Severity: sev, Location: h.Location, Message: msg})
	}
}

// serverFetchedCode names what the server (monitor, settings command,
// shell line) sv runs fetches at run time, or what its
// headersHelper fetches; off is the "turned off: …; " its own finding
// begins with where the settings turn it off, which makes this a notice
// too. A baseline does not keep it: one that accepts the server as it is
// leaves it a warning.
func (s *session) serverFetchedCode(sv *Server, off string) {
	var fs []fetched
	var cmds [][]string
	switch {
	case sv.Kind == ServerMonitor || sv.Kind == ServerSettings || sv.Kind == ServerSkillShell:
		fs, cmds = fetchesInShell(sv.Command, 0), commandsOf(sv.Command)
	case sv.Type == "stdio":
		argv := append([]string{sv.Command}, sv.Args...)
		fs, cmds = fetchesInArgv(argv), [][]string{commandWords(argv)}
	case sv.HeadersHelper != "":
		fs, cmds = fetchesInShell(sv.HeadersHelper, 0), commandsOf(sv.HeadersHelper)
	}
	pluginRoot, projectDir := sv.dirs()
	fs = append(fs, s.treeScriptFetches(cmds, pluginRoot, projectDir)...)
	if len(fs) == 0 {
		return
	}
	msg, sev := fetchedMessage(serverWho(sv), fs)
	if off != "" {
		sev, msg = report.SeverityNotice, off+msg
	}
	s.findings = append(s.findings, report.Finding{Rule: RuleFetchedCode, Severity: sev, Location: sv.Location, Message: msg})
}

// serverWho names the server (monitor, settings command, shell line) sv
// in a finding about what its command runs: for a remote server, its
// headersHelper.
func serverWho(sv *Server) string {
	switch {
	case sv.Kind == ServerMonitor:
		return fmt.Sprintf("plugin %s's background monitor %s", shownCut(sv.Plugin, maxMonitorName), shownCut(sv.Name, maxMonitorName))
	case sv.Kind == ServerSettings:
		return fmt.Sprintf("%s's settings command %s", sv.owner(), shownCut(sv.Name, maxMonitorName))
	case sv.Kind == ServerSkillShell:
		return fmt.Sprintf("%s's %s %s, in a shell line,", sv.owner(), sv.Name, shownName(sv.Location.File))
	case sv.Type == "stdio":
		return fmt.Sprintf("%s's %s %s", sv.declarer(), kindName(sv.Kind), shownCut(sv.Name, maxMonitorName))
	}
	return fmt.Sprintf("%s's %s %s, in its headersHelper,", sv.declarer(), kindName(sv.Kind), shownCut(sv.Name, maxMonitorName))
}

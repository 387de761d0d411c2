package runner

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// interpreters are the programs whose first operand that is no option is
// a script they run (bash x.sh, node x.js); none past -c, -e or -m,
// which give inline code or a module. subcommands are those whose first
// operand may instead be a subcommand, skipped where it is one that runs
// the script after it (deno run x.ts, bun run x.ts, tsx watch x.ts):
// another bare word is no file of theirs (bun run dev runs a
// package.json script, deno task a task).
var (
	interpreters = map[string]bool{
		"bash": true, "sh": true, "zsh": true, "dash": true, "python": true, "python3": true,
		"node": true, "deno": true, "bun": true, "ruby": true, "perl": true, "tsx": true,
	}
	subcommands = map[string][]string{
		"deno": {"run", "serve"},
		"bun":  {"run"},
		"tsx":  {"watch"},
	}
)

// valueOptions are the options of an interpreter that take the next word
// as their value (node -r x, python3 -W error), by interpreter: true
// where the value is a file it runs too, where it is a path (node -r
// ./pre.js, not -r ts-node/register, a package's).
var valueOptions = map[string]map[string]bool{
	"node":    {"-r": true, "--require": true, "--import": true, "--loader": true, "--experimental-loader": true, "-C": false, "--conditions": false},
	"python":  {"-W": false, "-X": false},
	"python3": {"-W": false, "-X": false},
	"ruby":    {"-r": true, "-I": false},
	"bash":    {"-o": false, "-O": false},
	"zsh":     {"-o": false},
}

// scriptsRun is what the words of one simple command, as written, run of
// files: past what only sets up how it runs (commandWords), the program
// where it is a path, and the script an interpreter is given
// (interpreters, also at a path: /usr/bin/python3 x.py, .venv/bin/python
// x.py, and through /usr/bin/env) with the files its options preload
// (valueOptions); uv run's script, or the command it runs (uv run python
// x.py), a relative one joined to uv's --directory, which uv changes to
// first; npx tsx's script. Each as written otherwise: a caller expands
// and resolves it. checkScripts says where one is missing, and a
// baseline hashes each of a server's (serverFiles).
func scriptsRun(words []string) []string {
	return scriptsRunIn(words, 0)
}

// scriptsRunIn is scriptsRun of the command that runs at depth, bounded
// by maxShellDepth (uv run uv run …).
func scriptsRunIn(words []string, depth int) []string {
	words = commandWords(words)
	if len(words) == 0 || depth > maxShellDepth {
		return nil
	}
	prog := words[0]
	name := winProg(path.Base(prog))
	var out []string
	if strings.Contains(prog, "/") {
		out = append(out, prog)
	}
	switch {
	case name == "uv":
		args, ok := uvRunArgs(words[1:])
		if !ok {
			break
		}
		if script := uvRunScript(args); script != "" {
			return append(out, script)
		}
		if o := readUvOptions(args, true); o.unsure == "" && len(o.rest) > 0 {
			for _, p := range scriptsRunIn(o.rest, depth+1) {
				out = append(out, o.inDir(p))
			}
			return out
		}
	case name == "npx":
		rest := words[1:]
		for len(rest) > 0 && (rest[0] == "-y" || rest[0] == "--yes") {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == "tsx" {
			return append(out, scriptsRunIn(rest, depth+1)...)
		}
	case interpreters[name]:
		out = append(out, interpreterScripts(name, words[1:])...)
	}
	return out
}

// interpreterScripts are the files the interpreter name runs with args:
// those its options preload (valueOptions), then its first operand that
// is no option, none where it runs inline code or a module (-c, -e, -m),
// or where that operand is a subcommand of its (subcommands) that runs
// no file.
func interpreterScripts(name string, args []string) []string {
	var out []string
	sub, named := subcommands[name], false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if strings.HasPrefix(w, "-") {
			if w == "-c" || w == "-e" || w == "-m" {
				return out // inline code, not a script
			}
			opt, value, has := strings.Cut(w, "=")
			file, takes := valueOptions[name][opt]
			if !takes {
				continue
			}
			if !has {
				if i++; i == len(args) {
					break
				}
				value = args[i]
			}
			if file && (strings.HasPrefix(value, ".") || strings.HasPrefix(value, "/") || strings.HasPrefix(value, "$")) {
				out = append(out, value)
			}
			continue
		}
		switch {
		case sub == nil:
			return append(out, w)
		case !named && slices.Contains(sub, w):
			named = true // the script follows
		case strings.ContainsAny(w, "./"):
			return append(out, w)
		default:
			return out // a subcommand, task or package.json script
		}
	}
	return out
}

// dirs are the directories, relative to the work tree, that h's command
// runs with: its plugin's, which ${CLAUDE_PLUGIN_ROOT} names ("" for a
// project's hook), and the one it runs in, which ${CLAUDE_PROJECT_DIR}
// names.
func (h *Hook) dirs() (pluginRoot, projectDir string) {
	if h.InPlugin {
		pluginRoot = h.PluginRoot
	}
	return pluginRoot, cmp.Or(h.ProjectDir, ".")
}

// dirs are sv's as a hook's (Hook.dirs): a plugin's server runs in the
// work tree, a project's in its project's directory (PluginRoot).
func (sv *Server) dirs() (pluginRoot, projectDir string) {
	if sv.InProject {
		return "", sv.PluginRoot
	}
	return sv.PluginRoot, "."
}

// runs says whether Claude Code runs h's command: a command hook but a
// plugin agent's, one of an agent whose name holds a colon, or a
// shell-form one that names ${user_config.*}, which it never runs
// (settings that turn it off aside).
func (h *Hook) runs() bool {
	return h.Type == TypeCommand && h.NotRun != pluginAgentIgnored && h.NotRun != colonAgentIgnored && h.NotRun != userConfigRefused
}

// argvOf is h's exec-form argument vector (its command and args, as
// declared).
func (h *Hook) argvOf() []string {
	return append([]string{h.Command}, h.Args...)
}

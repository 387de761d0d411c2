package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vigiles/action/pkg/sandbox"
)

// notRunHint is the line vigiles run adds to its report where the command
// could not be started for a reason the caller can mend, which the words
// the command's stderr got ("hook.sh: not found", "./hook.sh: permission
// denied", as a shell says them) do not name: a file of the work tree
// given without a directory, which is looked up on PATH, and a file
// without execute permission. "" where neither is so: the status is then
// the command's own, or its cause is not one of these (a directory, a
// command no one has).
func notRunHint(dir string, command []string, res *sandbox.Result) string {
	if res == nil || res.Refusal != "" || res.Error != "" || res.Signal != "" || len(command) == 0 || command[0] == "" {
		return ""
	}
	name := command[0]
	at := name
	if !filepath.IsAbs(at) {
		at = filepath.Join(dir, at)
	}
	fi, err := os.Stat(at)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	switch res.ExitCode {
	case 127:
		if strings.Contains(name, "/") {
			return ""
		}
		if _, err := exec.LookPath(name); err == nil {
			return "" // found on PATH: the 127 is the command's own
		}
		return fmt.Sprintf("%s is looked up on PATH, not in the work tree, which holds a file of that name"+labelColon+" give it as %s",
			quote(name), quote("./"+name))
	case 126:
		if fi.Mode().Perm()&0o111 != 0 {
			return ""
		}
		return fmt.Sprintf("%s is not executable (mode %04o)"+labelColon+" chmod +x it, or run it through its interpreter (vigiles run -- %s %s)",
			quote(name), fi.Mode().Perm(), interpreterOf(at), quote(name))
	}
	return ""
}

// interpreterOf is the program that runs the script at path: the one its
// #! line names (through env too), where that is a plain program name,
// else the one its extension says (.py python3, .js node, …), else sh, as
// a shell runs a file with no #! line. The file is the tree's, its first
// line anyone's choice: a name of other characters is not shown.
func interpreterOf(path string) string {
	if f, err := os.Open(path); err == nil {
		b := make([]byte, 256)
		n, _ := f.Read(b)
		f.Close()
		if line, ok := strings.CutPrefix(string(b[:n]), "#!"); ok {
			line, _, _ = strings.Cut(line, "\n")
			fields := strings.Fields(line)
			if len(fields) > 0 && filepath.Base(fields[0]) == "env" {
				fields = fields[1:]
				for len(fields) > 0 && strings.HasPrefix(fields[0], "-") {
					fields = fields[1:] // env -S
				}
				if len(fields) > 0 {
					fields[0] = "/" + fields[0]
				}
			}
			if len(fields) > 0 {
				if prog := filepath.Base(fields[0]); plainProgram(prog) {
					return prog
				}
			}
		}
	}
	switch filepath.Ext(path) {
	case ".py":
		return "python3"
	case ".js", ".mjs", ".cjs":
		return "node"
	case ".ts":
		return "bun"
	case ".bash":
		return "bash"
	}
	return "sh"
}

// plainProgram reports whether s is a program name of letters, digits,
// '.', '_', '+' and '-', none of which a terminal or a shell reads as
// anything else.
func plainProgram(s string) bool {
	if s == "" || s == "." || s == ".." || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '+' || r == '-') {
			return false
		}
	}
	return true
}

package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleRemoteSession names a command hook that reads CLAUDE_CODE_REMOTE,
// in its command or in a script of the tree it runs: Claude Code sets it
// to true in a web session (Claude Code on the web), and a hook may do
// there what it does nowhere else (a SessionStart script that installs
// tools only in the cloud). The audit runs hooks as a local session
// runs them, without it; a check's env can set it (Check.Env).
const RuleRemoteSession = "discovery/remote-session"

// remoteVar is the variable a Claude Code web session sets.
const remoteVar = "CLAUDE_CODE_REMOTE"

// hookRemoteSession names each command hook of the session that reads
// CLAUDE_CODE_REMOTE (RuleRemoteSession), a notice: where it reads it,
// and how to test what it does in a web session.
func (s *session) hookRemoteSession() {
	for _, h := range s.hooks {
		if !h.runs() {
			continue
		}
		where := s.whereNamed(h, remoteVar)
		if where == "" {
			continue
		}
		advice := fmt.Sprintf("; test that with a check whose env is {%s: \"true\"}", remoteVar)
		if s.checkSets(remoteVar) {
			advice = fmt.Sprintf(" (a check of %s that sets it runs that path)", s.cfg.File)
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleRemoteSession, Severity: report.SeverityNotice, Location: h.Location,
			Message: fmt.Sprintf("hook %s reads %s %s, which Claude Code sets to true in a web session: vigiles runs it as a local session runs it, where what it does only there (a setup script that installs tools in the cloud) does not run%s",
				shownCut(h.ID, maxServerLine), remoteVar, where, advice)})
	}
}

// varsNamed lists the variables text names that discovery says something
// of, each once: remoteVar where text holds it anywhere (or a name it
// begins), and each variable of neverSet that a line of text reads, past
// comment lines (#, //, /*, *), where text reads standard input nowhere
// (readsStdin: a fallback).
func varsNamed(text string) []string {
	var out []string
	if strings.Contains(text, remoteVar) {
		out = append(out, remoteVar)
	}
	if !strings.Contains(text, "CLAUDE_") && !strings.Contains(text, "TOOL_") || readsStdin().MatchString(text) {
		return out
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") {
			continue
		}
		for _, m := range neverSetRead().FindAllStringSubmatch(line, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// whereNamed says where hook h names the variable name: "in its command",
// or "in its script X" for the first file of the tree its command runs
// (hookFiles) whose first maxScriptRead bytes name it; "" where neither
// does. Each file is read once, however many hooks run it
// (session.varsOf).
func (s *session) whereNamed(h *Hook, name string) string {
	if slices.Contains(varsNamed(h.Command), name) || slices.ContainsFunc(h.Args, func(a string) bool { return slices.Contains(varsNamed(a), name) }) {
		return "in its command"
	}
	for _, f := range s.hookFiles(h) {
		vars, seen := s.varsOf[f.Path]
		if !seen {
			src, _ := s.readTreeFile(f.Path, maxScriptRead)
			vars = varsNamed(src)
			if s.varsOf == nil {
				s.varsOf = map[string][]string{}
			}
			s.varsOf[f.Path] = vars
		}
		if slices.Contains(vars, name) {
			return "in its script " + shownName(f.Path)
		}
	}
	return ""
}

// hookFiles are the files of the tree hook h's command runs, found as a
// server's are (newFileWalk), and those its shell scripts source or run
// in turn (sourced), as a baseline hashes them (runFiles): a wrapper.sh
// that runs setup.sh runs what setup.sh fetches. Unhashed; walked once a
// hook, however many readers ask (its fetches, its remote-session reads,
// its climbs out).
func (s *session) hookFiles(h *Hook) []BaselineFile {
	if fs, ok := s.hookFileWalks[h]; ok {
		return fs
	}
	w, projectDir := s.walkHook(h, false)
	w.sourced(projectDir)
	if s.hookFileWalks == nil {
		s.hookFileWalks = map[*Hook][]BaselineFile{}
	}
	s.hookFileWalks[h] = w.files
	return w.files
}

// walkHook walks the files of the tree hook h's command runs (an exec
// form's program and arguments, or each command of its shell line), as a
// server's are (newFileWalk), hashing them where hash; it returns the
// walk and the project directory the command runs in.
func (s *session) walkHook(h *Hook, hash bool) (*fileWalk, string) {
	pluginRoot, projectDir := h.dirs()
	w := s.newFileWalk(pluginRoot, projectDir, hash)
	if h.Exec {
		dir := projectDir
		w.command(h.argvOf(), &dir, 0)
	} else {
		w.line(h.Command, projectDir, 0)
	}
	return w, projectDir
}

// checkSets says whether a check of the policy file sets the variable
// name in its env.
func (s *session) checkSets(name string) bool {
	if s.cfg == nil {
		return false
	}
	for _, c := range s.cfg.Checks {
		for _, e := range c.Env {
			if k, _, _ := strings.Cut(e, "="); k == name {
				return true
			}
		}
	}
	return false
}

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
		where := ""
		if strings.Contains(h.Command, remoteVar) || slices.ContainsFunc(h.Args, func(a string) bool { return strings.Contains(a, remoteVar) }) {
			where = "in its command"
		} else if rel := s.remoteScript(h); rel != "" {
			where = "in its script " + shownName(rel)
		}
		if where == "" {
			continue
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleRemoteSession, Severity: report.SeverityNotice, Location: h.Location,
			Message: fmt.Sprintf("hook %s reads %s %s, which Claude Code sets to true in a web session: the audit ran it as a local session runs it, where what it does only there (a setup script that installs tools in the cloud) does not run; test that with a check whose env is {%s: \"true\"}",
				shownCut(h.ID, maxServerLine), remoteVar, where, remoteVar)})
	}
}

// remoteScript is the first file of the tree hook h's command runs
// (hookFiles) whose first maxScriptRead bytes hold remoteVar
// (session.reads keeps what each file said), "" where none does.
func (s *session) remoteScript(h *Hook) string {
	for _, f := range s.hookFiles(h) {
		has, seen := s.reads[f.Path]
		if !seen {
			src, _ := s.readTreeFile(f.Path, maxScriptRead)
			has = strings.Contains(src, remoteVar)
			if s.reads == nil {
				s.reads = map[string]bool{}
			}
			s.reads[f.Path] = has // each file read once, however many hooks run it
		}
		if has {
			return f.Path
		}
	}
	return ""
}

// hookFiles are the files of the tree hook h's command runs, found as a
// server's are (newFileWalk), unhashed; walked once a hook, however many
// readers ask (its fetches, its remote-session reads, its climbs out).
func (s *session) hookFiles(h *Hook) []BaselineFile {
	if fs, ok := s.hookFileWalks[h]; ok {
		return fs
	}
	pluginRoot, projectDir := h.dirs()
	w := s.newFileWalk(pluginRoot, projectDir, false)
	if h.Exec {
		dir := projectDir
		w.command(h.argvOf(), &dir, 0)
	} else {
		w.line(h.Command, projectDir, 0)
	}
	if s.hookFileWalks == nil {
		s.hookFileWalks = map[*Hook][]BaselineFile{}
	}
	s.hookFileWalks[h] = w.files
	return w.files
}

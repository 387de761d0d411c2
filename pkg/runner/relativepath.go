package runner

import (
	"fmt"
	"path"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleRelativePath names a project's hook that runs a script of the
// project by a path relative to the directory it runs in
// (.claude/hooks/guard.sh, python3 .claude/hooks/x.py): Claude Code runs
// a hook in the session's current directory, which moves when a command
// of the session cds into a subdirectory (the Bash tool keeps its
// directory from one call to the next), and from there the path names
// nothing (anthropics/claude-code#3583, #5176). The audit runs the hook
// in the project's directory, where it is found. It names too a plugin's
// hook that runs a file of its plugin so (node hooks/x.mjs), which the
// project's directory does not hold once the plugin is installed.
const RuleRelativePath = "discovery/relative-path"

// hookRelativePath warns of each project hook that runs a script of the
// project by a path relative to the directory it runs in (Hook.relScript:
// RuleRelativePath), except where the session's settings set
// CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR, with which Claude Code
// returns the Bash tool to the project's directory after each command,
// so that the session does not stay in a subdirectory. In exec form the
// fix is ${CLAUDE_PROJECT_DIR}, which Claude Code substitutes there (no
// shell reads $VAR).
//
// A plugin's hook that names a file of its own plugin so, where the
// audit finds it (the plugin is the work tree), is warned of too,
// whatever the settings say: Claude Code runs it in the project's
// directory, the user's project once the plugin is installed, not the
// plugin's, where the path names nothing; the fix is
// ${CLAUDE_PLUGIN_ROOT}. Where the path names nothing in the work tree
// (a plugin below it) that is a discovery/missing-script error instead
// (checkScripts).
func (s *session) hookRelativePath() {
	for _, h := range s.hooks {
		if h.relScript == "" || !h.runs() || !h.InPlugin && maintainsProjectDir(h.SettingsEnv) {
			continue
		}
		s.findings = append(s.findings, relativePathFinding(h))
	}
}

// maintainsProjectDir says whether env (NAME=VALUE) sets
// CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR to a value Claude Code reads as
// on.
func maintainsProjectDir(env []string) bool {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR="); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "1", "true", "yes", "on":
				return true
			}
		}
	}
	return false
}

// relativePathFinding is the RuleRelativePath warning of h.
func relativePathFinding(h *Hook) report.Finding {
	p, python := h.relScript, h.relPython
	fails := "with a shell's exit status 127 (or its interpreter's), a non-blocking error that lets the call through as if the hook were not there"
	if h.Exec {
		fails = "with its program's failure, a non-blocking error that lets the call through as if the hook were not there"
	}
	if python {
		fails = "with python's exit status 2 for a script it cannot open, which Claude Code reads as a block: on every call, where the event takes one"
	}
	when := ""
	if h.Event == SessionStart {
		when = " (a SessionStart hook finds it at startup, in the directory the session starts in, and not on a resume, clear or compact after such a cd)"
	}
	if h.InPlugin {
		return pluginRelativePathFinding(h, fails)
	}
	fix := fmt.Sprintf("\"$CLAUDE_PROJECT_DIR\"/%s", shownName(path.Clean(p)))
	if h.Exec {
		// No shell: Claude Code substitutes ${CLAUDE_PROJECT_DIR} in
		// each element itself.
		fix = fmt.Sprintf("${CLAUDE_PROJECT_DIR}/%s (exec form: no shell reads $VAR, Claude Code substitutes this form)", shownName(path.Clean(p)))
	}
	return report.Finding{Rule: RuleRelativePath, Severity: report.SeverityWarning, Location: h.Location, Hook: h.ID,
		Title: "script by a relative path",
		Message: fmt.Sprintf("the hook runs %s by a path relative to the directory it runs in, and Claude Code runs a hook in the session's current directory, which moves when a command of the session cds into a subdirectory: from there the path names nothing, and the hook fails each time it runs%s, %s; this audit ran it from the project's directory, where it is found. Name it %s",
			shownName(p), when, fails, fix)}
}

// pluginRelativePathFinding is the RuleRelativePath warning of h, a
// plugin's hook (hookRelativePath), that fails so.
func pluginRelativePathFinding(h *Hook, fails string) report.Finding {
	p := path.Clean(h.relScript)
	fix := fmt.Sprintf("\"${CLAUDE_PLUGIN_ROOT}/%s\"", shownName(p))
	if h.Exec {
		fix = fmt.Sprintf("${CLAUDE_PLUGIN_ROOT}/%s (exec form: no shell reads $VAR, Claude Code substitutes this form)", shownName(p))
	}
	return report.Finding{Rule: RuleRelativePath, Severity: report.SeverityWarning, Location: h.Location, Hook: h.ID,
		Title: "script by a relative path",
		Message: fmt.Sprintf("the hook of plugin %s runs %s by a path relative to the directory it runs in, and Claude Code runs a plugin's hook in the session's directory, the project's directory, not the plugin's: in a project that installs the plugin the path names nothing, and the hook fails each time it runs, %s; this audit ran it from the work tree, which holds a file of that path. Name it %s",
			shownCut(h.Plugin, maxMonitorName), shownName(h.relScript), fails, fix)}
}

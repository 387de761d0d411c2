package runner

import (
	"strings"
	"testing"
)

// neverSetMessages audits a tree of files and returns the message of
// each discovery/never-set finding by the hook it names.
func neverSetMessages(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	return messagesByHook(auditTree(t, files).Findings, RuleNeverSet)
}

// TestNeverSetVariables: a hook that reads a variable Claude Code never
// sets (CLAUDE_TOOL_INPUT in its command, CLAUDE_FILE_PATHS in a script
// it runs) is a discovery/never-set warning that names the variables and
// where; a name that only ends in one (MY_CLAUDE_TOOL_NAME), and
// CLAUDE_CODE_REMOTE, are not, nor is a name a comment or a docstring
// mentions, nor a read in a script (or command) that falls back to stdin,
// on its line or later.
func TestNeverSetVariables(t *testing.T) {
	got := neverSetMessages(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "echo \"$CLAUDE_TOOL_INPUT\" | grep -q 'rm -rf' && exit 2; exit 0"},
  {"type": "command", "command": "bash .claude/hooks/fmt.sh"},
  {"type": "command", "command": "echo \"$MY_CLAUDE_TOOL_NAME $CLAUDE_CODE_REMOTE\""},
  {"type": "command", "command": "bash .claude/hooks/guard.sh"},
  {"type": "command", "command": "node .claude/hooks/post.js"},
  {"type": "command", "command": "python3 .claude/hooks/gate.py"},
  {"type": "command", "command": "bash .claude/hooks/later.sh"},
  {"type": "command", "command": "python3 .claude/hooks/later.py"}
]}]}}`,
		".claude/hooks/later.sh": "#!/bin/bash\nINPUT=\"${CLAUDE_TOOL_INPUT:-}\"\nif [ -z \"$INPUT\" ]; then\n  INPUT=$(cat)\nfi\n",
		".claude/hooks/later.py": "import os, sys\nraw = os.environ.get(\"CLAUDE_TOOL_INPUT\")\nif not raw:\n    raw = sys.stdin.read()\n",
		".claude/hooks/guard.sh": "#!/bin/bash\n# Input:\n#   CLAUDE_TOOL_INPUT - JSON input to the tool\nINPUT=\"${CLAUDE_TOOL_INPUT:-$(cat)}\"\n",
		".claude/hooks/post.js":  "// NOTE: Do NOT use process.env.CLAUDE_TOOL_NAME; read stdin\nconst input = require('fs').readFileSync(0, 'utf8')\n",
		".claude/hooks/gate.py":  "\"\"\"Reads CLAUDE_TOOL_INPUT, as older guides say.\"\"\"\nimport os\ncmd = os.environ.get(\"CLAUDE_TOOL_INPUT\", \"\")\n",
		".claude/hooks/fmt.sh":   "#!/bin/bash\nfor f in $CLAUDE_FILE_PATHS; do prettier --write \"$f\"; done\necho \"${CLAUDE_TOOL_NAME:-?}\"\n",
	})
	if len(got) != 3 {
		t.Fatalf("never-set findings %q, want three", got)
	}
	if m := got[".claude/settings.json#hooks.PreToolUse[0].hooks[5]"]; !strings.Contains(m, "reads CLAUDE_TOOL_INPUT (in its script .claude/hooks/gate.py)") {
		t.Errorf("Python's os.environ.get: %q", m)
	}
	if m := got[".claude/settings.json#hooks.PreToolUse[0].hooks[0]"]; !strings.Contains(m, "reads CLAUDE_TOOL_INPUT (in its command), which Claude Code never sets") {
		t.Errorf("the command's: %q", m)
	}
	if m := got[".claude/settings.json#hooks.PreToolUse[0].hooks[1]"]; !strings.Contains(m, "reads CLAUDE_TOOL_NAME and CLAUDE_FILE_PATHS (in its script .claude/hooks/fmt.sh)") || !strings.Contains(m, "takes its input from them") {
		t.Errorf("the script's: %q", m)
	}
}

// TestNeverSetUnprefixedVariables: Claude Code never sets TOOL_INPUT,
// TOOL_NAME or TOOL_OUTPUT either, but a hook may set them for itself: a
// read of one its command or a script of it assigns is none, nor is a
// name that only ends in one.
func TestNeverSetUnprefixedVariables(t *testing.T) {
	got := neverSetMessages(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "node .claude/hooks/check.js --input \"$TOOL_INPUT\""},
  {"type": "command", "command": "python3 .claude/hooks/gate.py"},
  {"type": "command", "command": "bash .claude/hooks/own.sh Bash"},
  {"type": "command", "command": "echo \"$MY_TOOL_NAME ${CLAUDE_TOOL_OUTPUT_DIR}\""}
]}]}}`,
		".claude/hooks/check.js": "console.log(process.argv)\n",
		".claude/hooks/gate.py":  "import os\nname = os.environ.get(\"TOOL_NAME\", \"\")\nout = os.getenv('TOOL_OUTPUT')\n",
		".claude/hooks/own.sh":   "#!/bin/bash\nTOOL_NAME=\"$1\"\nif [ \"$TOOL_NAME\" = Bash ]; then echo bash; fi\n",
	})
	if len(got) != 2 {
		t.Fatalf("never-set findings %q, want two", got)
	}
	if m := got[".claude/settings.json#hooks.PreToolUse[0].hooks[0]"]; !strings.Contains(m, "reads TOOL_INPUT (in its command), which Claude Code never sets") {
		t.Errorf("the command's: %q", m)
	}
	if m := got[".claude/settings.json#hooks.PreToolUse[0].hooks[1]"]; !strings.Contains(m, "reads TOOL_NAME and TOOL_OUTPUT (in its script .claude/hooks/gate.py)") {
		t.Errorf("the script's: %q", m)
	}
}

package runner

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoveryMessagesSayWhatIsWrong: a matcher written as a permission
// rule is told how to write it (the tool as the matcher, the rule as the
// handler's "if"), another invalid matcher is not; a marketplace's local
// source that is not there says it does not exist, one that is a file
// that it is not a directory; a hook whose python script, or sh script,
// is missing is told that python's, or dash's, exit status then reads as
// a block.
func TestDiscoveryMessagesSayWhatIsWrong(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "gone", "source": "./plugins/gone"}, {"name": "file", "source": "./plugins/file"}]}`,
		"plugins/file":                    "not a directory\n",
		".claude/settings.json": `{"hooks": {"PreToolUse": [
  {"matcher": "Write(docs/prds/**)", "hooks": [{"type": "command", "command": "true"}]},
  {"matcher": "Bash(", "hooks": [{"type": "command", "command": "true"}]}
], "Stop": [{"hooks": [{"type": "command", "command": "python3 .claude/hooks/gone.py"}, {"type": "command", "command": "node .claude/hooks/gone.js"}, {"type": "command", "command": "sh .claude/hooks/gone.sh"}]}]}}`,
	})
	s := discoverAll(t, dir)
	want := []string{
		`error discovery/invalid-matcher .claude/settings.json:2:15 PreToolUse[0].matcher "Write(docs/prds/**)" is not a valid regular expression, so it never matches: compiling matcher "Write(docs/prds/**)": error parsing regexp: invalid nested repetition operator: ` + "`**`" + `; it reads as a permission rule, which a matcher is not: to run the hook for Write calls that match it, write "matcher": "Write" and, on the handler, "if": "Write(docs/prds/**)"`,
		`error discovery/invalid-matcher .claude/settings.json:3:15 PreToolUse[1].matcher "Bash(" is not a valid regular expression, so it never matches: compiling matcher "Bash(": error parsing regexp: missing closing ): ` + "`Bash(`",
		"error discovery/missing-script .claude/settings.json:4:120 hook script .claude/hooks/gone.js does not exist: the hook fails every time it runs",
		"error discovery/missing-script .claude/settings.json:4:55 hook script .claude/hooks/gone.py does not exist: the hook fails every time it runs with exit status 2, which Claude Code reads as a blocking error where the event takes one (a PreToolUse hook then blocks every call it matches, a Stop hook keeps the turn from ending)",
		"error discovery/missing-script .claude/settings.json:4:182 hook script .claude/hooks/gone.sh does not exist: the hook fails every time it runs with exit status 2 where sh is dash, as on Debian and Ubuntu, which Claude Code reads as a blocking error where the event takes one (a PreToolUse hook then blocks every call it matches, a Stop hook keeps the turn from ending)",
		`error discovery/missing-file .claude-plugin/marketplace.json:1:101 plugins[1] (file): local source "./plugins/file" is not a directory`,
		`error discovery/missing-file .claude-plugin/marketplace.json:1:55 plugins[0] (gone): local source "./plugins/gone" does not exist`,
	}
	got := findingMessages(s.findings)
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

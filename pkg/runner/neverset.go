package runner

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleNeverSet names a command hook that reads a variable Claude Code
// never sets, in its command or in a script of the tree it runs:
// CLAUDE_TOOL_INPUT, CLAUDE_TOOL_NAME, CLAUDE_TOOL_PARAMS,
// CLAUDE_FILE_PATHS or CLAUDE_EVENT_TYPE, or TOOL_INPUT, TOOL_NAME or
// TOOL_OUTPUT, which guides and generated hooks name but no version of
// Claude Code gives a hook (anthropics/claude-code#9567, #23742, #5489),
// and which the hook does not set itself (selfSet): it gives the event as
// JSON on stdin. Where the hook takes its input from one, it reads an
// empty string, under Claude Code as in the audit, and a guard built on
// it never fires.
const RuleNeverSet = "discovery/never-set"

// neverSet are the variables of RuleNeverSet, in the order a message
// names them.
var neverSet = []string{"CLAUDE_TOOL_INPUT", "CLAUDE_TOOL_NAME", "CLAUDE_TOOL_PARAMS", "CLAUDE_FILE_PATHS", "CLAUDE_EVENT_TYPE",
	"TOOL_INPUT", "TOOL_NAME", "TOOL_OUTPUT"}

// selfSet matches, with the name of a variable of neverSet where NAME
// stands, an assignment of it (NAME=, export NAME=, NAME = in Python or
// JavaScript, process.env.NAME =, read NAME, for NAME in), not a test of
// it ($NAME = x): a name without Claude Code's prefix, TOOL_INPUT, is
// one a script may well set for itself, or for a script it runs.
const selfSet = `(?:^|[^$\w{])NAME\s*=[^=~]|\bread\b[^\n;|&]*\sNAME\b|\bfor\s+NAME\s+in\b`

// neverSetRead matches a read of a variable of neverSet, as a shell, Python
// or JavaScript reads one ($NAME, ${NAME, os.environ["NAME"],
// os.environ.get("NAME"), os.getenv("NAME"), process.env.NAME,
// process.env["NAME"], Deno.env.get("NAME")), not a mention of its name
// (a comment, a docstring that explains it).
var neverSetRead = lazyRE(`(?:\$\{?|\benv\.|\benv\[\s*['"]|\benviron\[\s*['"]|\benviron\.get\(\s*['"]|\bgetenv\(\s*['"]|\benv\.get\(\s*['"]|\bENV\[\s*['"])(` + strings.Join(neverSet, "|") + `)\b`)

// readsStdin matches a read of standard input in a hook's command or
// script: a fallback (${CLAUDE_TOOL_INPUT:-$(cat)}, or the variable
// first and sys.stdin.read() where it is empty, a line or a function
// later) gets the input all the same.
var readsStdin = lazyRE(`\$\(\s*cat\b|\bstdin\b|/dev/stdin|\bread\s+-|\bcat\s*\)|readFileSync\(\s*0\b|\binput\(\)`)

// hookNeverSet warns of each command hook of the session that runs and
// reads a variable of neverSet (RuleNeverSet): which, where, and what to
// read instead.
func (s *session) hookNeverSet() {
	for _, h := range s.hooks {
		if !h.runs() {
			continue
		}
		var named []string
		where := ""
		for _, v := range neverSet {
			if w := s.whereNamed(h, v); w != "" && (strings.HasPrefix(v, "CLAUDE_") || !s.setsItself(h, v)) {
				named = append(named, v)
				if where == "" {
					where = w
				}
			}
		}
		if len(named) == 0 {
			continue
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleNeverSet, Severity: report.SeverityWarning, Location: h.Location, Hook: h.ID,
			Title: "reads a variable Claude Code never sets",
			Message: fmt.Sprintf("hook %s reads %s (%s), which Claude Code never sets: it gives a hook the event as JSON on stdin, so where the hook takes its input from %s it reads an empty string, under Claude Code as in this audit, and what it guards is never checked; read stdin instead (jq -r '.tool_input.command', '.tool_input.file_path', '.tool_name')",
				shownCut(h.ID, maxServerLine), JoinWords(named, "and"), where, oneOrThese(len(named)))})
	}
}

// setsItself says whether hook h's command, or a file of the tree it runs
// (hookFiles), assigns the variable name (selfSet): one that a script
// sets and another, or it itself, reads is no variable of Claude Code's.
func (s *session) setsItself(h *Hook, name string) bool {
	re := regexp.MustCompile(strings.ReplaceAll(selfSet, "NAME", regexp.QuoteMeta(name)))
	if re.MatchString(h.Command) || slices.ContainsFunc(h.Args, re.MatchString) {
		return true
	}
	for _, f := range s.hookFiles(h) {
		if src, _ := s.readTreeFile(f.Path, maxScriptRead); re.MatchString(src) {
			return true
		}
	}
	return false
}

// oneOrThese is "it" or "them", as a message names one variable or more.
func oneOrThese(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// RuleRunHookError is an audited run, or a check's run that states no
// exit status, in which the hook itself failed: it exited non-zero, or a
// signal killed it, and Claude Code read that as a non-blocking error
// (hookError).
const RuleRunHookError = "run/hook-error"

// hookError is the run/hook-error warning of a run whose hook
// failed where Claude Code reads the failure as a non-blocking error (its
// outcome allowed: an exit status other than 0, or 2 on an event that
// exit 2 does not block, or a kill), nil for any other run. Claude Code
// shows such a hook as a hook error and carries on without what it would
// have done (an async hook's failure only in verbose mode: it went on
// when it started the hook; an event that ignores the exit status blocks
// nothing whatever the hook exits with), and the run's record is of the hook failing, not at work: the warning
// says why it failed where vigiles can tell (failureCause) and keeps the
// end of its stderr as evidence. An async hook's exit 2 is none: it is
// how such a hook speaks up (asyncRewake wakes the model with it), but
// where a shell or an interpreter gave it for a failure of its own
// (shellFailure), which is the hook failing, not speaking up.
//
// A hook whose handler sets onFailure "block" fails so too where that
// made Claude Code block the call (Decision.FailBlocked): a guard that
// crashes then blocks every call it crashes on, and the warning says so.
//
// A run vigiles refused, failed, ended at its timeout or at a limit of
// its sandbox has its own finding instead (runFindings), and any other
// blocked outcome is the hook's answer, not its failure: neither is one.
func hookError(e executed) *report.Finding {
	r := e.run
	failBlocked := r.Outcome == report.OutcomeBlocked && e.decision.FailBlocked
	// A WorktreeRemove hook's failure fails the removal, and a
	// WorktreeCreate hook's the creation: blocked, and still the hook
	// failing, not its answer.
	rules := outcomeRules[r.Event]
	failFails := r.Outcome == report.OutcomeBlocked && rules.failsOnNonZero() && e.result != nil && (r.ExitCode != 0 || e.result.Signal != "")
	// Exit status 2 that a shell or an interpreter gave for a failure
	// (python's for a script it cannot open, sh's for a redirection it
	// cannot create), its last word: a block, but not the hook's answer.
	// A guard that prints such noise and then blocks is not one.
	crashBlocked := r.Outcome == report.OutcomeBlocked && r.ExitCode == 2 && !failBlocked && shellFailure().MatchString(lastLine(r.Stderr))
	// A WorktreeCreate hook replaces Claude Code's own git worktree
	// creation: one that exits 0 and prints no path fails every
	// worktree, not as an answer but as a hook not doing its work.
	noPath := r.Outcome == report.OutcomeBlocked && e.decision.NoPath && !e.async
	if r.Outcome != report.OutcomeAllowed && !failBlocked && !crashBlocked && !failFails && !noPath || r.TimedOut || e.limit != "" || e.result == nil {
		return nil
	}
	// An async hook's exit 2 is its way to speak up (asyncRewake wakes
	// the model with it), not a failure, but where a shell or an
	// interpreter gave it for a failure of its own, as crashBlocked.
	asyncExit2 := e.async && r.ExitCode == 2 && e.result.Signal == ""
	asyncCrash := asyncExit2 && shellFailure().MatchString(lastLine(r.Stderr))
	if asyncExit2 && !asyncCrash {
		return nil
	}
	if r.Tier != string(sandbox.TierConfined) && r.Tier != string(sandbox.TierDirect) {
		return nil
	}
	how := ""
	switch {
	case e.result.Signal != "":
		how = "killed by " + e.result.Signal
	case r.ExitCode != 0:
		how = fmt.Sprintf("exit status %d", r.ExitCode)
	case failBlocked && e.decision.Failure != "":
		// Exit 0 with JSON Claude Code cannot read: a failure too.
		how = e.decision.Failure
	case noPath:
		how = "exit status 0 and no path on stdout"
	default:
		return nil
	}
	if last := tellingLine(r.Stderr); last != "" {
		how += "; its stderr says: " + shownName(clip(last, 200))
	} else {
		how += "; its stderr is empty"
	}
	then := "Claude Code shows a hook error and carries on without it"
	switch {
	case e.async:
		// Claude Code went on when it started the hook, and tells of
		// an async hook's end only in verbose mode.
		then = "it runs async: Claude Code went on without waiting for it and tells of its end only in verbose mode, so nothing but that shows the failure, and nothing waits for the hook's work"
		if asyncCrash {
			then = "the shell or interpreter, not the hook, exited with 2: the hook failing, not speaking up as an async hook's exit 2 does; " + then
		}
	case failFails && rules.pathOutput:
		then = fmt.Sprintf("any non-zero exit makes %s fail: a %s hook replaces Claude Code's own git worktree creation, so every worktree creation it fails so on fails (claude --worktree, a subagent's isolation: worktree)", r.Event, r.Event)
	case failFails:
		then = fmt.Sprintf("any non-zero exit makes %s fail, so the worktree stays where its directory is still there", r.Event)
	case noPath:
		then = fmt.Sprintf("a %s hook replaces Claude Code's own git worktree creation and must print the directory it made as its last line on stdout, so without one every worktree creation fails (claude --worktree, a subagent's isolation: worktree); a hook that only watches the event belongs on another (PostToolUse, Notification), or must make the worktree and print its path", r.Event)
	case rules.ignoresOutput:
		then = fmt.Sprintf("Claude Code ignores a %s hook's exit status: the failure blocks nothing, and Claude Code goes on without the hook's work", r.Event)
	case failBlocked:
		// The handler's onFailure block: a guard that fails blocks
		// every call it fails on.
		then = "its onFailure block makes Claude Code block the call whenever it fails so"
	case crashBlocked:
		then = fmt.Sprintf("the shell or interpreter, not the hook, exited with 2, which Claude Code reads as the hook's block: on %s it blocks (or hands that error to Claude) on every call this fails on, wherever it fails so", r.Event)
	}
	msg := fmt.Sprintf("%s %s%s failed (%s): %s; this run records the hook failing, not at work",
		shownName(r.Plugin), r.Event, toolSuffix(r.Tool), how, then)
	if why := failureCause(r, e.tree); why != "" {
		msg += "; " + why
	}
	return &report.Finding{Rule: RuleRunHookError, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
		Title: "hook failed", Message: msg, Evidence: tail(r.Stderr, maxEvidence)}
}

// notFoundProgram matches a shell's report of a program it did not find
// ("sh: 1: osascript: not found", "bash: line 1: jq: command not found"),
// the program in group 1.
var notFoundProgram = lazyRE(`(?m)^(?:[^:\n]*sh: )?(?:\d+: |line \d+: )?([^\s:/]+): (?:command )?not found$`)

// testedBothRedirect is, where one of stderr's missing programs is one
// cmd tests for with &> (`command -v X &> /dev/null`, which, type, hash,
// options and all), the words of that test: a test that /bin/sh, where
// it is dash, runs in the background, and that so always passes,
// running X where it is missing. "" where none is.
func testedBothRedirect(cmd, stderr string) string {
	if bothRedirect(cmd) < 0 {
		return ""
	}
	for _, m := range notFoundProgram().FindAllStringSubmatch(stderr, 8) {
		re := regexp.MustCompile(`(?:\bcommand|\bwhich|\btype|\bhash)(?:\s+-\S*)*\s+['"]?` + regexp.QuoteMeta(m[1]) + `['"]?\s*&>>?\s*[^\s;&|)]*`)
		ops := bothRedirects(cmd, 0)
		for _, loc := range re.FindAllStringIndex(cmd, -1) {
			// The &> a shell reads, not one in quotes or a comment.
			if slices.ContainsFunc(ops, func(at int) bool { return at >= loc[0] && at < loc[1] }) {
				return strings.TrimSpace(cmd[loc[0]:loc[1]])
			}
		}
	}
	return ""
}

// findingOfRun is a finding about a run (a run/hook-error, a run/egress)
// and the run it is of.
type findingOfRun struct {
	f report.Finding
	r *report.HookRun
}

// maxToolsNamed bounds the tools a grouped finding names; the rest are
// counted.
const maxToolsNamed = 6

// runWords is how the findings of one rule about runs name their run,
// and what of them is compared, for groupAcrossHooks and
// groupAcrossTools.
type runWords struct {
	// at is the words a finding's message opens with that name its run
	// r, for its tool ("p PreToolUse Bash failed ("): a message that
	// does not open so is grouped with none.
	at func(r report.HookRun) string
	// hooks opens the finding of n hooks (named), runs runs, that run
	// one command alike, in place of the first's at; nil where the
	// rule's findings are not grouped across hooks.
	hooks func(r report.HookRun, n int, named string, runs int) string
	// tools opens the finding of the runs of r's hook for several tools
	// alike, in place of the first's at: how many of the hook's runs
	// they are (how) and the tools (named).
	tools func(r report.HookRun, how, named string) string
	// same is what of the message of a finding of r (without its at) is
	// compared, nil for all of it; evidence what of the evidence is, nil
	// for none.
	same     func(r report.HookRun, msg string) string
	evidence func(string) string
	// alike is the first message of a group (fs, in order) made to
	// speak for them all; nil: the first's as it is.
	alike func(msg string, fs []findingOfRun) string
}

// opens is the words that open the message of a finding of the run r:
// its plugin ("project" for the project's own hooks), its event and
// tool, then what.
func opens(what string) func(r report.HookRun) string {
	return func(r report.HookRun) string {
		return shownName(r.Plugin) + " " + r.Event + toolSuffix(r.Tool) + what
	}
}

// hooksAlike opens a finding of several hooks: the plugin, the hooks and
// the runs, then then.
func hooksAlike(then string) func(r report.HookRun, n int, named string, runs int) string {
	return func(r report.HookRun, n int, named string, runs int) string {
		return fmt.Sprintf("%s: %d hooks that run one command (%s), %d runs, %s", shownName(r.Plugin), n, named, runs, then)
	}
}

// runFor opens a finding of a hook's runs for several tools that do what
// alike: ", run for each of the 8 tools its matcher takes (…), tried to
// reach ".
func runFor(what string) func(r report.HookRun, how, named string) string {
	return func(r report.HookRun, how, named string) string {
		return fmt.Sprintf("%s %s, run for %s (%s), %s", shownName(r.Plugin), r.Event, how, named, what)
	}
}

// The words of each rule groupAcrossRuns groups.
var (
	hookErrorWords = runWords{
		at:    opens(" failed ("),
		hooks: hooksAlike("each failed alike ("),
		tools: func(r report.HookRun, how, named string) string {
			return fmt.Sprintf("%s %s failed for %s (%s), alike (", shownName(r.Plugin), r.Event, how, named)
		},
		evidence: sameText,
	}
	// Tried the same hosts, whatever the attempts' counts.
	egressWords = runWords{at: opens(" tried to reach "), hooks: hooksAlike("each tried to reach "), tools: runFor("tried to reach ")}
	// Left as many processes, whatever they were when listed: each
	// run's sandbox numbers its own, and lists a child that had not yet
	// exec'd its program by its parent's command line.
	lingeredWords = runWords{at: opens(" left "), tools: runFor("left ")}
	// A run/timeout's message is the run's ID and reason: ended alike,
	// whenever each was ended (timedOutAfter), and under Claude Code's
	// default wait for its event where they wait alike.
	timeoutWords = runWords{
		at: func(r report.HookRun) string {
			if r.Tool == "" {
				return hookOfRun(r) + ": "
			}
			return hookOfRun(r) + "@" + r.Tool + ": "
		},
		hooks: hooksAlike("each alike: "),
		tools: func(r report.HookRun, how, named string) string {
			return fmt.Sprintf("%s, run for %s (%s): ", hookOfRun(r), how, named)
		},
		same: func(r report.HookRun, msg string) string {
			msg = timedOutAfter().ReplaceAllString(msg, "timed out after ms")
			return strings.ReplaceAll(msg, eventDefault(r.Event), eventDefault(""))
		},
		alike: timedOutBetween,
	}
	decidesWords = runWords{
		at:       opens(" tells Claude Code what to do with the call: "),
		hooks:    hooksAlike("each tells Claude Code alike what to do with the call: "),
		tools:    runFor("tells Claude Code what to do with the call: "),
		evidence: sameText,
	}
)

// timedOutAfter matches when a run/timeout's run was ended: "timed out
// after 1003 ms", the milliseconds in group 1.
var timedOutAfter = lazyRE(`timed out after (\d+) ms`)

// eventDefault is how a run/timeout's reason names Claude Code's default
// wait for event's hooks (claudeWhy).
func eventDefault(event string) string { return "its default for " + event + " hooks" }

// timedOutBetween is msg, the first run/timeout message of fs, with when
// its run was ended made the span of when each of them was ("timed out
// after 1001 to 1012 ms"), and Claude Code's default wait for its event
// that of each of their events, where they are of several.
func timedOutBetween(msg string, fs []findingOfRun) string {
	if slices.ContainsFunc(fs, func(e findingOfRun) bool { return e.r.Event != fs[0].r.Event }) {
		msg = strings.ReplaceAll(msg, eventDefault(fs[0].r.Event), "the default for each of their events")
	}
	lo, hi := -1, -1
	for _, e := range fs {
		m := timedOutAfter().FindStringSubmatch(e.f.Message)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if lo == hi {
		return msg
	}
	return timedOutAfter().ReplaceAllLiteralString(msg, fmt.Sprintf("timed out after %d to %d ms", lo, hi))
}

// groupAcrossRuns groups an audit's run/hook-error, run/timeout,
// run/decides, run/egress and run/lingered findings, one a run: the
// hook-error, timeout, decides and egress findings of one command that a
// plugin declares as several hooks (groupAcrossHooks), then of each hook's runs
// for several tools (groupAcrossTools). The whole audit does, and merge
// for its shards, which cannot (the runs of one hook for several tools
// fall in different shards), both from every run alike. They are taken
// in the order of their runs, the plan's. A test's (a check's run) are
// grouped with none: two checks of one hook are two runs of one
// declaration, not two hooks; but a run/hook-error said alike of several
// checks' runs of one hook is said once. A whole test does so, each of
// its shards, and their merge, alike.
func groupAcrossRuns(finds []report.Finding, runs []report.HookRun) []report.Finding {
	// Each finding is taken with its run's entry in runs, not a copy of
	// it: a map of copies and a copy beside each finding (0.4 KiB an
	// entry, 10,000 of each at 10,000 hooks) made the peak of an audit's
	// heap, after its last run.
	byID := make(map[string]*report.HookRun, len(runs))
	ran := map[string]int{}
	for i := range runs {
		byID[runs[i].ID] = &runs[i]
		ran[hookOfRun(runs[i])]++
	}
	// Each rule's findings apart, in this order.
	rules := []string{RuleRunHookError, RuleRunTimeout, RuleRunDecides, RuleRunEgress, RuleRunLingered}
	words := []runWords{hookErrorWords, timeoutWords, decidesWords, egressWords, lingeredWords}
	var out []report.Finding
	of := make([][]findingOfRun, len(rules))
	saidOfChecks := map[string]bool{}
	for _, f := range finds {
		r, ok := byID[f.Hook]
		i := slices.Index(rules, f.Rule)
		if ok && r.Check != "" && f.Rule == RuleRunHookError {
			key := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", f.Location.File, f.Location.Line, f.Location.Column, f.Message, f.Evidence)
			if saidOfChecks[key] {
				continue
			}
			saidOfChecks[key] = true
		}
		if !ok || i < 0 || r.Check != "" {
			out = append(out, f)
			continue
		}
		of[i] = append(of[i], findingOfRun{f, r})
	}
	for i, w := range words {
		fs := of[i]
		slices.SortStableFunc(fs, func(a, b findingOfRun) int { return strings.Compare(a.r.ID, b.r.ID) })
		if w.hooks != nil {
			var across []report.Finding
			fs, across = groupAcrossHooks(fs, ran, w)
			out = append(out, across...)
		}
		out = append(out, groupAcrossTools(fs, ran, w)...)
	}
	return out
}

// maxHooksNamed bounds the hooks a finding of groupAcrossHooks names;
// the rest are counted.
const maxHooksNamed = 6

// groupAcrossHooks takes, of an audit's findings fs of one rule about
// runs (in the order of their runs; w their words), those of one command
// that one plugin declares as several hooks (on several events, or twice
// on one) and that fail, time out, decide or try hosts alike in each: the same
// plugin and context, the same command, the same words but for the event
// and tool (as w.same compares them), the same evidence (w.evidence). A
// plugin that runs one program on every event, where the machine lacks
// it, made one warning an event (33 of them, all alike, in a field
// test), enough to fill a step's annotations. Each such group is one
// finding, at its first run's declaration, that names the hooks (event,
// the runs of each, the line each is declared at, in the order of their
// declarations) and says the rest as the first said it (w.alike); the
// findings of every other hook are left, in their order, for
// groupAcrossTools.
func groupAcrossHooks(fs []findingOfRun, ran map[string]int, w runWords) (rest []findingOfRun, grouped []report.Finding) {
	groups := map[string][]findingOfRun{}
	var order []string
	for _, e := range fs {
		body, ok := strings.CutPrefix(e.f.Message, w.at(*e.r))
		if !ok {
			rest = append(rest, e)
			continue
		}
		key := strings.Join([]string{e.r.Plugin, e.r.Context, e.r.Command, w.compared(*e.r, body, e.f.Evidence)}, "\x00")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], e)
	}
	for _, key := range order {
		members := groups[key]
		// In the order of their declarations: the first is where the
		// finding stands.
		slices.SortStableFunc(members, func(a, b findingOfRun) int { return byDeclaration(a.r.Location, b.r.Location) })
		var hooks []string // each once, in that order
		runsOf := map[string][]*report.HookRun{}
		for _, e := range members {
			h := hookOfRun(*e.r)
			if runsOf[h] == nil {
				hooks = append(hooks, h)
			}
			runsOf[h] = append(runsOf[h], e.r)
		}
		if len(hooks) < 2 {
			rest = append(rest, members...)
			continue
		}
		first := members[0]
		named := namedUpTo(len(hooks), maxHooksNamed, func(i int) string {
			rs := runsOf[hooks[i]]
			r := rs[0]
			what := r.Event + toolSuffix(r.Tool)
			switch n := ran[hooks[i]]; {
			case len(rs) > 1 && n > len(rs):
				what = fmt.Sprintf("%s (%d of its %d runs)", r.Event, len(rs), n)
			case len(rs) > 1:
				what = fmt.Sprintf("%s (%d runs)", r.Event, len(rs))
			}
			return what + " at " + placeNamed(r.Location, first.r.Location)
		})
		f := first.f
		f.Message = w.hooks(*first.r, len(hooks), JoinWords(named, "and"), len(members)) +
			strings.TrimPrefix(w.alikeOf(f.Message, members), w.at(*first.r))
		grouped = append(grouped, f)
	}
	// In the order of their runs again, as groupAcrossTools takes them.
	slices.SortStableFunc(rest, func(a, b findingOfRun) int { return strings.Compare(a.r.ID, b.r.ID) })
	return rest, grouped
}

// compared is what of a finding's message, without its run r's words
// (body), and evidence w compares.
func (w runWords) compared(r report.HookRun, body, evidence string) string {
	if w.same != nil {
		body = w.same(r, body)
	}
	if w.evidence != nil {
		body += "\x00" + w.evidence(evidence)
	}
	return body
}

// alikeOf is msg, the first message of fs, made to speak for them all.
func (w runWords) alikeOf(msg string, fs []findingOfRun) string {
	if w.alike == nil {
		return msg
	}
	return w.alike(msg, fs)
}

// sameText is the evidence of a finding as groupAcrossTools compares it:
// all of it.
func sameText(evidence string) string { return evidence }

// groupAcrossTools is the findings of fs (of one rule, w their words),
// one for each hook that ran alike for several tools: the same
// declaration, the same words but for the tool (as w.same compares
// them), and the same evidence as w.evidence reads it. The first finding
// of a group stands for it, its opening words replaced by w.tools: how
// many of the hook's runs (ran: by hook, its ID without the tool) the
// group is, and the tools, in the order of the runs, where each would
// have been a finding of its own (a matcher that takes every tool would
// fill a step's ten annotations with one hook's).
func groupAcrossTools(fs []findingOfRun, ran map[string]int, w runWords) []report.Finding {
	type group struct {
		at      int
		base    string
		members []findingOfRun
	}
	var out []report.Finding
	groups := map[string]*group{}
	var order []*group
	for _, e := range fs {
		body, ok := strings.CutPrefix(e.f.Message, w.at(*e.r))
		if e.r.Tool == "" || !ok {
			out = append(out, e.f)
			continue
		}
		base := hookOfRun(*e.r)
		key := base + "\x00" + w.compared(*e.r, body, e.f.Evidence)
		if g, ok := groups[key]; ok {
			g.members = append(g.members, e)
			continue
		}
		g := &group{at: len(out), base: base, members: []findingOfRun{e}}
		groups[key] = g
		order = append(order, g)
		out = append(out, e.f)
	}
	for _, g := range order {
		if len(g.members) < 2 {
			continue
		}
		first := g.members[0]
		named := namedUpTo(len(g.members), maxToolsNamed, func(i int) string { return shownName(g.members[i].r.Tool) })
		how := fmt.Sprintf("each of the %d tools its matcher takes", len(g.members))
		if n := ran[g.base]; n > len(g.members) {
			how = fmt.Sprintf("%d of the %d tools it ran for", len(g.members), n)
		}
		f := &out[g.at]
		f.Message = w.tools(*first.r, how, JoinWords(named, "and")) +
			strings.TrimPrefix(w.alikeOf(f.Message, g.members), w.at(*first.r))
	}
	return out
}

// hookOfRun is the hook a run is of: its ID without the tool it was run
// for ("…hooks[0]@Bash" is "…hooks[0]").
func hookOfRun(r report.HookRun) string {
	if r.Tool == "" {
		return r.ID
	}
	return strings.TrimSuffix(r.ID, "@"+r.Tool)
}

// failureCause says what a failed run's record tells of why it failed,
// most telling first: a host the egress policy blocked, a script with
// Windows line endings (crlfCause), a program run from a directory of
// HOME that installers put programs in (homeToolCause), a script whose #! line names an
// interpreter the machine lacks (shebangCause), a path it names that is
// not there for a reason the tree or the machine shows
// (missingPathCause), a script Python could not parse, which may be
// written for a newer Python (pythonSyntaxCause), a program of macOS's alone not
// found (macOSProgram), a program not found (exit status 127, as a shell
// reports it) or not executable (126), a module a script imports that
// the machine lacks, Node.js refusing the script (nodeCause), WebAssembly refused its address space, pip
// refusing a system Python, a write where the sandbox is read-only, a
// pipeline a SIGPIPE failed (141); ""
// where it tells nothing. tree is the work tree the run was given (""
// where unknown: no path is looked up).
func failureCause(r report.HookRun, tree string) string {
	code, stderr := r.ExitCode, r.Stderr
	if hint := blockedHint(r, tree, "a hook that needs the network fails so, as it would where Claude Code runs offline"); hint != "" {
		return hint
	}
	if why := pythonSyntaxCause(r, tree); why != "" {
		return why
	}
	if why := crlfCause(r, tree); why != "" {
		return why
	}
	if why := homeToolCause(r, tree); why != "" {
		return why
	}
	if why := shebangCause(r, tree); why != "" {
		return why
	}
	if why := missingPathCause(r, tree); why != "" {
		return why
	}
	tested := ""
	if code == 127 {
		tested = testedBothRedirect(r.Command, stderr)
	}
	mac, node := macOSProgram(stderr), nodeCause(r, tree)
	switch {
	case tested != "":
		return fmt.Sprintf("its command redirects with &> (%s), which /bin/sh reads as & and > where it is dash, as on the machine vigiles ran it on (discovery/bash-only): a test such as `command -v X &> /dev/null` runs in the background and succeeds whatever it finds, so what it guards runs where the program is missing, here as on every Debian or Ubuntu machine; write `> /dev/null 2>&1`", shownCut(tested, 120))
	case (code == 127 || strings.Contains(stderr, "command not found")) && interpreterFallback().MatchString(r.Command):
		return "its command falls back from one Python to the next with || (python3 … || python …): when the first exits non-zero, a block's exit 2 included, the next runs the script again, and where the last is not installed the hook ends with 127, a non-blocking error, so what the first decided is lost, here as on every machine that lacks one of them; run one interpreter, or fall back only where the first is missing (command -v python3 >/dev/null && python3 … || python …)"
	case mac != "":
		return fmt.Sprintf("it runs %s, which macOS has and Linux does not: the hook may be written for macOS, and fails so on every Linux machine, its users' included; run it only where it is there (command -v %s >/dev/null 2>&1 && %s …, or where uname is Darwin), or use Linux's %s there too", shownName(mac), shownName(mac), shownName(mac), macOSPrograms[mac])
	case (code == 127 || strings.Contains(stderr, "command not found")) && barePython().MatchString(stderr):
		return "it runs python, which the machine vigiles ran it on lacks (python3 alone is what Debian, Ubuntu and macOS install), so it fails so for many of its users too: call python3, or install python where vigiles runs to see the hook at work"
	case code == 127 || strings.Contains(stderr, "command not found"):
		return "a program it runs was not found on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work (a confined hook gets the PATH vigiles ran with, but the home directories are empty in its sandbox, /root, /home and the caller's HOME among them: a program in one, ~/.local/bin or a version manager's shims, is not found)"
	case code == 126:
		if rel := notExecutableInTree(stderr, tree); rel != "" {
			return fmt.Sprintf("it runs %s, which the tree holds without execute permission, as git gave it: a hook that runs it fails so wherever it is installed; chmod +x it and commit the mode (git update-index --chmod=+x %s), or run it through its interpreter", shownName(rel), shownName(rel))
		}
		return "a file it runs could not be executed (no execute permission, or not a program)"
	case moduleMissing(stderr):
		if why := undeclaredInstall(r, tree); why != "" {
			return why
		}
		if why := undeclaredPythonInstall(r, tree); why != "" {
			return why
		}
		if m := missingPackage().FindStringSubmatch(stderr); m != nil && strings.Contains(stderr, "\nNode.js v") {
			return fmt.Sprintf("it imports %s, which Node.js found in no node_modules above the script: its dependencies may not be installed (node_modules is not committed), or it relies on a package installed on its author's machine alone; install them in the tree before vigiles runs it (npm ci where its package.json is), and list the package in one where none does", shownName(npmPackageName(m[1]+m[4])))
		}
		return "a module it imports is not installed on the machine vigiles ran it on: install it there, as on the machines the hook is used on, to see the hook at work"
	case node != "":
		return node
	case strings.Contains(stderr, "Wasm memory") || strings.Contains(stderr, "WebAssembly") && strings.Contains(stderr, "Out of memory"):
		return "the run's bound on a process's address space (limits.memory in the policy, --limit-memory; 32GiB by default) is below what V8 reserves for WebAssembly, about 10GiB an instance, none of it used: raise it to see the hook at work"
	case strings.Contains(stderr, "externally-managed-environment"):
		return "pip refused to install into the machine's own Python, which its distribution manages (externally-managed-environment): a hook that installs packages when it runs fails so wherever Python is managed so, the machine vigiles ran it on among them; install what it needs in a virtual environment of the tree's before vigiles runs it, or have the hook use one"
	case strings.Contains(stderr, "Read-only file system"):
		return "it wrote where vigiles' sandbox is read-only: a confined hook may write only the work tree, its HOME, TMPDIR (/tmp), /dev/shm, /var/tmp and the runner's tool cache (RUNNER_TOOL_CACHE: one its own user may write), each thrown away after the run"
	case nodeBadOption().MatchString(stderr):
		return fmt.Sprintf("the Node.js on the machine vigiles ran it on does not know %s, an option of a later Node.js: the hook needs a newer Node.js than it finds, and fails so for its users who have an older one too; install a Node.js that has it where vigiles runs to see the hook at work", shownName(nodeBadOption().FindStringSubmatch(stderr)[1]))
	case code == 141:
		// 128 + SIGPIPE, as a shell reports a pipeline's command that
		// the signal ended (under set -o pipefail, its status is the
		// pipeline's).
		return "exit status 141 is a shell's 128 + 13, SIGPIPE: a command wrote into a pipe whose reader had already quit (… | head -3, … | grep -q x), which under set -o pipefail fails the whole pipeline, here as wherever the hook is used; read all of the output, or let that command's status go (… | head -3 || true)"
	}
	return ""
}

// blockedHosts lists the destinations of r the egress policy blocked
// (hostList), "" where it blocked none. An attempt at the sandbox's own
// loopback (evidence.Egress.AtLoopback) is none of them: no policy blocked
// it, and none can allow it, --allow localhost being refused
// (loopbackHosts).
func blockedHosts(r report.HookRun) string {
	return hostList(slices.DeleteFunc(slices.Clone(r.Egress), func(e evidence.Egress) bool {
		return e.Allowed || e.AtLoopback()
	}))
}

// loopbackHosts lists the attempts of r at the sandbox's own loopback
// (evidence.Egress.AtLoopback), "" where there were none.
func loopbackHosts(r report.HookRun) string {
	return hostList(slices.DeleteFunc(slices.Clone(r.Egress), func(e evidence.Egress) bool { return !e.AtLoopback() }))
}

// loopbackIs says what an attempt at the sandbox's own loopback is, after
// the list of them; loopbackSo what it does to a run.
const (
	loopbackIs = "the sandbox's own loopback (nothing there answered, or the recording proxy refused the request): under Claude Code that address and port reach the host's own service there (a local daemon, a Docker API, a development database), which vigiles cannot reach or audit, the sandbox's loopback being its own, and no allow reaches it"
	loopbackSo = "the hook's path that needed that service never ran, so what the run recorded is the hook without it"
)

// blockedHint is what a run that tried hosts the egress policy blocked
// says of them: which, what that does to a hook (so), and how to audit
// it with them reachable; and of the attempts at the sandbox's own
// loopback nothing answered, what they are. "" where it tried none.
//
// Where the hosts are those a package runner or runtime fetches the
// hook's dependencies from (fetchedDeps), the advice is to install them
// in the tree, not to allow the hosts, alike for a hook that failed
// (run/hook-error) and one that timed out waiting on them (run/timeout).
// tree is the work tree the run was given ("" where unknown).
func blockedHint(r report.HookRun, tree, so string) string {
	var parts []string
	if deps := fetchedDeps(r, tree); deps != "" {
		parts = append(parts, deps)
	} else if hosts := blockedHosts(r); hosts != "" {
		parts = append(parts, fmt.Sprintf("it tried to reach %s, which the egress policy blocked: %s; %s", hosts, so, auditReachable))
	}
	if hosts := loopbackHosts(r); hosts != "" {
		parts = append(parts, fmt.Sprintf("it tried %s, %s: %s", hosts, loopbackIs, loopbackSo))
	}
	return strings.Join(parts, "; ")
}

// auditReachable says how to audit a hook with the hosts the egress
// policy blocked reachable.
const auditReachable = "to run it with the host reachable, allow it (--egress allow --allow HOST, or defaults.egress {mode: allow, allow: [HOST]} in the policy)"

// moduleMissing says whether stderr reports a module or package a
// script imports as not found: Python's, Node.js's, Bun's, Perl's.
func moduleMissing(stderr string) bool {
	for _, m := range []string{"ModuleNotFoundError", "Cannot find module", "Cannot find package", "ERR_MODULE_NOT_FOUND", "Can't locate "} {
		if strings.Contains(stderr, m) {
			return true
		}
	}
	return false
}

// missingPackage matches Node.js's and Bun's word that a package a
// script imports is not found, with the package (its specifier: a bare
// name, perhaps with a subpath) in group 1 or 3 and the importing file
// in group 2 or 4: ESM's "Cannot find package 'x' imported from FILE",
// Bun's "Cannot find package 'x' from 'FILE'", CommonJS's "Cannot find
// module 'x'" and its require stack's first file.
var missingPackage = lazyRE(`(?m)Cannot find package '([^'./][^']*)' (?:imported from (/[^\n]+?)|from '(/[^']+)')\s*$|Cannot find module '([^'./][^']*)'[^\n]*\n(?:[^\n]*\n)*?Require stack:\n- (/[^\n]+)`)

// maxPackageJSON bounds the package.json a cause reads.
const maxPackageJSON = 1 << 20

// undeclaredInstall says, of a plugin's hook whose script imports a
// package Node.js or Bun did not find, where the plugin's own
// package.json (the nearest above the script, inside the plugin) lists
// that package: the plugin's dependencies are not installed in the
// tree, which Claude Code does not do for a plugin either; "" where the
// record does not tell so.
func undeclaredInstall(r report.HookRun, tree string) string {
	if !strings.HasPrefix(r.Context, "plugin:") || tree == "" {
		return ""
	}
	m := missingPackage().FindStringSubmatch(r.Stderr)
	if m == nil {
		return ""
	}
	spec, from := m[1]+m[4], strings.TrimSpace(m[2]+m[3]+m[5])
	pkg := npmPackageName(spec)
	if pkg == "" || strings.Contains(spec, ":") {
		return ""
	}
	rel, root, ok := pluginFile(r, tree, from)
	if !ok {
		return ""
	}
	dir, ok := nearestDir(rel, root, func(dir string) bool {
		_, ok := treeFileAt(tree, path.Join(dir, "package.json"))
		return ok
	})
	if !ok {
		return ""
	}
	manifest := path.Join(dir, "package.json")
	at, _ := treeFileAt(tree, manifest)
	field := listsPackage(at, pkg)
	if field == "" {
		return ""
	}
	install := "npm install"
	if fi := treeEntry(tree, path.Join(dir, "package-lock.json")); fi != nil {
		install = "npm ci"
	}
	return fmt.Sprintf("it imports %s, which the plugin's %s lists in its %s but the tree does not have installed: Claude Code does not install a plugin's dependencies for it; install them in the tree before vigiles runs it (%s in %s) to see the hook at work",
		shownName(pkg), shownName(manifest), field, install, treeDirShown(dir))
}

// nearestDir is the nearest directory of the file rel (with slashes,
// relative to the tree) and those above it, up to root (the plugin's
// directory, "." the tree's), of which has says true; false where none is.
func nearestDir(rel, root string, has func(dir string) bool) (string, bool) {
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if has(dir) {
			return dir, true
		}
		if dir == root || dir == "." {
			return "", false
		}
	}
}

// treeDirShown names a directory of the tree in a message, its root as
// such.
func treeDirShown(dir string) string {
	if dir == "." {
		return "the work tree's root"
	}
	return shownName(dir)
}

// pluginFile is the file from (absolute, as a runtime names it) of the
// plugin of r's hook, relative to tree (with slashes), and the plugin's
// directory (as r's context names it, cleaned); false where r is not a
// plugin's hook or from is not in the plugin.
func pluginFile(r report.HookRun, tree, from string) (rel, root string, ok bool) {
	root, ok = strings.CutPrefix(r.Context, "plugin:")
	if !ok || tree == "" {
		return "", "", false
	}
	rel, err := filepath.Rel(tree, filepath.Clean(from))
	if err != nil || !filepath.IsLocal(rel) {
		return "", "", false
	}
	rel, root = filepath.ToSlash(rel), path.Clean(root)
	if root != "." && !strings.HasPrefix(rel, root+"/") {
		return "", "", false
	}
	return rel, root, true
}

// treeFileAt is where on the machine the regular file rel (with
// slashes) of tree is, through links only while they stay inside it.
func treeFileAt(tree, rel string) (string, bool) {
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return "", false
	}
	abs, fi, err := beneath(tree, real, filepath.Join(tree, filepath.FromSlash(rel)))
	return abs, err == nil && fi.Mode().IsRegular()
}

// listsPackage is the field of the package.json at file (a path on the
// machine) that lists pkg: dependencies, optionalDependencies,
// peerDependencies or devDependencies; "" where none does, or the file
// cannot be read.
func listsPackage(file, pkg string) string {
	b, ok := readCapped(file, maxPackageJSON)
	if !ok {
		return ""
	}
	var manifest map[string]json.RawMessage
	if json.Unmarshal([]byte(b), &manifest) != nil {
		return ""
	}
	for _, field := range []string{"dependencies", "optionalDependencies", "peerDependencies", "devDependencies"} {
		var deps map[string]any
		if json.Unmarshal(manifest[field], &deps) == nil {
			if _, ok := deps[pkg]; ok {
				return field
			}
		}
	}
	return ""
}

// pyModuleMissing matches Python's word that a module a script imports
// is not installed, with the module (dotted, perhaps) in group 1.
var pyModuleMissing = lazyRE(`ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]*)'`)

// pyFrame matches a frame of a Python traceback, with its file (an
// absolute path) in group 1.
var pyFrame = lazyRE(`(?m)^[ \t]*File "(/[^"\n]+)", line \d+`)

// venvPython matches a command that runs its Python from a virtual
// environment, or through uv run, which runs the project's.
var venvPython = lazyRE(`venv/bin/python|\buv\s+run\b`)

// undeclaredPythonInstall says, of a plugin's hook whose script imports
// a module Python did not find, where the plugin's own pyproject.toml or
// requirements.txt (in the nearest directory above the script, inside
// the plugin, that holds either) lists a package of that name: the
// plugin's dependencies are not installed where the hook's Python finds
// them, which Claude Code does not do for a plugin either. A package is
// listed under the module's name only where its name is the module's
// (as PEP 503 compares names, a module in lower case: typing-extensions
// is typing_extensions, Jinja2 is jinja2); a package imported under
// another name (PyYAML as yaml) is not told, nor a module imported but
// by no frame of the traceback in the plugin. "" where the record does
// not tell so.
func undeclaredPythonInstall(r report.HookRun, tree string) string {
	if !strings.HasPrefix(r.Context, "plugin:") || tree == "" {
		return ""
	}
	all := pyModuleMissing().FindAllStringSubmatchIndex(r.Stderr, -1)
	if all == nil {
		return ""
	}
	last := all[len(all)-1]
	module := r.Stderr[last[2]:last[3]]
	if strings.Contains(module, ".") {
		// Python names the first part it could not find: "a.b" means a
		// was found, and a's own submodule b is missing, which no
		// dependency list tells.
		return ""
	}
	before := r.Stderr[:last[0]]
	if k := strings.LastIndex(before, "Traceback (most recent call last):"); k >= 0 {
		before = before[k:]
	}
	frames := pyFrame().FindAllStringSubmatch(before, -1)
	rel, root, ok := "", "", false
	for i := len(frames) - 1; i >= 0 && !ok; i-- {
		rel, root, ok = pluginFile(r, tree, frames[i][1])
	}
	if !ok {
		return ""
	}
	dir, ok := nearestDir(rel, root, func(dir string) bool {
		_, hasPy := treeFileAt(tree, path.Join(dir, "pyproject.toml"))
		_, hasReq := treeFileAt(tree, path.Join(dir, "requirements.txt"))
		return hasPy || hasReq
	})
	if !ok {
		return ""
	}
	pyRel, reqRel := path.Join(dir, "pyproject.toml"), path.Join(dir, "requirements.txt")
	pyAt, hasPy := treeFileAt(tree, pyRel)
	reqAt, hasReq := treeFileAt(tree, reqRel)
	env := strings.TrimPrefix(strings.TrimPrefix(dir+"/", root+"/"), "./")
	run := ""
	if !venvPython().MatchString(r.Command) {
		run = fmt.Sprintf(" and have the hook run its Python (${CLAUDE_PLUGIN_ROOT}/%s.venv/bin/python3)", shownName(env))
	}
	lead := fmt.Sprintf("it imports %s, which the plugin's %%s lists%%s but the Python the hook ran does not have installed: Claude Code does not install a plugin's dependencies for it; install them in a virtual environment of the tree's before vigiles runs it (%%s in %s)%s to see the hook at work", shownName(module), treeDirShown(dir), run)
	if field, sync := pyprojectLists(pyAt, hasPy, module); field != "" {
		return fmt.Sprintf(lead, shownName(pyRel), " in its "+field, sync)
	}
	if hasReq && requirementsList(reqAt, module) {
		return fmt.Sprintf(lead, shownName(reqRel), "", "python3 -m venv .venv, then .venv/bin/pip install -r requirements.txt,")
	}
	return ""
}

// pyPackageIs says whether the Python package requirement req (PEP
// 508) is of a package named as module, a top-level module's name: the
// same name as PEP 503 compares them, the module's in lower case or as
// the package writes it (- and . as _).
func pyPackageIs(req, module string) bool {
	m := pypiName().FindStringSubmatch(strings.TrimSpace(req))
	if m == nil {
		return false
	}
	if rest := m[3]; rest != "" && !strings.ContainsRune("<>=!~;@(\\", rune(rest[0])) {
		return false // not a requirement: git+https://…, a path
	}
	name := m[1]
	if module != strings.ToLower(module) && module != strings.NewReplacer("-", "_", ".", "_").Replace(name) {
		return false
	}
	return uvGroupName(name) == uvGroupName(module)
}

// pyprojectLists is where the pyproject.toml at file (a path on the
// machine; has false where there is none) lists a package named as
// module: its dependencies, an extra's optional dependencies, a
// dependency group (tool.uv's dev-dependencies as the dev group), with
// the uv sync that installs it (--extra NAME, --group NAME for a group
// uv sync does not install by default); "" where it lists none, or the
// file cannot be read.
func pyprojectLists(file string, has bool, module string) (field, sync string) {
	if !has {
		return "", ""
	}
	src, ok := readCapped(file, maxPackageJSON)
	if !ok {
		return "", ""
	}
	p := readPyproject(src)
	is := func(r string) bool { return pyPackageIs(r, module) }
	if slices.ContainsFunc(p.deps, is) {
		return "dependencies", "uv sync"
	}
	for _, g := range slices.Sorted(maps.Keys(p.groups)) {
		if !slices.ContainsFunc(p.groups[g], func(e groupEntry) bool { return e.include == "" && is(e.req) }) {
			continue
		}
		byDefault := !p.defaultSet && g == "dev" || slices.Contains(p.defaultGroups, "all") || slices.ContainsFunc(p.defaultGroups, func(d string) bool { return uvGroupName(d) == g })
		if byDefault {
			return "dependency group " + shownName(g), "uv sync"
		}
		return "dependency group " + shownName(g), "uv sync --group " + shownName(g)
	}
	for _, e := range slices.Sorted(maps.Keys(p.extras)) {
		if slices.ContainsFunc(p.extras[e], is) {
			return "optional dependencies (extra " + shownName(e) + ")", "uv sync --extra " + shownName(e)
		}
	}
	return "", ""
}

// requirementsList says whether the requirements file at file (a path
// on the machine) lists a package named as module, on a line of its own
// (not an option, -r's file or -e's path, nor a URL or path alone).
func requirementsList(file, module string) bool {
	src, ok := readCapped(file, maxPackageJSON)
	if !ok {
		return false
	}
	for _, line := range strings.Split(src, "\n") {
		if k := strings.Index(line, "#"); k >= 0 {
			line = line[:k]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-") {
			continue
		}
		if pyPackageIs(line, module) {
			return true
		}
	}
	return false
}

// readCapped reads the file (a path on the machine) whole where it is
// no longer than limit bytes.
func readCapped(file string, limit int64) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(b)) > limit {
		return "", false
	}
	return string(b), true
}

// fetchedDeps says, of a run whose blocked hosts are those its runner
// fetches dependencies from, how to see it at work: install the
// dependencies in the tree, since allowing the hosts would have the
// audit run code fetched at run time, not the tree's. So it is where the
// hook runs a runner that fetches what it runs or imports
// (fetchesImports: in its command, or in a script of the tree the
// command names, a wrapper that falls back to npx tsx) and either its
// stderr reports a module not found or the plugin's (else the tree's)
// package.json, pyproject.toml or requirements.txt lists dependencies
// that the tree does not have installed; "" otherwise.
func fetchedDeps(r report.HookRun, tree string) string {
	hosts := blockedHosts(r)
	if hosts == "" || !runsFetcher(r, tree) {
		return ""
	}
	if moduleMissing(r.Stderr) {
		return fmt.Sprintf("it fetches what it imports at run time (its runner fetches packages), and it tried to reach %s, which the egress policy blocked: %s", hosts, installDeps)
	}
	if m := uninstalledDeps(r, tree); m != "" {
		return fmt.Sprintf("it fetches what it runs at run time (its runner fetches packages, and %s lists dependencies the tree does not have installed), and it tried to reach %s, which the egress policy blocked: %s", shownName(m), hosts, installDeps)
	}
	return ""
}

// installDeps is the advice for a hook whose runner fetches its
// dependencies (fetchedDeps).
const installDeps = "install its dependencies in the tree before vigiles runs it (npm ci, bun install, uv sync) to see it at work; allowing the hosts its runner fetches from would have vigiles run code fetched at run time, not the tree's (a host it reaches for anything else, allow as for any hook: --egress allow --allow HOST)"

// runsFetcher says whether r's hook runs a runner that fetches at run
// time (fetchesImports), in its command or in a file of the tree a word
// of the command names (${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PROJECT_DIR}
// read as the plugin's directory and the tree's).
func runsFetcher(r report.HookRun, tree string) bool {
	if fetchesImports().MatchString(r.Command) {
		return true
	}
	if tree == "" {
		return false
	}
	root := pluginRootOf(r)
	for _, w := range strings.Fields(r.Command) {
		w = strings.Trim(w, `"'`)
		for _, v := range []string{"${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT"} {
			w = strings.Replace(w, v, root, 1)
		}
		for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"} {
			w = strings.Replace(w, v, ".", 1)
		}
		if rel, ok := strings.CutPrefix(w, strings.TrimSuffix(filepath.ToSlash(tree), "/")+"/"); ok {
			w = rel
		}
		if w == "" || path.IsAbs(w) || strings.HasPrefix(path.Clean(w), "../") {
			continue
		}
		if at, ok := treeFileAt(tree, path.Clean(w)); ok {
			if src, ok := readCapped(at, maxPackageJSON); ok && fetchesImports().MatchString(uncommented(src)) {
				return true
			}
		}
	}
	return false
}

// pluginRootOf is the directory of r's plugin (relative to the tree,
// cleaned), "." where the hook is the project's.
func pluginRootOf(r report.HookRun) string {
	if p, ok := strings.CutPrefix(r.Context, "plugin:"); ok {
		return path.Clean(p)
	}
	return "."
}

// uncommented is src without its comment lines (a line whose first
// non-blank characters are # or //): a script that once ran npx and says
// so in a comment runs no fetcher.
func uncommented(src string) string {
	lines := strings.Split(src, "\n")
	out := lines[:0]
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if i == 0 && strings.HasPrefix(t, "#!") || !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") {
			out = append(out, l) // a shebang runs what it names (#!/usr/bin/env -S npx tsx)
		}
	}
	return strings.Join(out, "\n")
}

// uninstalledDeps is the manifest (relative to the tree) of r's plugin,
// else of the tree, that lists dependencies the tree does not have
// installed: a package.json with dependencies (or devDependencies) and
// no node_modules beside it, a pyproject.toml whose [project] lists
// dependencies, or a requirements.txt that names a package, neither with
// a .venv beside it; "" where none does.
func uninstalledDeps(r report.HookRun, tree string) string {
	root := pluginRootOf(r)
	if m := path.Join(root, "package.json"); treeEntry(tree, path.Join(root, "node_modules")) == nil {
		if at, ok := treeFileAt(tree, m); ok {
			if b, ok := readCapped(at, maxPackageJSON); ok {
				var manifest map[string]json.RawMessage
				if json.Unmarshal([]byte(b), &manifest) == nil {
					for _, field := range []string{"dependencies", "devDependencies"} {
						var deps map[string]any
						if json.Unmarshal(manifest[field], &deps) == nil && len(deps) > 0 {
							return m
						}
					}
				}
			}
		}
	}
	if treeEntry(tree, path.Join(root, ".venv")) != nil {
		return ""
	}
	m := path.Join(root, "pyproject.toml")
	if at, ok := treeFileAt(tree, m); ok {
		if src, ok := readCapped(at, maxPackageJSON); ok && pyprojectDeps().MatchString(src) {
			return m
		}
	}
	m = path.Join(root, "requirements.txt")
	if at, ok := treeFileAt(tree, m); ok {
		if src, ok := readCapped(at, maxPackageJSON); ok {
			for _, line := range strings.Split(src, "\n") {
				if k := strings.Index(line, "#"); k >= 0 {
					line = line[:k]
				}
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "-") {
					return m
				}
			}
		}
	}
	return ""
}

// pyprojectDeps matches a pyproject.toml's dependencies array with an
// entry in it.
var pyprojectDeps = lazyRE(`(?m)^dependencies\s*=\s*\[\s*["']`)

// fetchesImports matches a command whose runner fetches what a script
// imports at run time where it is not installed: bun's auto-install,
// deno's, a package runner's, uv's.
var fetchesImports = lazyRE(`(^|[\s/;&|(])(bunx?|deno|npx|pnpx|pnpm|yarn|uvx?)(\s|$)`)

// failureWords matches a line that tells of a failure.
var failureWords = lazyRE(`(?i)error|not found|denied|no such|cannot|can't|failed|exception|fatal|panic`)

// tellingLine is the line of a failed hook's stderr that tells most of
// why: the last non-empty one that speaks of a failure (an error, a
// "not found"), else the last non-empty one. A runtime's closing banner
// ("Bun v1.4.4 (Linux x64)") after its error is not it.
func tellingLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && failureWords().MatchString(l) {
			return l
		}
	}
	return lastLine(s)
}

// lastLine is the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// tail is the end of s, at most n bytes of it, trimmed, cut at a line's
// start where one falls in it.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return strings.ToValidUTF8(s, "")
}

// deniedPath matches the path a shell says it may not execute ("sh: 1:
// /x/run.sh: Permission denied", "bash: /x/run.sh: Permission denied").
var deniedPath = lazyRE(`(/[^\s:'"]+): Permission denied`)

// notExecutableInTree is the path, relative to the work tree, of a file
// of the tree that stderr says could not be executed and that has no
// execute permission in it; "" where stderr names none, or tree is
// unknown.
func notExecutableInTree(stderr, tree string) string {
	if tree == "" {
		return ""
	}
	m := deniedPath().FindStringSubmatch(stderr)
	if m == nil {
		return ""
	}
	rel, err := filepath.Rel(tree, filepath.Clean(m[1]))
	if err != nil || leavesDir(rel) {
		return ""
	}
	// Looked up in the tree only: a link of the tree's that leads out
	// is not followed to tell what the host holds there. A link that
	// stays in is followed, and the file it leads to named: git keeps
	// the mode of that file, not of the link.
	at, fi := treeResolve(tree, filepath.ToSlash(rel))
	if fi == nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 != 0 {
		return ""
	}
	return at
}

// nodeBadOption matches Node.js refusing an option it does not know (one
// of a later version: --experimental-strip-types before 22.6), the
// option in group 1.
var nodeBadOption = lazyRE(`\bnode: bad option: (--[A-Za-z0-9-]+)`)

// interpreterFallback matches a command that runs a script with one
// Python and, failing that, with another, joined by || (python3 x.py ||
// python x.py || py -3 x.py): the second runs whenever the first exits
// non-zero, not only where it is missing.
var interpreterFallback = lazyRE(`\b(?:python3?|py)\b[^|&;]*\|\|\s*(?:python3?|py)\b`)

// shellFailure matches a failure a shell or an interpreter reports on its
// own before the hook's code runs, or as it starts it: a program or file
// not found, a redirection it cannot create, a substitution it cannot
// read (dash's for ${env:HOME}), a script or input dash cannot open
// ("sh: 0: cannot open x.sh: No such file", older dash's "Can't open"),
// a script Python cannot open.
var shellFailure = lazyRE(`(?m)^(?:/bin/|/usr/bin/)?(?:ba|da|z|k)?sh: (?:\d+: |line \d+: )?.*(?:not found|No such file or directory|cannot create|Directory nonexistent|Permission denied|[Bb]ad substitution|[Cc]an(?:not|'t) open)|can't open file '`)

// barePython matches a shell's report that "python" (not python3) is
// not found, and env's, where a script's first line runs it.
var barePython = lazyRE(`(?m)(?:^|[\s:])python: (?:\d+: )?(?:not found|command not found)|: python: not found|env: ['‘]python['’]: No such file|command not found: python\b`)

// pySyntaxError matches the report of a SyntaxError Python gives for a
// script (or a module it imports) it cannot parse: the file and line,
// the source line as Python shows it (indented by four spaces), the
// caret line, and the error's message, in groups 1 to 4.
var pySyntaxError = lazyRE(`(?m)^  File "([^"\n]*)", line (\d+)\n(?:    (.*)\n)?(?:[ \t]*[~^]+[ \t]*\n)?SyntaxError: (.*)$`)

// pyTracebackFile matches a file a Python traceback names, in group 1.
var pyTracebackFile = lazyRE(`(?m)^  File "([^"\n]*)"`)

// pyVersionInPath matches the version in a path of a Python's own
// library or of a virtual environment's (/usr/lib/python3.11/…,
// .venv/lib/python3.12/site-packages/…), in group 1.
var pyVersionInPath = lazyRE(`/python3\.(\d+)/`)

// pyVersionOfBytecode matches the version in the name of the bytecode a
// Python writes for a module it imports (__pycache__/x.cpython-311.pyc),
// in group 1.
var pyVersionOfBytecode = lazyRE(`__pycache__/[^/]+\.cpython-3(\d+)\.pyc$`)

// pyNewer is a construct of a Python later than 3.8 whose SyntaxError
// before that version the source line or the message tells, and the
// minor version that added it.
type pyNewer struct {
	src, msg *regexp.Regexp
	what     string
	minor    int
}

// pyNewerSyntax are the constructs pythonSyntaxCause names, the newest
// first.
var pyNewerSyntax = sync.OnceValue(func() []pyNewer {
	re := regexp.MustCompile
	return []pyNewer{
		{msg: re(`^multiple exception types must be parenthesized`), what: "an except clause that names several exceptions without parentheses (PEP 758)", minor: 14},
		{src: re(`(?i)(?:^|[\s(\[{=,:])(?:t|tr|rt)["']`), msg: re(`^invalid syntax`), what: `a template string, t"…" (PEP 750)`, minor: 14},
		{src: re(`^(?:async\s+)?def\s+\w+\s*\[`), what: "a function with type parameters, def f[T](…) (PEP 695)", minor: 12},
		{src: re(`^class\s+\w+\s*\[`), what: "a class with type parameters, class C[T] (PEP 695)", minor: 12},
		{src: re(`^type\s+\w+\s*(?:\[[^\]]*\]\s*)?=`), what: "a type statement, type X = … (PEP 695)", minor: 12},
		{msg: re(`^f-string`), what: "an f-string whose braces hold its own quotes, a backslash or a comment (PEP 701)", minor: 12},
		{src: re(`^except\s*\*`), what: "an except* clause (PEP 654)", minor: 11},
		{src: re(`^(?:match|case)\s.*:\s*(?:#.*)?$`), what: "a match statement (PEP 634)", minor: 10},
	}
})

// pythonSyntaxCause says, for a run whose stderr ends with Python's
// SyntaxError, that the script may be written for a newer Python than
// the one the hook ran: the construct its line holds and the version
// that added it where the line or the message shows one, and the version
// of the Python that ran where the record shows it (the paths of its
// traceback, the bytecode it wrote), never by running one. A SyntaxError
// may be a plain mistake too, and the cause says so. "" where stderr
// does not end so.
func pythonSyntaxCause(r report.HookRun, tree string) string {
	ms := pySyntaxError().FindAllStringSubmatchIndex(r.Stderr, -1)
	if len(ms) == 0 {
		return ""
	}
	m := ms[len(ms)-1]
	if strings.TrimSpace(r.Stderr[m[1]:]) != "" {
		// Something after it: not how the hook ended.
		return ""
	}
	group := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return r.Stderr[m[2*i]:m[2*i+1]]
	}
	file, line, src, msg := group(1), group(2), strings.TrimSpace(group(3)), strings.TrimSpace(group(4))
	at := fmt.Sprintf("%s line %s", shownInTree(tree, file), line)
	// The Python that ran, where the record shows it.
	have, how := 0, ""
	for _, fm := range pyTracebackFile().FindAllStringSubmatch(r.Stderr, -1) {
		if vm := pyVersionInPath().FindStringSubmatch(fm[1]); vm != nil {
			have, how = atoi(vm[1]), "as the paths of its traceback show"
		}
	}
	if have == 0 {
		seen := map[int]bool{}
		for _, w := range r.Writes {
			if bm := pyVersionOfBytecode().FindStringSubmatch(w.Path); bm != nil {
				seen[atoi(bm[1])] = true
			}
		}
		if len(seen) == 1 {
			for v := range seen {
				have, how = v, "as the bytecode it wrote for the modules it imported shows"
			}
		}
	}
	ran := "the one the hook ran (the record does not show its version; python3 --version where vigiles ran does)"
	if have > 0 {
		ran = fmt.Sprintf("the one the hook ran, 3.%d (%s)", have, how)
	}
	for _, n := range pyNewerSyntax() {
		if n.src != nil && !n.src.MatchString(src) || n.msg != nil && !n.msg.MatchString(msg) {
			continue
		}
		if have >= n.minor {
			break
		}
		return fmt.Sprintf("Python could not parse %s (SyntaxError): it holds %s, which Python 3.%d added, so the hook may be written for a newer Python than %s, and then fails so for its users who have an older one too, or the line may be a plain mistake; install Python 3.%d or later where vigiles runs, and have the hook run it, to see the hook at work",
			at, n.what, n.minor, ran, n.minor)
	}
	return fmt.Sprintf("Python could not parse %s (SyntaxError): a mistake in the script, or code written for a newer Python than %s, which a newer one may read", at, ran)
}

// shownInTree is file as a cause names it: relative to tree where it is
// inside it, cut to 200 bytes, quoted where it must be (shownName).
func shownInTree(tree, file string) string {
	if tree != "" {
		if rel, err := filepath.Rel(tree, file); err == nil && filepath.IsLocal(rel) {
			file = filepath.ToSlash(rel)
		}
	}
	return shownName(clip(file, 200))
}

// crlfWords matches what a shell says of a script with Windows line
// endings, whose every line ends with a carriage return it reads as part
// of the line: bash's `$'\r': command not found` (a word holding one,
// quoted so), `set: -\r: invalid option`, a #! line's interpreter with
// one (`/bin/sh^M: bad interpreter`), dash's `Illegal option -` and the
// raw carriage return.
var crlfWords = lazyRE(`\$'[^'\n]*\\r': (?:command )?not found|: -\\r: invalid option|(?:\r|\^M): bad interpreter|Illegal option -\r|\r: (?:not found|No such file or directory)`)

// notRunScript matches a file a shell says it could not run as a
// program, the path in group 1: dash's "PATH: not found", bash's
// "PATH: cannot execute: required file not found" and its older "PATH:
// INTERPRETER: bad interpreter", each of a file that is there but whose
// #! line names what the kernel cannot find.
var notRunScript = lazyRE(`(?m)(/[^\s:'"]+): (?:not found$|cannot execute: required file not found|[^\n]*: bad interpreter)`)

// shebangOfTree is the file of the tree (relative to it) that stderr
// says a shell could not run (notRunScript) and its first line, where
// that is a #! line; "" where stderr names none, or tree is unknown.
func shebangOfTree(stderr, tree string) (rel, line string) {
	if tree == "" {
		return "", ""
	}
	for _, m := range notRunScript().FindAllStringSubmatch(stderr, 4) {
		p, err := filepath.Rel(tree, filepath.Clean(m[1]))
		if err != nil || !filepath.IsLocal(p) {
			continue
		}
		at, ok := treeFileAt(tree, filepath.ToSlash(p))
		if !ok {
			continue
		}
		f, err := os.Open(at)
		if err != nil {
			continue
		}
		b := make([]byte, 256)
		n, _ := io.ReadFull(f, b)
		f.Close()
		first, _, _ := strings.Cut(string(b[:n]), "\n")
		if strings.HasPrefix(first, "#!") {
			return filepath.ToSlash(p), first
		}
	}
	return "", ""
}

// crlfCause says, of a run whose stderr shows a script with Windows line
// endings (crlfWords), or names a file of the tree it could not run whose
// #! line ends with a carriage return, that the script's lines end so;
// "" otherwise.
func crlfCause(r report.HookRun, tree string) string {
	rel, line := shebangOfTree(r.Stderr, tree)
	if !strings.HasSuffix(line, "\r") {
		rel = ""
		if !crlfWords().MatchString(r.Stderr) {
			return ""
		}
	}
	what, fix, how := "its script", "convert it to LF (dos2unix FILE)", "a #! line that names /bin/sh\\r, a command $'\\r'"
	if rel != "" {
		what, fix = shownName(rel), fmt.Sprintf("convert it to LF (dos2unix %s)", shownName(rel))
		if words := strings.Fields(strings.TrimPrefix(line, "#!")); len(words) > 0 {
			how = fmt.Sprintf("its #! line names %s\\r, which no machine has", shownName(clip(words[0], 100)))
		}
	}
	return fmt.Sprintf("%s may have Windows line endings (CRLF), which the shell reads as part of each line (%s), so it fails so on Linux and macOS alike; %s, commit it, and keep it so with a .gitattributes line such as *.sh text eol=lf", what, how, fix)
}

// shebangCause says, of a run whose stderr names a file of the tree the
// shell could not run (shebangOfTree) whose #! line names an interpreter
// by an absolute path this machine lacks (#!/usr/bin/python,
// #!/opt/homebrew/bin/bash), that the kernel found no interpreter to run
// it with, though the shell says the script is not found; "" otherwise.
// A path in a directory hidden from a confined hook, a home directory,
// is not looked up (homeToolCause tells of it).
func shebangCause(r report.HookRun, tree string) string {
	rel, line := shebangOfTree(r.Stderr, tree)
	if rel == "" || strings.HasSuffix(line, "\r") {
		return ""
	}
	words := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(words) == 0 || !path.IsAbs(words[0]) || path.Base(words[0]) == "env" {
		return ""
	}
	interp := path.Clean(words[0])
	if has, known := onHost(tree, interp); !known || has {
		return ""
	}
	fix := "name one every machine has, through env (#!/usr/bin/env bash), or run the script through its interpreter in the command"
	switch base := path.Base(interp); {
	case base == "python" || base == "python2":
		fix = "Debian and Ubuntu install python3 alone: write #!/usr/bin/env python3"
	case strings.HasPrefix(interp, "/opt/homebrew/") || strings.HasPrefix(interp, "/usr/local/"):
		fix = "a path of Homebrew's on macOS, which Linux machines do not have: write #!/usr/bin/env " + shownName(base)
	}
	return fmt.Sprintf("%s's #! line names %s, which the machine vigiles ran it on lacks, so the script cannot start (the shell's \"not found\" is of its interpreter, not of the script), here as for its users who lack it too; %s", shownName(rel), shownName(interp), fix)
}

// macOSPrograms are programs macOS has and Linux does not, with what a
// Linux machine has for the same work: hooks written on a Mac run them
// to notify, speak, play a sound, copy or open.
var macOSPrograms = map[string]string{
	"osascript":         "notify-send",
	"terminal-notifier": "notify-send",
	"say":               "spd-say",
	"afplay":            "paplay or aplay",
	"pbcopy":            "wl-copy or xclip",
	"pbpaste":           "wl-paste or xclip -o",
	"open":              "xdg-open",
}

// macOSProgram is the first program of macOSPrograms that stderr says
// a shell did not find (notFoundProgram), "" where none is.
func macOSProgram(stderr string) string {
	for _, m := range notFoundProgram().FindAllStringSubmatch(stderr, 8) {
		if _, ok := macOSPrograms[m[1]]; ok {
			return m[1]
		}
	}
	return ""
}

// nodeVersion matches the version Node.js names at the end of the report
// of an error it ends on ("Node.js v20.20.2"), in group 1.
var nodeVersion = lazyRE(`(?m)^Node\.js (v\d+\.\d+\.\d+)\s*$`)

// nodeSyntaxError matches Node.js's report of a script it cannot parse:
// the file and line, then, after the source line and its carets, the
// SyntaxError's message, in groups 1 to 3.
var nodeSyntaxError = lazyRE(`(?m)^(?:file://)?(/[^\n]+?):(\d+)\n(?:[^\n]*\n){0,3}?\s*\nSyntaxError: ([^\n]*)$`)

// nodeRequireESM matches Node.js's ERR_REQUIRE_ESM, with the module it
// could not require in group 1.
var nodeRequireESM = lazyRE(`ERR_REQUIRE_ESM\]: require\(\) of ES Module (\S+) from \S+ not supported`)

// nodeCause says, of a run whose stderr ends with Node.js's report of an
// error (nodeVersion) that refuses the script as written, why: a
// require() of an ES module (ERR_REQUIRE_ESM), an import statement in a
// file Node.js read as CommonJS, a .ts file it does not run, or a
// SyntaxError, which may be a mistake or syntax of a newer Node.js; ""
// otherwise.
func nodeCause(r report.HookRun, tree string) string {
	v := nodeVersion().FindAllStringSubmatch(r.Stderr, -1)
	if v == nil {
		return ""
	}
	node := "Node.js " + v[len(v)-1][1]
	if m := nodeRequireESM().FindStringSubmatch(r.Stderr); m != nil {
		return fmt.Sprintf("it require()s %s, an ES module, which %s does not load with require() (ERR_REQUIRE_ESM): a package that ships ES modules alone from some major version on, or a .mjs or \"type\": \"module\" file; load it with import(), or pin the package's last CommonJS version (a Node.js of 20.19 or 22.12 and later loads most with require(), where that is what the hook is written for)", shownInTree(tree, m[1]), node)
	}
	if strings.Contains(r.Stderr, `Unknown file extension ".ts"`) {
		return fmt.Sprintf("%s does not run TypeScript itself (ERR_UNKNOWN_FILE_EXTENSION): the hook may be written for a Node.js that strips types, 22.18, 23.6 and later; install one where vigiles runs, or run the script with tsx or bun, to see the hook at work", node)
	}
	loc := nodeSyntaxError().FindStringSubmatchIndex(r.Stderr)
	if loc == nil || strings.HasPrefix(strings.TrimSpace(r.Stderr[loc[1]:]), "at JSON.parse") {
		// None, or the hook's JSON.parse of what it read, not its
		// script.
		return ""
	}
	m := make([]string, 4)
	for i := range m {
		m[i] = r.Stderr[loc[2*i]:loc[2*i+1]]
	}
	at := fmt.Sprintf("%s line %s", shownInTree(tree, m[1]), m[2])
	if strings.HasPrefix(m[3], "Cannot use import statement outside a module") {
		return fmt.Sprintf("%s read %s as CommonJS, and it holds an import statement: ES module syntax in a .js file whose nearest package.json does not say \"type\": \"module\" (or none does); name it .mjs, or add \"type\": \"module\" to its package.json (a Node.js of 20.19 or 22.7 and later reads such a file as a module by itself)", node, at)
	}
	return fmt.Sprintf("%s could not parse %s (SyntaxError: %s): a mistake in the script, or syntax of a newer Node.js than this one, which a newer one may read; install the Node.js the hook is written for where vigiles runs to see it at work", node, at, shownName(clip(m[3], 120)))
}

// homeToolPath matches a program by its path in a directory of a home
// directory that installers put programs in (pip install --user's and
// pipx's ~/.local/bin, cargo's, bun's, deno's, go's, volta's, and version
// managers' shims), the path in group 1 and from that directory on in
// group 2, where a shell or env says it is not there or cannot run it.
var homeToolPath = lazyRE(`(/[^\s:'"]*/((?:\.local/bin|\.cargo/bin|\.bun/bin|\.deno/bin|go/bin|\.volta/bin|\.npm-global/bin|\.pyenv/shims|\.rbenv/shims|\.asdf/shims|\.nvm/versions/node/[^/\s:'"]+/bin)/[^/\s:'"]+))['’]?: (?:not found|No such file or directory|cannot execute)`)

// homeToolCause says, of a run whose stderr names a program by its path
// in a home directory's directory of installed programs (homeToolPath),
// or a file of the tree it could not run whose #! line names one, that
// the program is one its author installed in HOME, which the run's
// throwaway HOME (or a home directory hidden from a confined hook) does
// not have; "" otherwise.
func homeToolCause(r report.HookRun, tree string) string {
	p, tool, what := "", "", "it runs"
	if m := homeToolPath().FindStringSubmatch(r.Stderr); m != nil {
		p, tool = m[1], m[2]
	} else if rel, line := shebangOfTree(r.Stderr, tree); rel != "" {
		words := strings.Fields(strings.TrimPrefix(strings.TrimSuffix(line, "\r"), "#!"))
		if len(words) == 0 {
			return ""
		}
		m := homeToolPath().FindStringSubmatch(words[0] + ": not found")
		if m == nil {
			return ""
		}
		p, tool, what = m[1], m[2], shownName(rel)+"'s #! line names"
	} else {
		return ""
	}
	if tree != "" && under(p, filepath.Clean(tree)) || !under(p, sandbox.Throwaway()[0]) && !under(p, hiddenFromHook()...) {
		// A directory of the tree's own, wherever it lies, is none.
		return ""
	}
	name := path.Base(tool)
	return fmt.Sprintf("%s %s (~/%s), a program its author may have installed in their home directory, which a confined run's HOME, thrown away after it, does not have: the hook works only where it was installed so; install %s outside HOME where vigiles runs (on the PATH, /usr/local/bin) and have the hook run it by name (%s …), to see it at work and for its users who installed it otherwise",
		what, shownName(p), shownName(tool), shownName(name), shownName(name))
}

package runner

import (
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// Rules of expectation findings: "expect/<kind>" for a failed expectation,
// and RuleNotRecorded for one over evidence that was not recorded.
const (
	RuleExpectPrefix = "expect/"
	RuleNotRecorded  = "expect/not-recorded"
)

// maxEvidence bounds the evidence text of a finding.
const maxEvidence = 2000

// checkExpectations evaluates every expectation of a check against one
// executed run and returns a finding per failure. Evidence that was not
// recorded (Writes or Egress nil) fails with RuleNotRecorded: it is never a
// pass.
func checkExpectations(c *Check, e executed) []report.Finding {
	var out []report.Finding
	r := e.run
	fail := func(x *Expectation, rule, msg, ev string) {
		out = append(out, report.Finding{
			Rule: rule, Severity: report.SeverityError, Location: x.Loc,
			Title:   fmt.Sprintf("check %q: %s", c.Name, x.Kind),
			Message: msg, Evidence: clip(ev, maxEvidence), Hook: r.ID,
		})
	}
	notKept := func(x *Expectation, what string) {
		fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked: the hook printed more on %s than the run keeps (its output cap: raise defaults.output-cap in .vigiles.yml), and what it dropped was not recorded. An expectation over unrecorded evidence never passes", x.Kind, what), "")
	}
	// what is "egress", "writes" or "env file", as for unrecordedWhy, or
	// "session-env writes" (writes, for what they say of the env).
	notRecorded := func(x *Expectation, what string) {
		var why string
		switch failure := e.failure(); {
		case r.Tier == "direct" && strings.HasPrefix(e.openBy, "defaults.sandbox"):
			why = "this run was direct (in the open: " + e.openBy + " runs every hook so), and direct runs record no writes, network attempts or env file; run it confined (defaults.sandbox: auto or strict, or --sandbox strict)"
		case r.Tier == "direct" && e.openBy != "":
			why = "this run was direct (in the open: " + e.openBy + " runs every hook so), and direct runs record no writes, network attempts or env file; run it confined (--sandbox strict)"
		case r.Tier == "direct" && c.Command != "":
			why = "this run was direct (in the open: a check with trusted: true in auto mode, or --sandbox off), and direct runs record no writes, network attempts or env file; run it confined (leave trusted: true out of the check, or --sandbox strict)"
		case r.Tier == "direct":
			why = "this run was direct (in the open: trusted code in auto mode, or --sandbox off), and direct runs record no writes, network attempts or env file; run it confined (--sandbox strict, or list the plugin under plugins.untrusted)"
		case failure != "":
			// vigiles' own failure is the cause, whatever the tier:
			// never a guess from the tier alone.
			why = "vigiles failed to make the run's record whole: " + shownName(clip(failure, maxReason))
		case r.Tier == "confined":
			why = "the run was " + unrecordedWhy(r.Tier, what)
		default:
			why = "the run did not complete (" + orDefault(r.Tier, "not run") + ")"
		}
		noun := map[string]string{"egress": "network attempts were", "writes": "writes were", "env file": "env file was",
			"session-env writes": "writes (which show the other scripts under " + sessionEnvDir + " that Claude Code runs too) were"}[what]
		fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked: the run's %s not recorded: %s. An expectation over unrecorded evidence never passes", x.Kind, noun, why), "")
	}
	// leftOver fails x, which the record would pass, where the hook left
	// processes running that were ended after the linger: Claude Code
	// lets them run on, and what they would have done is not recorded.
	// endedSooner fails x where the run was ended at vigiles' timeout,
	// sooner than Claude Code would end the hook: what it did next (and
	// all it printed: Claude Code reads no output of a hook it ends) is
	// not recorded.
	endedSooner := func(x *Expectation) bool {
		if e.cutShort == "" {
			return false
		}
		fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked whole: the hook did not finish: %s, sooner than Claude Code would end it, and what it would have done after is not recorded: give the check a timeout the hook finishes within (timeout: in the check, or defaults.timeout). An expectation over unrecorded evidence never passes", x.Kind, e.cutShort), "")
		return true
	}
	// lingeredOn fails x where the hook left processes running (as
	// leftOver says) and reports whether it did.
	lingeredOn := func(x *Expectation) bool {
		if len(r.Lingered) == 0 {
			return false
		}
		why := "the hook left processes running when it exited, and they were ended after the linger period; Claude Code would have let them run on, and what they did next is not recorded: raise defaults.linger in .vigiles.yml so that they finish within the run"
		if r.TimedOut {
			why = "the hook reached its timeout with processes running beside its own; Claude Code ends the hook's process then and lets those run on, and what they did next is not recorded: make the hook finish within its timeout, and wait for what it starts"
		}
		fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked whole: %s. An expectation over unrecorded evidence never passes", x.Kind, why),
			strings.Join(r.Lingered, "\n"))
		return true
	}
	leftOver := func(x *Expectation) {
		if !endedSooner(x) {
			lingeredOn(x)
		}
	}
	// notWhole fails x, whatever the record says, where what the hook
	// printed (and so the outcome Claude Code reads from it) may not be
	// all it would print: ended sooner, or with processes left running
	// that could print after (a late {"decision":"block"} on stdout).
	notWhole := func(x *Expectation) bool {
		return endedSooner(x) || lingeredOn(x)
	}
	if e.limit != "" {
		// Ended or bounded by a limit of the sandbox that Claude Code
		// does not impose, the hook did not do what it would have done
		// there: none of its record proves anything about that.
		for _, x := range c.Expect {
			fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked: %s. An expectation over unrecorded evidence never passes", x.Kind, limitWhy(e.limit)), "")
		}
		return out
	}
	for _, x := range c.Expect {
		rule := RuleExpectPrefix + x.Kind
		switch x.Kind {
		case ExpExitCode:
			if r.TimedOut {
				// Killed at its timeout (137), it never exited: no
				// status of its own to compare.
				fail(x, rule, fmt.Sprintf("want exit status %d; the hook did not exit: it was ended at its timeout", x.Int), tailOf(r))
				continue
			}
			if r.ExitCode != x.Int {
				fail(x, rule, fmt.Sprintf("want exit status %d, the hook exited %d", x.Int, r.ExitCode), tailOf(r))
			}
		case ExpBlocked, ExpAllowed, ExpOutcome:
			// Ended sooner than Claude Code would end it, a hook had not
			// decided: its outcome (error) is vigiles'. A command check's
			// timeout is its author's, and its outcome at it the fact.
			// Processes the hook left running could still print what
			// decides it; a command check's processes beside its own at
			// its timeout cannot: its outcome there is the timeout's.
			if c.Command == "" && notWhole(x) || c.Command != "" && !r.TimedOut && lingeredOn(x) {
				continue
			}
			if want := x.wantOutcome(); e.async && want == report.OutcomeAllowed {
				// Claude Code goes on without an async hook: the call is
				// allowed whatever it answers, so such a pass would prove
				// nothing of it (as on an event no hook can block, which
				// ParseConfig refuses before any run).
				fail(x, rule, fmt.Sprintf("want the hook to leave the call %s; it was %s%s, but the hook is async: Claude Code does not wait for it, so the call goes on whatever the hook answers, and %s proves nothing of it: remove the line, or check what the hook does (its output, writes, egress)", want, r.Outcome, reasonSuffix(r.Reason), x.Kind), tailOf(r))
			} else if r.Outcome != want {
				fail(x, rule, fmt.Sprintf("want the hook to leave the call %s; it was %s%s", want, r.Outcome, reasonSuffix(r.Reason)), tailOf(r))
			}
		case ExpStdoutContains, ExpStderrContains:
			// Over all the hook printed that was captured, not the
			// report's 8 KiB of it; and where the capture was cut at the
			// output cap, only a find proves anything.
			s, cut := captured(x.Kind, e)
			if notWhole(x) {
				continue // found or not: Claude Code reads no output of a hook it ends, and leftovers may print more
			}
			if r.TimedOut {
				fail(x, rule, fmt.Sprintf("want %s to contain %q; the hook did not finish: it was ended at its timeout, and Claude Code reads no output of a hook it ended", stream(x.Kind), x.Str), s)
				continue
			}
			if strings.Contains(s, x.Str) {
				continue
			}
			if cut {
				notKept(x, stream(x.Kind))
				continue
			}
			fail(x, rule, fmt.Sprintf("want %s to contain %q", stream(x.Kind), x.Str), s)
		case ExpStdoutMatches, ExpStderrMatches:
			// A pattern over the whole stream (anchored, or a class
			// such as ^[^!]*$) is decided by what was not kept as much
			// as by what was: a cut stream decides nothing.
			s, cut := captured(x.Kind, e)
			if cut {
				notKept(x, stream(x.Kind))
				continue
			}
			if notWhole(x) {
				continue
			}
			if r.TimedOut {
				// Ended at its timeout, as Claude Code would end it: what
				// it printed reaches no one, whatever it matches (an
				// empty stream that '^$' matches too).
				fail(x, rule, fmt.Sprintf("want %s to match %s; the hook did not finish: it was ended at its timeout, and Claude Code reads no output of a hook it ended", stream(x.Kind), x.Re), s)
				continue
			}
			if !x.Re.MatchString(s) && !x.Re.MatchString(lineEndCut(s)) {
				fail(x, rule, fmt.Sprintf("want %s to match %s", stream(x.Kind), x.Re), s)
			}
		case ExpJSON:
			if _, cut := captured(ExpStdoutContains, e); cut && e.decision.Output == nil {
				// Output cut at the cap is never read as JSON (Decide):
				// what the hook printed was not recorded whole.
				notKept(x, "stdout")
				continue
			}
			if e.decision.Output == nil && r.TimedOut {
				fail(x, rule, "want JSON on stdout; the hook did not finish: it was ended at its timeout, and Claude Code reads no output of a hook it ended", r.Stdout)
				continue
			}
			if lingeredOn(x) {
				// More printed by what the hook left running would be
				// read with it (or make it no JSON at all).
				continue
			}
			if e.decision.Output == nil {
				fail(x, rule, "want JSON on stdout (Claude Code reads it on every exit status); the hook printed none", r.Stdout)
				continue
			}
			if why := e.decision.Unread; why != "" {
				// What the JSON says decides nothing where Claude Code
				// does not read it: a field there is no field to it.
				fail(x, rule, "want JSON on stdout that Claude Code reads; the hook printed JSON, but "+why, r.Stdout)
				continue
			}
			for _, w := range x.JSON {
				if e.async && !asyncDelivers(w.segs) {
					// Claude Code went on without the hook: a decision
					// in its output acts on nothing, whatever it says.
					out = append(out, report.Finding{Rule: rule, Severity: report.SeverityError, Location: w.Loc,
						Title: fmt.Sprintf("check %q: json", c.Name), Hook: r.ID,
						Message: fmt.Sprintf("want %s = %s; the hook is async: Claude Code does not wait for it, and acts on no %s in its output (only systemMessage and hookSpecificOutput.additionalContext reach Claude, on its next turn)", w.Path, showValue(w.Value), w.Path), Evidence: clip(r.Stdout, maxEvidence)})
					continue
				}
				got, ok := jsonPathOf(e.decision.Output, w.segs)
				if !ok {
					out = append(out, report.Finding{Rule: rule, Severity: report.SeverityError, Location: w.Loc,
						Title: fmt.Sprintf("check %q: json", c.Name), Hook: r.ID,
						Message: fmt.Sprintf("want %s = %s; the output has no such field", w.Path, showValue(w.Value)), Evidence: clip(r.Stdout, maxEvidence)})
					continue
				}
				if !reflect.DeepEqual(got, w.Value) {
					out = append(out, report.Finding{Rule: rule, Severity: report.SeverityError, Location: w.Loc,
						Title: fmt.Sprintf("check %q: json", c.Name), Hook: r.ID,
						Message: fmt.Sprintf("want %s = %s, found %s", w.Path, showValue(w.Value), showValue(got)), Evidence: clip(r.Stdout, maxEvidence)})
				}
			}
		case ExpNoEgress:
			if r.Egress == nil {
				notRecorded(x, "egress")
				continue
			}
			if len(r.Egress) > 0 {
				fail(x, rule, fmt.Sprintf("want no network attempts; the hook tried %s", hostList(r.Egress)), egressEvidence(r.Egress))
			} else {
				leftOver(x)
			}
		case ExpEgressOnly:
			if r.Egress == nil {
				notRecorded(x, "egress")
				continue
			}
			// Attempts past the record's cap name no destination: they
			// decide nothing alone, and are shown beside any that fail.
			var bad, past []evidence.Egress
			for _, eg := range r.Egress {
				switch {
				case eg.Lumped():
					past = append(past, eg)
				case !anyHost(x.Hosts, eg):
					bad = append(bad, eg)
				}
			}
			if len(bad) > 0 {
				bad = append(bad, past...)
				fail(x, rule, fmt.Sprintf("want network attempts only to %s; the hook also tried %s", patternList(x.Hosts), hostList(bad)), egressEvidence(bad))
			} else if len(past) > 0 {
				fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked: the hook made %s; the run counts them but does not name them, so whether they went only to %s is not known. An expectation over unrecorded evidence never passes",
					x.Kind, lumpedName(past), patternList(x.Hosts)), egressEvidence(past))
			} else {
				leftOver(x)
			}
		case ExpNoWrite, ExpWroteOnly:
			if r.Writes == nil {
				notRecorded(x, "writes")
				continue
			}
			var bad []string
			var links *linkView
			for _, w := range r.Writes {
				kind := w.Kind
				if w.Op == evidence.OpDelete && w.Was == "dir" {
					kind = "dir" // an empty directory deleted
				} else if x.Kind == ExpWroteOnly && (w.Op == evidence.OpDelete || w.Was != "" && w.Was != "dir") {
					// A directory pattern's own path (x/** matches x)
					// allows a change to the directory it was and is: not
					// a path deleted, which the record does not say was
					// one (a file x removed), nor one it replaced.
					kind = "gone"
				}
				if x.Kind == ExpNoWrite && w.Was == "dir" {
					// A directory it must not write replaced by a
					// file: a write to it.
					kind = "dir"
				}
				m := anyPath(x.Paths, w.Path, kind)
				if x.Kind == ExpNoWrite && !m {
					// A path that names a forbidden one where names
					// fold (macOS, Windows): .GIT/hooks/x is .git's.
					m = anyPathFolded(x.Paths, w.Path, kind)
				}
				if (x.Kind == ExpNoWrite && m) || (x.Kind == ExpWroteOnly && !m) {
					bad = append(bad, fmt.Sprintf("%s %s", w.Op, evidence.ShownName(w.Path)))
					continue
				}
				// A link it may write that leads where it may not: a
				// write through it later (Claude Code's, or the hook's
				// own next run) lands there.
				if w.Kind != "symlink" {
					continue
				}
				if links == nil {
					links = newLinkView(e.tree, r.Writes)
				}
				if x.Kind == ExpWroteOnly {
					if to, ok := links.linkLeadsOut(x.Paths, w); ok {
						bad = append(bad, fmt.Sprintf("%s %s (links to %s, outside what it may write)", w.Op, evidence.ShownName(w.Path), evidence.ShownName(to)))
					}
				} else if to, ok := links.linkLeadsInto(x.Paths, w); ok {
					bad = append(bad, fmt.Sprintf("%s %s (links to %s, where it must not write)", w.Op, evidence.ShownName(w.Path), evidence.ShownName(to)))
				}
			}
			switch {
			case len(bad) == 0:
				leftOver(x)
			case x.Kind == ExpWroteOnly:
				fail(x, rule, fmt.Sprintf("want writes only to %s; the hook wrote %d path(s) outside that: %s", pathList(x.Paths), len(bad), strings.Join(firstN(bad, 5), ", ")), strings.Join(bad, "\n"))
			case len(x.Paths) == 1 && x.Paths[0].Src == "**":
				fail(x, rule, fmt.Sprintf("want no writes at all; the hook wrote %d path(s): %s", len(bad), strings.Join(firstN(bad, 5), ", ")), strings.Join(bad, "\n"))
			default:
				fail(x, rule, fmt.Sprintf("want no writes to %s; the hook wrote %d path(s) it must not: %s", pathList(x.Paths), len(bad), strings.Join(firstN(bad, 5), ", ")), strings.Join(bad, "\n"))
			}
		case ExpNoEnvFile, ExpEnvFileMatches:
			ef := r.EnvFile
			if ef == nil {
				fail(x, rule, fmt.Sprintf("%s cannot be checked: Claude Code gives %s hooks no CLAUDE_ENV_FILE (only %s hooks get one)", x.Kind, r.Event, JoinWords(EnvFileEvents(), "and")), "")
				continue
			}
			if ef.Content == nil {
				notRecorded(x, "env file")
				continue
			}
			if x.Kind == ExpNoEnvFile {
				if t, _ := envText(r); t != "" {
					fail(x, rule, fmt.Sprintf("want nothing left in CLAUDE_ENV_FILE (Claude Code runs it before each Bash command); the hook left %s", envSaid(t)), t)
				} else if r.Writes == nil {
					notRecorded(x, "session-env writes")
				} else {
					leftOver(x)
				}
				continue
			}
			if ef.Kind != "file" && ef.Kind != "none" && ef.Kind != "" {
				// A symbolic link or another file that is not read:
				// its content is not "" but unknown, and Claude Code
				// reads what a link leads to.
				fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked: the hook left a %s at CLAUDE_ENV_FILE, whose content vigiles does not read (Claude Code would read what it leads to). An expectation over unrecorded evidence never passes", x.Kind, ef.Kind), "")
				continue
			}
			if ef.Truncated {
				// As for a cut stream: what was not kept decides too.
				fail(x, RuleNotRecorded, fmt.Sprintf("%s cannot be checked: the hook left %d bytes in CLAUDE_ENV_FILE, more than the %d the run keeps. An expectation over unrecorded evidence never passes", x.Kind, ef.Size, ef.Kept()), "")
				continue
			}
			if t := ef.Text(); !x.Re.MatchString(t) {
				fail(x, rule, fmt.Sprintf("want what the hook leaves in CLAUDE_ENV_FILE to match %s", x.Re), t)
				continue
			}
			// Claude Code runs every script under sessionEnvDir, not only
			// the env file: one beside it is no part of what matched, and
			// its content is not read, so it cannot be said to match.
			if r.Writes == nil {
				notRecorded(x, "session-env writes")
				continue
			}
			if scripts := sessionEnvScripts(r); len(scripts) > 0 {
				var names []string
				for _, w := range scripts {
					names = append(names, fmt.Sprintf("%s %s", w.Op, evidence.ShownName(w.Path)))
				}
				t, _ := envText(r)
				fail(x, rule, fmt.Sprintf("want what the hook leaves for Claude Code to run before each Bash command to match %s; its env file does, but the hook also wrote %d other script(s) under %s, which Claude Code runs too and vigiles does not read: %s",
					x.Re, len(names), sessionEnvDir, strings.Join(firstN(names, 5), ", ")), t)
			} else {
				leftOver(x)
			}
		case ExpMaxDuration:
			got := time.Duration(r.DurationMs * float64(time.Millisecond))
			if r.TimedOut {
				// Ended at its timeout, it never finished: its time is
				// the timeout's, not a bound it kept.
				fail(x, rule, fmt.Sprintf("want the hook to finish within %s; it did not finish: it was ended at its timeout after %s", report.ShortDuration(x.Duration), report.ShortDuration(got.Round(time.Millisecond))), "")
				continue
			}
			if got > x.Duration {
				fail(x, rule, fmt.Sprintf("want the hook to finish within %s; it took %s", report.ShortDuration(x.Duration), report.ShortDuration(got.Round(time.Millisecond))), "")
			}
		}
	}
	return out
}

// asyncDelivers says whether Claude Code reads the field at segs of an
// async hook's JSON output: it does not wait for the hook, so no decision
// there acts on the call; what the hook says to Claude (systemMessage,
// additionalContext) it delivers on the next turn.
func asyncDelivers(segs []string) bool {
	switch {
	case len(segs) == 1 && segs[0] == "systemMessage":
		return true
	case len(segs) == 2 && segs[0] == "hookSpecificOutput" && (segs[1] == "additionalContext" || segs[1] == "hookEventName"):
		return true
	}
	return false
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return " (" + shownName(r) + ")"
}

func tailOf(r report.HookRun) string {
	var b strings.Builder
	if r.Stdout != "" {
		b.WriteString("stdout: " + r.Stdout + "\n")
	}
	if r.Stderr != "" {
		b.WriteString("stderr: " + r.Stderr)
	}
	return b.String()
}

// captured is the stream an output expectation reads: all that was
// captured of it (the report keeps only reportOutputCap bytes), and
// whether the capture itself was cut at the run's output cap.
func captured(kind string, e executed) (string, bool) {
	r, res := e.run, e.result
	if strings.HasPrefix(kind, "stdout") {
		if res == nil {
			return r.Stdout, false
		}
		return outputText(res.StdoutBytes(), res.Stdout, res.StdoutEncoding), res.StdoutTruncated
	}
	if res == nil {
		return r.Stderr, false
	}
	return stderrText(res), res.StderrTruncated
}

// lineEndCut is s without the one line ending it ends with, if any ("\n"
// or "\r\n"): a stream's *-matches pattern matches the stream or this,
// so that ^ok$ matches a hook that prints "ok" and a newline, as almost
// every hook ends its output (Go's $, like JavaScript's, matches only at
// the very end of the text), and (line\n)*$ still matches it whole.
func lineEndCut(s string) string {
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		return strings.TrimSuffix(t, "\r")
	}
	return s
}

func stream(kind string) string {
	if strings.HasPrefix(kind, "stdout") {
		return "stdout"
	}
	return "stderr"
}

func anyHost(ps []HostPattern, e evidence.Egress) bool {
	// A packet's port is known, 0 or none (ICMP) included: a TCP connect
	// to port 0 is no attempt at "host:443". A proxy request names its
	// port; only a DNS question has none to know.
	known := e.HasPort() || e.IP != "" && (e.Via == evidence.ViaConnect || e.Via == evidence.ViaLoopback)
	for _, p := range ps {
		if e.Host != "" && p.matchPort(e.Host, e.Port, known) {
			return true
		}
		if e.Host == "" && e.IP != "" && p.matchPort(e.IP, e.Port, known) {
			return true
		}
		// An attempt at the sandbox's loopback is, under Claude Code, one
		// at the host's: a listed localhost (what such a hook names)
		// takes 127.0.0.0/8 and ::1, as the host's resolver answers it.
		if e.Via == evidence.ViaLoopback && isLoopbackIP(e.IP) && p.matchPort("localhost", e.Port, known) {
			return true
		}
	}
	return false
}

// isLoopbackIP says whether s is an address in 127.0.0.0/8 or ::1.
func isLoopbackIP(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Unmap().IsLoopback()
}

func anyPath(ps []PathPattern, path, kind string) bool {
	for _, p := range ps {
		if p.MatchWrite(path, kind) {
			return true
		}
	}
	return false
}

func anyPathFolded(ps []PathPattern, path, kind string) bool {
	for _, p := range ps {
		if p.MatchFolded(path, kind) {
			return true
		}
	}
	return false
}

// hostList names the destinations of es in a sentence: the first five,
// then the attempts past the record's cap, which no name stands for (so
// that they are never cut off nor shown as a blank name).
func hostList(es []evidence.Egress) string {
	seen := map[string]bool{}
	var hs []string
	for _, e := range es {
		if e.Lumped() {
			continue
		}
		h := destName(e)
		if e.HasPort() {
			h = evidence.WithPort(h, e.Port)
		}
		if !seen[h] {
			seen[h] = true
			hs = append(hs, h)
		}
	}
	hs = firstN(hs, 5)
	if l := lumpedName(es); l != "" {
		hs = append(hs, l)
	}
	return strings.Join(hs, ", ")
}

// destName names one destination as evidence shows it: its host or
// address; for an entry that has neither, what it is: the attempts past
// the record's cap, or "(no host)" (a proxy request that named none,
// whose detail says more).
func destName(e evidence.Egress) string {
	if e.Lumped() {
		return fmt.Sprintf("destinations past the first %d, not recorded one by one,", evidence.MaxEgressEntries)
	}
	if h := egressHost(e); h != "" {
		return shownName(h)
	}
	return "(no host)"
}

// lumpedOf is the entries of es past the record's cap
// (evidence.Egress.Lumped), one per kind; nil when there are none.
func lumpedOf(es []evidence.Egress) []evidence.Egress {
	var out []evidence.Egress
	for _, e := range es {
		if e.Lumped() {
			out = append(out, e)
		}
	}
	return out
}

// lumpedName names the entries of es past the record's cap in a phrase:
// "N attempt(s) to destinations not recorded one by one (past the first
// 10000)"; "" when there are none.
func lumpedName(es []evidence.Egress) string {
	past := lumpedOf(es)
	if past == nil {
		return ""
	}
	n := 0
	for _, e := range past {
		n += e.Attempts
	}
	return fmt.Sprintf("%d attempt(s) to destinations not recorded one by one (past the first %d)", n, evidence.MaxEgressEntries)
}

func egressEvidence(es []evidence.Egress) string {
	var b strings.Builder
	for _, e := range es {
		state := "blocked"
		switch {
		case e.Allowed:
			state = "allowed"
		case e.Via == evidence.ViaLoopback:
			state = "nothing in the sandbox answered; under Claude Code the host's own"
		case e.AtLoopback():
			state = "the recording proxy refused it; under Claude Code the host's own"
		}
		dest := destName(e)
		if e.AtLoopback() {
			dest = evidence.WithPort(dest, e.Port) // the port is what it tried
		}
		fmt.Fprintf(&b, "%s via %s (%s, %d attempt(s))", dest, shownName(string(e.Via)), state, e.Attempts)
		if e.Detail != "" && !e.Lumped() { // a lumped entry's detail is what destName said
			b.WriteString(" " + shownName(e.Detail))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// shownName is a name the hook chose, or text it wrote, as a message
// shows it: as it is, or quoted (Go syntax) when it holds a control or
// format character, invalid UTF-8 or space at either end, so that a name
// with a newline cannot pass for a second line of evidence (a write or
// host that never happened), nor hide its own end. The paths and hosts
// of evidence lines go through evidence.ShownName, which also quotes a
// name with U+FFFD or a double quote first, so that no two show alike.
func shownName(s string) string {
	if evidence.OneLine(s) {
		return s
	}
	return strconv.Quote(s)
}

func patternList(ps []HostPattern) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Src)
	}
	return strings.Join(s, ", ")
}

func pathList(ps []PathPattern) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Src)
	}
	return strings.Join(s, ", ")
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}

// jsonPathSegments splits a json expectation's dotted path into its keys
// (or array indexes as numbers). A key that itself holds a '.' is written
// with it escaped, "\.", and a backslash as "\\": {"a": {"b.c": 1}} is
// reached by a.b\.c. An empty key (a path that is empty, or starts, ends
// or has ".." in it) and any other backslash are errors.
func jsonPathSegments(path string) ([]string, error) {
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '\\':
			if i+1 >= len(path) || path[i+1] != '.' && path[i+1] != '\\' {
				return nil, fmt.Errorf(`a backslash escapes only "." (a key that holds a dot, \.) or itself (\\)`)
			}
			i++
			cur.WriteByte(path[i])
		case '.':
			if cur.Len() == 0 {
				return nil, fmt.Errorf("an empty key: want keys joined by single dots, such as hookSpecificOutput.permissionDecision")
			}
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() == 0 {
		return nil, fmt.Errorf("an empty key: want keys joined by single dots, such as hookSpecificOutput.permissionDecision")
	}
	return append(segs, cur.String()), nil
}

// jsonPathOf follows the keys of a path through a decoded JSON value: a
// key through an object, an index (0, 1, …) through an array.
func jsonPathOf(v any, segs []string) (any, bool) {
	for _, seg := range segs {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			// An index as written in decimal, no sign or leading 0: "01"
			// and "+1" are keys, which an array has none of.
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != seg {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func showValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	}
	return clip(fmt.Sprint(v), 200)
}

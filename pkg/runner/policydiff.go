package runner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// The rules of a change that weakens its own check: a pull request is
// audited with the policy file and baseline it carries, so one that adds
// a hostile hook can, in the same diff, delete the check that would catch
// it or accept its hosts in the baseline, and the check passes. Compared
// with the base of the change (PolicyBase), each such change is named.
const (
	// RulePolicyWeakened is a change of the policy file, against the
	// base, that checks less: a check or an expectation removed, an
	// expectation relaxed, a hook run in the open or trusted, egress
	// widened, a limit or timeout lowered, a payload changed.
	RulePolicyWeakened = "policy/weakened"
	// RuleBaselineByPR is what the change's baseline accepts that the
	// base's did not: a host, a written path, a run, a server, a shell
	// line; or the baseline file removed.
	RuleBaselineByPR = "baseline/accepted-by-pr"
	// RulePolicyBase is a base that could not be read (a shallow clone
	// that lacks the base commit): nothing was compared, and the
	// message says how to fetch it.
	RulePolicyBase = "policy/base-unread"
)

// PolicyBase is the base of a change (a pull request's base commit, or
// the ref --policy-base names): the policy file and baseline as the base
// holds them, read by the caller (git, outside any sandbox), which the
// runner compares with the work tree's (comparePolicy, compareBaselines).
type PolicyBase struct {
	// Name says which base it is, in findings: "the pull request's base
	// 0123abcd…", "--policy-base main".
	Name string
	// Commit is the base's commit, which each finding's evidence names
	// (not its message: an alert keeps its fingerprint as the base moves).
	Commit string
	// Unread, where not "", says why the base could not be read (and
	// what to do): one RulePolicyBase warning, nothing compared.
	Unread string
	// Policy is the base's policy file, at the path of the work tree's;
	// PolicyThere is false where the base has none.
	Policy      []byte
	PolicyThere bool
	// Baseline is the base's baseline, at the path of the work tree's;
	// BaselineThere is false where the base has none.
	Baseline      []byte
	BaselineThere bool
	// Workflow, where not nil, is the workflow file the check runs in,
	// as the base and the change hold it (a pull_request event's): what
	// the change weakens of its vigiles steps is named (compareWorkflow).
	Workflow *WorkflowBase
	// Workflows are the repository's workflow files (.github/workflows),
	// each as the base and the change hold it, where no one file is
	// known to run the check (a local --policy-base): each that holds a
	// vigiles step on either side is compared as Workflow is, and one the
	// change deletes (Removed) whose base held one is named removed.
	Workflows []*WorkflowBase
	// WorkflowsLeft counts the workflow files past the bound the caller
	// reads, not compared: one RulePolicyBase notice says so.
	WorkflowsLeft int
}

// policyBaseFindings compares the work tree's policy file and baseline
// (b, or bErr where it could not be read; brel its path, "" where the
// audit compares with none) with those of the base.
func (s *session) policyBaseFindings(pb *PolicyBase, b *Baseline, bErr error, brel string) []report.Finding {
	if pb.Unread != "" {
		return []report.Finding{{Rule: RulePolicyBase, Severity: report.SeverityWarning, Location: report.Location{File: s.cfg.File},
			Title: "base not compared", Message: fmt.Sprintf("%s could not be read, so what this change does to %s and its baseline was not compared with it: %s", pb.Name, shownName(s.cfg.File), pb.Unread)}}
	}
	var finds []report.Finding
	if pb.PolicyThere {
		base, err := ParseConfig(s.cfg.File, pb.Policy)
		switch {
		case base == nil || err != nil:
			// A base whose policy vigiles cannot read whole is compared
			// with nothing: its own run said so then.
			finds = append(finds, report.Finding{Rule: RulePolicyBase, Severity: report.SeverityWarning, Location: report.Location{File: s.cfg.File},
				Title: "base not compared", Message: fmt.Sprintf("the policy file of %s does not parse, so this change's %s was not compared with it", pb.Name, shownName(s.cfg.File))})
		case s.policy == "":
			finds = append(finds, report.Finding{Rule: RulePolicyWeakened, Severity: report.SeverityWarning, Location: report.Location{File: s.cfg.File},
				Title: "policy weakened by this change", Message: fmt.Sprintf("this change removes the policy file %s that %s has, with its %d check(s) and every setting it gives", shownName(s.cfg.File), pb.Name, len(base.Checks))})
		default:
			head, _ := os.ReadFile(s.abs(s.cfg.File))
			finds = append(finds, comparePolicy(base, s.cfg, head, pb.Name)...)
		}
	} else if s.policy != "" {
		// A policy file the base has not at this path (added, or one the
		// workflow's config input now names) is compared with what the
		// base ran without it, vigiles' own defaults: what it trusts or
		// loosens of them is named. (The checks of a file the base has
		// elsewhere are not: the workflow is not compared.)
		head, _ := os.ReadFile(s.abs(s.cfg.File))
		finds = append(finds, comparePolicy(&Config{File: s.cfg.File}, s.cfg, head, pb.Name+" (which has no "+shownName(s.cfg.File)+")")...)
	}
	if brel != "" && !pb.BaselineThere && b != nil {
		// A baseline the base has not at this path (added, or moved
		// there by the workflow's baseline input) accepts all it holds
		// anew.
		head, _ := os.ReadFile(s.abs(brel))
		finds = append(finds, compareBaselines(&Baseline{}, b, brel, head, pb.Name+" (which has no "+shownName(brel)+")")...)
	}
	if brel != "" && pb.BaselineThere {
		switch {
		case b == nil && errors.Is(bErr, fs.ErrNotExist):
			finds = append(finds, report.Finding{Rule: RuleBaselineByPR, Severity: report.SeverityWarning, Location: report.Location{File: brel},
				Title: "baseline accepted by this change", Message: fmt.Sprintf("this change removes the baseline %s that %s has: nothing this audit saw is compared with what was accepted", shownName(brel), pb.Name)})
		case b != nil:
			base, err := baseOf(pb.Baseline, brel)
			if err != nil {
				finds = append(finds, report.Finding{Rule: RulePolicyBase, Severity: report.SeverityWarning, Location: report.Location{File: brel},
					Title: "base not compared", Message: fmt.Sprintf("the baseline of %s could not be read, so this change's %s was not compared with it: %v", pb.Name, shownName(brel), err)})
				break
			}
			head, _ := os.ReadFile(s.abs(brel))
			finds = append(finds, compareBaselines(base, b, brel, head, pb.Name)...)
		}
	}
	if pb.Workflow != nil {
		w := *pb.Workflow
		if w.File == "" {
			w.File = s.cfg.File // not known: said at the policy file
		}
		finds = append(finds, compareWorkflow(&w, pb.Name)...)
	}
	// One state for all: a composite action two workflow files use is
	// compared once, as each file they call is read once.
	st := newCallState()
	for _, w := range pb.Workflows {
		if w.Unread == "" && w.NotCompared == "" && !w.mayHoldVigilesStep() {
			continue // no check of vigiles' runs in it, before or after, nor a file it calls unread
		}
		finds = append(finds, compareDoc(w, pb.Name, st, 0)...)
	}
	if pb.WorkflowsLeft > 0 {
		finds = append(finds, report.Finding{Rule: RulePolicyBase, Severity: report.SeverityNotice, Location: report.Location{File: s.cfg.File}, Title: "workflow not compared",
			Message: fmt.Sprintf("%d workflow file(s) of .github/workflows past the first %d were not read, so what this change does to their vigiles steps was not compared with %s's", pb.WorkflowsLeft, len(pb.Workflows), pb.Name)})
	}
	if pb.Commit != "" {
		for i := range finds {
			finds[i].Evidence = "base commit " + pb.Commit
		}
	}
	return finds
}

// baseOf reads a base's baseline as loadBaseline reads the work tree's.
func baseOf(data []byte, shown string) (*Baseline, error) {
	f, err := os.CreateTemp("", "vigiles-base-baseline-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return loadBaseline(f.Name(), shown, Options{})
}

// policyChange is one weakening comparePolicy found: where in the work
// tree's policy file, and what.
type policyChange struct {
	at   report.Location
	what string
}

// comparePolicy names what the policy head (its file's text headData)
// checks less than base, each a RulePolicyWeakened warning: a check
// removed; in a check that remains, an expectation removed or relaxed,
// trusted: true, another hook, event, tool, input or payload, a lower
// timeout; defaults.sandbox lowered (strict, auto, off); egress widened
// (deny, record, allow; hosts or addresses added to allow); plugins
// trusted, or no longer untrusted; a timeout, linger, output cap or limit
// lowered; a payload changed or removed. A stronger policy gives none.
func comparePolicy(base, head *Config, headData []byte, baseName string) []report.Finding {
	var root *yaml.Node
	var doc yaml.Node
	if yaml.Unmarshal(headData, &doc) == nil && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	at := func(keys ...string) report.Location {
		loc := report.Location{File: head.File}
		n := root
		for _, k := range keys {
			v, key := mapValue(n, k)
			if key == nil {
				break
			}
			loc.Line, loc.Column = key.Line, key.Column
			n = v
		}
		return loc
	}
	var ch []policyChange
	add := func(l report.Location, format string, a ...any) {
		ch = append(ch, policyChange{l, fmt.Sprintf(format, a...)})
	}

	// Defaults.
	bd, hd := base.Defaults, head.Defaults
	if modeRank(hd.Sandbox) < modeRank(bd.Sandbox) {
		add(at("defaults", "sandbox"), "defaults.sandbox is %s, where it was %s", modeName(hd.Sandbox), modeName(bd.Sandbox))
	}
	be, he := egressOf(bd.Egress), egressOf(hd.Egress)
	if egressRank(he.Mode) < egressRank(be.Mode) {
		add(at("defaults", "egress", "mode"), "defaults.egress.mode is %s, where it was %s", egressName(he.Mode), egressName(be.Mode))
	}
	if added := addedOf(be.Allow, he.Allow, strings.ToLower); len(added) > 0 {
		add(at("defaults", "egress", "allow"), "defaults.egress.allow adds %s", quoteList(added))
	}
	if added := addedOf(be.AllowIP, he.AllowIP, strings.ToLower); len(added) > 0 {
		add(at("defaults", "egress", "allow-ip"), "defaults.egress.allow-ip adds %s", quoteList(added))
	}
	if be.DNSUpstream != he.DNSUpstream && he.DNSUpstream != "" {
		add(at("defaults", "egress", "dns-upstream"), "defaults.egress.dns-upstream is %q, where it was %q", he.DNSUpstream, be.DNSUpstream)
	}
	if lowered(bd.Timeout, hd.Timeout) {
		add(at("defaults", "timeout"), "defaults.timeout is %s, where it was %s", hd.Timeout, durationName(bd.Timeout))
	} else if hd.Timeout == 0 && bd.Timeout > sandbox.DefaultTimeout {
		// Unset, a hook that gives no timeout of its own waits vigiles'
		// default, shorter than the base's.
		add(at("defaults"), "defaults.timeout is not set (a hook without its own timeout waits %s), where it was %s", sandbox.DefaultTimeout, bd.Timeout)
	}
	if hd.RootSandbox && !bd.RootSandbox {
		add(at("defaults", "root-sandbox"), "defaults.root-sandbox is true: a root caller's sandbox runs as the host's root, which reads root-only files, where it ran as an unprivileged uid")
	}
	if bd.Linger > 0 && hd.Linger < bd.Linger {
		add(at("defaults", "linger"), "defaults.linger is %s, where it was %s", hd.Linger, bd.Linger)
	}
	if bc := cmp.Or(uint64(bd.OutputCap), sandbox.DefaultOutputCap); cmp.Or(uint64(hd.OutputCap), sandbox.DefaultOutputCap) < bc {
		add(at("defaults", "output-cap"), "defaults.output-cap is %s, where it was %s", FormatSize(uint64(hd.OutputCap)), FormatSize(bc))
	}
	bl, hl := bd.Limits.WithDefaults(), hd.Limits.WithDefaults()
	for _, l := range []struct {
		key  string
		b, h uint64
		size bool
	}{
		{"pids", uint64(bl.Pids), uint64(hl.Pids), false},
		{"memory", bl.MemoryBytes, hl.MemoryBytes, true},
		{"run-memory", bl.RunMemoryBytes, hl.RunMemoryBytes, true},
		{"file-size", bl.FileBytes, hl.FileBytes, true},
		{"scratch", bl.ScratchBytes, hl.ScratchBytes, true},
		{"cpu-seconds", bl.CPUSeconds, hl.CPUSeconds, false},
		{"open-files", bl.OpenFiles, hl.OpenFiles, false},
	} {
		b, h := l.b, l.h
		if h >= b {
			continue
		}
		bs, hs := strconv.FormatUint(b, 10), strconv.FormatUint(h, 10)
		if l.size {
			bs, hs = FormatSize(b), FormatSize(h)
		}
		add(at("defaults", "limits", l.key), "defaults.limits.%s is %s, where it was %s: a hook starved of it may do less than it would", l.key, hs, bs)
	}

	// Plugins.
	if added := addedOf(base.Trusted, head.Trusted, nil); len(added) > 0 {
		add(at("plugins", "trusted"), "plugins.trusted adds %s: a trusted plugin's hooks run in the open, unrecorded, in auto mode", quoteList(added))
	}
	// plugins.untrusted takes a plugin back from plugins.trusted: an
	// entry gone weakens only where something is trusted.
	if gone := addedOf(head.Untrusted, base.Untrusted, nil); len(gone) > 0 && len(head.Trusted) > 0 {
		add(at("plugins", "untrusted"), "plugins.untrusted no longer lists %s", quoteList(gone))
	}

	// Payloads.
	for _, tool := range slices.Sorted(maps.Keys(base.Payloads)) {
		hp, ok := head.Payloads[tool]
		switch {
		case !ok:
			add(at("payloads"), "payloads no longer gives %q's input (%s)", tool, compactJSON(base.Payloads[tool]))
		case !reflect.DeepEqual(hp, base.Payloads[tool]):
			add(at("payloads", tool), "payloads.%s is %s, where it was %s", tool, compactJSON(hp), compactJSON(base.Payloads[tool]))
		}
	}
	// A payload for a tool the base gave none replaces the default input
	// every hook of that tool is sent, as a changed one does.
	for _, tool := range slices.Sorted(maps.Keys(head.Payloads)) {
		if _, ok := base.Payloads[tool]; !ok {
			add(at("payloads", tool), "payloads.%s is %s, where the base sent vigiles' default input", tool, compactJSON(head.Payloads[tool]))
		}
	}

	// Checks.
	heads := map[string]*Check{}
	for _, c := range head.Checks {
		if c != nil {
			heads[c.Name] = c
		}
	}
	for _, bc := range base.Checks {
		if bc == nil {
			continue
		}
		hc, ok := heads[bc.Name]
		if !ok {
			kinds := make([]string, 0, len(bc.Expect))
			for _, x := range bc.Expect {
				kinds = append(kinds, x.Kind)
			}
			add(at("checks"), "the check %q is removed (it expected %s)", bc.Name, noneIfEmpty(strings.Join(kinds, ", ")))
			continue
		}
		ch = append(ch, compareCheck(bc, hc, bd.Timeout, hd.Timeout)...)
	}

	finds := make([]report.Finding, 0, len(ch))
	for _, c := range ch {
		finds = append(finds, report.Finding{Rule: RulePolicyWeakened, Severity: report.SeverityWarning, Location: c.at,
			Title: "policy weakened by this change", Message: fmt.Sprintf("against %s, %s: this change checks less than its base, so a check that passes here may pass only for that; review it as part of the change", baseName, c.what)})
	}
	return finds
}

// compareCheck names what the check hc checks less than bc, of the same
// name; bdt and hdt are the base's and the head's defaults.timeout.
func compareCheck(bc, hc *Check, bdt, hdt time.Duration) []policyChange {
	var ch []policyChange
	add := func(l report.Location, format string, a ...any) {
		ch = append(ch, policyChange{l, fmt.Sprintf("the check %q: ", hc.Name) + fmt.Sprintf(format, a...)})
	}
	if hc.Trusted && !bc.Trusted {
		add(hc.Loc, "trusted: true, where it was confined: its hook runs in the open, unrecorded, in auto mode")
	}
	if hc.Hook != bc.Hook || hc.Command != bc.Command {
		add(orLoc(hc.HookLoc, hc.Loc), "runs %s, where it ran %s", checkTarget(hc), checkTarget(bc))
	}
	if hc.Event != bc.Event || hc.Tool != bc.Tool {
		add(hc.Loc, "sends %s, where it sent %s", eventTool(hc), eventTool(bc))
	}
	if !reflect.DeepEqual(hc.Input, bc.Input) {
		add(hc.Loc, "sends the input %s, where it sent %s", compactJSON(hc.Input), compactJSON(bc.Input))
	}
	if !reflect.DeepEqual(hc.Payload, bc.Payload) {
		add(hc.Loc, "sends the payload %s, where it sent %s", compactJSON(hc.Payload), compactJSON(bc.Payload))
	}
	if !slices.Equal(sortedEnv(hc.Env), sortedEnv(bc.Env)) {
		// What the hook reads of its environment is its input too: a
		// variable it acts on (CLAUDE_CODE_REMOTE) can keep it quiet.
		add(hc.Loc, "sets the environment [%s], where it set [%s]", quoteList(hc.Env), quoteList(bc.Env))
	}
	if lowered(bc.Timeout, hc.Timeout) {
		add(hc.Loc, "timeout is %s, where it was %s", hc.Timeout, durationName(bc.Timeout))
	} else if hc.Timeout == 0 && bc.Timeout > 0 {
		// Unset, the hook waits its own timeout up to defaults.timeout,
		// else defaults.timeout, else vigiles' default.
		switch {
		case hdt > 0 && hdt < bc.Timeout:
			add(hc.Loc, "timeout is not set (the hook waits at most %s, defaults.timeout), where it was %s", hdt, bc.Timeout)
		case hdt == 0 && sandbox.DefaultTimeout < bc.Timeout:
			add(hc.Loc, "timeout is not set (the hook waits its own timeout, else %s), where it was %s", sandbox.DefaultTimeout, bc.Timeout)
		}
	}
	heads := map[string]*Expectation{}
	for _, x := range hc.Expect {
		heads[x.Kind] = x
	}
	for _, bx := range bc.Expect {
		hx, ok := heads[bx.Kind]
		if !ok {
			add(hc.Loc, "the expectation %s is removed (it was %s)", bx.Kind, expectationText(bx))
			continue
		}
		if why := relaxed(bx, hx); why != "" {
			add(hx.Loc, "%s %s", bx.Kind, why)
		}
	}
	return ch
}

// relaxed says how hx expects less than bx, of one kind; "" where it
// does not.
func relaxed(bx, hx *Expectation) string {
	switch bx.Kind {
	case ExpNoEgress, ExpNoEnvFile:
		return "" // true, or not there
	case ExpEgressOnly:
		if added := addedOf(hostSrcs(bx.Hosts), hostSrcs(hx.Hosts), strings.ToLower); len(added) > 0 {
			return "adds " + quoteList(added)
		}
	case ExpWroteOnly:
		if added := addedOf(pathSrcs(bx.Paths), pathSrcs(hx.Paths), nil); len(added) > 0 {
			return "adds " + quoteList(added)
		}
	case ExpNoWrite:
		if slices.Contains(pathSrcs(hx.Paths), "**") {
			return "" // no-write: true, every path
		}
		if gone := addedOf(pathSrcs(hx.Paths), pathSrcs(bx.Paths), nil); len(gone) > 0 {
			return "no longer forbids " + quoteList(gone) + " (now " + expectationText(hx) + ")"
		}
	case ExpMaxDuration:
		if hx.Duration > bx.Duration {
			return fmt.Sprintf("is %s, where it was %s", hx.Duration, bx.Duration)
		}
	case ExpJSON:
		heads := map[string]any{}
		for _, w := range hx.JSON {
			heads[w.Path] = w.Value
		}
		var out []string
		for _, w := range bx.JSON {
			v, ok := heads[w.Path]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("no longer expects %q (it was %s)", w.Path, compactJSON(w.Value)))
			case !reflect.DeepEqual(v, w.Value):
				out = append(out, fmt.Sprintf("expects %q to be %s, where it was %s", w.Path, compactJSON(v), compactJSON(w.Value)))
			}
		}
		return strings.Join(out, "; ")
	default:
		if b, h := expectationText(bx), expectationText(hx); b != h {
			return fmt.Sprintf("is %s, where it was %s", h, b)
		}
	}
	return ""
}

// expectationText is an expectation's value as a finding shows it.
func expectationText(x *Expectation) string {
	switch x.Kind {
	case ExpExitCode:
		return strconv.Itoa(x.Int)
	case ExpBlocked, ExpAllowed, ExpNoEgress, ExpNoEnvFile:
		return strconv.FormatBool(x.Bool || x.Kind == ExpNoEgress || x.Kind == ExpNoEnvFile)
	case ExpEgressOnly:
		return "[" + quoteList(hostSrcs(x.Hosts)) + "]"
	case ExpNoWrite, ExpWroteOnly:
		return "[" + quoteList(pathSrcs(x.Paths)) + "]"
	case ExpMaxDuration:
		return x.Duration.String()
	case ExpJSON:
		parts := make([]string, 0, len(x.JSON))
		for _, w := range x.JSON {
			parts = append(parts, strconv.Quote(w.Path)+": "+compactJSON(w.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return strconv.Quote(x.Str)
}

// compareBaselines names what the baseline head (its file's text
// headData, at file) accepts that base did not, each a RuleBaselineByPR
// warning: a run it did not know, a host or written path added to a run,
// another outcome, command or decision, processes left running, a server,
// a hook not run or a shell line accepted. (A script rewritten under the
// same command, whose new hash the baseline keeps, is in the diff as
// code: not named again.) A baseline that accepts less
// gives none.
func compareBaselines(base, head *Baseline, file string, headData []byte, baseName string) []report.Finding {
	text := string(headData)
	lineOf := func(needles ...string) report.Location {
		loc := report.Location{File: file}
		from := 0
		for _, n := range needles {
			q, _ := json.Marshal(n)
			i := strings.Index(text[from:], string(q))
			if i < 0 {
				break
			}
			from += i
			loc.Line = strings.Count(text[:from], "\n") + 1
		}
		return loc
	}
	var finds []report.Finding
	add := func(l report.Location, format string, a ...any) {
		finds = append(finds, report.Finding{Rule: RuleBaselineByPR, Severity: report.SeverityWarning, Location: l,
			Title: "baseline accepted by this change", Message: fmt.Sprintf("against %s, this change's baseline ", baseName) + fmt.Sprintf(format, a...) +
				": the pull request under review accepts it for itself, so the audit compares with what it chose; review it as part of the change"})
	}
	for _, id := range slices.Sorted(maps.Keys(head.Runs)) {
		hr := head.Runs[id]
		br, ok := base.Runs[id]
		if !ok {
			var what []string
			if len(hr.Hosts) > 0 {
				what = append(what, "the host(s) "+quoteList(hr.Hosts))
			}
			if len(hr.Writes) > 0 {
				what = append(what, "the write(s) "+quoteList(hr.Writes))
			}
			add(lineOf(id), "accepts a run its base did not know, %q (%s, command %q), with %s", id, noneIfEmpty(hr.Event), hr.Command, noneIfEmpty(strings.Join(what, " and ")))
			continue
		}
		if added := addedOf(br.Hosts, hr.Hosts, strings.ToLower); len(added) > 0 {
			add(lineOf(id, added[0]), "accepts for %q the host(s) %s", id, quoteList(added))
		}
		if added := addedOf(br.Writes, hr.Writes, nil); len(added) > 0 {
			add(lineOf(id, added[0]), "accepts for %q the write(s) %s", id, quoteList(added))
		}
		if hr.Outcome != br.Outcome {
			add(lineOf(id), "accepts for %q the outcome %s, where it was %s", id, hr.Outcome, br.Outcome)
		}
		if hr.Command != br.Command && br.Command != "" {
			add(lineOf(id), "accepts for %q the command %q, where it was %q", id, hr.Command, br.Command)
		}
		if hr.Context != br.Context && br.Context != "" {
			// The audit names a run in another context (contextDrift),
			// and one without a context it does not compare.
			if hr.Context == "" {
				add(lineOf(id), "accepts for %q any context (no \"context\"), where it ran as %q's", id, br.Context)
			} else {
				add(lineOf(id), "accepts for %q that it runs as %q's, where it ran as %q's", id, hr.Context, br.Context)
			}
		}
		if hr.Decides != br.Decides {
			add(lineOf(id), "accepts for %q that it decides %s, where it was %s", id, noneIfEmpty(hr.Decides), noneIfEmpty(br.Decides))
		}
		if hr.Lingered && !br.Lingered {
			add(lineOf(id), "accepts that %q leaves processes running", id)
		}
		if h := orNothing(hr.Env); h != "" && h != orNothing(br.Env) {
			// The audit compares the env file with the baseline's text:
			// what it accepts there Claude Code runs before each Bash
			// command.
			add(lineOf(id, "env"), "accepts that %q leaves %q in CLAUDE_ENV_FILE, which Claude Code runs before each Bash command, where it was %q", id, cutBytes(h, maxEvidence), cutBytes(orNothing(br.Env), maxEvidence))
		}
		if hr.Type != br.Type || hr.Declared != br.Declared {
			add(lineOf(id), "accepts for %q the hook declared as %s, where it was %s", id, declText(hr), declText(br))
		}
		for _, p := range slices.Sorted(maps.Keys(hr.Links)) {
			if t, ok := br.Links[p]; !ok || t != hr.Links[p] {
				add(lineOf(id, p), "accepts for %q the symbolic link %q to %q", id, p, hr.Links[p])
			}
		}
		if br.Deleted != nil {
			if added := addedOf(br.Deleted, hr.Deleted, nil); len(added) > 0 {
				add(lineOf(id, added[0]), "accepts for %q the deletion of %s", id, quoteList(added))
			}
			if hr.Deleted == nil && len(hr.Writes) > 0 {
				add(lineOf(id), "accepts for %q its writes whatever was done to them (no \"deleted\"), where it said which it deleted", id)
			}
		}
		if br.Files != nil && hr.Files == nil {
			add(lineOf(id), "accepts for %q any files of the tree under its command (no \"files\"), where it kept their hashes", id)
		}
	}
	if base.NotRunFiles != nil && head.NotRunFiles == nil && len(head.NotRun) > 0 {
		add(lineOf("notRun"), "accepts the hooks it lists as not run whatever files of the tree their commands run (no \"notRunFiles\"), where it kept their hashes")
	}
	for _, list := range []struct {
		name       string
		base, head []BaselineServer
	}{{"servers", base.Servers, head.Servers}, {"projectServers", base.ProjectServers, head.ProjectServers}} {
		known := map[string]bool{}
		for _, sv := range list.base {
			known[serverKey(sv)] = true
		}
		for _, sv := range list.head {
			if !known[serverKey(sv)] {
				add(lineOf(list.name, sv.Name), "accepts the %s %q of %s, which starts %q", sv.Kind, sv.Name, sv.Context, sv.Starts)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(head.NotRun)) {
		if c, ok := base.NotRun[id]; !ok || c != head.NotRun[id] {
			add(lineOf("notRun", id), "accepts %q as not run, with the command %q", id, head.NotRun[id])
		}
	}
	known := map[string]bool{}
	for _, l := range base.SkillShells {
		known[compactJSON(l)] = true
	}
	for _, l := range head.SkillShells {
		if !known[compactJSON(l)] {
			add(lineOf("skillShells", l.Command), "accepts the shell line %q of %s", l.Command, l.File)
		}
	}
	return finds
}

// declText is a listed hook's type and handler as a finding shows them.
func declText(r BaselineRun) string {
	return fmt.Sprintf("type %s, declared %q", noneIfEmpty(r.Type), r.Declared)
}

// serverKey is all a baseline keeps of a server but where it is declared.
func serverKey(sv BaselineServer) string {
	sv.Plugin, sv.File = "", ""
	return compactJSON(sv)
}

// mapValue is the value of key in the mapping n, and the key's node; nil
// where n is no mapping or lacks it.
func mapValue(n *yaml.Node, key string) (v, k *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1], n.Content[i]
		}
	}
	return nil, nil
}

func modeRank(m sandbox.Mode) int {
	switch m {
	case sandbox.ModeOff:
		return 0
	case sandbox.ModeStrict:
		return 2
	}
	return 1 // auto, or not set
}

func modeName(m sandbox.Mode) string {
	if m == "" {
		return "not set (auto)"
	}
	return string(m)
}

func egressOf(p *evidence.EgressPolicy) evidence.EgressPolicy {
	if p == nil {
		return evidence.EgressPolicy{}
	}
	return *p
}

func egressRank(mode string) int {
	switch mode {
	case "allow":
		return 0
	case "record":
		return 1
	}
	return 2 // deny, or not set
}

func egressName(mode string) string {
	if mode == "" {
		return "not set (deny)"
	}
	return mode
}

// lowered says whether a timeout now, set, is shorter than before, or set
// where before none was (the hook's own, or the default, applied).
func lowered(before, now time.Duration) bool {
	return now > 0 && (before == 0 || now < before)
}

// sortedEnv is a check's env, NAME=VALUE, in one order: the order
// written sets nothing.
func sortedEnv(env []string) []string {
	out := slices.Clone(env)
	slices.Sort(out)
	return out
}

func durationName(d time.Duration) string {
	if d == 0 {
		return "not set"
	}
	return d.String()
}

// addedOf is what now holds that before does not, each once, in now's
// order; norm, where not nil, is how two are compared.
func addedOf(before, now []string, norm func(string) string) []string {
	if norm == nil {
		norm = func(s string) string { return s }
	}
	had := map[string]bool{}
	for _, b := range before {
		had[norm(b)] = true
	}
	var out []string
	for _, n := range now {
		if !had[norm(n)] {
			had[norm(n)] = true
			out = append(out, n)
		}
	}
	return out
}

func hostSrcs(hs []HostPattern) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Src
	}
	return out
}

func pathSrcs(ps []PathPattern) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Src
	}
	return out
}

// quoteList is each string Go-quoted, comma-separated: a name with a
// line break or a quote in it shows as one.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%q", fmt.Sprint(v))
	}
	return string(b)
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func orLoc(l, or report.Location) report.Location {
	if l.Line > 0 {
		return l
	}
	return or
}

func checkTarget(c *Check) string {
	if c.Command != "" {
		return fmt.Sprintf("the command %q", c.Command)
	}
	return fmt.Sprintf("the hook %q", c.Hook)
}

func eventTool(c *Check) string {
	if c.Tool == "" {
		return noneIfEmpty(c.Event)
	}
	return c.Event + " of " + c.Tool
}

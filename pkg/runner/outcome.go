package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// Decision is a hook's outcome as the agent would read it.
type Decision struct {
	Outcome string // report.Outcome*
	Reason  string
	// Output is stdout parsed as JSON when stdout is a JSON value, on any
	// exit code (Claude Code reads JSON on every one); nil otherwise, and
	// nil when stdout was cut at the output cap (what was kept is not
	// what the agent reads).
	Output any
	// Unread, where Output is set, says why Claude Code reads none of it
	// as JSON: it is no object (an array is text to it), or it fails
	// Claude Code's output schema (a non-blocking error); "" where it
	// reads it.
	Unread string
	// FailBlocked says the hook failed and its handler's onFailure
	// "block" made Claude Code block the call (failBlocks); Failure then
	// says how it failed ("exit status 1", "its JSON output does not
	// parse").
	FailBlocked bool
	Failure     string
	// BadJSON, on an event whose decision model reads JSON, says how
	// stdout is JSON Claude Code cannot read, a failure of the hook's:
	// an object that fails its schema, or text from "{" to "}" that does
	// not parse; "" otherwise.
	BadJSON string
	// NoPath says a hook whose stdout is a path (WorktreeCreate) exited
	// 0 and printed none: it fails the action it was to do.
	NoPath bool
	// AsyncResponse says the first line of stdout is an async response
	// ({"async": true}, asyncFirstLine): Claude Code backgrounds the
	// hook there and goes on, so nothing after it decides, its exit
	// status and an onFailure neither.
	AsyncResponse bool
}

// decidesOf is what output d read tells Claude Code to do with the call
// besides blocking it (report.HookRun.Decides): the fields of
// hookSpecificOutput, as far as the event reads them (dropUnread), that
// approve the call or change what it does or
// what Claude sees of it, or answer an elicitation (action, content),
// and a top-level decision "approve", as
// compact JSON with sorted keys; "" where it says none of them, or Claude
// Code does not read it (Decision.Unread). Free text (reasons, context,
// messages) is left out: it differs from run to run, and changes no call.
// So is a permissionDecision or a PermissionRequest decision's behavior
// "deny" (dropDeny): that is a block, which the outcome says, as it says
// exit 2's and a decision "block"'s.
func decidesOf(d Decision) string {
	obj, ok := d.Output.(map[string]any)
	if !ok || d.Unread != "" {
		return ""
	}
	hso, _ := obj["hookSpecificOutput"].(map[string]any)
	keep := map[string]any{}
	for _, k := range []string{"permissionDecision", "updatedInput", "updatedPermissions", "updatedToolOutput", "updatedMCPToolOutput", "action", "content"} {
		if v, ok := hso[k]; ok {
			keep[k] = v
		}
	}
	if s, _ := obj["decision"].(string); s == "approve" {
		// The deprecated top-level approve, which PreToolUse reads as
		// permissionDecision allow: the call goes ahead unasked, where no
		// rule of the settings denies it or asks.
		keep["decision"] = s
	}
	name, _ := hso["hookEventName"].(string)
	// Only an event that reads a decision object (PermissionRequest) has
	// it replace a top-level approve.
	if dec, ok := hso["decision"].(map[string]any); ok && slices.Contains(hookSpecificFields[name], "decision") {
		sub := map[string]any{}
		for _, k := range []string{"behavior", "updatedInput", "updatedPermissions"} {
			if v, ok := dec[k]; ok {
				sub[k] = v
			}
		}
		if len(sub) > 0 {
			keep["decision"] = sub
		}
	}
	dropUnread(name, keep)
	dropDeny(keep)
	return encodeDecides(keep)
}

// dropUnread deletes from keep, what decidesOf keeps of a
// hookSpecificOutput of event, what Claude Code does not read there
// (hooks.md, each event's decision control): a field the event has none
// of (hookSpecificFields: a PreModelSwitch's updatedInput, a PreToolUse
// decision object, which only PermissionRequest reads), a PreToolUse
// updatedInput beside permissionDecision "defer", which ignores it, and
// a PermissionRequest decision's updatedInput and updatedPermissions but
// beside behavior "allow", the only one that reads them. A top-level
// decision "approve" (a string) is no field of hookSpecificOutput, and
// stays.
func dropUnread(event string, keep map[string]any) {
	for k, v := range keep {
		if _, approve := v.(string); k == "decision" && approve {
			continue
		}
		if !slices.Contains(hookSpecificFields[event], k) {
			delete(keep, k)
		}
	}
	if keep["permissionDecision"] == "defer" {
		delete(keep, "updatedInput")
	}
	if sub, ok := keep["decision"].(map[string]any); ok {
		if sub["behavior"] != "allow" {
			delete(sub, "updatedInput")
			delete(sub, "updatedPermissions")
		}
		if len(sub) == 0 {
			delete(keep, "decision")
		}
	}
}

// dropDeny deletes from keep, what decidesOf keeps, a permissionDecision
// "deny" and a decision's behavior "deny", and a decision that has
// nothing else.
func dropDeny(keep map[string]any) {
	if keep["permissionDecision"] == "deny" {
		delete(keep, "permissionDecision")
	}
	if sub, ok := keep["decision"].(map[string]any); ok && sub["behavior"] == "deny" {
		delete(sub, "behavior")
		if len(sub) == 0 {
			delete(keep, "decision")
		}
	}
}

// decidesAsKept is a Decides a baseline keeps, of a run of event, as
// decidesOf now gives it: without the deny an earlier vigiles kept
// (dropDeny), which is no change of what the hook tells Claude Code, nor
// what an earlier vigiles kept that Claude Code does not read there
// (dropUnread: an updatedInput beside "defer"), which changes nothing of
// the call either. One that is not an object is returned as it is.
func decidesAsKept(event, s string) string {
	if s == "" {
		return s
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var keep map[string]any
	// Only white space may follow the object, as in ParseOutput:
	// dec.More() would let a "}" or "]" after it pass.
	if err := dec.Decode(&keep); err != nil || keep == nil || strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return s
	}
	dropUnread(event, keep)
	dropDeny(keep)
	return encodeDecides(keep)
}

// encodeDecides is keep as compact JSON with sorted keys, "" for none.
func encodeDecides(keep map[string]any) string {
	if len(keep) == 0 {
		return ""
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(keep); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxReason bounds the reason copied from hook output.
const maxReason = 2000

// clip trims s and cuts it to at most n bytes (cutBytes).
func clip(s string, n int) string {
	return cutBytes(strings.TrimSpace(s), n)
}

// jsTrim is s without the white space JavaScript's trim() takes off its
// ends, as Claude Code trims a hook's stdout before it looks for JSON:
// not Go's (a byte order mark, U+FEFF, is trimmed; a NEL, U+0085, is
// not).
func jsTrim(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

// ParseOutput parses a hook's stdout as JSON when it is JSON, trimmed as
// Claude Code trims it (jsTrim).
func ParseOutput(stdout []byte) (any, bool) {
	t := jsTrim(string(stdout))
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	// Nothing may follow the value (t is trimmed), as JSON.parse takes
	// it: dec.More() would let a "}" or "]" after it pass.
	if err := dec.Decode(&v); err != nil || dec.InputOffset() != int64(len(t)) {
		return nil, false
	}
	return normalizeJSON(v), true
}

// asyncFirstLine says whether the first line of stdout is an async
// response as Claude Code reads it while the hook runs: at the first
// chunk of output in which that line holds a "}", it trims the line
// (jsTrim) and parses it, and on a JSON object whose async is true it
// backgrounds the hook. The chunks are the hook's to make: it may end
// one where its first object closes and go on on the same line after,
// so the line is read up to there (objectEnd).
func asyncFirstLine(stdout []byte) bool {
	first, _, _ := bytes.Cut(stdout, []byte("\n")) // not a copy of all of stdout
	line := jsTrim(string(first))
	end := objectEnd(line)
	if end < 0 {
		return false
	}
	var v map[string]any
	if json.Unmarshal([]byte(line[:end]), &v) != nil {
		return false
	}
	async, _ := v["async"].(bool)
	return async
}

// objectEnd is the length of the JSON object s starts with, to the "}"
// that closes it (outside strings); -1 where s starts with no "{" or
// the object does not close.
func objectEnd(s string) int {
	if !strings.HasPrefix(s, "{") {
		return -1
	}
	end := -1
	depths(s, func(i, depth int) bool {
		if depth == 0 {
			end = i + 1
			return false
		}
		return true
	})
	return end
}

// depths calls at, for each bracket of s ('[', '{', ']', '}') outside
// JSON strings in turn, with its index and the depth after it (1 after
// the first opening), while at returns true.
func depths[T string | []byte](s T, at func(i, depth int) bool) {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == '}' || c == ']':
			if c == '{' || c == '[' {
				depth++
			} else {
				depth--
			}
			if !at(i, depth) {
				return
			}
		}
	}
}

// isAsyncResponse says whether obj passes Claude Code's schema of an
// async response: async true, and an asyncTimeout, if any, a number.
func isAsyncResponse(obj map[string]any) bool {
	if a, _ := obj["async"].(bool); !a {
		return false
	}
	if v, ok := obj["asyncTimeout"]; ok {
		_, num := v.(float64)
		return num
	}
	return true
}

// maxOutputDepth is how deep encoding/json nests (its scanner's
// maxNestingDepth): a value deeper does not parse there.
const maxOutputDepth = 10000

// nestsTooDeep says whether stdout opens more than maxOutputDepth arrays
// and objects at once, outside strings, so that ParseOutput fails on it
// whatever else it holds.
func nestsTooDeep(stdout []byte) bool {
	deep := false
	depths(stdout, func(_, depth int) bool {
		deep = depth > maxOutputDepth
		return !deep
	})
	return deep
}

// normalizeJSON turns json.Number into float64 so values compare like
// YAML values do.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}

// eventRules are the per-event exceptions to how Claude Code reads a
// finished hook (hooks.md, "Exit code 2 behavior per event" and "Decision
// control"). An event missing from outcomeRules takes the zero value: exit
// 2 blocks and every decision field is honoured, the reading that lets
// the least pass.
type eventRules struct {
	// exit2Allows: exit 2 does not block the event.
	exit2Allows bool
	// ignoresOutput: Claude Code ignores the exit code and discards the
	// JSON decision fields; the hook can only have side effects.
	ignoresOutput bool
	// ignoresContinue: `continue: false` is discarded.
	ignoresContinue bool
	// noDecision: top-level `decision: "block"` has no effect.
	noDecision bool
	// exit2SkipsJSON: on exit 2 Claude Code reads none of the JSON
	// output (neither hookSpecificOutput nor a decision's reason): the
	// reason is stderr's.
	exit2SkipsJSON bool
	// pathOutput: a command hook's stdout is a path, not JSON
	// (WorktreeCreate): any non-zero exit, or no path, fails the action
	// (decidePath).
	pathOutput bool
	// nonZeroFails: any exit status but 0, or a kill, fails the action
	// (WorktreeRemove), whatever the hook prints; with ignoresOutput,
	// nothing else it does decides.
	nonZeroFails bool
	// unblockable are the matcher values whose event the hook cannot
	// block, whatever it answers (ConfigChange of policy_settings).
	unblockable []string
}

// failsOnNonZero says whether any exit status but 0, or a kill, fails the
// action: WorktreeRemove's (nonZeroFails) and WorktreeCreate's, whose
// stdout is a path (pathOutput).
func (r eventRules) failsOnNonZero() bool { return r.nonZeroFails || r.pathOutput }

// jsonDecides says whether any JSON output can block event: a JSON
// decision the rules honour.
func (r eventRules) jsonDecides(event string) bool {
	if r.ignoresOutput || r.pathOutput {
		return false
	}
	switch event {
	case PreToolUse, PermissionRequest, Elicitation, ElicitationResult, PreModelSwitch:
		return true
	}
	return !r.ignoresContinue || !r.noDecision
}

// canBlock says whether a hook of event can leave a call whose matcher
// value is value blocked at all: by exit 2, by any non-zero exit or no
// path (failsOnNonZero), or by JSON the rules honour; never for a value
// the event cannot be blocked for (unblockable).
func (r eventRules) canBlock(event, value string) bool {
	if value != "" && slices.Contains(r.unblockable, value) {
		return false
	}
	return !r.exit2Allows || r.failsOnNonZero() || r.jsonDecides(event)
}

// BlockingEvents lists the events a hook can block, in the order of a
// session: on the others nothing it exits with or prints blocks.
func BlockingEvents() []string {
	var out []string
	for _, ev := range docEvents {
		if outcomeRules[ev].canBlock(ev, "") {
			out = append(out, ev)
		}
	}
	return out
}

var outcomeRules = map[string]eventRules{
	// PostToolUse and PostToolUseFailure keep exit 2 as a block: their
	// stderr goes to Claude as `decision: "block"` feedback does (the
	// tool has run either way).
	PermissionRequest: {exit2Allows: true, noDecision: true},
	Notification:      {exit2Allows: true, ignoresOutput: true, ignoresContinue: true, noDecision: true},
	SessionStart:      {exit2Allows: true, noDecision: true},
	// Setup: "On every exit code, Claude Code discards a Setup hook's
	// JSON output fields, such as systemMessage, continue, and
	// hookSpecificOutput.additionalContext"; its exit code is ignored.
	Setup:       {exit2Allows: true, ignoresOutput: true, ignoresContinue: true, noDecision: true},
	SessionEnd:  {exit2Allows: true, ignoresOutput: true, ignoresContinue: true, noDecision: true},
	CwdChanged:  {exit2Allows: true, ignoresContinue: true, noDecision: true},
	FileChanged: {exit2Allows: true, ignoresContinue: true, noDecision: true},
	PostCompact: {exit2Allows: true, ignoresContinue: true, noDecision: true},
	PreCompact:  {ignoresContinue: true},

	// The events added with the current hooks reference, each as its
	// row of "Exit code 2 behavior per event" and "Decision control", and
	// its own section, have it.
	//
	// UserPromptExpansion and PostToolBatch take the zero value: exit 2
	// blocks (the expansion; the loop before the next model call), and
	// so do top-level `decision: "block"` and `continue: false`.
	UserPromptExpansion: {},
	PostToolBatch:       {},
	// PermissionDenied: the denial already happened; exit code and
	// stderr are ignored, and hookSpecificOutput.retry only tells the
	// model it may retry.
	PermissionDenied: {exit2Allows: true, noDecision: true},
	// MessageDisplay: display-only; a failing hook shows the original
	// text, displayContent is read, systemMessage and continue discarded.
	MessageDisplay: {exit2Allows: true, ignoresContinue: true, noDecision: true},
	// SubagentStart: context only, as SessionStart; exit 2's stderr is
	// shown to the user and the subagent proceeds.
	SubagentStart: {exit2Allows: true, noDecision: true},
	// TaskCreated: exit 2 or `decision: "block"` cancels the task;
	// `continue: false` is ignored.
	TaskCreated: {ignoresContinue: true},
	// TaskCompleted and TeammateIdle: exit 2, or a top-level
	// `decision: "block"`, which Claude Code reads as a blocking error on
	// every event (its processHookJSONOutput): the TaskUpdate tool
	// refuses the completion with its reason, and a teammate about to go
	// idle is given it as feedback and works on. `continue: false` stops
	// a teammate; TaskCompleted ignores it when the TaskUpdate tool
	// triggered the event (hooks.md, "TaskCompleted decision control"),
	// which the payload vigiles sends, with no teammate_name, is (a
	// teammate's unfinished task is the other trigger): exit 2 still
	// blocks the completion. A payload that names a teammate (a check's
	// payload: teammate_name) is the other trigger, where continue:
	// false stops the teammate (rulesFor).
	TaskCompleted: {ignoresContinue: true},
	TeammateIdle:  {},
	// StopFailure: output and exit code are ignored (terminalSequence
	// apart, a side effect).
	StopFailure: {exit2Allows: true, ignoresOutput: true, ignoresContinue: true, noDecision: true},
	// InstructionsLoaded: the exit code is ignored and the JSON output
	// fields discarded; it runs asynchronously.
	InstructionsLoaded: {exit2Allows: true, ignoresOutput: true, ignoresContinue: true, noDecision: true},
	// ConfigChange: exit 2 or `decision: "block"` keeps the change from
	// taking effect; systemMessage and continue are discarded; a
	// policy_settings change cannot be blocked at all.
	ConfigChange: {ignoresContinue: true, unblockable: []string{"policy_settings"}},
	// DirectoryAdded: the directory is already added; stderr goes to the
	// debug log, continue is discarded, systemMessage is delivered.
	DirectoryAdded: {exit2Allows: true, ignoresContinue: true, noDecision: true},
	// WorktreeCreate: any non-zero exit fails the creation, and so does
	// a command hook that prints no path: its stdout is the path, not
	// JSON; systemMessage and continue are discarded.
	WorktreeCreate: {ignoresContinue: true, noDecision: true, pathOutput: true},
	// WorktreeRemove: any non-zero exit makes the removal fail where
	// the worktree's directory is still there afterwards; the JSON output
	// fields are discarded.
	WorktreeRemove: {nonZeroFails: true, ignoresOutput: true, ignoresContinue: true, noDecision: true},
	// PreModelSwitch: exit 2, a top-level decision "block" or
	// hookSpecificOutput.permissionDecision "deny" cancels the switch
	// ("ask" asks the user, a refusal outside an interactive /model).
	// PostModelSwitch: context only, as SessionStart; the model has
	// switched.
	PreModelSwitch:  {},
	PostModelSwitch: {exit2Allows: true, noDecision: true},
	// Elicitation and ElicitationResult: exit 2 denies the elicitation
	// (the response becomes decline), and then the JSON output is not
	// read; so does a top-level `decision: "block"`, which Claude Code
	// reads before hookSpecificOutput.action (an accept beside it
	// answers nothing); otherwise the action decides. systemMessage and
	// continue are discarded.
	Elicitation:       {ignoresContinue: true, exit2SkipsJSON: true},
	ElicitationResult: {ignoresContinue: true, exit2SkipsJSON: true},
}

// Decide reads the outcome of a finished run of a hook of event as Claude
// Code reads it (hooks.md, "Exit code output"):
//
//   - exit 2 blocks on an event that exit 2 blocks, the reason being the
//     JSON's blocking decision when it makes one, else stderr;
//   - otherwise, on every exit code, a JSON object on stdout (stdout that
//     starts with '{') that passes Claude Code's schema decides: blocked
//     when its continue is false, its hookSpecificOutput.permissionDecision
//     is "deny" (PreToolUse), its hookSpecificOutput.decision.behavior is
//     "deny" (PermissionRequest), its hookSpecificOutput.action is
//     "decline" or "cancel" (Elicitation, ElicitationResult), its
//     hookSpecificOutput.additionalContext is not empty (Stop,
//     SubagentStop: Claude goes on instead of stopping), or its
//     top-level decision is "block", each where the event honours it
//     (outcomeRules); allowed otherwise;
//   - an object that fails the schema, plain text or nothing on another
//     non-zero exit is a non-blocking error: allowed;
//
// an error when vigiles could not run the hook, the hook timed out, or its
// stdout was cut where the cut part may decide. A cut stdout is never read
// as JSON: not for a decision, a reason, nor Output. WorktreeCreate reads
// a path, not JSON (decidePath).
func Decide(event string, res *sandbox.Result, runErr error) Decision {
	return DecideValue(event, "", res, runErr)
}

// DecideValue is Decide for a run whose payload carries the matcher value
// value (the tool, the source, …): a block of a value the event cannot be
// blocked for (eventRules.unblockable) leaves the call allowed, the reason
// saying what the hook would have done.
func DecideValue(event, value string, res *sandbox.Result, runErr error) Decision {
	return decideValue(event, outcomeRules[event], value, res, runErr)
}

// decideValue is DecideValue by rules, the event's (rulesFor).
func decideValue(event string, rules eventRules, value string, res *sandbox.Result, runErr error) Decision {
	d := decide(event, rules, res, runErr)
	if d.Outcome == report.OutcomeBlocked && slices.Contains(outcomeRules[event].unblockable, value) {
		d.Outcome, d.Reason = report.OutcomeAllowed, fmt.Sprintf("a %s %s cannot be blocked; the hook would have blocked it: %s", value, event, d.Reason)
	}
	return d
}

func decide(event string, rules eventRules, res *sandbox.Result, runErr error) Decision {
	if res != nil && res.Tier == sandbox.TierRefused {
		return Decision{Outcome: report.OutcomeError, Reason: "refused: " + orDefault(res.Refusal, res.Error)}
	}
	if runErr != nil {
		return Decision{Outcome: report.OutcomeError, Reason: "vigiles could not run the hook: " + runErr.Error()}
	}
	if res == nil {
		return Decision{Outcome: report.OutcomeError, Reason: "no run result"}
	}
	if res.Error != "" {
		return Decision{Outcome: report.OutcomeError, Reason: "the run failed: " + res.Error}
	}
	stdout := outputBytes(res.StdoutBytes(), res.Stdout, res.StdoutEncoding)
	cut := res.StdoutTruncated
	if event != SessionStart && event != Setup && !rules.pathOutput && asyncFirstLine(stdout) {
		// Claude Code reads the first line as the hook prints it and, on
		// an async response, resolves the hook with status 0 and leaves
		// it running (SessionStart's and Setup's it may wait for). It
		// does so as the line comes, before any timeout: backgrounding
		// the hook clears its timeout, and no asyncTimeout ends it after
		// (reconstruction: ShellCommand's background, AsyncHookRegistry),
		// so a hook vigiles ended at its timeout after that line was
		// backgrounded in Claude Code, not cancelled.
		d := Decision{Outcome: report.OutcomeAllowed, AsyncResponse: true,
			Reason: "the first line of its output is an async response ({\"async\": true}): the agent goes on without waiting for the hook, so nothing it prints or exits with after it decides the call"}
		if !cut {
			d.Output, _ = ParseOutput(stdout)
			d.Unread = "its first line is an async response ({\"async\": true}), at which Claude Code stops waiting for the hook"
		}
		return d
	}
	if res.TimedOut {
		return Decision{Outcome: report.OutcomeError, Reason: fmt.Sprintf("timed out after %.0f ms; the agent cancels the hook and carries on", res.DurationMs)}
	}
	if rules.pathOutput {
		return decidePath(event, res, stdout)
	}
	if rules.nonZeroFails && (res.Signal != "" || res.ExitCode != 0) {
		how := fmt.Sprintf("exit status %d", res.ExitCode)
		if res.Signal != "" {
			how = "killed by " + res.Signal
		}
		return Decision{Outcome: report.OutcomeBlocked, Reason: fmt.Sprintf("%s: any non-zero exit makes %s fail where its directory is still there afterwards: %s",
			how, event, orDefault(clip(stderrText(res), maxReason), "(no message on stderr)"))}
	}
	if res.Signal != "" && res.ExitCode != 2 {
		return Decision{Outcome: report.OutcomeAllowed, Reason: "killed by " + res.Signal + ": a non-blocking error, the agent carries on"}
	}
	// stdout cut at the output cap is no JSON vigiles can read: what was
	// kept may parse (a value the part dropped would have made text) or
	// not, and either way it is not what the agent reads. Nothing reads
	// it as output, and no decision is taken from it.
	var out any
	if !cut {
		out, _ = ParseOutput(stdout)
	}
	// What Claude Code looks for JSON in, which it reads as JSON only
	// where it is an object.
	trimmed := jsTrim(string(stdout))
	isObject := strings.HasPrefix(trimmed, "{")
	if out == nil && !cut && isObject && !rules.ignoresOutput && !(res.ExitCode == 2 && !rules.exit2Allows) && nestsTooDeep(stdout) {
		// JSON.parse reads any depth (Node.js's and Bun's parsers keep no
		// stack of their own), Go's decoder none past maxOutputDepth: a
		// field nested that deep beside a decision would hide the
		// decision from vigiles, not from Claude Code. An exit 2 that
		// blocks on its own blocks whatever the JSON says; text, and an
		// array, Claude Code reads as text at any depth.
		return Decision{Outcome: report.OutcomeError, Reason: fmt.Sprintf("the outcome cannot be read: the hook exited %d and its stdout nests JSON deeper than the %d levels vigiles reads, where Claude Code reads it whole and may find a decision in it", res.ExitCode, maxOutputDepth)}
	}
	d := Decision{Outcome: report.OutcomeAllowed, Output: out}
	obj, _ := out.(map[string]any)
	if !isObject {
		obj = nil // Claude Code reads only an object as JSON; an array is text
	}
	if rules.ignoresOutput {
		d.Reason = event + " ignores the hook's exit status and decision fields: the agent carries on"
		return d
	}
	schemaErr := ""
	// Claude Code's schema tries the async response first, and what
	// passes it is read as nothing else: none of its other fields decide.
	asyncObj := obj != nil && isAsyncResponse(obj)
	if obj != nil && !asyncObj {
		schemaErr = checkSchema(event, obj)
	}
	valid := obj != nil && schemaErr == "" && !asyncObj
	switch {
	case asyncObj:
		d.Unread = "it is an async response ({\"async\": true}), which Claude Code reads as nothing else"
	case out != nil && obj == nil:
		d.Unread = "it is no JSON object, and Claude Code reads only an object as JSON (this it reads as text)"
	case schemaErr != "":
		d.Unread = "it fails Claude Code's output schema (" + schemaErr + "), a non-blocking error: Claude Code reads none of it"
		d.BadJSON = "its JSON output fails Claude Code's schema (" + schemaErr + ")"
	case out == nil && !cut:
		// From "{" to "}" and no JSON: a failure to Claude Code, unless
		// it is lines of JSON that set no field, which it reads as text.
		if isObject && strings.HasSuffix(trimmed, "}") && !jsonLinesOfNoField(trimmed) {
			d.BadJSON = "its JSON output does not parse"
		}
	}
	blocks2 := res.ExitCode == 2 && !rules.exit2Allows
	if cut && !blocks2 && rules.jsonDecides(event) {
		// The agent reads all of stdout; the run kept only its cap. What
		// starts as JSON (or is blank so far) may decide the call in
		// the part that was dropped: the outcome is not known.
		if trimmed == "" || isObject {
			return Decision{Outcome: report.OutcomeError, Reason: fmt.Sprintf("the outcome cannot be read: the hook exited %d and printed more on stdout than the run keeps (its output cap: raise defaults.output-cap in .vigiles.yml), and what was kept may be the start of JSON that decides the call", res.ExitCode)}
		}
	}
	if blocks2 {
		d.Outcome = report.OutcomeBlocked
		if out != nil && rules.exit2SkipsJSON && d.Unread == "" {
			// Its JSON, valid or not, says nothing to Claude Code: a
			// field a json expectation finds there was never read.
			d.Unread = "on exit 2 Claude Code reads none of a " + event + " hook's JSON output (it declines, with stderr's reason)"
		}
		if valid && !rules.exit2SkipsJSON {
			if blocked, why := jsonBlock(event, rules, obj); blocked {
				d.Reason = "exit status 2: " + why
				return d
			}
		}
		r := clip(stderrText(res), maxReason)
		if r == "" {
			r = "(no message on stderr)"
		}
		d.Reason = "exit status 2: " + r
		if cut {
			// Exit 2 blocks whatever stdout says; which reason the agent
			// shows (a JSON decision's, else stderr) is not known.
			d.Reason += " (stdout was cut at the output cap: a JSON reason in it, if any, was not read)"
		}
		return d
	}
	if valid {
		if blocked, why := jsonBlock(event, rules, obj); blocked {
			d.Outcome, d.Reason = report.OutcomeBlocked, why
			return d
		} else if why != "" {
			d.Reason = why
		}
		if n := unreadTopLevel(event, obj); n != "" {
			d.Reason = strings.TrimPrefix(d.Reason+"; ", "; ") + n
		}
		if res.ExitCode == 2 {
			d.Reason = strings.TrimPrefix(d.Reason+"; ", "; ") + fmt.Sprintf("exit status 2 does not block %s", event)
		}
		return d
	}
	switch {
	case asyncObj:
		d.Reason = "its output is an async response ({\"async\": true}), which Claude Code reads as nothing else: none of its fields decides the call"
	case obj != nil:
		d.Reason = "the JSON output fails Claude Code's schema (" + schemaErr + "): a non-blocking error, the agent carries on"
	case res.ExitCode == 2:
		d.Reason = fmt.Sprintf("exit status 2 does not block %s: a non-blocking error, the agent carries on", event)
	case res.ExitCode != 0:
		d.Reason = fmt.Sprintf("exit status %d: a non-blocking error, the agent carries on", res.ExitCode)
	}
	if cut && d.Reason == "" {
		d.Reason = fmt.Sprintf("stdout was cut at the output cap; no output of a %s hook can block it", event)
	}
	return d
}

// ansiEscape matches the terminal escape sequences Claude Code strips from
// a WorktreeCreate hook's stdout before it reads the path: CSI and OSC.
var ansiEscape = lazyRE(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// decidePath reads a finished hook of an event whose stdout is a path
// (WorktreeCreate; hooks.md, "WorktreeCreate output"): a command hook
// prints the path as the last non-empty line of stdout (escape sequences
// stripped), and the hook failing (a non-zero exit, a kill) or printing
// no path fails the action: blocked. Its JSON fields are not read.
func decidePath(event string, res *sandbox.Result, stdout []byte) Decision {
	d := Decision{Outcome: report.OutcomeAllowed}
	if !res.StdoutTruncated {
		d.Output, _ = ParseOutput(stdout)
	}
	stderr := orDefault(clip(stderrText(res), maxReason), "(no message on stderr)")
	switch {
	case res.Signal != "":
		d.Outcome, d.Reason = report.OutcomeBlocked, fmt.Sprintf("killed by %s: the hook failed, so %s fails: %s", res.Signal, event, stderr)
		return d
	case res.ExitCode != 0:
		d.Outcome, d.Reason = report.OutcomeBlocked, fmt.Sprintf("exit status %d: any non-zero exit fails %s: %s", res.ExitCode, event, stderr)
		return d
	}
	path := lastLine(ansiEscape().ReplaceAllString(string(stdout), ""))
	switch {
	case path == "" && res.StdoutTruncated:
		return Decision{Outcome: report.OutcomeError, Reason: fmt.Sprintf("the outcome cannot be read: the hook printed more on stdout than the run keeps (its output cap: raise defaults.output-cap in .vigiles.yml), and the path %s reads from it is not in what was kept", event)}
	case path == "":
		d.Outcome, d.Reason, d.NoPath = report.OutcomeBlocked, fmt.Sprintf("the hook printed no path on stdout: %s fails", event), true
	case strings.HasPrefix(path, "/") && slices.ContainsFunc(strings.Split(path, "/"), func(seg string) bool { return seg == "." || seg == ".." }):
		// Claude Code refuses an absolute path with . or .. segments
		// (hooks.md, "WorktreeCreate output").
		d.Outcome, d.Reason = report.OutcomeBlocked, fmt.Sprintf("the path %s printed has . or .. segments, which Claude Code refuses: %s fails", clip(path, 200), event)
	case res.StdoutTruncated:
		d.Reason = "stdout was cut at the output cap: the path is its last non-empty line, which was not kept"
	default:
		d.Reason = "path: " + clip(path, 200)
	}
	return d
}

// allowSkipsPrompt is what a PreToolUse allow does: Claude Code skips
// the permission prompt, then still checks the call against the
// settings' permission rules (its resolveHookPermissionDecision), so that
// a deny rule refuses it and an ask rule prompts after all.
const allowSkipsPrompt = "the call skips the permission prompt, but not the settings' rules: a deny rule still refuses it, an ask rule still asks"

// rulesFor is the rules that decide the outcome of a run of event with
// payload input: the event's, but for a TaskCompleted whose payload names
// a teammate, the trigger where continue: false stops the teammate
// (hooks.md, "TaskCompleted decision control"), not the TaskUpdate tool's,
// where Claude Code ignores it.
func rulesFor(event string, input map[string]any) eventRules {
	r := outcomeRules[event]
	if t, _ := input["teammate_name"].(string); event == TaskCompleted && t != "" {
		r.ignoresContinue = false
	}
	return r
}

// jsonBlock reads a schema-valid output object: whether it blocks, and
// why (or, when it does not block, a note worth reporting, else "").
func jsonBlock(event string, rules eventRules, obj map[string]any) (bool, string) {
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if c, ok := obj["continue"].(bool); ok && !c && !rules.ignoresContinue {
		return true, "continue: false: " + orDefault(clip(str(obj, "stopReason"), maxReason), "(no stopReason)")
	}
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	if c, ok := obj["continue"].(bool); ok && !c && event == TaskCompleted && rules.ignoresContinue {
		note("continue: false is ignored: Claude Code ignores it on a TaskCompleted that the TaskUpdate tool triggered, as vigiles' payload (no teammate_name) has it; exit 2 or a decision block would keep the task open")
	}
	// What Claude Code does on the hook's behalf with the call (its
	// input, its permission, its output), outside the run's record.
	replaced := func(m map[string]any, k, what string) {
		if v, ok := m[k]; ok {
			b, _ := appendJSON(nil, v)
			note(k + ": " + what + " " + clip(string(b), 300))
		}
	}
	feedback := ""
	if hso, ok := obj["hookSpecificOutput"].(map[string]any); ok {
		switch event {
		case Stop, SubagentStop:
			// Non-error feedback: the conversation goes on, as on
			// decision "block" (hooks.md, "Stop decision control").
			feedback = str(hso, "additionalContext")
		case PreToolUse:
			switch pd := str(hso, "permissionDecision"); pd {
			case "deny":
				return true, "permissionDecision deny: " + orDefault(clip(str(hso, "permissionDecisionReason"), maxReason), "(no reason)")
			case "ask":
				note("permissionDecision ask: the agent asks the user")
			case "allow":
				note("permissionDecision allow: " + allowSkipsPrompt)
			case "defer":
				// Honoured only in -p mode, where the tool does not run
				// and Claude Code exits (hooks.md, "Defer a tool call").
				note("permissionDecision defer: in -p mode the call does not run and Claude Code exits with it pending (ignored in an interactive session)")
			}
			if str(hso, "permissionDecision") != "defer" {
				replaced(hso, "updatedInput", "the tool runs with the hook's input in place of the call's:")
			}
		case PreModelSwitch:
			switch str(hso, "permissionDecision") {
			case "deny":
				return true, "permissionDecision deny: the model switch is cancelled: " + orDefault(clip(str(hso, "permissionDecisionReason"), maxReason), "(no reason)")
			case "ask":
				note("permissionDecision ask: the user is asked to confirm the switch (outside an interactive /model, a refusal)")
			case "allow":
				note("permissionDecision allow: the switch goes ahead without the confirmation a warm prompt cache asks for")
			}
		case PermissionRequest:
			if dec, ok := hso["decision"].(map[string]any); ok && str(dec, "behavior") == "deny" {
				return true, "decision.behavior deny: " + orDefault(clip(str(dec, "message"), maxReason), "(no message)")
			} else if ok && str(dec, "behavior") == "allow" {
				note("decision.behavior allow: the permission is granted without asking the user")
				replaced(dec, "updatedInput", "the tool runs with the hook's input in place of the call's:")
				replaced(dec, "updatedPermissions", "Claude Code applies these permission changes (a settings file's destination is written):")
			}
		case PostToolUse:
			replaced(hso, "updatedToolOutput", "Claude sees this in place of the tool's output:")
			replaced(hso, "updatedMCPToolOutput", "Claude sees this in place of the MCP tool's output:")
		case MessageDisplay:
			replaced(hso, "displayContent", "the user sees this in place of Claude's text:")
		case SessionStart, CwdChanged, FileChanged:
			if event == SessionStart {
				replaced(hso, "initialUserMessage", "the session's first user message (in -p mode):")
			}
			replaced(hso, "watchPaths", "Claude Code watches these files and runs the FileChanged hooks when they change:")
		case Elicitation, ElicitationResult:
			// decline and cancel refuse the server's request (exit 2's
			// effect, which makes the action decline); accept answers it.
			switch a := str(hso, "action"); a {
			case "decline", "cancel":
				return true, "hookSpecificOutput.action " + a + ": the elicitation is not accepted"
			case "accept":
				note("hookSpecificOutput.action accept: the hook answers the elicitation")
			}
		case PermissionDenied:
			if r, _ := hso["retry"].(bool); r {
				note("retry: true: the model is told it may retry the denied call")
			}
		}
	}
	if str(obj, "decision") == "block" && !rules.noDecision {
		// PreToolUse reads its deprecated "block" as deny.
		return true, "decision block: " + orDefault(clip(str(obj, "reason"), maxReason), "(no reason)")
	}
	if event == PreToolUse && str(obj, "decision") == "approve" {
		// PreToolUse reads its deprecated "approve" as allow.
		note("decision approve (permissionDecision allow): " + allowSkipsPrompt)
	}
	if feedback != "" {
		return true, "additionalContext: Claude goes on with this feedback instead of stopping: " + clip(feedback, maxReason)
	}
	return false, strings.Join(notes, "; ")
}

// outputFields are the top-level fields of a hook's JSON output that
// Claude Code reads (hooks.md, "JSON output").
var outputFields = []string{"continue", "stopReason", "suppressOutput", "systemMessage", "terminalSequence", "decision", "reason", "hookSpecificOutput"}

// hookSpecificFields are, by event, the fields of its hookSpecificOutput
// Claude Code reads (hooks.md, each event's "decision control"): a guard
// that writes one at the top level of its output, where Claude Code does
// not read it, is told where it belongs (unreadTopLevel).
var hookSpecificFields = map[string][]string{
	PreToolUse:          {"permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"},
	PermissionRequest:   {"decision"},
	PostToolUse:         {"additionalContext", "updatedToolOutput", "updatedMCPToolOutput", "classifierContext"},
	PostToolUseFailure:  {"additionalContext"},
	PostToolBatch:       {"additionalContext"},
	UserPromptSubmit:    {"additionalContext", "sessionTitle", "suppressOriginalPrompt"},
	UserPromptExpansion: {"additionalContext"},
	SessionStart:        {"additionalContext", "initialUserMessage", "sessionTitle", "watchPaths", "reloadSkills"},
	SubagentStart:       {"additionalContext"},
	Stop:                {"additionalContext"},
	SubagentStop:        {"additionalContext"},
	PostModelSwitch:     {"additionalContext"},
	CwdChanged:          {"watchPaths"},
	FileChanged:         {"watchPaths"},
	MessageDisplay:      {"displayContent"},
	PermissionDenied:    {"retry"},
	PreModelSwitch:      {"permissionDecision", "permissionDecisionReason"},
	Elicitation:         {"action", "content"},
	ElicitationResult:   {"action", "content"},
}

// maxUnreadKeys bounds the top-level keys a reason names (unreadTopLevel).
const maxUnreadKeys = 5

// unreadTopLevel names the top-level keys of a hook's output object that
// Claude Code does not read on event (any but outputFields and the async
// response's async and asyncTimeout), each where it belongs when it is a
// field of the event's hookSpecificOutput (a tool_input a PreToolUse
// guard rewrote belongs in its updatedInput, a PermissionRequest's in its
// decision's): a note for the run's reason, so that a guard that believes
// it rewrote the call, or gave Claude context, shows as doing nothing;
// "" when every key is read.
func unreadTopLevel(event string, obj map[string]any) string {
	var keys []string
	for k := range obj {
		if !slices.Contains(outputFields, k) && k != "async" && k != "asyncTimeout" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	hso := fmt.Sprintf("hookSpecificOutput, whose hookEventName is %q", event)
	var named []string
	for i, k := range keys {
		if i == maxUnreadKeys {
			named = append(named, fmt.Sprintf("%d more", len(keys)-i))
			break
		}
		n := shortJSON(k)
		switch {
		case k == "tool_input" && event == PreToolUse:
			n += " (a rewritten input belongs in hookSpecificOutput.updatedInput)"
		case (k == "tool_input" || k == "updatedInput") && event == PermissionRequest:
			n += " (a rewritten input belongs in hookSpecificOutput.decision.updatedInput, with behavior \"allow\")"
		case slices.Contains(hookSpecificFields[event], k):
			n += " (it belongs in " + hso + ")"
		}
		named = append(named, n)
	}
	what := "key"
	if len(keys) > 1 {
		what = "keys"
	}
	return fmt.Sprintf("Claude Code does not read the top-level %s %s of the JSON output on %s: the hook does nothing with %s", what, JoinWords(named, "and"), event, map[bool]string{true: "them", false: "it"}[len(keys) > 1])
}

// jsonLinesOfNoField says whether t is two or more lines that each parse
// as JSON on their own, none an object that sets a field of outputFields:
// Claude Code reads such output as plain text.
func jsonLinesOfNoField(t string) bool {
	lines := 0
	for _, l := range strings.Split(t, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		v, ok := ParseOutput([]byte(l))
		if !ok {
			var scalar any
			if json.Unmarshal([]byte(l), &scalar) != nil {
				return false
			}
			lines++
			continue
		}
		if obj, isObj := v.(map[string]any); isObj && slices.ContainsFunc(outputFields, func(k string) bool { _, has := obj[k]; return has }) {
			return false
		}
		lines++
	}
	return lines >= 2
}

// checkSchema says how obj fails the output schema Claude Code validates a
// hook's JSON against for event ("" when it passes): the universal fields'
// types, top-level decision "approve" or "block", and a
// hookSpecificOutput whose hookEventName is the event, with the event's
// own enumerations. Values are case-sensitive. Fields vigiles does not
// know are left alone.
func checkSchema(event string, obj map[string]any) string {
	for _, k := range []string{"continue", "suppressOutput"} {
		if v, ok := obj[k]; ok {
			if _, isBool := v.(bool); !isBool {
				return fmt.Sprintf("%s must be true or false", k)
			}
		}
	}
	for _, k := range []string{"stopReason", "reason", "systemMessage", "terminalSequence"} {
		if v, ok := obj[k]; ok {
			if _, isStr := v.(string); !isStr {
				return fmt.Sprintf("%s must be a string", k)
			}
		}
	}
	if v, ok := obj["decision"]; ok {
		if s, _ := v.(string); s != "approve" && s != "block" {
			return fmt.Sprintf("decision must be \"approve\" or \"block\", not %s", shortJSON(v))
		}
	}
	v, ok := obj["hookSpecificOutput"]
	if !ok {
		return ""
	}
	hso, isObj := v.(map[string]any)
	if !isObj {
		return "hookSpecificOutput must be an object"
	}
	name, _ := hso["hookEventName"].(string)
	if name != event {
		if _, has := hso["hookEventName"]; !has {
			return fmt.Sprintf("hookSpecificOutput has no hookEventName (want %q)", event)
		}
		// Case counts: "pretooluse" is not PreToolUse.
		return fmt.Sprintf("hookSpecificOutput.hookEventName is %s, not %q", shortJSON(hso["hookEventName"]), event)
	}
	for _, k := range hookSpecificFields[event] {
		if v, ok := hso[k]; ok {
			if want := hookSpecificTypes[k]; want != "" && !isSchemaType(v, want) {
				return fmt.Sprintf("hookSpecificOutput.%s must be %s, not %s", k, want, shortJSON(v))
			}
		}
	}
	switch event {
	case PreToolUse:
		if v, ok := hso["permissionDecision"]; ok {
			switch s, _ := v.(string); s {
			case "allow", "deny", "ask", "defer":
			default:
				return fmt.Sprintf("hookSpecificOutput.permissionDecision must be \"allow\", \"deny\", \"ask\" or \"defer\", not %s", shortJSON(v))
			}
		}
	case PreModelSwitch:
		if v, ok := hso["permissionDecision"]; ok {
			switch s, _ := v.(string); s {
			case "allow", "deny", "ask":
			default:
				return fmt.Sprintf("hookSpecificOutput.permissionDecision must be \"allow\", \"deny\" or \"ask\", not %s", shortJSON(v))
			}
		}
	case Elicitation, ElicitationResult:
		if v, ok := hso["action"]; ok {
			switch s, _ := v.(string); s {
			case "accept", "decline", "cancel":
			default:
				return fmt.Sprintf("hookSpecificOutput.action must be \"accept\", \"decline\" or \"cancel\", not %s", shortJSON(v))
			}
		}
	case PermissionRequest:
		if v, ok := hso["decision"]; ok {
			dec, isObj := v.(map[string]any)
			if !isObj {
				return "hookSpecificOutput.decision must be an object"
			}
			if _, has := dec["behavior"]; !has {
				return "hookSpecificOutput.decision has no behavior (want \"allow\" or \"deny\")"
			}
			if s, _ := dec["behavior"].(string); s != "allow" && s != "deny" {
				return fmt.Sprintf("hookSpecificOutput.decision.behavior must be \"allow\" or \"deny\", not %s", shortJSON(dec["behavior"]))
			}
			for k, want := range decisionTypes[dec["behavior"].(string)] {
				if v, ok := dec[k]; ok && !isSchemaType(v, want) {
					return fmt.Sprintf("hookSpecificOutput.decision.%s must be %s, not %s", k, want, shortJSON(v))
				}
			}
		}
	}
	return ""
}

// hookSpecificTypes are the types Claude Code's output schema gives the
// fields of hookSpecificOutput, where the event's hookSpecificFields has
// them (the hooks reference's JSON output; the Agent SDK reference's
// SyncHookJSONOutput spells the schema out): a value of another type
// fails the schema, and Claude Code then reads none of the output (a
// deny beside a reason that is no string blocks nothing, and so does a
// decision "block" beside a sessionTitle that is no string). The schema
// gives updatedToolOutput and updatedMCPToolOutput any type.
var hookSpecificTypes = map[string]string{
	"permissionDecisionReason": "a string",
	"additionalContext":        "a string",
	"initialUserMessage":       "a string",
	"sessionTitle":             "a string",
	"classifierContext":        "a string",
	"displayContent":           "a string",
	"suppressOriginalPrompt":   "true or false",
	"reloadSkills":             "true or false",
	"updatedInput":             "an object",
	"content":                  "an object",
	"watchPaths":               "an array of strings",
	"retry":                    "true or false",
}

// decisionTypes are, by behavior, the types the schema gives the fields
// of a PermissionRequest's hookSpecificOutput.decision.
var decisionTypes = map[string]map[string]string{
	"allow": {"updatedInput": "an object", "updatedPermissions": "an array"},
	"deny":  {"message": "a string", "interrupt": "true or false"},
}

// isSchemaType says whether v, parsed from JSON, is of the schema type
// want, as hookSpecificTypes names it.
func isSchemaType(v any, want string) bool {
	switch want {
	case "a string":
		_, ok := v.(string)
		return ok
	case "an object":
		_, ok := v.(map[string]any)
		return ok
	case "an array":
		_, ok := v.([]any)
		return ok
	case "an array of strings":
		a, ok := v.([]any)
		return ok && !slices.ContainsFunc(a, func(e any) bool { _, s := e.(string); return !s })
	case "true or false":
		_, ok := v.(bool)
		return ok
	}
	return true
}

// shortJSON shows a value of the hook's output in a reason, cut short.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return clip(string(b), 80)
}

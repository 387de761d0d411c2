package report

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/evidence"
)

// Schema names this document format.
const Schema = "vigiles.report/v1"

// Severity of a finding, in GitHub's three annotation levels.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNotice  Severity = "notice"
)

// Rank orders severities: error > warning > notice > anything else.
func (s Severity) Rank() int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityNotice:
		return 1
	}
	return 0
}

// Location is a place a reviewer can click: a repository-relative file and
// a 1-based line and column (0 when unknown).
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// locationJSON is Location as JSON holds it: "file" valid UTF-8, each run
// of bytes that is not one U+FFFD (evidence.ShownPath), and "fileBytes"
// beside it, the file's exact bytes (base64), where it is not UTF-8, as
// a write's "pathBytes" is: p\xff/x and p\xfe/x are two files there.
type locationJSON struct {
	File      string `json:"file"`
	FileBytes []byte `json:"fileBytes,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
}

// MarshalJSON writes l as locationJSON.
func (l Location) MarshalJSON() ([]byte, error) {
	j := locationJSON{File: l.File, Line: l.Line, Column: l.Column}
	if !utf8.ValidString(l.File) {
		j.File, j.FileBytes = evidence.ShownPath(l.File), []byte(l.File)
	}
	// Not HTML-escaped here: the encoder that writes the report decides.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads l as MarshalJSON writes it: the file's bytes where
// "fileBytes" keeps them.
func (l *Location) UnmarshalJSON(b []byte) error {
	var j locationJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*l = Location{File: j.File, Line: j.Line, Column: j.Column}
	if j.FileBytes != nil {
		l.File = string(j.FileBytes)
	}
	return nil
}

// Finding is one failed expectation, egress finding, baseline drift or
// malformed declaration. Message and Evidence may contain untrusted text
// (hook output, file and host names): reporters must escape them.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Location Location `json:"location"`
	Title    string   `json:"title,omitempty"`
	Message  string   `json:"message"`
	Evidence string   `json:"evidence,omitempty"`
	// Hook is the ID of the hook run the finding concerns, if any.
	Hook string `json:"hook,omitempty"`
}

// Outcome of one hook run, as the agent would read it.
const (
	OutcomeAllowed       = "allowed"
	OutcomeBlocked       = "blocked"
	OutcomeError         = "error"          // the run failed or was refused
	OutcomeNotExecutable = "not-executable" // http, prompt, agent, mcp_tool hooks
)

// Listed counts the runs of r that only list a hook vigiles does not run
// (OutcomeNotExecutable), which every count of runs shown to people says
// apart from the runs ("7 hook run(s), 1 listed but not run"), as the
// progress lines count only what ran.
func (r *Report) Listed() int {
	n := 0
	for _, run := range r.Runs {
		if run.Outcome == OutcomeNotExecutable {
			n++
		}
	}
	return n
}

// HookRun is one hook × event × payload that was run (or listed).
type HookRun struct {
	ID      string `json:"id"`
	Plugin  string `json:"plugin"`
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Type    string `json:"type"` // command, http, prompt, agent, mcp_tool
	Command string `json:"command,omitempty"`
	// Context is where the hook runs as Claude Code would load it:
	// "plugin:" and its plugin's root, or "project:" and the directory
	// whose .claude declares it ("." for the work tree's).
	Context  string   `json:"context,omitempty"`
	Location Location `json:"location"`
	Trusted  bool     `json:"trusted"`
	Check    string   `json:"check,omitempty"` // name of the .vigiles.yml check, for `test`

	Tier     string `json:"tier"` // confined, direct, refused; "" for a hook listed, not run
	Refusal  string `json:"refusal,omitempty"`
	Outcome  string `json:"outcome"`
	Reason   string `json:"reason,omitempty"` // why blocked or why it failed
	ExitCode int    `json:"exitCode"`
	TimedOut bool   `json:"timedOut"`
	// LimitHit names the limit of vigiles' sandbox that ended or bounded
	// the run (cpu, file-size, memory, pids, scratch; not wall-time, which
	// TimedOut says), one Claude Code does not impose: what the hook
	// would have done past it is not recorded. Empty when none was seen.
	LimitHit string `json:"limitHit,omitempty"`
	// Decides is what the hook's JSON output, as Claude Code reads it,
	// tells it to do with the call besides blocking it, as compact JSON
	// with sorted keys: a permissionDecision (allow approves the call
	// without asking the user), an updatedInput (the call is made with
	// other input), updatedPermissions, updatedMCPToolOutput, a
	// PermissionRequest decision's behavior. Empty when it says none of
	// these (and for an async hook, or an event that ignores its output).
	Decides    string  `json:"decides,omitempty"`
	DurationMs float64 `json:"durationMs"`
	Stdout     string  `json:"stdout,omitempty"`
	Stderr     string  `json:"stderr,omitempty"`

	// Writes and Egress keep the null-versus-empty distinction of the run
	// result: nil means not recorded.
	Writes   []evidence.Write  `json:"writes"`
	Egress   []evidence.Egress `json:"egress"`
	Lingered []string          `json:"lingered,omitempty"`
	// EnvFile is what the hook left in the file Claude Code gives it to
	// set the session's environment in (CLAUDE_ENV_FILE, SessionStart
	// hooks only; omitted for other events). Its content is null when it
	// was not recorded.
	EnvFile *evidence.EnvFile `json:"envFile,omitempty"`
}

// Drift is one difference from the baseline.
type Drift struct {
	Hook     string   `json:"hook"`
	Kind     string   `json:"kind"` // host, write, outcome, env, declared, context, decides, command, hook-added, hook-removed, server-added, server-changed, server-removed
	Was      string   `json:"was,omitempty"`
	Now      string   `json:"now,omitempty"`
	Location Location `json:"location"`
}

// DriftRest is what a report shows as the now of the one write drift of a
// run that stands for its new paths past those one audit names one by
// one, which has neither was nor now: its baseline/write finding counts
// them and names the first.
const DriftRest = "(more new paths, counted in its baseline/write finding)"

// Shown returns the was and now a report shows of d: DriftRest as the now
// of a write drift that has neither, which would otherwise show as a
// change of nothing.
func (d Drift) Shown() (was, now string) {
	if d.Kind == "write" && d.Was == "" && d.Now == "" {
		return "", DriftRest
	}
	return d.Was, d.Now
}

// Tool identifies the program that wrote a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Verdicts.
const (
	VerdictPass  = "pass"
	VerdictFail  = "fail"
	VerdictError = "error"
)

// Report is the vigiles.report/v1 document.
type Report struct {
	Schema  string `json:"schema"`
	Tool    Tool   `json:"tool"`
	Command string `json:"command"` // test or audit
	Verdict string `json:"verdict"`
	Shard   string `json:"shard,omitempty"` // "i/n"; empty when unsharded or merged
	// Plan, on a shard, is the digest of the whole run it is a part of
	// (its vigiles, command, policy, baseline, settings and planned runs):
	// merge joins only shards of one plan. Empty when unsharded or merged.
	Plan     string    `json:"plan,omitempty"`
	Runs     []HookRun `json:"runs"`
	Findings []Finding `json:"findings"`
	Drift    []Drift   `json:"drift,omitempty"`
}

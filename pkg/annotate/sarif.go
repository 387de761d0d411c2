package annotate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// The SARIF 2.1.0 subset code scanning reads. Field names follow the
// OASIS schema; required members are never omitted.
type (
	SARIFLog struct {
		Version string     `json:"version"`
		Schema  string     `json:"$schema"`
		Runs    []SARIFRun `json:"runs"`
	}
	// SARIFRun has no automationDetails on purpose: upload-sarif applies
	// its `category` input only to a run without one, and the category is
	// what keeps two uploads (test and audit, two working directories)
	// from replacing each other's alerts. Without a category it derives
	// one from the workflow, job and matrix values.
	SARIFRun struct {
		Tool       SARIFTool      `json:"tool"`
		Results    []SARIFResult  `json:"results"`
		Properties map[string]any `json:"properties,omitempty"`
	}
	SARIFTool struct {
		Driver SARIFDriver `json:"driver"`
	}
	SARIFDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []SARIFRule `json:"rules"`
	}
	SARIFRule struct {
		ID                   string             `json:"id"`
		Name                 string             `json:"name,omitempty"`
		ShortDescription     SARIFMessage       `json:"shortDescription"`
		DefaultConfiguration SARIFConfiguration `json:"defaultConfiguration"`
		HelpURI              string             `json:"helpUri,omitempty"`
	}
	SARIFConfiguration struct {
		Level string `json:"level"`
	}
	SARIFMessage struct {
		Text string `json:"text"`
	}
	SARIFResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             SARIFMessage      `json:"message"`
		Locations           []SARIFLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	}
	SARIFLocation struct {
		PhysicalLocation SARIFPhysicalLocation `json:"physicalLocation"`
	}
	SARIFPhysicalLocation struct {
		ArtifactLocation SARIFArtifactLocation `json:"artifactLocation"`
		Region           SARIFRegion           `json:"region"`
	}
	SARIFArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	SARIFRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// SARIFOptions tunes SARIF output.
type SARIFOptions struct {
	// DefaultFile anchors findings that have no file (code scanning
	// rejects results without a location); "" means ".vigiles.yml".
	DefaultFile string
	// MaxBytes overrides SARIFMaxFileBytes (for tests).
	MaxBytes int
}

// FingerprintKey names vigiles' partial fingerprint in SARIF results. v2
// hashes what a finding is about as well (findingSubject); v1 did not, and
// gave distinct findings one alert.
const FingerprintKey = "vigilesFinding/v2"

// Tool identity in SARIF.
const (
	sarifToolName   = "vigiles"
	sarifToolURI    = "https://github.com/vigiles/action"
	sarifRuleDocURI = "https://github.com/vigiles/action/blob/main/docs/report-format.md"
)

func sarifLevel(s report.Severity) string {
	switch level(s) {
	case report.SeverityError:
		return "error"
	case report.SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifURI percent-escapes each segment of a repository-relative path.
func sarifURI(p string) string {
	p = strings.TrimPrefix(oneLine(p), "./")
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := strings.Join(segs, "/")
	if strings.Contains(segs[0], ":") {
		u = "./" + u // a first segment with ':' would read as a URI scheme
	}
	return u
}

// SARIF converts r to one SARIF 2.1.0 run within GitHub's limits: at most
// SARIFMaxRulesPerRun rules and SARIFMaxResultsPerRun results, one
// location each, the most severe kept first, and the whole document under
// o.MaxBytes; what was left out is counted in run.properties.
func SARIF(r *report.Report, o SARIFOptions) *SARIFLog {
	def := anchorFile(o.DefaultFile)
	maxBytes := o.MaxBytes
	if maxBytes <= 0 {
		maxBytes = SARIFMaxFileBytes
	}
	findings := sortFindings(r.Findings)

	// Rules: one per rule ID, sorted, with the most severe level seen.
	ruleLevel := map[string]report.Severity{}
	for _, f := range findings {
		id := ruleID(f)
		if cur, ok := ruleLevel[id]; !ok || level(f.Severity).Rank() > level(cur).Rank() {
			ruleLevel[id] = level(f.Severity)
		}
	}
	ids := make([]string, 0, len(ruleLevel))
	for id := range ruleLevel {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) > SARIFMaxRulesPerRun {
		ids = ids[:SARIFMaxRulesPerRun]
	}
	index := map[string]int{}
	rules := make([]SARIFRule, 0, len(ids))
	for i, id := range ids {
		index[id] = i
		rules = append(rules, SARIFRule{
			ID:                   id,
			Name:                 id,
			ShortDescription:     SARIFMessage{Text: sarifText("vigiles finding: " + id)},
			DefaultConfiguration: SARIFConfiguration{Level: sarifLevel(ruleLevel[id])},
			HelpURI:              sarifRuleDocURI,
		})
	}

	version := oneLine(cut(r.Tool.Version, 64))
	log := &SARIFLog{
		Version: SARIFVersion,
		Schema:  SARIFSchema,
		Runs: []SARIFRun{{
			Tool: SARIFTool{Driver: SARIFDriver{
				Name: sarifToolName, Version: version, InformationURI: sarifToolURI, Rules: rules,
			}},
			Results: []SARIFResult{},
		}},
	}
	// Budget: the skeleton plus each result's own encoding, with room for
	// the properties that count what was left out.
	// Sizes are measured as WriteSARIF indents them.
	skeleton, _ := json.MarshalIndent(log, "", "  ")
	size := len(skeleton) + 256
	left := 0
	run := &log.Runs[0]
	seen := map[string]int{} // findings so far with each fingerprint
	for _, f := range findings {
		// Counted before anything is left out, so that what is left
		// out does not change the fingerprints of what follows.
		base := fingerprint(f, r.Drift, 0)
		fp := base
		if n := seen[base]; n > 0 {
			fp = fingerprint(f, r.Drift, n)
		}
		seen[base]++
		ri, ok := index[ruleID(f)]
		if !ok || len(run.Results) >= SARIFMaxResultsPerRun {
			left++
			continue
		}
		file, line := f.Location.File, f.Location.Line
		p, inTree := treePath(file)
		if inTree {
			file = p
		} else {
			file, line = def, 1
		}
		if line < 1 {
			line = 1
		}
		col := 0
		if inTree && f.Location.Column > 0 {
			col = f.Location.Column
		}
		res := SARIFResult{
			RuleID:    ruleID(f),
			RuleIndex: ri,
			Level:     sarifLevel(f.Severity),
			Message:   SARIFMessage{Text: sarifMessage(f)},
			Locations: []SARIFLocation{{PhysicalLocation: SARIFPhysicalLocation{
				ArtifactLocation: SARIFArtifactLocation{URI: sarifURI(file), URIBaseID: "%SRCROOT%"},
				Region:           SARIFRegion{StartLine: line, StartColumn: col},
			}}},
			PartialFingerprints: map[string]string{FingerprintKey: fp},
		}
		b, _ := json.MarshalIndent(res, "        ", "  ")
		if size+len(b)+10 > maxBytes {
			left++
			continue
		}
		size += len(b) + 10
		run.Results = append(run.Results, res)
	}
	if left > 0 {
		run.Properties = map[string]any{"vigilesResultsNotShown": left}
	}
	return log
}

func ruleID(f report.Finding) string {
	id := oneLine(cut(f.Rule, 100))
	if id == "" {
		return "vigiles"
	}
	return id
}

func sarifMessage(f report.Finding) string {
	m := f.Message
	if t := findingTitle(f); t != "" {
		m = t + ": " + m
	}
	if f.Evidence != "" {
		m += "\nevidence: " + f.Evidence
	}
	if strings.TrimSpace(m) == "" {
		m = "vigiles finding"
	}
	return sarifText(cut(safeLogLine(m), SARIFMaxMessageChars))
}

// sarifText escapes what SARIF's plain-text messages give a meaning to
// (§3.11.6: "[text](target)" is a link; a literal bracket or backslash is
// escaped with a backslash; §3.11.5: "{0}" is a placeholder, so a literal
// brace is doubled), so hostile text cannot become a link or stand in for
// an argument.
func sarifText(s string) string {
	return sarifEscaper.Replace(s)
}

var sarifEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `{`, `{{`, `}`, `}}`)

// fingerprint identifies a finding across runs independently of its line,
// so a moved line does not open a new alert, and tells apart findings
// that share a rule, file, hook and title (each new host of one hook, each
// problem in .vigiles.yml), so code scanning neither merges them into one
// alert nor lets a dismissed one hide another: it hashes what the finding
// is about too (findingSubject). Findings that still share all of it (one
// unknown key in two checks) are told apart by their order in the file:
// n > 0 is the (n+1)th of them, as CodeQL counts repeated lines.
func fingerprint(f report.Finding, drift []report.Drift, n int) string {
	h := sha256.New()
	for _, s := range []string{f.Rule, f.Location.File, f.Hook, f.Title, findingSubject(f, drift)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	if n > 0 {
		fmt.Fprintf(h, "%d", n)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// findingSubject is what a finding is about: the message without its
// digits, which carry line numbers, counts and sizes that change while the
// finding stays the same; and for a new host or written path, the host or
// path itself from the report's drift, digits and all (hosts 10.0.0.1 and
// 10.0.0.2 are two findings). Of the drift entries whose value the message
// quotes, the longest is the one it is about ("a.example" is inside
// "ba.example").
func findingSubject(f report.Finding, drift []report.Drift) string {
	subject := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return -1
		}
		return r
	}, f.Message)
	kind, ok := strings.CutPrefix(f.Rule, "baseline/")
	if !ok || (kind != "host" && kind != "write") {
		return subject
	}
	value := ""
	for _, d := range drift {
		if d.Hook == f.Hook && d.Kind == kind && len(d.Now) > len(value) && strings.Contains(f.Message, d.Now) {
			value = d.Now
		}
	}
	return subject + "\x00" + value
}

// WriteSARIF writes r as indented SARIF 2.1.0 JSON to w.
func WriteSARIF(w io.Writer, r *report.Report, o SARIFOptions) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(SARIF(r, o)); err != nil {
		return fmt.Errorf("writing sarif: %w", err)
	}
	return nil
}

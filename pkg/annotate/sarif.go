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
	SARIFRun struct {
		Tool              SARIFTool               `json:"tool"`
		AutomationDetails *SARIFAutomationDetails `json:"automationDetails,omitempty"`
		Results           []SARIFResult           `json:"results"`
		Properties        map[string]any          `json:"properties,omitempty"`
	}
	// SARIFAutomationDetails.ID ("vigiles/test/") keeps code scanning
	// from replacing the alerts of one command with another's.
	SARIFAutomationDetails struct {
		ID string `json:"id"`
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
	if cmd := oneLine(cut(r.Command, 20)); cmd != "" {
		log.Runs[0].AutomationDetails = &SARIFAutomationDetails{ID: "vigiles/" + cmd + "/"}
	}
	// Budget: the skeleton plus each result's own encoding, with room for
	// the properties that count what was left out.
	// Sizes are measured as WriteSARIF indents them.
	skeleton, _ := json.MarshalIndent(log, "", "  ")
	size := len(skeleton) + 256
	left := 0
	run := &log.Runs[0]
	for _, f := range findings {
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
			PartialFingerprints: map[string]string{"vigilesFinding/v1": fingerprint(f)},
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
// so a moved line does not open a new alert.
func fingerprint(f report.Finding) string {
	h := sha256.New()
	for _, s := range []string{f.Rule, f.Location.File, f.Hook, f.Title} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
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

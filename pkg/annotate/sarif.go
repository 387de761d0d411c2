package annotate

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vigiles/action/internal/textcut"
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
	//
	// ColumnKind is always "unicodeCodePoints": a report's columns count
	// characters, and SARIF 2.1.0 reads a run without it as counting
	// UTF-16 code units, one column more for each character past U+FFFF
	// (an emoji) before the column.
	SARIFRun struct {
		Tool       SARIFTool      `json:"tool"`
		ColumnKind string         `json:"columnKind"`
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
	// MaxBytes overrides SARIFFileBytesTarget, the bound on the
	// gzip-compressed file (for tests).
	MaxBytes int
	// MaxRawBytes overrides SARIFMaxRawBytes, the bound on the file
	// itself (for tests).
	MaxRawBytes int
}

// SARIFStats says what a SARIF file holds of its report's findings, and
// why it holds fewer: code scanning never shows what is left out, so the
// caller must say it where a person reads (the step's log, the job
// summary, stderr).
type SARIFStats struct {
	// Findings is the report's, Results the file's.
	Findings, Results int
	// TooMany were left out past SARIFMaxResultsPerRun results,
	// TooManyRules for a rule past SARIFMaxRulesPerRun rules, TooLarge
	// to keep the file within SARIFFileBytesTarget gzip-compressed,
	// TooLargeRaw within SARIFMaxRawBytes uncompressed; the least severe
	// go first.
	TooMany, TooManyRules, TooLarge, TooLargeRaw int
	// MaxBytes and MaxRawBytes are the bounds the file was held to.
	MaxBytes, MaxRawBytes int
}

// LeftOut is how many findings have no result in the file.
func (s SARIFStats) LeftOut() int { return s.TooMany + s.TooManyRules + s.TooLarge + s.TooLargeRaw }

// Note says in one sentence what the file (named name; "" for "the SARIF
// file") leaves out and why, and what code scanning will not show of what
// it holds; "" when it holds every finding and code scanning shows them
// all. The caller says where every finding is instead.
func (s SARIFStats) Note(name string) string {
	if name == "" {
		name = "the SARIF file"
	}
	var why []string
	if s.TooMany > 0 {
		why = append(why, fmt.Sprintf("%d past the %d results code scanning takes in a run", s.TooMany, SARIFMaxResultsPerRun))
	}
	if s.TooManyRules > 0 {
		why = append(why, fmt.Sprintf("%d of rules past the %d code scanning takes in a run", s.TooManyRules, SARIFMaxRulesPerRun))
	}
	if s.TooLarge > 0 {
		why = append(why, fmt.Sprintf("%d to keep the file within %d bytes gzip-compressed, a margin under GitHub's upload limit of %d for what upload-sarif adds", s.TooLarge, s.MaxBytes, SARIFMaxFileBytes))
	}
	if s.TooLargeRaw > 0 {
		why = append(why, fmt.Sprintf("%d to keep the file within vigiles' own bound of %d bytes uncompressed", s.TooLargeRaw, s.MaxRawBytes))
	}
	var parts []string
	if len(why) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d findings are not in %s, so code scanning will not show them (the least severe were left out: %s)",
			s.LeftOut(), s.Findings, name, strings.Join(why, "; ")))
	}
	if s.Results > SARIFMaxResultsShown {
		parts = append(parts, fmt.Sprintf("code scanning keeps only the top %d results of a run, prioritized by severity (GitHub's documented limit), so %d of the %d in the file may not show there",
			SARIFMaxResultsShown, s.Results-SARIFMaxResultsShown, s.Results))
	}
	if len(parts) == 0 {
		return ""
	}
	return "SARIF: " + strings.Join(parts, "; and ")
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

// sarifColumnKind is what a SARIF run's columns count: a report's
// Location.Column counts characters (Unicode code points), not SARIF's
// default UTF-16 code units.
const sarifColumnKind = "unicodeCodePoints"

func sarifLevel(s report.Severity) string {
	switch level(s) {
	case report.SeverityError:
		return "error"
	case report.SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifPath is the repository-relative path a SARIF uri names for file:
// treePath's, and also a file that only its bytes that are not UTF-8 keep
// from being one (p\xff/x): sarifURI percent-encodes each byte (p%FF/x),
// which names the file exactly, where an annotation's text cannot. But
// not one with a byte that starts an overlong form (overlongLead): a
// lenient decoder of the uri reads %C0%AE%C0%AE as "..", and the path
// out of the repository that it would then name is no place for a
// finding; it is placed as one without a file, as an annotation is.
func sarifPath(file string) (string, bool) {
	if p, ok := treePath(file); ok || utf8.ValidString(file) {
		return p, ok
	}
	if _, ok := treePath(strings.ToValidUTF8(file, "\uFFFD")); !ok || overlongLead(file) {
		return "", false
	}
	// No byte that is not UTF-8 is a '.' or '/': it is cleaned as the
	// path it shows as is.
	return path.Clean(strings.TrimPrefix(file, "./")), true
}

// overlongLead reports whether s holds, outside its valid UTF-8, a byte
// that can begin an overlong form, a character spelt in more bytes than
// UTF-8 allows, which lenient decoders (IIS's of old, some JVMs' and C
// libraries', D's decodeComponent) still read: 0xC0 and 0xC1, which only
// ever start one (C0 AE is '.', C0 AF '/'; so does C0 followed by the
// character itself, read without checking its top bits); 0xE0 and 0xF0,
// whose overlong forms (E0 80 AE, F0 80 80 AF) are not UTF-8 either;
// and 0xF8 and 0xFC, which start the overlong five- and six-byte forms
// of old (F8 80 80 80 AE). A valid character that begins with 0xE0 or
// 0xF0 is no such byte; 0xFE and 0xFF start nothing.
func overlongLead(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if b := s[i]; r == utf8.RuneError && n == 1 && (b == 0xc0 || b == 0xc1 || b == 0xe0 || b == 0xf0 || b == 0xf8 || b == 0xfc) {
			return true
		}
		i += n
	}
	return false
}

// sarifURI percent-escapes each segment of a repository-relative path,
// byte by byte: a byte that is not UTF-8 is its own %XX.
func sarifURI(p string) string {
	p = strings.TrimPrefix(p, "./")
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

// SARIF converts r to one SARIF 2.1.0 run within GitHub's limits (see
// EncodeSARIF).
func SARIF(r *report.Report, o SARIFOptions) *SARIFLog {
	log, _, _ := buildSARIF(r, o)
	return log
}

// EncodeSARIF returns r as indented SARIF 2.1.0 JSON, one run within
// GitHub's limits: at most SARIFMaxRulesPerRun rules and
// SARIFMaxResultsPerRun results, one location each, the most severe kept
// first, and the file at most o.MaxBytes gzip-compressed (by default
// SARIFFileBytesTarget, a margin under the size GitHub measures) and
// o.MaxRawBytes uncompressed; what was left out is counted
// in run.properties and in the stats.
func EncodeSARIF(r *report.Report, o SARIFOptions) ([]byte, SARIFStats, error) {
	_, b, st := buildSARIF(r, o)
	if b == nil {
		return nil, st, errors.New("writing sarif: encoding failed")
	}
	return b, st, nil
}

// buildSARIF makes the log, its encoding and its stats.
func buildSARIF(r *report.Report, o SARIFOptions) (*SARIFLog, []byte, SARIFStats) {
	def := anchorFile(o.DefaultFile)
	st := SARIFStats{Findings: len(r.Findings), MaxBytes: o.MaxBytes, MaxRawBytes: o.MaxRawBytes}
	if st.MaxBytes <= 0 {
		st.MaxBytes = SARIFFileBytesTarget
	}
	if st.MaxRawBytes <= 0 {
		st.MaxRawBytes = SARIFMaxRawBytes
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

	version := oneLine(textcut.End(r.Tool.Version, 64))
	log := &SARIFLog{
		Version: SARIFVersion,
		Schema:  SARIFSchema,
		Runs: []SARIFRun{{
			Tool: SARIFTool{Driver: SARIFDriver{
				Name: sarifToolName, Version: version, InformationURI: sarifToolURI, Rules: rules,
			}},
			ColumnKind: sarifColumnKind,
			Results:    []SARIFResult{},
		}},
	}
	var all []SARIFResult
	seen := map[string]int{} // findings so far with each fingerprint
	subjects := newDriftSubjects(r.Drift)
	for _, f := range findings {
		// Counted before anything is left out, so that what is left
		// out does not change the fingerprints of what follows.
		base := fingerprint(f, subjects, 0)
		fp := base
		if n := seen[base]; n > 0 {
			fp = fingerprint(f, subjects, n)
		}
		seen[base]++
		ri, ok := index[ruleID(f)]
		switch {
		case !ok:
			st.TooManyRules++
			continue
		case len(all) >= SARIFMaxResultsPerRun:
			st.TooMany++
			continue
		}
		file, line := f.Location.File, f.Location.Line
		p, inTree := sarifPath(file)
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
		all = append(all, SARIFResult{
			RuleID:    ruleID(f),
			RuleIndex: ri,
			Level:     sarifLevel(f.Severity),
			Message:   SARIFMessage{Text: sarifMessage(f)},
			Locations: []SARIFLocation{{PhysicalLocation: SARIFPhysicalLocation{
				ArtifactLocation: SARIFArtifactLocation{URI: sarifURI(file), URIBaseID: "%SRCROOT%"},
				Region:           SARIFRegion{StartLine: line, StartColumn: col},
			}}},
			PartialFingerprints: map[string]string{FingerprintKey: fp},
		})
	}

	lo, best, rawStop := fitSARIF(log, all, st.TooMany+st.TooManyRules, st.MaxBytes, st.MaxRawBytes)
	switch {
	case lo == len(all):
	case lo >= rawStop:
		st.TooLargeRaw = len(all) - lo // the next result would pass the uncompressed bound
	default:
		st.TooLarge = len(all) - lo
	}
	st.Results = lo
	return log, best, st
}

// sarifIndent is the indentation of a result in the file: the fourth
// level (the log, runs, a run, its results).
const sarifIndent = "        "

// fitSARIF puts in log's run the most of all (most severe first) that
// keep the file within maxGz bytes gzip-compressed and maxRaw bytes
// uncompressed, and returns how many, the file, and rawStop: how many
// results the uncompressed bound alone lets in. tooMany were left out
// before, for vigilesResultsNotShown.
//
// Each result is encoded once; a file of k results is its skeleton up to
// the results array, the k results, and the rest of the skeleton, as
// encoding/json writes the whole log (TestGolden compares the two). When
// every result does not fit, the bytes a gzip stream of those parts has
// written out after k results, which compress/flate decides from its
// input so far, are part of every file of k or more results compressed:
// past maxGz no more fit. Below that, by at most what the compressor may
// still hold, the file fits; in between, each k tried is measured.
func fitSARIF(log *SARIFLog, all []SARIFResult, tooMany, maxGz, maxRaw int) (int, []byte, int) {
	run := &log.Runs[0]
	keep := func(k int) {
		// Never nil: the schema makes results an array, and a run
		// without findings must say [] (nil would encode as null).
		run.Results = all[:k]
		if run.Results == nil {
			run.Results = []SARIFResult{}
		}
		run.Properties = nil
		if left := tooMany + len(all) - k; left > 0 {
			run.Properties = map[string]any{"vigilesResultsNotShown": left}
		}
	}
	encode := func(k int) []byte {
		keep(k)
		return encodeSARIF(log)
	}
	if len(all) == 0 {
		return 0, encode(0), 0
	}
	// The skeleton around one result, split where it stands.
	framed := func(k int) (open, close []byte, ok bool) {
		keep(k)
		sentinel := []SARIFResult{{}}
		run.Results = sentinel
		b := encodeSARIF(log)
		one, _ := json.MarshalIndent(sentinel[0], sarifIndent, "  ")
		i := bytes.Index(b, append([]byte("\n"+sarifIndent), one...))
		if i < 0 || bytes.Index(b[i+1:], one) != bytes.LastIndex(b[i+1:], one) {
			return nil, nil, false
		}
		return b[:i], b[i+1+len(sarifIndent)+len(one):], true
	}
	open, tail, ok := framed(len(all))
	var chunks [][]byte
	assemble := func(k int) []byte {
		if k == 0 || !ok {
			return encode(k)
		}
		_, close, _ := framed(k)
		keep(k)
		size := len(open) + len(close)
		for _, c := range chunks[:k] {
			size += len(c) + 2 + len(sarifIndent)
		}
		var b bytes.Buffer
		b.Grow(size)
		b.Write(open)
		for i, c := range chunks[:k] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + sarifIndent)
			b.Write(c)
		}
		b.Write(close)
		return b.Bytes()
	}
	// The results the uncompressed bound lets in.
	raw := len(open) + len(tail) + 16 // and the count of results left out, longer with fewer in
	rawStop := len(all)
	for i, res := range all {
		c, err := json.MarshalIndent(res, sarifIndent, "  ")
		if err != nil {
			return 0, encode(0), 0
		}
		if raw += len(c) + 1 + len(sarifIndent) + 1; raw > maxRaw {
			rawStop = i
			break
		}
		chunks = append(chunks, c)
	}
	fits := func(k int) ([]byte, bool) {
		b := assemble(k)
		return b, b != nil && len(b) <= maxRaw && gzipWithin(b, maxGz)
	}
	hi := rawStop
	if b, ok := fits(hi); ok {
		return hi, b, rawStop
	}
	// written[k-1]: what the gzip stream has written out after k
	// results; hi is cut to where it passes maxGz.
	var cw countingWriter
	zw, _ := gzip.NewWriterLevel(&cw, gzip.DefaultCompression)
	zw.Write(open)
	written := make([]int, 0, hi)
	for i, c := range chunks[:hi] {
		if i > 0 {
			zw.Write([]byte(","))
		}
		zw.Write([]byte("\n" + sarifIndent))
		zw.Write(c)
		if cw.n > maxGz {
			hi = i
			break
		}
		written = append(written, cw.n)
	}
	// What the compressor may still hold after k results: up to 1<<14
	// tokens of at most 48 bits each, a block header and the lookahead,
	// then the rest of the skeleton and the gzip trailer.
	const held = 1<<14*6 + 1<<10
	lo := 0
	var best []byte
	for k := min(hi, len(written)); k > 0; k-- {
		if written[k-1]+held+2*len(tail)+64 <= maxGz {
			if b, ok := fits(k); ok {
				lo, best = k, b
			} else {
				hi = k - 1
			}
			break
		}
	}
	// The largest k in [lo, hi] that fits, by bisection.
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if b, ok := fits(mid); ok {
			lo, best = mid, b
		} else {
			hi = mid - 1
		}
	}
	if best == nil {
		best = assemble(lo)
	}
	keep(lo)
	return lo, best, rawStop
}

// encodeSARIF encodes log as WriteSARIF writes it: indented JSON.
func encodeSARIF(log *SARIFLog) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil
	}
	return b.Bytes()
}

// gzipWithin says whether b gzip-compressed at the default level is at
// most max bytes; it stops compressing once more has been written.
func gzipWithin(b []byte, max int) bool {
	var cw countingWriter
	zw, _ := gzip.NewWriterLevel(&cw, gzip.DefaultCompression)
	for len(b) > 0 && cw.n <= max {
		n := min(len(b), 1<<16)
		zw.Write(b[:n])
		b = b[n:]
	}
	zw.Close()
	return cw.n <= max
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

func ruleID(f report.Finding) string {
	id := oneLine(textcut.End(f.Rule, 100))
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
	if strings.TrimSpace(m+f.Evidence) == "" {
		m = "vigiles finding"
	}
	return sarifText(messageCut(m, f.Evidence, SARIFMaxMessageChars, safeLogLine))
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
func fingerprint(f report.Finding, drift *driftSubjects, n int) string {
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

// ruleRunTimeout is the runner's run/timeout rule (pkg/runner's
// RuleRunTimeout, which this package does not import).
const ruleRunTimeout = "run/timeout"

// findingSubject is what a finding is about: the message without its
// digits, which carry line numbers, counts and sizes that change while the
// finding stays the same; and for a new host or written path, the host or
// path itself from the report's drift, digits and all (hosts 10.0.0.1 and
// 10.0.0.2 are two findings), for a hook's new command, env file or
// declaration that command, env file or declaration, and for a plugin's
// new or changed server what it starts (its evidence);
// for a run/timeout, nothing but the hook run it names.
// Of the drift entries whose value the message quotes, the longest is the
// one it is about ("a.example" is inside "ba.example"), the first of them
// in the drift where several of that length are.
func findingSubject(f report.Finding, drift *driftSubjects) string {
	if f.Rule == ruleRunTimeout && f.Hook != "" {
		// A hook run ended at its timeout is what the alert is about; the
		// rest of its message says how it ran (how many runs shared the
		// cores, which differs between --jobs 1, a runner's core count and
		// a shard that ran it alone; which hosts were blocked; whose bound
		// ended it), so that an alert keeps its fingerprint across them.
		return ""
	}
	subject := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return -1
		}
		return r
	}, f.Message)
	kind, ok := strings.CutPrefix(f.Rule, "baseline/")
	if ok && (kind == "command" || kind == "env" || kind == "declared") {
		// A hook's run has one command, env or declared drift, whose
		// message does not quote what it now runs, leaves in
		// CLAUDE_ENV_FILE or declares: each new one is an alert of its
		// own, so that one dismissed is not another accepted.
		if now, ok := drift.nows[hookKind{f.Hook, kind}]; ok {
			return subject + "\x00" + now
		}
	}
	if ok && (kind == "server-added" || kind == "server-changed") {
		// A plugin's server or monitor: its evidence is what it starts
		// now (and before), whole to 2,000 bytes, where the message drops
		// digits and quotes 300 bytes: each new form is an alert of its
		// own, as a hook's new command is.
		return subject + "\x00" + f.Evidence
	}
	if !ok || (kind != "host" && kind != "write") {
		return subject
	}
	return subject + "\x00" + drift.quoted(f.Hook, kind, f.Message)
}

// driftSubjects indexes a report's drift for findingSubject, which looked
// through the whole drift for each finding: a hook that wrote 30,000 new
// paths made as many findings and drift entries, and the SARIF took nine
// minutes to make.
type driftSubjects struct {
	nows   map[hookKind]string // by hook and kind: its first command, env or declared drift's value
	values map[hookKind]*driftValues
	// windows counts the parts of messages looked up, looked the
	// values looked for in a message (for tests).
	windows, looked int
}

type hookKind struct{ hook, kind string }

// driftValues are the host or write drift values of one hook, by length.
type driftValues struct {
	byLen   map[int]map[string]int // value → its first index in the drift
	lengths []int                  // the lengths there are, longest first
}

func newDriftSubjects(drift []report.Drift) *driftSubjects {
	x := &driftSubjects{nows: map[hookKind]string{}, values: map[hookKind]*driftValues{}}
	for i, d := range drift {
		switch {
		case d.Kind == "command" || d.Kind == "env" || d.Kind == "declared":
			if _, ok := x.nows[hookKind{d.Hook, d.Kind}]; !ok {
				x.nows[hookKind{d.Hook, d.Kind}] = d.Now
			}
		case (d.Kind == "host" || d.Kind == "write") && d.Now != "":
			k := hookKind{d.Hook, d.Kind}
			v := x.values[k]
			if v == nil {
				v = &driftValues{byLen: map[int]map[string]int{}}
				x.values[k] = v
			}
			m := v.byLen[len(d.Now)]
			if m == nil {
				m = map[string]int{}
				v.byLen[len(d.Now)] = m
				v.lengths = append(v.lengths, len(d.Now))
			}
			if _, ok := m[d.Now]; !ok {
				m[d.Now] = i
			}
		}
	}
	for _, v := range x.values {
		sort.Sort(sort.Reverse(sort.IntSlice(v.lengths)))
	}
	return x
}

// quoted is the longest of hook's drift values of kind that msg holds,
// the first in the drift among those of that length; "" where it holds
// none. Each length is looked for, longest first, either in msg's parts
// of that length or, where that is less work (few values of a length
// that many parts of msg would have to be hashed for), by looking for
// each value of that length in msg, as the whole drift was looked
// through: a message that quotes its own value stops there, and one
// that quotes it otherwise (strconv.Quote, for a name with a control
// character) costs no more than that look did. (Parts alone made such a
// message cost its length cubed: 1,500 quoted paths of as many lengths
// took 50 ms a finding, against 0.2 ms.)
func (x *driftSubjects) quoted(hook, kind, msg string) string {
	v := x.values[hookKind{hook, kind}]
	if v == nil {
		return ""
	}
	for _, n := range v.lengths {
		if n > len(msg) {
			continue
		}
		m, best, value := v.byLen[n], -1, ""
		if parts := len(msg) - n + 1; len(m)*len(msg) < parts*n {
			for s, j := range m {
				x.looked++
				if (best < 0 || j < best) && strings.Contains(msg, s) {
					best, value = j, s
				}
			}
		} else {
			for i := 0; i+n <= len(msg); i++ {
				x.windows++
				if j, ok := m[msg[i:i+n]]; ok && (best < 0 || j < best) {
					best, value = j, msg[i:i+n]
				}
			}
		}
		if best >= 0 {
			return value
		}
	}
	return ""
}

// WriteSARIF writes r as indented SARIF 2.1.0 JSON to w (EncodeSARIF),
// and says what it left out.
func WriteSARIF(w io.Writer, r *report.Report, o SARIFOptions) (SARIFStats, error) {
	b, st, err := EncodeSARIF(r, o)
	if err != nil {
		return st, err
	}
	if _, err := w.Write(b); err != nil {
		return st, fmt.Errorf("writing sarif: %w", err)
	}
	return st, nil
}

package annotate

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// SummaryOptions says where links point and what else to say.
type SummaryOptions struct {
	// ServerURL (GITHUB_SERVER_URL), Repo (owner/name) and SHA build links
	// to the lines findings concern; without all three, no links.
	ServerURL, Repo, SHA string
	// FailLevel decides what the verdict line counts as failing.
	FailLevel FailLevel
	// Hidden is what WriteAnnotations left out of the log.
	Hidden Hidden
	// Notes are vigiles' own sentences, printed at the end, e.g. why the
	// check run fell back to the log; they are escaped as the rest is,
	// since an error they quote can name a path the repository chose.
	Notes []string
	// MaxBytes overrides MaxStepSummaryBytes (for tests and the check
	// run's shorter summary); 0 means MaxStepSummaryBytes.
	MaxBytes int
}

// Cell widths for untrusted values, in characters before escaping.
const (
	cellChars    = 120
	messageChars = 600
	hostsPerCell = 5
)

// The patterns are compiled on first use, not in every start of the CLI
// (docs/performance.md, item 24).
var (
	repoRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`) })
	shaRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`) })
)

// LineURL is the link to line `line` of repository-relative `path`:
// {server}/{repo}/blob/{sha}/{path}#L{line}, every path segment
// percent-escaped. It returns "" when any part is missing or malformed.
func LineURL(server, repo, sha, path string, line int) string {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return ""
	}
	if !repoRE().MatchString(repo) || !shaRE().MatchString(sha) || path == "" {
		return ""
	}
	segs := strings.Split(strings.TrimPrefix(path, "./"), "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return ""
		}
		segs[i] = strings.ReplaceAll(url.PathEscape(s), "&", "%26")
	}
	link := strings.TrimSuffix(u.String(), "/") + "/" + repo + "/blob/" + sha + "/" + strings.Join(segs, "/")
	if line > 0 {
		link += "#L" + strconv.Itoa(line)
	}
	return link
}

// where renders a location as escaped text, linked when possible: only a
// path inside the tree (treePath) is linked. A file that is not one plain
// line of UTF-8, holds U+FFFD or starts with a double quote is shown as
// a finding's evidence names it (evidence.ShownName: quoted in Go syntax),
// not with the spaces md makes of its control characters nor with U+FFFD
// for its bytes, so that "hooks/a\nb.json" does not read, and link, as
// the harmless "hooks/a b.json", and p\xff/x and p\xfe/x read as two; so
// is one with a ':' before a digit, so that "a.json:7" at line 1 does not
// read as a file a.json:7:1.
func where(o SummaryOptions, l report.Location) string {
	if l.File == "" {
		return "—"
	}
	p, inTree := treePath(l.File)
	file := ShownFile(l.File)
	if l.Line > 0 {
		// One value, so that a name that ends in ":100" does not make
		// an emoji of the line's colon.
		file += ":" + strconv.Itoa(l.Line)
	}
	text := md(file, cellChars)
	if !inTree {
		return text
	}
	if link := LineURL(o.ServerURL, o.Repo, o.SHA, p, l.Line); link != "" {
		return "[" + text + "](" + link + ")"
	}
	return text
}

// ShownFile is a location's file as a report for people shows it before
// its line: as evidence.ShownName shows a name (quoted in Go syntax where
// it is not one plain line of UTF-8), and quoted too where it holds a
// backslash or a ':' before a digit, so that it reads as no other file:
// "a.json:7" at line 1 is not a.json at line 7, column 1, and `p\xff`
// is not the file named p and the byte 0xff. A ':' before anything else
// stays as it is ("dir:x/hooks.json" is still a link on a terminal).
func ShownFile(f string) string {
	if s := evidence.ShownName(f); s != f {
		return s
	}
	for i := 0; i < len(f); i++ {
		if f[i] == '\\' || f[i] == ':' && i+1 < len(f) && '0' <= f[i+1] && f[i+1] <= '9' {
			return strconv.Quote(f)
		}
	}
	return f
}

// summaryWriter appends markdown while it fits the budget. limit is the
// size the whole summary is held to, which a "not shown" line names.
type summaryWriter struct {
	b      strings.Builder
	budget int
	limit  int
}

func (w *summaryWriter) fits(s string) bool { return w.b.Len()+len(s) <= w.budget }

func (w *summaryWriter) line(s string) {
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// table writes a header and as many of n rows as fit, then a visible
// "N more not shown" line for the rest; it reports whether every row fit.
// Row i is rendered (row(i)) only when every row before it fit, so that
// the work stays within what the summary can hold: a report of 10,000
// findings and 10,000 runs rendered each row of both tables, and a run's
// hosts cell walks every destination of its record, for a summary that
// keeps under half of the findings' rows and none of the runs'.
func (w *summaryWriter) table(header string, n int, row func(i int) string, what string) bool {
	sep := "|" + strings.Repeat("---|", strings.Count(header, "|")-1)
	w.line(header)
	w.line(sep)
	for i := 0; i < n; i++ {
		r := row(i)
		if !w.fits(r + "\n") {
			w.line("")
			w.line(fmt.Sprintf("**%d more %s not shown** (this summary is limited to %d bytes); %s.", n-i, what, w.limit, ReportHas("them all")))
			return false
		}
		w.line(r)
	}
	w.line("")
	return true
}

// ReportHas says that the JSON report has what a surface left out, and
// how long it is there: the runner empties RUNNER_TEMP when the job ends.
func ReportHas(what string) string {
	return "the JSON report has " + what + " (the file named by the step's report output, which stays on the runner only until the job ends unless a later step uploads it, e.g. with actions/upload-artifact)"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// countBySeverity returns the counts of errors, warnings and notices.
func countBySeverity(fs []report.Finding) (e, w, n int) {
	for _, f := range fs {
		switch level(f.Severity) {
		case report.SeverityError:
			e++
		case report.SeverityWarning:
			w++
		default:
			n++
		}
	}
	return
}

// verdictLine is the summary's first line.
func verdictLine(r *report.Report, o SummaryOptions) string {
	icon := map[string]string{report.VerdictPass: "✅", report.VerdictFail: "❌", report.VerdictError: "⚠️"}[r.Verdict]
	verdict := r.Verdict
	if icon == "" {
		icon, verdict = "⚠️", "unknown"
	}
	failed := Failed(r, o.FailLevel)
	if r.Verdict == report.VerdictPass && failed > 0 {
		// A warning or notice at fail-level warning or notice fails the
		// step (ExitCode): the header says so, not the report's pass.
		icon, verdict = "❌", report.VerdictFail
	}
	e, w, n := countBySeverity(r.Findings)
	cmd := r.Command
	if cmd != "test" && cmd != "audit" {
		cmd = "report"
	}
	// Runs as the CLI's result line and progress count them: the hooks
	// listed but not run (http, prompt, …) apart.
	listed := r.Listed()
	runs := plural(len(r.Runs)-listed, "hook run", "hook runs")
	if listed > 0 {
		runs += fmt.Sprintf(", %d listed but not run", listed)
	}
	s := fmt.Sprintf("## %s vigiles %s: %s — %s (%s, %s, %s), %s",
		icon, cmd, verdict, plural(len(r.Findings), "finding", "findings"),
		plural(e, "error", "errors"), plural(w, "warning", "warnings"), plural(n, "notice", "notices"),
		runs)
	if failed > 0 {
		s += fmt.Sprintf(", %d at or above fail-level %s", failed, failLevelName(o.FailLevel))
	}
	if r.Shard != "" {
		s += ", shard " + md(r.Shard, 20)
	}
	return s
}

func failLevelName(l FailLevel) string {
	if l == "" {
		return string(FailError)
	}
	return string(l)
}

// hostsCell renders the hosts a run tried: allowed/blocked counts and up
// to hostsPerCell names. An attempt at the sandbox's own loopback that
// nothing there answered (evidence.ViaLoopback) is neither: no policy
// blocked it and none can allow it; under Claude Code it is the host's
// own service at that port. Such attempts are counted apart, "at the
// host's loopback".
func hostsCell(eg []evidence.Egress) string {
	if eg == nil {
		return "not recorded"
	}
	if len(eg) == 0 {
		return "none"
	}
	const (
		markBlocked = iota
		markLocal
		markAllowed
	)
	type dest struct {
		name string
		mark int
	}
	seen := map[dest]bool{}
	var ds []dest
	counts := [3]int{}
	for _, e := range eg {
		name := e.Dest()
		if e.HasPort() {
			// Port 0 too: a connect to it is no attempt at the
			// address alone, nor at any port the other entries name.
			name = evidence.WithPort(name, e.Port)
		}
		d := dest{name, markBlocked}
		switch {
		case e.Allowed:
			d.mark = markAllowed
		case e.AtLoopback():
			d.mark = markLocal
		}
		if seen[d] {
			continue
		}
		seen[d] = true
		ds = append(ds, d)
		counts[d.mark]++
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].mark != ds[j].mark {
			return ds[i].mark < ds[j].mark
		}
		return ds[i].name < ds[j].name
	})
	var names []string
	for i, d := range ds {
		if i == hostsPerCell {
			names = append(names, fmt.Sprintf("+%d more", len(ds)-i))
			break
		}
		mark := [...]string{markBlocked: "blocked", markLocal: "host's loopback under Claude Code, unreached", markAllowed: "allowed"}[d.mark]
		names = append(names, md(CutHost(d.name, 80), 80)+" ("+mark+")")
	}
	head := fmt.Sprintf("%d allowed / %d blocked", counts[markAllowed], counts[markBlocked])
	if counts[markLocal] > 0 {
		head += fmt.Sprintf(" / %d at the host's loopback", counts[markLocal])
	}
	return head + ": " + strings.Join(names, ", ")
}

func writesCell(ws []evidence.Write) string {
	if ws == nil {
		return "not recorded"
	}
	return strconv.Itoa(len(ws))
}

func durationCell(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// Summary renders the job summary markdown for r: the verdict line, a
// table of hook runs, the findings with links to their lines, and the
// baseline drift, within o.MaxBytes (default MaxStepSummaryBytes) with a
// visible "N more not shown" wherever rows were left out. Every value from
// the report is escaped.
func Summary(r *report.Report, o SummaryOptions) string {
	max := o.MaxBytes
	if max <= 0 {
		max = MaxStepSummaryBytes
	}
	reserve := SummaryReserveBytes
	if reserve > max/4 {
		reserve = max / 4
	}
	w := &summaryWriter{budget: max - reserve, limit: max}
	w.line(verdictLine(r, o))
	w.line("")

	allFindings := true // every finding has a row in the table
	if len(r.Findings) > 0 {
		w.line("### Findings")
		w.line("")
		fs := sortFindings(r.Findings)
		allFindings = w.table("| Severity | Where | Rule | Title | Message |", len(fs), func(i int) string {
			f := fs[i]
			msg := md(f.Message, messageChars)
			if f.Evidence != "" {
				msg += "<br>evidence&#58; " + md(f.Evidence, messageChars)
			}
			return fmt.Sprintf("| %s | %s | %s | %s | %s |",
				level(f.Severity), where(o, f.Location), md(f.Rule, cellChars), md(f.Title, cellChars), msg)
		}, "findings")
	}

	if len(r.Runs) > 0 {
		w.line("### Hook runs")
		w.line("")
		w.table("| Plugin | Event | Tier | Outcome | Hosts tried (allowed / blocked) | Files written | Duration |", len(r.Runs), func(i int) string {
			h := &r.Runs[i]
			// Names as the findings' files are shown (evidence.ShownName):
			// md alone would make a\rb and a b, or a\u202eb and
			// a\u200bb, one plugin.
			event := md(evidence.ShownName(h.Event), cellChars)
			if h.Tool != "" {
				event += " (" + md(evidence.ShownName(h.Tool), cellChars) + ")"
			}
			outcome := md(h.Outcome, 40)
			if h.TimedOut {
				outcome += ", timed out"
			}
			if h.Reason != "" {
				outcome += ": " + md(h.Reason, cellChars)
			}
			tier := md(h.Tier, 20)
			if h.Tier == "direct" {
				tier += " (unconfined)"
			}
			return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |",
				md(evidence.ShownName(h.Plugin), cellChars), event, tier, outcome, hostsCell(h.Egress), writesCell(h.Writes), durationCell(h.DurationMs))
		}, "hook runs")
	}

	if len(r.Drift) > 0 {
		w.line("### Baseline drift")
		w.line("")
		w.table("| Hook | Change | Was | Now | Where |", len(r.Drift), func(i int) string {
			d := r.Drift[i]
			was, now := driftCells(d.Shown())
			return fmt.Sprintf("| %s | %s | %s | %s | %s |",
				md(d.Hook, cellChars), md(d.Kind, 40), was, now, where(o, d.Location))
		}, "drift entries")
	}

	// The reserve guarantees these fit.
	w.budget = max
	if h := o.Hidden; h.Total() > 0 {
		where := "the findings table above lists them"
		if !allFindings {
			where = "the findings table above could not hold them all; " + ReportHas("every one")
		}
		kept := ""
		if h.Reserved > 0 && h.Errors > 0 {
			kept = fmt.Sprintf(", and %d of the %d errors shown is kept for vigiles' own error, which says why the step failed", h.Reserved, MaxAnnotationsPerLevel)
		}
		job := ""
		if h.Job > 0 {
			job = fmt.Sprintf(" and at most %d per job, over all its steps (earlier vigiles steps of this job made %d; other steps' count too, and vigiles cannot count them)", MaxAnnotationsPerJob, h.Earlier)
		}
		w.line(fmt.Sprintf("**%d more annotations not shown in the diff** (%d errors, %d warnings, %d notices): GitHub shows at most %d per level per step%s%s; %s.",
			h.Total(), h.Errors, h.Warnings, h.Notices, MaxAnnotationsPerLevel, job, kept, where))
		w.line("")
	}
	for _, n := range o.Notes {
		w.line("> " + md(n, 1000))
		w.line("")
	}
	return cutBytes(w.b.String(), max)
}

// driftContext is how many characters before their first difference the
// cells of a drift entry start at when that difference lies past the cut.
const driftContext = cellChars / 4

// driftCells renders a drift entry's was and now as two cells. Each is
// cut to cellChars, so values that differ only past the cut (an env file
// whose first lines stayed) would show as the same: both then start
// driftContext characters before their first difference, after a visible
// "…". Control characters (an env file's newlines and tabs) are shown as
// their control pictures (␊, ␉), not as the space md makes them, so that a
// change of one alone does not show as no change.
func driftCells(was, now string) (string, string) {
	w, n := []rune(controlPictures(was)), []rune(controlPictures(now))
	i := 0
	for i < len(w) && i < len(n) && w[i] == n[i] {
		i++
	}
	if (len(w) > cellChars || len(n) > cellChars) && i > cellChars/2 {
		start := i - driftContext
		return md("…"+string(w[start:]), cellChars), md("…"+string(n[start:]), cellChars)
	}
	return md(string(w), cellChars), md(string(n), cellChars)
}

// controlPictures replaces each C0 control character and DEL of s with
// the symbol Unicode has for it (U+2400 to U+2421), and invalid UTF-8,
// C1 control characters and the line and paragraph separators, which
// have none and which md would make spaces, with U+FFFD.
func controlPictures(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20:
			return 0x2400 + r
		case r == 0x7f:
			return 0x2421
		case r >= 0x80 && r < 0xa0, r == '\u2028', r == '\u2029':
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

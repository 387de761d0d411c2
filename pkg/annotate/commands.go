package annotate

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/vigiles/action/internal/textcut"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// level maps a finding's severity onto one of GitHub's three annotation
// levels; anything unknown is shown as a notice.
func level(s report.Severity) report.Severity {
	switch s {
	case report.SeverityError, report.SeverityWarning:
		return s
	}
	return report.SeverityNotice
}

// sortFindings returns the findings most severe first, then by file,
// line and column, keeping the report's order otherwise.
func sortFindings(fs []report.Finding) []report.Finding {
	out := append([]report.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := level(a.Severity).Rank(), level(b.Severity).Rank(); ra != rb {
			return ra > rb
		}
		if a.Location.File != b.Location.File {
			return a.Location.File < b.Location.File
		}
		if a.Location.Line != b.Location.Line {
			return a.Location.Line < b.Location.Line
		}
		return a.Location.Column < b.Location.Column
	})
	return out
}

// Hidden counts, per level, the annotations GitHub would not show.
type Hidden struct {
	Errors, Warnings, Notices int
	// Reserved is how many of the error annotations GitHub shows were
	// kept for vigiles' own error (why the step fails), which the caller
	// writes after the findings'.
	Reserved int
	// Job is how many were held back for GitHub's MaxAnnotationsPerJob
	// (of those counted above), and Earlier how many annotations earlier
	// vigiles steps of the job made.
	Job, Earlier int
}

// Made counts, per level, the annotations a step made before Publish
// (vigiles' own notices): they count against GitHub's limits as the
// findings' do.
type Made struct{ Errors, Warnings, Notices int }

func (m Made) total() int { return m.Errors + m.Warnings + m.Notices }

// budget is what GitHub still shows of a step's annotations: reserved
// errors kept for vigiles' own, made already in the step, and earlier
// made by earlier steps of the job.
type budget struct {
	reserved int
	made     Made
	earlier  int
}

// Total is the number of annotations not shown.
func (h Hidden) Total() int { return h.Errors + h.Warnings + h.Notices }

func (h *Hidden) add(s report.Severity) {
	switch level(s) {
	case report.SeverityError:
		h.Errors++
	case report.SeverityWarning:
		h.Warnings++
	default:
		h.Notices++
	}
}

// findingTitle is the one-line title of a finding's annotation.
func findingTitle(f report.Finding) string {
	t := f.Title
	if t == "" {
		t = f.Rule
	} else if f.Rule != "" {
		t = f.Rule + ": " + t
	}
	// Tags neutralised before the cut, which then holds: "#·#[" is longer.
	return textcut.End(noLogTags(oneLine(t)), 200)
}

// findingMessage is a finding's message with its evidence, cut to max.
func findingMessage(f report.Finding, max int) string {
	// Control characters (terminal escapes) are replaced; newlines stay,
	// and go-githubactions escapes them. The runner writes the message,
	// unescaped, into the step's log as well, line by line, where the log
	// viewer styles a line starting "##[group]" and the like, and one
	// starting "[command]" as a command the step ran.
	return messageCut(f.Message, f.Evidence, max, func(s string) string { return noCommandTags(noLogTags(safeLogLine(s))) })
}

// WriteAnnotations prints one workflow command per finding to w, at most
// MaxAnnotationsPerLevel per level, most severe first, and returns how
// many it left out. go-githubactions escapes every property and message,
// so no finding can end its command line or start another one.
func WriteAnnotations(w io.Writer, findings []report.Finding) Hidden {
	return writeAnnotations(w, findings, budget{})
}

// writeAnnotations is WriteAnnotations within b: it keeps b.reserved of
// the error annotations GitHub shows for vigiles' own, written after
// these (an error beyond the first MaxAnnotationsPerLevel of a step is
// dropped without a word, and the one that says why the step failed must
// not be), counts what the step made before against each level's, and
// keeps the job within MaxAnnotationsPerJob with what earlier steps made.
func writeAnnotations(w io.Writer, findings []report.Finding, b budget) Hidden {
	a := githubactions.New(githubactions.WithWriter(w), githubactions.WithGetenv(func(string) string { return "" }))
	hidden := Hidden{Reserved: b.reserved, Earlier: b.earlier}
	shown := map[report.Severity]int{
		report.SeverityError:   b.reserved + b.made.Errors,
		report.SeverityWarning: b.made.Warnings,
		report.SeverityNotice:  b.made.Notices,
	}
	jobLeft := MaxAnnotationsPerJob - b.earlier - b.made.total() - b.reserved
	for _, f := range sortFindings(findings) {
		lv := level(f.Severity)
		if shown[lv] >= MaxAnnotationsPerLevel {
			hidden.add(lv)
			continue
		}
		if jobLeft <= 0 {
			hidden.add(lv)
			hidden.Job++
			continue
		}
		shown[lv]++
		jobLeft--
		if w == nil {
			continue // counting only
		}
		props := map[string]string{"title": findingTitle(f)}
		if p, ok := treePath(f.Location.File); ok {
			props["file"] = p
			if f.Location.Line > 0 {
				props["line"] = strconv.Itoa(f.Location.Line)
			}
			if f.Location.Column > 0 {
				props["col"] = strconv.Itoa(f.Location.Column)
			}
		}
		msg := findingMessage(f, MaxMessageChars)
		fa := a.WithFieldsMap(props)
		switch lv {
		case report.SeverityError:
			fa.Errorf("%s", msg)
		case report.SeverityWarning:
			fa.Warningf("%s", msg)
		default:
			fa.Noticef("%s", msg)
		}
	}
	return hidden
}

// noCommandTags makes "[command]" at the start of a line of s (lines
// ending in "\n" alone, as safeLogLine leaves them) "[·command]": the log
// viewer shows a line that starts with it as a command the step ran,
// styled, the prefix hidden, as it shows the runner's own.
func noCommandTags(s string) string {
	const tag = "[command]"
	if !strings.Contains(s, tag) {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, tag) {
			lines[i] = "[·command]" + l[len(tag):]
		}
	}
	return strings.Join(lines, "")
}

// rawMark starts each line a hook printed in WriteHookLogs, and no line
// vigiles writes there (its headers start "--- " and "["): a hook that
// prints "--- other / Stop (other/Stop/0) exit 0" or "[stdout]" makes a
// line that reads as the hook's, never as vigiles' header of another
// run's block or of its own exit status.
const rawMark = "| "

// writeRawLines writes each line of t (lines ending in "\n" alone, as
// safeLogLine leaves them) to b after rawMark, an empty one as the mark
// without its space, and ends the last with a newline.
func writeRawLines(b *strings.Builder, t string) {
	for _, l := range strings.Split(strings.TrimSuffix(t, "\n"), "\n") {
		if l == "" {
			b.WriteString(strings.TrimSpace(rawMark) + "\n")
			continue
		}
		b.WriteString(rawMark + l + "\n")
	}
}

// headerName is a name in a header of WriteHookLogs, its ':' lookalikes
// (NoMatch): as evidence.ShownName shows it, quoted in Go syntax where it
// is no plain line of UTF-8 (a\rb as "a\rb", never as a b, another
// name), and quoted too where it holds what the header's own words are
// told apart by (one of seps, a parenthesis) or is empty: a plugin named
// "p / Stop (p/Stop/0) exit 0 ---" cannot make its header read as
// another run's, or as an exit status it did not have. A plugin's and an
// event's seps are "/"; a run's id, whose parts are '/'-separated (and
// quoted where odd), has none.
func headerName(s, seps string) string {
	shown := evidence.ShownName(s)
	if shown == s && (s == "" || strings.ContainsAny(s, seps+`()"`)) {
		shown = strconv.Quote(s)
	}
	return NoMatch(shown)
}

// newToken returns a fresh unguessable stop-commands token.
func newToken() (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making stop-commands token: %w", err)
	}
	return "vigiles-" + hex.EncodeToString(b[:]), nil
}

// WriteHookLogs prints each run's raw stdout and stderr to w inside one
// log group, fenced by ::stop-commands::<token> and ::<token>:: with a
// fresh random token, so that nothing a hook printed is ever read by the
// runner as a workflow command. Each line a hook printed starts with
// rawMark, which no header of vigiles' starts with. Runs with no output
// are skipped.
//
// The fence does not keep the problem matchers of earlier steps away: the
// runner applies them to every line inside it, so a hook that prints
// "./main.go:1:1: approved" there makes an annotation of its own. Hook
// output is therefore printed only when asked for (Options.RawLogs); the
// header lines vigiles writes around it quote names through NoMatch.
func WriteHookLogs(w io.Writer, runs []report.HookRun) error {
	hasOutput := false
	for _, r := range runs {
		if r.Stdout != "" || r.Stderr != "" {
			hasOutput = true
			break
		}
	}
	if !hasOutput {
		return nil
	}
	var body strings.Builder
	for _, r := range runs {
		if r.Stdout == "" && r.Stderr == "" {
			continue
		}
		fmt.Fprintf(&body, "--- %s / %s (%s) exit %d\n", headerName(r.Plugin, "/"), headerName(r.Event, "/"), headerName(r.ID, ""), r.ExitCode)
		for _, s := range []struct{ name, text string }{{"stdout", r.Stdout}, {"stderr", r.Stderr}} {
			if s.text == "" {
				continue
			}
			fmt.Fprintf(&body, "[%s]\n", s.name)
			writeRawLines(&body, noCommandTags(safeLogLine(s.text)))
		}
	}
	// Inside the stop-commands block nothing runs, but the log viewer
	// still styles "##[group]", "##[error]" and the like wherever they
	// appear: a hook could close vigiles' group or print a line that
	// looks like vigiles' own verdict. No line here starts "[command]",
	// which it shows as a command the step ran: a hook's starts with
	// rawMark (its own "[command]" made "[·command]" above), and
	// vigiles' headers with "--- ", "[stdout]" or "[stderr]".
	text := noLogTags(body.String())
	var token string
	for {
		var err error
		if token, err = newToken(); err != nil {
			return err
		}
		if !strings.Contains(text, token) {
			break
		}
	}
	a := githubactions.New(githubactions.WithWriter(w), githubactions.WithGetenv(func(string) string { return "" }))
	a.Group("vigiles: raw hook output")
	a.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	if _, err := io.WriteString(w, text); err != nil {
		return fmt.Errorf("writing hook output to the log: %w", err)
	}
	a.IssueCommand(&githubactions.Command{Name: token})
	a.EndGroup()
	return nil
}

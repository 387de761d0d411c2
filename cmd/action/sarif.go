package main

import (
	"fmt"
	"io"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/report"
)

// init wires `vigiles test|audit|merge --format sarif` to pkg/annotate's
// SARIF 2.1.0 writer (GitHub code scanning's limits are applied there);
// the stats say what the SARIF leaves out.
func init() {
	renderSARIF = func(r *report.Report, w io.Writer) (annotate.SARIFStats, error) {
		return annotate.WriteSARIF(w, r, annotate.SARIFOptions{})
	}
}

// sarifNote says what the SARIF named name leaves out (or code scanning
// will not show of it) and where every finding is instead (where, a
// clause: "the JSON report has every finding"); "" when code scanning
// shows every finding. Code scanning never says it: the action prints it
// in the step's log and puts it in the summaries, the CLI on stderr.
func sarifNote(st annotate.SARIFStats, name, where string) string {
	note := st.Note(name)
	if note == "" {
		return ""
	}
	return fmt.Sprintf("%s; %s.", note, where)
}

// printNote prints a note of vigiles' own, which may quote a path, as one
// inert line after "vigiles: ".
func printNote(w io.Writer, note string) {
	fmt.Fprintf(w, "vigiles: %s\n", annotate.InertLine(annotate.OneLine(note)))
}

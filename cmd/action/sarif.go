package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"

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

// whyNotSARIF says why the file at p is no SARIF log that vigiles could
// have written (JSON with "version": "2.1.0" and "runs"), which the sarif
// input must not overwrite; "" when it is one, or empty, or not there (or
// not readable: the write's own error says so), as runner.WhyNotBaseline
// says it of a baseline.
func whyNotSARIF(p string) string {
	// O_NONBLOCK: opening a FIFO with no writer would wait for one.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return "" // a directory or the like: cannotWrite says it
	}
	var log struct {
		Version string          `json:"version"`
		Runs    json.RawMessage `json:"runs"`
	}
	if err := json.NewDecoder(f).Decode(&log); err != nil {
		return "it is not a JSON object"
	}
	if log.Version != "2.1.0" || !bytes.HasPrefix(bytes.TrimSpace(log.Runs), []byte("[")) {
		return `it is JSON without the "version": "2.1.0" and "runs" of a SARIF log`
	}
	return ""
}

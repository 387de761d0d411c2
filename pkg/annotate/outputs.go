package annotate

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// Outputs are the step outputs. None of them is untrusted text: the
// verdict is one of report's constants, the counts are numbers, and the
// report path is the one vigiles chose.
type Outputs struct {
	Verdict  string
	Findings int
	Failed   int
	Report   string
}

// ErrUnsafeOutput is returned when an output value could break out of its
// GITHUB_OUTPUT line.
var ErrUnsafeOutput = errors.New("output value is not a single safe line")

// lines renders the outputs as name=value lines, refusing any value that
// is not one of the known verdicts or a newline-free path.
func (o Outputs) lines() (string, error) {
	switch o.Verdict {
	case report.VerdictPass, report.VerdictFail, report.VerdictError:
	default:
		return "", fmt.Errorf("writing output verdict: %w", ErrUnsafeOutput)
	}
	if o.Report != "" && (strings.ContainsAny(o.Report, "\r\n\x00") || strings.Contains(o.Report, "<<")) {
		return "", fmt.Errorf("writing output report: %w", ErrUnsafeOutput)
	}
	var b strings.Builder
	b.WriteString("verdict=" + o.Verdict + "\n")
	b.WriteString("findings=" + strconv.Itoa(o.Findings) + "\n")
	b.WriteString("failed=" + strconv.Itoa(o.Failed) + "\n")
	b.WriteString("report=" + o.Report + "\n")
	return b.String(), nil
}

// WriteOutputs appends the outputs to the GITHUB_OUTPUT file at path.
func WriteOutputs(path string, o Outputs) error {
	s, err := o.lines()
	if err != nil {
		return err
	}
	return appendFile(path, s)
}

// writeOutputs appends the outputs to f, a GITHUB_OUTPUT file opened by
// openFileCommand.
func writeOutputs(f *os.File, o Outputs) error {
	s, err := o.lines()
	if err != nil {
		return err
	}
	return writeFileCommand(f, s)
}

// WriteVerdict appends only the verdict output to the GITHUB_OUTPUT file
// at path: for a step that stops before it has a report.
func WriteVerdict(path, verdict string) error {
	switch verdict {
	case report.VerdictPass, report.VerdictFail, report.VerdictError:
	default:
		return fmt.Errorf("writing output verdict: %w", ErrUnsafeOutput)
	}
	return appendFile(path, "verdict="+verdict+"\n")
}

// appendFile appends s to the file at path, as the runner's file commands
// expect.
func appendFile(path, s string) (err error) {
	f, err := openFileCommand(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing %s: %w", path, cerr)
		}
	}()
	return writeFileCommand(f, s)
}

// openFileCommand opens the runner's file-command file at path for
// appending; nil without an error when path is "" (no such file).
func openFileCommand(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return f, nil
}

// writeFileCommand appends s to f, opened by openFileCommand.
func writeFileCommand(f *os.File, s string) error {
	if _, err := f.WriteString(s); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return nil
}

package annotate

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func loadReport(t *testing.T, name string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("parsing %s: %v", name, err)
	}
	return &r
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from golden file (-want +got):\n%s", name, diff)
	}
}

// command is a workflow command as the runner reads it.
type command struct {
	Name  string
	Props map[string]string
	Data  string
}

var lineSplit = regexp.MustCompile(`\r\n|\r|\n`)

func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

func unescapeProp(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

// runnerCommands reads a step log the way actions/runner does: lines end
// at CR, LF or CRLF; a line that starts with "::" (after trimming) or the
// legacy "##[" is a command, except between ::stop-commands::TOKEN and a
// line ::TOKEN:: (compared case-insensitively, as the runner does). It
// is deliberately stricter than the runner: it ignores leading whitespace
// when looking for a command.
func runnerCommands(t *testing.T, log string) []command {
	t.Helper()
	var out []command
	stop := ""
	for _, raw := range lineSplit.Split(log, -1) {
		line := strings.TrimLeft(raw, " \t")
		if stop != "" {
			if strings.EqualFold(strings.TrimSpace(line), "::"+stop+"::") {
				out = append(out, command{Name: "<resume>", Data: stop})
				stop = ""
			}
			continue
		}
		if strings.HasPrefix(line, "##[") {
			out = append(out, command{Name: "<legacy>", Data: line})
			continue
		}
		if !strings.HasPrefix(line, "::") {
			continue
		}
		end := strings.Index(line[2:], "::")
		if end < 0 {
			continue
		}
		header, data := line[2:2+end], line[2+end+2:]
		name, props, _ := strings.Cut(header, " ")
		c := command{Name: name, Data: unescapeData(data), Props: map[string]string{}}
		if props != "" {
			for _, kv := range strings.Split(props, ",") {
				k, v, _ := strings.Cut(kv, "=")
				c.Props[k] = unescapeProp(v)
			}
		}
		if name == "stop-commands" {
			stop = c.Data
		}
		out = append(out, c)
	}
	return out
}

package annotate

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

var entityRE = regexp.MustCompile(`&#[0-9]+;`)

// FuzzUntrustedText checks, for any string a hook could produce, that a
// summary cell holds no markup and that an annotation is exactly one
// command whose data comes back intact.
func FuzzUntrustedText(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cell := entityRE.ReplaceAllString(md(s, 1000), "")
		if strings.ContainsAny(cell, "\r\n|`<>[]()*_~\\!#:@$&") {
			t.Fatalf("md(%q) = %q keeps markup", s, cell)
		}
		fd := report.Finding{Rule: s, Severity: report.SeverityError, Title: s, Message: s, Location: report.Location{File: s, Line: 1}}
		var log bytes.Buffer
		WriteAnnotations(&log, []report.Finding{fd})
		cmds := runnerCommands(t, log.String())
		if len(cmds) != 1 || cmds[0].Name != "error" {
			t.Fatalf("%q gave commands %+v", s, cmds)
		}
		if cmds[0].Data != findingMessage(fd, MaxMessageChars) {
			t.Fatalf("message %q came back as %q", findingMessage(fd, MaxMessageChars), cmds[0].Data)
		}
	})
}

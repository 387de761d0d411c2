package annotate

import (
	"bytes"
	"regexp"
	"testing"
)

// tokenRE matches the random stop-commands token, replaced in goldens.
var tokenRE = regexp.MustCompile(`vigiles-[0-9a-f]{40}`)

// TestGolden renders the summary, the workflow commands and SARIF of two
// reports: a hand-written fixture (report.json) and the report of the
// action run on examples/ through the real sandbox (example-report.json,
// regenerated with
//
//	go test ./cmd/action -run TestActionOnExamples -args -write-example-report=$PWD/pkg/annotate/testdata/example-report.json
//
// then `go test ./pkg/annotate -run TestGolden -update`).
func TestGolden(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, fx := range []struct{ report, prefix string }{
		{"report.json", ""},
		{"example-report.json", "example-"},
	} {
		r := loadReport(t, fx.report)
		t.Run(fx.prefix+"summary", func(t *testing.T) {
			var log bytes.Buffer
			hidden := WriteAnnotations(&log, r.Findings)
			got := Summary(r, SummaryOptions{
				ServerURL: "https://github.com", Repo: "octo/plugins", SHA: sha,
				FailLevel: FailError, Hidden: hidden,
			})
			golden(t, fx.prefix+"summary.golden.md", got)
		})
		t.Run(fx.prefix+"commands", func(t *testing.T) {
			var log bytes.Buffer
			WriteAnnotations(&log, r.Findings)
			if err := WriteHookLogs(&log, r.Runs); err != nil {
				t.Fatal(err)
			}
			golden(t, fx.prefix+"commands.golden.txt", tokenRE.ReplaceAllString(log.String(), "TOKEN"))
		})
		t.Run(fx.prefix+"sarif", func(t *testing.T) {
			var b bytes.Buffer
			if _, err := WriteSARIF(&b, r, SARIFOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, fx.prefix+"sarif.golden.json", b.String())
		})
	}
}

package annotate

import (
	"bytes"
	"regexp"
	"testing"
)

// tokenRE matches the random stop-commands token, replaced in goldens.
var tokenRE = regexp.MustCompile(`vigiles-[0-9a-f]{40}`)

func TestGolden(t *testing.T) {
	r := loadReport(t, "report.json")
	const sha = "0123456789abcdef0123456789abcdef01234567"

	t.Run("summary", func(t *testing.T) {
		var log bytes.Buffer
		hidden := WriteAnnotations(&log, r.Findings)
		got := Summary(r, SummaryOptions{
			ServerURL: "https://github.com", Repo: "octo/plugins", SHA: sha,
			FailLevel: FailError, Hidden: hidden,
		})
		golden(t, "summary.golden.md", got)
	})
	t.Run("commands", func(t *testing.T) {
		var log bytes.Buffer
		WriteAnnotations(&log, r.Findings)
		if err := WriteHookLogs(&log, r.Runs); err != nil {
			t.Fatal(err)
		}
		golden(t, "commands.golden.txt", tokenRE.ReplaceAllString(log.String(), "TOKEN"))
	})
	t.Run("sarif", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteSARIF(&b, r, SARIFOptions{}); err != nil {
			t.Fatal(err)
		}
		golden(t, "sarif.golden.json", b.String())
	})
}

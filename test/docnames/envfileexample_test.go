package docnames

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestEnvFileExamplesCountTheirContent: an env file the docs show whole
// (not truncated, not base64) has the size of its content, as a run
// records it: a reader checks the one against the other.
func TestEnvFileExamplesCountTheirContent(t *testing.T) {
	obj := regexp.MustCompile(`\{"path"\s*:[^{}]*?"kind"\s*:[^{}]*?"size"\s*:[^{}]*?"content"\s*:[^{}]*\}`)
	seen := 0
	for _, name := range []string{"docs/result-format.md", "docs/report-format.md"} {
		doc, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range obj.FindAllString(string(doc), -1) {
			var e struct {
				Size      int64   `json:"size"`
				Content   *string `json:"content"`
				Encoding  string  `json:"encoding"`
				Truncated bool    `json:"truncated"`
			}
			if json.Unmarshal([]byte(m), &e) != nil || e.Content == nil || e.Encoding != "" || e.Truncated {
				continue // a sketch, or an env file not shown whole
			}
			seen++
			if int64(len(*e.Content)) != e.Size {
				t.Errorf("%s shows an env file of size %d whose content is %d bytes: %s", name, e.Size, len(*e.Content), m)
			}
		}
	}
	if seen < 2 {
		t.Errorf("found %d env files shown whole in the docs, want the two of result-format.md and report-format.md", seen)
	}
}

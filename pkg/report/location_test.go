package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestLocationKeepsFileBytes: a location's file that is not UTF-8 is
// written as JSON shows it, each byte that is not one U+FFFD, with its
// exact bytes beside it in "fileBytes", read back exact, so that findings
// at p\xff/x and p\xfe/x stay two through a report's JSON (vigiles merge,
// the Action); any other file is written as it was, without "fileBytes".
func TestLocationKeepsFileBytes(t *testing.T) {
	for _, tc := range []struct {
		loc  Location
		want string
	}{
		{Location{File: "hooks/a&<b>.json", Line: 3, Column: 7}, `{"file":"hooks/a&<b>.json","line":3,"column":7}`},
		{Location{File: "p\uFFFD/x"}, `{"file":"p` + "\uFFFD" + `/x"}`},
		{Location{File: ""}, `{"file":""}`},
		{Location{File: "p\xff/x", Line: 1}, `{"file":"p` + "\uFFFD" + `/x","fileBytes":"cP8veA==","line":1}`},
		{Location{File: "p\xfe/x", Line: 1}, `{"file":"p` + "\uFFFD" + `/x","fileBytes":"cP4veA==","line":1}`},
	} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(Finding{Rule: "r", Location: tc.loc}); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); !strings.Contains(got, `"location":`+tc.want+`,`) {
			t.Errorf("%q: %s, want its location %s", tc.loc.File, got, tc.want)
		}
		var back Finding
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if back.Location != tc.loc {
			t.Errorf("%q read back as %+v", tc.loc.File, back.Location)
		}
	}
}

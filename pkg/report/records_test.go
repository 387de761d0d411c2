package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestRunRecordsKeepNullApartFromEmpty: a run's writes and egress are
// written null where they were not recorded and [] where the run was
// recorded doing nothing, and read back so: the two must never read as
// each other (an expectation over a record not made fails, one over an
// empty record passes), in a report file merge reads as in the report.
func TestRunRecordsKeepNullApartFromEmpty(t *testing.T) {
	for _, c := range []struct {
		name string
		run  HookRun
		want []string
	}{
		{"not recorded", HookRun{ID: "a"}, []string{`"writes":null`, `"egress":null`}},
		{"recorded, nothing", HookRun{ID: "a", Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, []string{`"writes":[]`, `"egress":[]`}},
		{"writes only", HookRun{ID: "a", Writes: []evidence.Write{}}, []string{`"writes":[]`, `"egress":null`}},
		{"egress only", HookRun{ID: "a", Egress: []evidence.Egress{}}, []string{`"writes":null`, `"egress":[]`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(Report{Schema: Schema, Runs: []HookRun{c.run}, Findings: []Finding{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s: no %s", b, w)
				}
			}
			var back Report
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if len(back.Runs) != 1 {
				t.Fatalf("%s read back with %d runs", b, len(back.Runs))
			}
			r := back.Runs[0]
			if (r.Writes == nil) != (c.run.Writes == nil) || (r.Egress == nil) != (c.run.Egress == nil) {
				t.Errorf("%s read back: writes nil %v, egress nil %v; want %v, %v", b, r.Writes == nil, r.Egress == nil, c.run.Writes == nil, c.run.Egress == nil)
			}
		})
	}
}

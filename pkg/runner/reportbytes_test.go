package runner

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/report"
)

// TestReportLocationsOfPathsThatAreNotUTF8: through a real confined
// audit of the plugins p\xff and p\xfe (twoPluginsNotUTF8), the report's
// JSON, read back as vigiles merge and the Action read it, keeps each
// MCP server's finding at its own file, and the SARIF made from it
// places them at p%FF/.mcp.json and p%FE/.mcp.json, two uris, where
// JSON alone would show both files as p\uFFFD/.mcp.json.
func TestReportLocationsOfPathsThatAreNotUTF8(t *testing.T) {
	_, audit := twoPluginsNotUTF8(t)
	data, err := json.Marshal(audit(false))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range rep.Findings {
		if f.Rule == RuleMCPServer {
			files = append(files, f.Location.File)
		}
	}
	slices.Sort(files)
	if want := []string{"p\xfe/.mcp.json", "p\xff/.mcp.json"}; !slices.Equal(files, want) {
		t.Errorf("the servers' findings read back at %q, want %q; %v", files, want, findingLines(rep.Findings))
	}
	var uris []string
	for _, r := range annotate.SARIF(&rep, annotate.SARIFOptions{}).Runs[0].Results {
		if r.RuleID == RuleMCPServer {
			uris = append(uris, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
	}
	slices.Sort(uris)
	if want := []string{"p%FE/.mcp.json", "p%FF/.mcp.json"}; !slices.Equal(uris, want) {
		t.Errorf("SARIF places the servers' findings at %q, want %q", uris, want)
	}
}

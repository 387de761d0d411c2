package main

import (
	"errors"
	"strings"
	"testing"
)

// TestActionAbsoluteInputNamesTheRelativeOne: a workflow that writes a
// path input from ${{ github.workspace }} gives an absolute path, which
// the inputs refuse (relative to the workspace, or to working-directory
// for the baseline). Where it is in the workspace, the error names the
// relative path to set; elsewhere it says only that it must be inside.
func TestActionAbsoluteInputNamesTheRelativeOne(t *testing.T) {
	const ws = "/home/runner/work/plugins/plugins"
	for _, tc := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"working-directory": ws + "/tools"}, `input working-directory: "` + ws + `/tools" must be a directory inside the workspace, relative to it: set working-directory: tools`},
		{map[string]string{"working-directory": ws}, "relative to it: leave it empty for the workspace itself"},
		{map[string]string{"sarif": ws + "/out/v.sarif"}, `input sarif: "` + ws + `/out/v.sarif" must be a path inside the workspace, relative to it: set sarif: out/v.sarif`},
		{map[string]string{"command": "audit", "baseline": ws + "/.vigiles/baseline.json"}, "relative to working-directory: set baseline: .vigiles/baseline.json"},
		{map[string]string{"command": "audit", "working-directory": "tools", "baseline": ws + "/tools/b.json"}, "relative to working-directory: set baseline: b.json"},
		{map[string]string{"command": "audit", "working-directory": "tools", "baseline": ws + "/ci/b.json"}, "relative to working-directory: set baseline: ../ci/b.json"},
		{map[string]string{"sarif": "/tmp/v.sarif"}, `input sarif: "/tmp/v.sarif" must be a path inside the workspace, relative to it`},
	} {
		_, err := readInputs(func(k string) string {
			if k == "GITHUB_WORKSPACE" {
				return ws
			}
			for n, v := range tc.inputs {
				if k == "INPUT_"+strings.ToUpper(n) {
					return v
				}
			}
			return ""
		})
		if !errors.Is(err, errBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one saying %q", tc.inputs, err, tc.want)
		}
		if strings.HasPrefix(tc.inputs["sarif"], "/tmp") && strings.Contains(err.Error(), ": set sarif") {
			t.Errorf("%v: %v names a fix for a path outside the workspace", tc.inputs, err)
		}
	}
}

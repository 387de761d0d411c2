package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
)

// TestActionFileInputNamingADirectory: a sarif or baseline input written
// as a directory ("out/", ".vigiles/", or a directory that is there) is
// said before any hook runs, with the file to name in it. Taken as it
// was, "out/" made a file named out, update-baseline into .vigiles/
// failed only after every hook had run, and a baseline of a directory
// was a baseline/invalid finding after them.
func TestActionFileInputNamingADirectory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{"sarif ending in a slash", map[string]string{"sarif": "out/"},
			"input sarif: \"out/\" names a directory, and sarif is the file to write: set sarif: out/vigiles.sarif"},
		{"sarif of a directory that is there", map[string]string{"sarif": "plugins"},
			"input sarif: plugins is a directory, and sarif is the file to write: set sarif: plugins/vigiles.sarif"},
		{"sarif of the workspace", map[string]string{"sarif": "./"},
			"input sarif: \"./\" names a directory, and sarif is the file to write: set sarif: vigiles.sarif"},
		{"baseline ending in a slash", map[string]string{"command": "audit", "baseline": ".vigiles/"},
			"input baseline: \".vigiles/\" names a directory, and baseline is the file to compare with: set baseline: .vigiles/baseline.json"},
		{"baseline to write ending in a slash", map[string]string{"command": "audit", "baseline": "new/", "update-baseline": "true"},
			"input baseline: \"new/\" names a directory, and baseline is the file to compare with: set baseline: new/baseline.json"},
		{"baseline to write of a directory that is there", map[string]string{"command": "audit", "baseline": "plugins", "update-baseline": "true"},
			"input baseline: plugins is a directory, and update-baseline writes the baseline file: set baseline: plugins/baseline.json"},
		// Read, it was a baseline/invalid finding after every hook ran.
		{"baseline of a directory that is there", map[string]string{"command": "audit", "baseline": "plugins"},
			"input baseline: plugins is a directory, and baseline is the file to compare with: set baseline: plugins/baseline.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.inputs["check-run"] = "false"
			s := newStep(t, tc.inputs)
			ws := s.env["GITHUB_WORKSPACE"]
			s.checkout(t) // as actions/checkout leaves it, before the step
			before := listDir(t, ws)
			s.run(t) // s.exec records any hook it is asked to run
			code := s.exitCode
			if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); code != 2 || !strings.Contains(got, tc.want) {
				t.Errorf("exit %d, want 2 saying %q\n%s", code, tc.want, got)
			}
			if ran := len(s.exec.specs); ran != 0 {
				t.Errorf("%d hooks ran before the bad input was said", ran)
			}
			if after := listDir(t, ws); after != before {
				t.Errorf("the workspace changed:\n%s\nwas\n%s", after, before)
			}
			if _, err := os.Stat(filepath.Join(ws, "out")); err == nil {
				t.Errorf("out was made")
			}
		})
	}
}

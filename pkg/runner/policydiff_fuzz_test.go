package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzComparePolicy compares two policies a pull request and its base may
// hold, each arbitrary bytes that ParseConfig accepts: the comparison must
// never panic or hang, every weakening it names has a place in the head's
// file, and a policy compared with itself names nothing (a pull request
// that leaves the policy as it was is never told it weakened it).
func FuzzComparePolicy(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(examplesDir, ".vigiles.yml")); err == nil {
		f.Add(b, []byte(goodConfig))
	}
	f.Add([]byte(goodConfig), []byte(goodConfig))
	f.Add([]byte("checks: [{name: a, hook: h, event: Stop, expect: {no-egress: true}}]\n"), []byte("checks: []\n"))
	f.Add([]byte("defaults: {sandbox: strict, egress: deny, timeout: 30s}\n"), []byte("defaults: {sandbox: off, egress: {mode: allow, allow: [\"*.x.test\"]}, timeout: 1s}\n"))
	f.Add([]byte("plugins: {untrusted: [\"p/*\"]}\npayloads: {Bash: {a: 1}}\n"), []byte("plugins: {trusted: [\"p/*\"]}\n"))
	f.Fuzz(func(t *testing.T, baseData, headData []byte) {
		hang := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("comparePolicy hangs on %q and %q", baseData, headData)) })
		defer hang.Stop()
		base, err := ParseConfig(".vigiles.yml", baseData)
		if err != nil {
			return
		}
		if finds := comparePolicy(base, base, baseData, "base"); len(finds) != 0 {
			t.Fatalf("a policy compared with itself names %+v\n%s", finds, baseData)
		}
		head, err := ParseConfig(".vigiles.yml", headData)
		if err != nil {
			return
		}
		for _, fd := range comparePolicy(base, head, headData, "base") {
			if fd.Location.File != ".vigiles.yml" || fd.Location.Line < 0 || fd.Message == "" {
				t.Fatalf("a weakening without a place or words: %+v", fd)
			}
		}
	})
}

// FuzzCompareBaselines compares a baseline with itself, as arbitrary
// bytes the baseline reader accepts: the comparison must never panic, and
// names nothing.
func FuzzCompareBaselines(f *testing.F) {
	seedFiles(f, ".vigiles/baseline.json")
	f.Add([]byte(`{"schema": "vigiles.baseline/v1", "runs": {"a#b": {"hosts": ["x"], "writes": ["w"], "outcome": "allowed"}}}`))
	f.Add([]byte(`{"schema": "vigiles.baseline/v2", "runs": {}, "servers": [], "projectServers": [], "skillShells": [{"plugin": "g", "context": "plugin:g", "file": "g/s.md", "form": "block", "command": "date", "allowed": "Bash"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := baseOf(data, "baseline.json")
		if err != nil {
			return
		}
		if finds := compareBaselines(b, b, "baseline.json", data, "base"); len(finds) != 0 {
			t.Fatalf("a baseline compared with itself names %+v\n%s", finds, data)
		}
	})
}

package runner

import "testing"

// TestNoWriteCoversBelowAPath: a no-write glob with a '/' forbids what is
// below a path it matches too, as a .gitignore line with a '/' does and as
// a base name already did: no-write: [.github/workflows] passed a hook
// that wrote .github/workflows/release.yml. wrote-only does not widen what
// it allows so.
func TestNoWriteCoversBelowAPath(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: a, command: x, expect: {no-write: [.github/workflows]}}\n"+
		"  - {name: b, command: x, expect: {no-write: [./src]}}\n"+
		"  - {name: c, command: x, expect: {no-write: [\"~/.ssh\"]}}\n"+
		"  - {name: d, command: x, expect: {no-write: [\"logs/*.d\"]}}\n"+
		"  - {name: e, command: x, expect: {wrote-only: [.github/workflows]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	checkFolded(t, cfg, []foldedWrite{
		{0, ".github/workflows", true},
		{0, ".github/workflows/release.yml", true},
		{0, ".github/workflows/deep/x.yml", true},
		{0, ".GitHub/Workflows/release.yml", true},
		{0, ".github/workflowsx/release.yml", false},
		{0, "sub/.github/workflows/release.yml", false},
		{1, "src/main.go", true},
		{1, "lib/src/main.go", false},
		{2, "~/.ssh/authorized_keys", true},
		{2, "~/.sshx", false},
		{3, "logs/a.d/x", true},
		{3, "logs/a/b.d", false},
		{4, ".github/workflows", false},
		{4, ".github/workflows/release.yml", true},
	})
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunOfAScriptItCannotStartSaysHow: a newcomer's first vigiles run of
// a hook script that is not executable (a file checked out 0644), or
// that is given without ./ (looked up on PATH), ends 126 or 127 with the
// shell's words alone, "permission denied", "not found"; the text report
// now adds the line that says how to start it. A 127 that is the
// command's own, a directory, and --json (whose document the status is
// in) get none.
func TestRunOfAScriptItCannotStartSaysHow(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"check.sh": "#!/bin/sh\necho ok\n", "guard.py": "print('ok')\n", "ok.sh": "#!/bin/sh\necho ok\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "ok.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		command []string
		code    int
		hint    string
	}{
		{[]string{"./check.sh"}, 126, `vigiles: "./check.sh" is not executable (mode 0644)` + labelColon + ` chmod +x it, or run it through its interpreter (vigiles run -- sh "./check.sh")` + "\n"},
		{[]string{"./guard.py"}, 126, `vigiles: "./guard.py" is not executable (mode 0644)` + labelColon + ` chmod +x it, or run it through its interpreter (vigiles run -- python3 "./guard.py")` + "\n"},
		{[]string{"ok.sh"}, 127, `vigiles: "ok.sh" is looked up on PATH, not in the work tree, which holds a file of that name` + labelColon + ` give it as "./ok.sh"` + "\n"},
		{[]string{"./ok.sh"}, 0, ""},
		{[]string{"sh", "-c", "exit 127"}, 127, ""},
		{[]string{"/usr"}, 126, ""},
	} {
		t.Run(strings.Join(c.command, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, append([]string{"run", "--workdir", dir, "--"}, c.command...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			if c.hint == "" {
				if strings.Contains(errs, "is not executable") || strings.Contains(errs, "is looked up on PATH") {
					t.Errorf("stderr says how to start a command that started, or that no hint fits:\n%s", errs)
				}
				return
			}
			if !strings.HasSuffix(errs, c.hint) {
				t.Errorf("stderr does not end with %q:\n%s", c.hint, errs)
			}
			code, out, errs = runCLI(t, append([]string{"run", "--json", "--workdir", dir, "--"}, c.command...)...)
			var doc struct {
				ExitCode int `json:"exitCode"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || code != c.code || doc.ExitCode != c.code || errs != "" {
				t.Errorf("--json: exit %d, %+v (%v), stderr %q; want %d in the document alone", code, doc, err, errs, c.code)
			}
		})
	}
}

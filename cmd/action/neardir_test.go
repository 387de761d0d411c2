package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingDirectoryNamesTheOneBesideIt: a --dir, --workdir or audit
// PATH a letter or two off a directory beside it (exmaples, bash-gard) is
// bad usage whose one line names that directory, as it would be written;
// one near no directory says only that it does not exist.
func TestMissingDirectoryNamesTheOneBesideIt(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"examples/plugins/bash-guard", "examples/plugins/usage-stats"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A file of the near name is no directory to name.
	if err := os.WriteFile(filepath.Join(root, "exampels"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--dir", "exmaples"}, `vigiles: test: --dir "exmaples" does not exist (did you mean "examples"?)` + "\n"},
		{[]string{"audit", "--dir", "examples/plugin"}, `vigiles: audit: --dir "examples/plugin" does not exist (did you mean "examples/plugins"?)` + "\n"},
		{[]string{"run", "--workdir", "exmaples", "--", "true"}, `vigiles: run: --workdir "exmaples" does not exist (did you mean "examples"?)` + "\n"},
		{[]string{"audit", "--dir", "examples", "plugins/bash-gard"}, `vigiles: audit: path "plugins/bash-gard" does not exist ("examples/plugins/bash-gard"; a PATH is relative to --dir "examples"); did you mean "plugins/bash-guard"?` + "\n"},
		{[]string{"audit", "examples/plugins/usagestats"}, `vigiles: audit: path "examples/plugins/usagestats" does not exist (a PATH is relative to --dir); did you mean "examples/plugins/usage-stats"?` + "\n"},
		{[]string{"test", "--dir", "elsewhere"}, `vigiles: test: --dir "elsewhere" does not exist` + "\n"},
		{[]string{"audit", "examples/plugins/nothing-like-it"}, `vigiles: audit: path "examples/plugins/nothing-like-it" does not exist (a PATH is relative to --dir)` + "\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, c.want)
			}
		})
	}
}

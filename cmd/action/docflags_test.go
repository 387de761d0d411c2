package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameFlagsTheCommandsHave: every flag the docs give a command
// (`vigiles audit --update-baseline`, in a code span or a code block) is
// one the FlagSet that command makes has, so that a newcomer who copies a
// doc's command line is not told of an unknown flag.
// TestReadmeCommandsListEveryFlag checks the other way, that README's
// Commands block names each flag.
func TestDocsNameFlagsTheCommandsHave(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../../README.md", "../../examples/README.md")
	use := regexp.MustCompile(`\bvigiles (run|test|audit|merge|doctor)\b(.*)`)
	flag := regexp.MustCompile(`(?:^|[\s\[])(--[a-z][a-z0-9-]*)`)
	span := regexp.MustCompile("`([^`]*)`")
	named := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			code := []string{line}
			if !fenced {
				code = nil
				for _, m := range span.FindAllStringSubmatch(line, -1) {
					code = append(code, m[1])
				}
			}
			for _, c := range code {
				for _, m := range use.FindAllStringSubmatch(c, -1) {
					cmd, rest := m[1], m[2]
					if cmd == "run" {
						rest, _, _ = strings.Cut(rest, " -- ") // the command's own arguments
					}
					// A pipe, a list or a comment ends vigiles' arguments.
					if j := strings.IndexAny(rest, "|;&#)"); j >= 0 {
						rest = rest[:j]
					}
					fs := commandFlags(cmd)
					for _, f := range flag.FindAllStringSubmatch(rest, -1) {
						named++
						if name := strings.TrimPrefix(f[1], "--"); name != "help" && fs.Lookup(name) == nil {
							t.Errorf("%s:%d gives vigiles %s %s, a flag it does not have: %s", filepath.Base(doc), i+1, cmd, f[1], strings.TrimSpace(c))
						}
					}
				}
			}
		}
	}
	if named < 50 {
		t.Errorf("the docs give vigiles' commands %d flags; want the test to read the many they name", named)
	}
}

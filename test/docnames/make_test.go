package docnames

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameMakeTargetsThatExist: each `make TARGET` the docs show, in
// a sentence or a code block, is a target of the Makefile, so that a
// renamed target leaves no newcomer running one that is not there.
func TestDocsNameMakeTargetsThatExist(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`).FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}
	// `make X`, `sudo make X`, or a code block's line that starts so.
	named := regexp.MustCompile("(?:`|\\bsudo |\\bPATH\"? )make ([a-z][a-z0-9-]*)")
	block := regexp.MustCompile(`^make ([a-z][a-z0-9-]*)`)
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join("../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			ms := named.FindAllStringSubmatch(line, -1)
			if inBlock {
				ms = append(ms, block.FindAllStringSubmatch(line, -1)...)
			}
			for _, m := range ms {
				checked++
				if !targets[m[1]] {
					t.Errorf("%s:%d names make %s, which the Makefile has no target for", doc, i+1, m[1])
				}
			}
		}
	}
	if checked < 5 {
		t.Errorf("checked %d make targets; the docs name more, so the walk missed them", checked)
	}
}

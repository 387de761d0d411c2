package docnames

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage: docs/architecture.md lists the
// packages, so each Go package under cmd/, pkg/ and internal/ (those that
// tests alone import too) is named there; a package added without a word
// in the page leaves a newcomer's map of the code short.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	page, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	for _, top := range []string{"cmd", "pkg", "internal"} {
		err := filepath.WalkDir(filepath.Join("../..", top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				rel, _ := filepath.Rel("../..", filepath.Dir(path))
				pkgs[filepath.ToSlash(rel)] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages; the repository has more, so the walk missed them", len(pkgs))
	}
	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		// The path as a word of its own: pkg/sandbox in pkg/sandbox/reaper does not count.
		if !regexp.MustCompile(`(^|[^A-Za-z0-9_/])` + regexp.QuoteMeta(p) + `($|[^A-Za-z0-9_/])`).Match(page) {
			t.Errorf("docs/architecture.md does not name the package %s", p)
		}
	}
}

// TestEveryDocIsReadAndLinked: each page under docs/ is one this
// package checks (the docs list) and one README.md's table links, so a
// page added later is neither left unchecked nor left for a newcomer to
// find by chance.
func TestEveryDocIsReadAndLinked(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no page under docs/ (%v)", err)
	}
	checked := map[string]bool{}
	for _, d := range docs {
		checked[d] = true
	}
	for _, p := range pages {
		rel := "docs/" + filepath.Base(p)
		if !checked[rel] {
			t.Errorf("%s is not in test/docnames' docs list, so the names it quotes go unchecked", rel)
		}
		if !strings.Contains(string(readme), "]("+rel+")") {
			t.Errorf("README.md's Documentation table does not link %s", rel)
		}
	}
}

package docnames

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocsNameRulesThatExist: each rule the docs name (`run/persists`,
// `baseline/hook-removed`) is one the code reports: a Rule… constant of
// pkg/runner, or one of its prefixes (`baseline/`, `expect/`) joined to
// a constant the runner builds the rule of (a drift's kind, an
// expectation's). pkg/runner's own test checks the other way, that each
// rule has its row in docs/report-format.md; a rule renamed there would
// otherwise leave its old name in the other pages.
func TestDocsNameRulesThatExist(t *testing.T) {
	rules, prefixes, consts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	files, err := filepath.Glob("../../pkg/runner/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						continue
					}
					consts[v] = true
					if strings.HasPrefix(name.Name, "Rule") && strings.Contains(v, "/") {
						area, rest, _ := strings.Cut(v, "/")
						prefixes[area] = true
						if rest == "" {
							prefixes[area+"/"] = true // built: the prefix and a constant
						} else {
							rules[v] = true
						}
					}
				}
			}
		}
	}
	if len(rules) < 40 {
		t.Fatalf("found %d rules in pkg/runner; it declares more, so the walk missed them", len(rules))
	}
	named := regexp.MustCompile("`([a-z]+)/([a-z0-9-]+)`")
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join("../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range named.FindAllStringSubmatch(line, -1) {
				area, rest := m[1], m[2]
				if !prefixes[area] {
					continue // a path (`plugins/guard`), not a rule
				}
				checked++
				if rules[area+"/"+rest] || prefixes[area+"/"] && consts[rest] {
					continue
				}
				t.Errorf("%s:%d names the rule %s/%s, which pkg/runner does not report", doc, i+1, area, rest)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d rules; the docs name more than that, so the walk missed them", checked)
	}
}

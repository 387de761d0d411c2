package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestEveryRuleIsDocumented: each rule the runner declares (a constant
// Rule… whose value names a rule, "area/name") has its row in
// docs/report-format.md, so that a new finding does not ship unexplained.
func TestEveryRuleIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(node ast.Node) bool {
				vs, ok := node.(*ast.ValueSpec)
				if !ok {
					return true
				}
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Rule") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					rule, _ := strconv.Unquote(lit.Value)
					if strings.HasSuffix(rule, "/") || !strings.Contains(rule, "/") {
						continue // a prefix (baseline/, expect/), not a rule
					}
					n++
					// A row names its rule first, or beside another ("| `a`, `b` |").
					if !strings.Contains(string(doc), "| `"+rule+"` |") && !strings.Contains(string(doc), "| `"+rule+"`, `") && !strings.Contains(string(doc), "`, `"+rule+"` |") {
						t.Errorf("%s (%s) has no row in docs/report-format.md", name.Name, rule)
					}
				}
				return true
			})
		}
	}
	if n < 40 {
		t.Errorf("found %d rules; the walk over the package's constants found too few", n)
	}
}

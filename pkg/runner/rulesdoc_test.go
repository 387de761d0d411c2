package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestEveryRuleIsDocumented: each rule the runner declares (a constant
// Rule… whose value names a rule, "area/name") has its row in
// docs/report-format.md, so that a new finding does not ship unexplained.
func TestEveryRuleIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range stringConsts(t, "Rule") {
		if strings.HasSuffix(c.value, "/") || !strings.Contains(c.value, "/") {
			continue // a prefix (baseline/, expect/), not a rule
		}
		n++
		// A row names its rule first, or beside another ("| `a`, `b` |").
		if rule := c.value; !strings.Contains(string(doc), "| `"+rule+"` |") && !strings.Contains(string(doc), "| `"+rule+"`, `") && !strings.Contains(string(doc), "`, `"+rule+"` |") {
			t.Errorf("%s (%s) has no row in docs/report-format.md", c.name, rule)
		}
	}
	if n < 40 {
		t.Errorf("found %d rules; the walk over the package's constants found too few", n)
	}
}

// TestEveryFieldIsDocumented: each JSON field of the documents vigiles
// writes is named (`name`, or "name" in an example) in the section of
// docs/result-format.md or docs/report-format.md that describes its
// object, so that a field does not ship unexplained, nor a section keep
// one the code no longer writes unnoticed by its reader.
func TestEveryFieldIsDocumented(t *testing.T) {
	for _, tc := range []struct {
		doc, heading string // the section: from its heading to the next "## "
		v            any
	}{
		{"result-format.md", "# The run result", sandbox.Result{}},
		{"result-format.md", "## `writes`", evidence.Write{}},
		{"result-format.md", "## `envFile`", evidence.EnvFile{}},
		{"result-format.md", "## `egress`", evidence.Egress{}},
		{"result-format.md", "# The run result", evidence.Dropped{}},
		{"report-format.md", "## The document", report.Report{}},
		{"report-format.md", "## The document", report.Tool{}},
		{"report-format.md", "## `runs[]`", report.HookRun{}},
		{"report-format.md", "## `runs[]`", report.Location{}},
		{"report-format.md", "## `findings[]`", report.Finding{}},
		{"report-format.md", "## `drift[]`", report.Drift{}},
	} {
		b, err := os.ReadFile("../../docs/" + tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		_, sec, ok := strings.Cut(string(b), tc.heading)
		if !ok {
			t.Errorf("docs/%s has no section %q", tc.doc, tc.heading)
			continue
		}
		sec, _, _ = strings.Cut(sec, "\n## ")
		typ := reflect.TypeOf(tc.v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(sec, "`"+name+"`") && !strings.Contains(sec, `"`+name+`"`) {
				t.Errorf("%s's field %s is not named in docs/%s, %s", typ, name, tc.doc, tc.heading)
			}
		}
	}
}

// TestEveryDriftKindIsDocumented: each kind a drift entry takes (a
// constant Drift…) is named in docs/report-format.md's drift[] section.
func TestEveryDriftKindIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "## `drift[]`")
	if !ok {
		t.Fatal("docs/report-format.md has no drift[] section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	n := 0
	for _, c := range stringConsts(t, "Drift") {
		n++
		if !strings.Contains(sec, "`"+c.value+"`") {
			t.Errorf("%s (%s) is not named in docs/report-format.md's drift[] section", c.name, c.value)
		}
	}
	if n < 13 {
		t.Errorf("found %d drift kinds; the walk over the package's constants found too few", n)
	}
}

// stringConst is a constant of the package's own code, by name and
// value.
type stringConst struct{ name, value string }

// stringConsts lists the package's string constants (not its tests')
// whose names begin with prefix.
func stringConsts(t *testing.T, prefix string) []stringConst {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []stringConst
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(node ast.Node) bool {
				vs, ok := node.(*ast.ValueSpec)
				if !ok {
					return true
				}
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, prefix) || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						out = append(out, stringConst{name.Name, v})
					}
				}
				return true
			})
		}
	}
	return out
}

package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoEagerRegexps fails where a package the three binaries link
// compiles a regular expression in a package-level initializer: every
// start of the CLI and of the in-sandbox binaries runs those initializers,
// whether or not the run reads what the expression matches (a start of
// the CLI paid about 1 ms for the runner's expressions before they were
// made lazy). Such an expression is declared with lazyRE or
// sync.OnceValue instead.
func TestNoEagerRegexps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("go not on PATH in CI: %v", err)
		}
		t.Skip("the go command is not on PATH, and listing the binaries' packages needs it")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Module.Path}} {{.Dir}}{{end}}",
		"../../cmd/action", "../../cmd/vigiles-sandbox", "../../cmd/vigiles-reaper").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		mod, dir, ok := strings.Cut(line, " ")
		if !ok || mod != "github.com/vigiles/action" {
			continue // a dependency's initializers are its own
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			checked++
			for _, at := range eagerRegexps(t, f) {
				t.Errorf("%s: a regular expression compiled at package initialization; declare it with lazyRE or sync.OnceValue", at)
			}
		}
	}
	if checked == 0 {
		t.Fatalf("go list named no file of the module:\n%s", out)
	}
}

// eagerRegexps returns the positions in file f of calls to regexp's
// Compile functions made by a package-level variable's initializer outside
// a function literal.
func eagerRegexps(t *testing.T, f string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		ast.Inspect(gen, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // runs when called, not at initialization
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile") {
						at = append(at, fset.Position(n.Pos()).String())
					}
				}
			}
			return true
		})
	}
	return at
}

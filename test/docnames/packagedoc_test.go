package docnames

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryPackageHasADocGo: each package of the module (`go list ./...`;
// a package of test/ whose files are all _test.go aside) has a doc.go
// that holds its package comment, "// Package NAME" or, for a program,
// "// Command NAME", and nothing but that and the package clause; no
// other file of it says what the package is. STYLE.md, habit 16: the
// comment says what the package is for and what it must never do, and a
// newcomer finds it in one place.
func TestEveryPackageHasADocGo(t *testing.T) {
	problems, n := packageDocProblems(t, "../..")
	if n < 20 {
		t.Fatalf("go list named %d packages; the module has more", n)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestPackageDocCheckFindsWhatIsMissing plants, in a module of its own,
// a package of each kind the check must refuse beside one it must take,
// so that a check that finds nothing is not mistaken for a tree that
// lacks nothing.
func TestPackageDocCheckFindsWhatIsMissing(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                   "module example.test/m\n\ngo 1.21\n",
		"good/doc.go":              "// Package good is one the check takes.\n//\n// It must never do a thing.\npackage good\n",
		"good/good.go":             "package good\n\nfunc F() {}\n",
		"cmd/tool/doc.go":          "// Command tool is a program the check takes.\npackage main\n",
		"cmd/tool/main.go":         "package main\n\nfunc main() {}\n",
		"nodoc/nodoc.go":           "// Package nodoc keeps its comment here.\npackage nodoc\n",
		"wrongname/doc.go":         "// Package other names another.\npackage wrongname\n",
		"nocomment/doc.go":         "package nocomment\n",
		"decls/doc.go":             "// Package decls declares in doc.go.\npackage decls\n\nconst C = 1\n",
		"twice/doc.go":             "// Package twice says it here.\npackage twice\n",
		"twice/twice.go":           "// Package twice says it again.\npackage twice\n",
		"test/onlytests/x_test.go": "package onlytests\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, n := packageDocProblems(t, root)
	if n != 8 {
		t.Errorf("go list named %d packages of the planted module, want 8", n)
	}
	want := []string{"nodoc: no doc.go", "wrongname: doc.go", "nocomment: doc.go", "decls: doc.go", "twice: twice.go"}
	for _, w := range want {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, w) }) {
			t.Errorf("the check did not find %q; it found:\n%s", w, strings.Join(problems, "\n"))
		}
	}
	if len(problems) != len(want) {
		t.Errorf("the check found %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
}

// packageDocProblems lists what the packages of the module at root lack
// of a doc.go, each as "DIR: what", DIR relative to root, and how many
// packages go list named.
func packageDocProblems(t *testing.T, root string) ([]string, int) {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in %s: %v", root, err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	n := 0
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			Dir, Name string
			GoFiles   []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		rel, err := filepath.Rel(abs, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		if len(p.GoFiles) == 0 && strings.HasPrefix(rel, "test/") {
			continue // tests alone: no package for go doc to show
		}
		problems = append(problems, docGoProblems(rel, p.Dir, p.Name, p.GoFiles)...)
	}
	return problems, n
}

// docGoProblems checks one package's doc.go and its other files.
func docGoProblems(rel, dir, name string, goFiles []string) []string {
	if !slices.Contains(goFiles, "doc.go") {
		return []string{rel + ": no doc.go; move the package comment there (STYLE.md, habit 16)"}
	}
	var problems []string
	fset := token.NewFileSet()
	for _, f := range goFiles {
		file, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ParseComments)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s: %v", rel, f, err))
			continue
		}
		if f != "doc.go" {
			if file.Doc != nil {
				problems = append(problems, fmt.Sprintf("%s: %s holds a package comment; it belongs in doc.go alone", rel, f))
			}
			continue
		}
		want := "Package " + name + " "
		if name == "main" {
			want = "Command "
		}
		if file.Doc == nil || !strings.HasPrefix(file.Doc.Text(), want) {
			problems = append(problems, fmt.Sprintf("%s: doc.go's package comment does not start %q", rel, "// "+want))
		}
		if len(file.Decls) > 0 {
			problems = append(problems, fmt.Sprintf("%s: doc.go declares or imports something; it holds the package comment and clause alone", rel))
		}
	}
	return problems
}

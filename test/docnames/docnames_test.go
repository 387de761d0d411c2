// Package docnames checks that the code the docs name exists: a newcomer
// who reads docs/architecture.md for `runCgroup.kill` or `survivors.go`
// must find it, and a rename must not leave the doc pointing at nothing.
package docnames

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docs: the documents checked, relative to the repository's root.
var docs = []string{
	"README.md",
	"docs/architecture.md",
	"docs/container.md",
	"docs/egress.md",
	"docs/github-action.md",
	"docs/hook-events.md",
	"docs/performance.md",
	"docs/performance-runs.md",
	"docs/report-format.md",
	"docs/result-format.md",
	"docs/security.md",
	"examples/README.md",
}

// elsewhere: names the docs quote from code that is not this
// repository's: Claude Code's own source, the Go runtime, a profile's
// frames. Each is checked nowhere; keep the list short.
var elsewhere = map[string]string{
	"createBaseHookInput": "Claude Code's source",
	"getMatchingHooks":    "Claude Code's source",
	"hookDedupKey":        "Claude Code's source",
	"doInit":              "the Go runtime, in a profile",
	"forkExec":            "the Go runtime (syscall.forkExec), in a profile",
}

// code is what the repository's Go files hold, as a reader searching
// for a name would find it.
type code struct {
	files    map[string]bool            // every file's path, and each .go file's base name
	words    map[string]bool            // identifiers, and the words of string literals (tags, keys)
	packages map[string]map[string]bool // a package's name: its top-level names
	members  map[string]map[string]bool // a type's name: its fields and methods, in any package
	tests    map[string]bool            // Test… and Benchmark… functions
}

func readCode(t *testing.T, root string) *code {
	c := &code{files: map[string]bool{}, words: map[string]bool{}, packages: map[string]map[string]bool{},
		members: map[string]map[string]bool{}, tests: map[string]bool{}}
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	member := func(typ, name string) {
		if c.members[typ] == nil {
			c.members[typ] = map[string]bool{}
		}
		c.members[typ][name] = true
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bin") {
			return filepath.SkipDir
		}
		c.files[filepath.ToSlash(rel)] = true
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		c.files[d.Name()] = true
		if strings.Contains(filepath.ToSlash(rel), "testdata/") {
			return nil // input to a test, not the code the docs describe
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			switch tok {
			case token.IDENT:
				c.words[lit] = true
			case token.STRING:
				for _, w := range word.FindAllString(lit, -1) {
					c.words[w] = true
				}
			}
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test") // main: no doc writes main.X for ours
		if c.packages[pkg] == nil {
			c.packages[pkg] = map[string]bool{}
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				name := decl.Name.Name
				if decl.Recv == nil {
					c.packages[pkg][name] = true
					if strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark") {
						c.tests[name] = true
					}
					continue
				}
				typ := decl.Recv.List[0].Type
				for {
					switch x := typ.(type) {
					case *ast.StarExpr:
						typ = x.X
						continue
					case *ast.IndexExpr:
						typ = x.X
						continue
					case *ast.IndexListExpr:
						typ = x.X
						continue
					}
					break
				}
				if id, ok := typ.(*ast.Ident); ok {
					member(id.Name, name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							c.packages[pkg][n.Name] = true
						}
					case *ast.TypeSpec:
						c.packages[pkg][spec.Name.Name] = true
						var fields *ast.FieldList
						switch x := spec.Type.(type) {
						case *ast.StructType:
							fields = x.Fields
						case *ast.InterfaceType:
							fields = x.Methods
						}
						if fields == nil {
							continue
						}
						for _, fl := range fields.List {
							for _, n := range fl.Names {
								member(spec.Name.Name, n.Name)
							}
							if len(fl.Names) == 0 { // embedded: named by its type
								e := fl.Type
								if s, ok := e.(*ast.StarExpr); ok {
									e = s.X
								}
								switch x := e.(type) {
								case *ast.Ident:
									member(spec.Name.Name, x.Name)
								case *ast.SelectorExpr:
									member(spec.Name.Name, x.Sel.Name)
								}
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	ticked  = regexp.MustCompile("`([^`\n]+)`")
	goName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\(\))?$`)
	camel   = regexp.MustCompile(`[a-z0-9][A-Z]`)
	ourPath = regexp.MustCompile(`(?:^|[\s(` + "`" + `])((?:pkg|cmd|internal|test|scripts|bench|image|examples|docs)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*])`)
	goFile  = regexp.MustCompile(`^[a-z0-9_]+\.go$`)
)

// TestDocsNameCodeThatExists: each Go file, repository path, test and
// identifier that the docs quote exists, and a member written as
// Type.Member (`runCgroup.kill`) or a package's name written as
// pkg.Name (`procwait.Gone`) is declared there.
func TestDocsNameCodeThatExists(t *testing.T) {
	c := readCode(t, "../..")
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join("../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			at := doc + ":" + strconv.Itoa(i+1)
			for _, m := range ourPath.FindAllStringSubmatch(line, -1) {
				p := strings.TrimSuffix(strings.TrimSuffix(m[1], "."), "/")
				checked++
				if strings.Contains(p, "*") {
					if found, _ := filepath.Glob(filepath.Join("../..", p)); len(found) == 0 {
						t.Errorf("%s names %s, which matches no file of the repository", at, p)
					}
					continue
				}
				if _, err := os.Lstat(filepath.Join("../..", p)); !c.files[p] && err != nil { // Lstat: under a dot-directory (examples/.claude) too
					t.Errorf("%s names %s, which the repository does not hold", at, p)
				}
			}
			for _, m := range ticked.FindAllStringSubmatch(line, -1) {
				name := m[1]
				if goFile.MatchString(name) {
					checked++
					if !c.files[name] {
						t.Errorf("%s names %s, which no directory of the repository holds", at, name)
					}
					continue
				}
				if !goName.MatchString(name) {
					continue
				}
				name = strings.TrimSuffix(name, "()")
				if why := c.missing(name); why != "" {
					t.Errorf("%s names `%s`: %s", at, name, why)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d names; the docs name more code than that, so the walk missed them", checked)
	}
}

// missing says why the code lacks name, or "" when it holds it or the
// name is not one this test reads as code's.
func (c *code) missing(name string) string {
	parts := strings.Split(name, ".")
	last := parts[len(parts)-1]
	if _, ok := elsewhere[last]; ok {
		return ""
	}
	switch last {
	case "json", "toml", "yml", "yaml", "md", "sh", "txt", "golden":
		return "" // a file's name (report.json), not code's
	}
	if strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark") {
		if len(parts) == 1 && !c.tests[name] {
			return "no such test"
		}
		return ""
	}
	if len(parts) == 1 {
		if camel.MatchString(name) && !c.words[name] {
			return "no Go file of the repository holds the name"
		}
		return ""
	}
	// pkg.Name or pkg.Type.Member, where pkg is one of ours.
	if names, ok := c.packages[parts[0]]; ok && parts[0] != "main" {
		if !names[parts[1]] {
			return "package " + parts[0] + " declares no " + parts[1]
		}
		if len(parts) > 2 && !c.members[parts[1]][parts[2]] {
			return parts[1] + " has no field or method " + parts[2]
		}
		return ""
	}
	// Type.Member, where Type is one of ours.
	if members, ok := c.members[parts[0]]; ok {
		if !members[parts[1]] {
			return parts[0] + " has no field or method " + parts[1]
		}
	}
	return "" // another's (sync.OnceValue), or a key (limits.pids)
}

package runner

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestPythonSyntaxCause: a run whose stderr ends with Python's
// SyntaxError says the script may be written for a newer Python than the
// one that ran, naming the construct and the version that added it where
// its line or message shows one, and the version that ran where the
// traceback's paths or the bytecode it wrote show it; a plain mistake
// too, always. The stderr is Python 3.11's own.
func TestPythonSyntaxCause(t *testing.T) {
	const tree = "/w/repo"
	syntax := func(file, line, src, caret, msg string) string {
		return "  File \"" + file + "\", line " + line + "\n    " + src + "\n    " + caret + "\nSyntaxError: " + msg + "\n"
	}
	viaImport := func(ver, rest string) string {
		return "Traceback (most recent call last):\n  File \"/w/repo/hooks/run.py\", line 3, in <module>\n    importlib.import_module(sys.argv[1])\n" +
			"  File \"/usr/lib/python" + ver + "/importlib/__init__.py\", line 126, in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n" +
			"           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File \"<frozen importlib._bootstrap>\", line 1204, in _gcd_import\n" + rest
	}
	for _, tc := range []struct {
		name   string
		stderr string
		writes []string
		want   []string // "" for no cause of this kind
	}{
		{name: "type parameters, version unknown", stderr: syntax("/w/repo/hooks/g.py", "2", "def f[T](x: T) -> T:", "     ^", "expected '('"),
			want: []string{"Python could not parse hooks/g.py line 2 (SyntaxError): it holds a function with type parameters, def f[T](…) (PEP 695), which Python 3.12 added, so the hook may be written for a newer Python than the one the hook ran (the record does not show its version; python3 --version where vigiles ran does), and then fails so for its users who have an older one too, or the line may be a plain mistake; install Python 3.12 or later where vigiles runs"}},
		{name: "a type statement, version in the traceback", stderr: viaImport("3.11", syntax("/w/repo/hooks/mod.py", "1", "type X = int", "     ^", "invalid syntax")),
			want: []string{"Python could not parse hooks/mod.py line 1 (SyntaxError): it holds a type statement, type X = … (PEP 695), which Python 3.12 added, so the hook may be written for a newer Python than the one the hook ran, 3.11 (as the paths of its traceback show),"}},
		{name: "an f-string of 3.12, version by bytecode", stderr: syntax("/w/repo/hooks/c.py", "2", `print(f"{d["a"]}")`, "            ^", "f-string: unmatched '['"),
			writes: []string{"hooks/__pycache__/util.cpython-311.pyc"},
			want:   []string{"an f-string whose braces hold its own quotes, a backslash or a comment (PEP 701), which Python 3.12 added", "3.11 (as the bytecode it wrote for the modules it imported shows)"}},
		{name: "except without parentheses", stderr: syntax("/elsewhere/e.py", "3", "except ValueError, TypeError:", "       ^^^^^^^^^^^^^^^^^^^^^", "multiple exception types must be parenthesized"),
			want: []string{"Python could not parse /elsewhere/e.py line 3 (SyntaxError): it holds an except clause that names several exceptions without parentheses (PEP 758), which Python 3.14 added"}},
		{name: "a match statement", stderr: syntax("/w/repo/m.py", "2", "match x:", "      ^", "invalid syntax"),
			want: []string{"a match statement (PEP 634), which Python 3.10 added"}},
		{name: "a Python that has it: a plain mistake", stderr: viaImport("3.12", syntax("/w/repo/hooks/c.py", "2", `print(f"{d["a"}")`, "            ^", "f-string: expecting '}'")),
			want: []string{"Python could not parse hooks/c.py line 2 (SyntaxError): a mistake in the script, or code written for a newer Python than the one the hook ran, 3.12 (as the paths of its traceback show), which a newer one may read"}},
		{name: "nothing newer on the line", stderr: syntax("/w/repo/f.py", "2", "if x = 2:", "   ^^^^^", "invalid syntax. Maybe you meant '==' or ':=' instead of '='?"),
			want: []string{"Python could not parse f.py line 2 (SyntaxError): a mistake in the script, or code written for a newer Python than the one the hook ran (the record does not show its version; python3 --version where vigiles ran does), which a newer one may read"}},
		{name: "bytecode of two Pythons tells none", stderr: syntax("/w/repo/d.py", "1", "type X = int", "     ^", "invalid syntax"),
			writes: []string{"a/__pycache__/x.cpython-311.pyc", "b/__pycache__/y.cpython-312.pyc"},
			want:   []string{"(the record does not show its version;"}},
		{name: "an IndentationError is none", stderr: "  File \"/w/repo/i.py\", line 2\n    x\nIndentationError: unexpected indent\n", want: []string{""}},
		{name: "output after it: not how the hook ended", stderr: syntax("/w/repo/d.py", "1", "type X = int", "     ^", "invalid syntax") + "falling back to the shell guard\n", want: []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := report.HookRun{ExitCode: 1, Stderr: tc.stderr}
			for _, w := range tc.writes {
				r.Writes = append(r.Writes, evidence.Write{Path: w, Op: "create", Kind: "file"})
			}
			got := pythonSyntaxCause(r, tree)
			for _, w := range tc.want {
				if w == "" && got != "" || !strings.Contains(got, w) {
					t.Errorf("cause:\n got %q\nwant %q", got, w)
				}
			}
			if got != "" && failureCause(r, tree) != got {
				t.Errorf("failureCause %q, want the syntax cause", failureCause(r, tree))
			}
		})
	}
}

// TestAuditNamesNewerPythonSyntax audits, confined, hooks whose scripts
// hold syntax of a newer Python than some: a type statement (3.12), which
// a wrapper imports, so that the traceback runs through the Python's own
// library and shows its version, and an except clause without parentheses
// (3.14), run directly. Each that the machine's Python cannot parse is a
// run/hook-error whose cause names the construct, the version that added
// it and, for the first, the version that ran.
func TestAuditNamesNewerPythonSyntax(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if _, err := exec.LookPath("python3"); err != nil {
		sandboxtest.Missing(t, "python3")
	}
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/run.py pep695"},
  {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/pep758.py"}
]}]}}`,
		".claude/hooks/run.py":    "import importlib, os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nimportlib.import_module(sys.argv[1])\n",
		".claude/hooks/pep695.py": "type Point = tuple[float, float]\n",
		".claude/hooks/pep758.py": "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
	})
	got := hookErrorsOfAudit(t, dir)
	pep695, pep758 := got[".claude/settings.json#hooks.Stop[0].hooks[0]"], got[".claude/settings.json#hooks.Stop[0].hooks[1]"]
	if pep695 == "" && pep758 == "" {
		sandboxtest.Missing(t, "a Python older than 3.14 (the newest syntax this test knows of is 3.14's), whose SyntaxError the cause names")
	}
	if pep695 != "" && (!strings.Contains(pep695, "Python could not parse .claude/hooks/pep695.py line 1 (SyntaxError): it holds a type statement, type X = … (PEP 695), which Python 3.12 added, so the hook may be written for a newer Python than the one the hook ran, 3.1") ||
		!strings.Contains(pep695, "(as the paths of its traceback show)")) {
		t.Errorf("the type statement's run/hook-error does not name it, 3.12 and the Python that ran: %s", pep695)
	}
	if pep758 == "" || !strings.Contains(pep758, "Python could not parse .claude/hooks/pep758.py line 3 (SyntaxError): it holds an except clause that names several exceptions without parentheses (PEP 758), which Python 3.14 added") {
		t.Errorf("the except clause's run/hook-error does not name it and 3.14: %q", pep758)
	}
}

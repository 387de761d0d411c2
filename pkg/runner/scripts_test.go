package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScriptsRun: what a command runs of files is the program where it is
// a path, and the script an interpreter is given, past what only sets up
// how the command runs; a subcommand, a package.json script, inline code
// and a module are none.
func TestScriptsRun(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"node server.js --port 1", []string{"server.js"}},
		{"./bin/srv --x", []string{"./bin/srv"}},
		{"FOO=a/b exec nohup python3 -u tools/s.py", []string{"tools/s.py"}},
		{"/usr/bin/python3 x.py", []string{"/usr/bin/python3", "x.py"}},
		{".venv/bin/python -W error x.py", []string{".venv/bin/python", "x.py"}},
		{"$PYTHON x.py", nil},
		{"/usr/bin/env node x.js", []string{"x.js"}},
		{"env -S 'node -r ./pre.js' main.js", []string{"./pre.js", "main.js"}},
		{"node --require=ts-node/register main.ts", []string{"main.ts"}},
		{"python3 -m http.server", nil},
		{"bash -c 'node x.js'", nil},
		{"deno run -A main.ts", []string{"main.ts"}},
		{"deno task dev", nil},
		{"deno main.ts", []string{"main.ts"}},
		{"bun run dev", nil},
		{"bun run ./s.ts", []string{"./s.ts"}},
		{"bun s.ts", []string{"s.ts"}},
		{"tsx watch src/i.ts", []string{"src/i.ts"}},
		{"npx -y tsx src/i.ts", []string{"src/i.ts"}},
		{"npx cowsay hi", nil},
		{"uv run --with rich tool.py", []string{"tool.py"}},
		{"uv run python3 tool.py", []string{"tool.py"}},
		{"uv run pytest", nil},
		{"uv run --directory srv server.py", []string{"srv/server.py"}},
		{"uv --directory srv run python3 ./tool.py", []string{"srv/tool.py"}},
		{"uv run --project srv tool.py", []string{"tool.py"}},
		{"./node_modules/.bin/tsx i.ts", []string{"./node_modules/.bin/tsx", "i.ts"}},
	} {
		if got := scriptsRun(shellWords(c.line)); !cmp.Equal(c.want, got) {
			t.Errorf("%s: %q, want %q", c.line, got, c.want)
		}
	}
}

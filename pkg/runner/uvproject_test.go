package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPyprojectInstalls: what uv run installs of a pyproject.toml, as uv
// reads it: the project's dependencies and the dev group, which uv
// installs by default (tool.uv.dev-dependencies in it), other groups and
// extras where its options or default-groups name them, include-group
// followed, --only-group without the project's own; a table, key or
// multi-line string that only looks like one is not read as one, and a
// list vigiles cannot read says so.
func TestPyprojectInstalls(t *testing.T) {
	const base = "[project]\nname = \"p\"\ndependencies = [\n  \"httpx>=0.27\",  # client\n  'rich',\n]\n"
	for _, tc := range []struct {
		name, src, args string
		want            []string
		ok              bool
	}{
		{"project", base, "", []string{"httpx>=0.27", "rich"}, true},
		{"none", "[project]\nname = \"p\"\n[tool.ruff]\nline-length = 100\n", "", nil, true},
		{"dev group by default", base + "[dependency-groups]\ndev = [\"pytest\"]\nlint = [\"ruff\"]\n", "", []string{"httpx>=0.27", "rich", "pytest"}, true},
		{"no-dev", base + "[dependency-groups]\ndev = [\"pytest\"]\n", "--no-dev", []string{"httpx>=0.27", "rich"}, true},
		{"no-default-groups", base + "[dependency-groups]\ndev = [\"pytest\"]\n", "--no-default-groups", []string{"httpx>=0.27", "rich"}, true},
		{"group", base + "[dependency-groups]\nLint = [\"ruff\"]\n", "--group lint", []string{"httpx>=0.27", "rich", "ruff"}, true},
		{"no-group wins", base + "[dependency-groups]\nlint = [\"ruff\"]\n", "--all-groups --no-group lint", []string{"httpx>=0.27", "rich"}, true},
		{"only-group", base + "[dependency-groups]\nlint = [\"ruff\"]\n", "--only-group lint", []string{"ruff"}, true},
		{"legacy dev-dependencies", "[project]\nname = \"p\"\n[tool.uv]\ndev-dependencies = [\"mypy\"]\n", "", []string{"mypy"}, true},
		{"default-groups", base + "[dependency-groups]\ndev = [\"pytest\"]\ndocs = [\"mkdocs\"]\n[tool.uv]\ndefault-groups = [\"docs\"]\n", "", []string{"httpx>=0.27", "rich", "mkdocs"}, true},
		{"default-groups all", "[dependency-groups]\ndev = [\"pytest\"]\ndocs = [\"mkdocs\"]\n[tool.uv]\ndefault-groups = \"all\"\n", "", []string{"pytest", "mkdocs"}, true},
		{"include-group", "[dependency-groups]\ndev = [{include-group = \"test\"}, \"ruff\"]\ntest = [\"pytest\", { include-group = 'dev' }]\n", "", []string{"pytest", "ruff"}, true},
		{"group over lines, with comments", "[dependency-groups]\ndev = [  # {not a table}\n  \"pytest\",  # [x]\n  {include-group = \"lint\"},\n]  # {after}\nlint = [\"ruff\"]\n", "", []string{"pytest", "ruff"}, true},
		{"extras", base + "[project.optional-dependencies]\ncli = [\"typer\"]\nweb = [\"flask\"]\n", "--extra cli", []string{"httpx>=0.27", "rich", "typer"}, true},
		{"all extras", base + "[project.optional-dependencies]\ncli = [\"typer\"]\nweb = [\"flask\"]\n", "--all-extras --no-extra web", []string{"httpx>=0.27", "rich", "typer"}, true},
		{"dotted keys", "project.name = \"p\"\nproject.dependencies = [\"click\"]\n", "", []string{"click"}, true},
		{"a string over lines is no table", "[project]\nname = \"p\"\ndescription = \"\"\"\n[dependency-groups]\ndev = [\"x\"]\n\"\"\"\ndependencies = [\"click\"]\n", "", []string{"click"}, true},
		{"an array over lines is no table", "[tool.x]\nm = [\n[\"a\"],\n]\n[project]\ndependencies = [\"click\"]\n", "", []string{"click"}, true},
		{"unreadable", "[project]\ndependencies = DEPS\n", "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := readPyproject(tc.src)
			if p.ok != tc.ok {
				t.Fatalf("ok = %v, want %v", p.ok, tc.ok)
			}
			o := readUvOptions(append(strings.Fields(tc.args), "cmd"), true)
			if diff := cmp.Diff(tc.want, p.installs(o.sync)); diff != "" {
				t.Errorf("installs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUvProjectFetched: a hook, an MCP server (also through bash -c) and
// a skill's shell line whose uv run runs in a uv project name the
// dependencies uv installs before it runs the command: a notice where a
// uv.lock holds them (beside the pyproject.toml, or at the root of the
// workspace it is a member of), a warning where none does, with the fix.
// The project is found as uv finds it: from --project's directory, else
// --directory's, else the directory the command runs in, past a cd, or
// in a shell's -c line, and up its parents to the work tree's root (not
// above); also where the program is a script whose first line runs uv
// run and which has no inline metadata. Nothing is said where no project
// is found, where it has no dependencies, where the options keep uv
// from installing them (--no-project, --no-sync, --frozen or --locked
// without a lock, where uv exits), of a script run with --script or with
// inline metadata (its own are named), or of a project that says
// managed = false. --isolated still installs them, afresh.
func TestUvProjectFetched(t *testing.T) {
	const unpinned = "what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: "
	const pinned = "vigiles audits what the tree holds, not what is fetched: review that version apart"
	const deny = "; where vigiles runs it under egress deny, a fetch it tries is blocked (the run's egress names the host), so what the run records is not the code Claude Code runs"
	const bDeps = "uv run fetches the 4 dependencies of b/pyproject.toml (no uv.lock beside it: uv run resolves them afresh, whatever the index serves that day); " + unpinned + "lock them: uv lock beside b/pyproject.toml, commit the uv.lock it writes, and run uv run --locked"
	hooks := func(cmds ...string) string {
		var hs []string
		for _, c := range cmds {
			hs = append(hs, `{"type": "command", "command": `+quoteJSON(c)+`}`)
		}
		return `{"hooks": {"Stop": [{"hooks": [` + strings.Join(hs, ", ") + `]}]}}`
	}
	files := map[string]string{
		// Above the work tree: not read.
		"pyproject.toml":                       "[project]\nname = \"outer\"\ndependencies = [\"outer-dep\"]\n",
		"tree/.claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b"}, {"name": "c", "source": "./c"}, {"name": "w", "source": "./w"}]}`,
		"tree/.claude/settings.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "uv run tool"}]}]}}`,
		"tree/a/pyproject.toml":                "[project]\nname = \"buildkite-check\"\ndependencies = [\"buildkite-sdk==1.0\", \"httpx\"]\n",
		"tree/a/uv.lock":                       "version = 1\n",
		"tree/a/hooks/hooks.json": hooks(
			`uv run --quiet --directory "${CLAUDE_PLUGIN_ROOT}" buildkite-check`,
			`uv run --project ${CLAUDE_PLUGIN_ROOT} --locked buildkite-check`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} --frozen -m buildkite_check`),
		"tree/a/.mcp.json":                 `{"srv": {"command": "uv", "args": ["run", "--directory", "${CLAUDE_PLUGIN_ROOT}", "server"]}, "sh": {"command": "bash", "args": ["-c", "cd \"${CLAUDE_PLUGIN_ROOT}\" && exec uv run server"]}}`,
		"tree/a/skills/s/SKILL.md":         "---\nname: s\n---\nNow: !`uv run --directory ${CLAUDE_PLUGIN_ROOT} check`\n",
		"tree/b/pyproject.toml":            "[project]\nname = \"b\"\ndependencies = [\n  \"a1\",\n  \"a2>=1\",\n  \"wheel @ https://example.org/w-1.0-py3-none-any.whl\",\n]\n[dependency-groups]\ndev = [\"pytest\"]\n",
		"tree/b/src/sub/.keep":             "",
		"tree/b/plain.py":                  "import sys\n",
		"tree/b/meta.py":                   "# /// script\n# dependencies = [\"only-this\"]\n# ///\n",
		"tree/b/bin/tool.py":               "#!/usr/bin/env -S uv run\nimport sys\n",
		"tree/b/bin/script.py":             "#!/usr/bin/env -S uv run --script\nimport sys\n",
		"tree/c/pyproject.toml":            "[project]\nname = \"c\"\n[tool.ruff]\nline-length = 100\n",
		"tree/c/hooks/hooks.json":          hooks(`uv run --directory ${CLAUDE_PLUGIN_ROOT} c`),
		"tree/w/pyproject.toml":            "[tool.uv.workspace]\nmembers = [\"packages/*\"]\nexclude = [\"packages/x\"]\n",
		"tree/w/uv.lock":                   "version = 1\n",
		"tree/w/packages/m/pyproject.toml": "[project]\nname = \"m\"\ndependencies = [\"httpx\"]\n",
		"tree/w/packages/x/pyproject.toml": "[project]\nname = \"x\"\ndependencies = [\"excluded\"]\n",
		"tree/w/hooks/hooks.json": hooks(
			`uv run --directory ${CLAUDE_PLUGIN_ROOT}/packages/m m`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT}/packages/x x`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} all`),
		"tree/b/hooks/hooks.json": hooks(
			`cd "${CLAUDE_PLUGIN_ROOT}" && uv run uv run tool`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} --no-dev tool`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} --no-sync tool`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} --no-project tool`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} --frozen tool`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} --script plain.py`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} meta.py`,
			`uv run --directory ${CLAUDE_PLUGIN_ROOT} plain.py`,
			`uv run --isolated --directory ${CLAUDE_PLUGIN_ROOT}/src/sub tool`,
			`cd ${CLAUDE_PLUGIN_ROOT} && ./bin/tool.py`,
			`cd ${CLAUDE_PLUGIN_ROOT} && ./bin/script.py`,
			`cd "$SOMEWHERE" && uv run tool`,
			`cd ${CLAUDE_PLUGIN_ROOT}/bin && uv run ../meta.py`),
	}
	root := makeTree(t, files)
	rep, err := Audit(context.Background(), Options{Dir: filepath.Join(root, "tree"), Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	const aDeps = "uv run fetches the 2 dependencies of a/pyproject.toml, pinned by the lock a/uv.lock beside it, "
	want := []string{
		`notice discovery/fetched-code a/.mcp.json:1:2 plugin a's MCP server srv runs code that is not in the tree, fetched at run time: ` + aDeps + "which uv run installs from while the project matches it; " + pinned,
		`notice discovery/fetched-code a/.mcp.json:1:95 plugin a's MCP server sh runs code that is not in the tree, fetched at run time: ` + aDeps + "which uv run installs from while the project matches it; " + pinned,
		`notice discovery/fetched-code a/hooks/hooks.json:1:167 hook a/hooks/hooks.json#hooks.Stop[0].hooks[1] runs code that is not in the tree, fetched at run time: ` + aDeps + "which --locked holds uv run to; " + pinned,
		`notice discovery/fetched-code a/hooks/hooks.json:1:266 hook a/hooks/hooks.json#hooks.Stop[0].hooks[2] runs code that is not in the tree, fetched at run time: ` + aDeps + "which --frozen has uv run install from as it stands; " + pinned,
		`notice discovery/fetched-code a/hooks/hooks.json:1:63 hook a/hooks/hooks.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: ` + aDeps + "which uv run installs from while the project matches it; " + pinned,
		`notice discovery/fetched-code a/skills/s/SKILL.md:4:8 plugin a's skill a/skills/s/SKILL.md, in a shell line, runs code that is not in the tree, fetched at run time: ` + aDeps + "which uv run installs from while the project matches it; " + pinned,
		// A virtual workspace root installs its members' dependencies
		// (not an excluded one's); a member is locked by the root's
		// uv.lock.
		`notice discovery/fetched-code w/hooks/hooks.json:1:241 hook w/hooks/hooks.json#hooks.Stop[0].hooks[2] runs code that is not in the tree, fetched at run time: uv run fetches the 1 dependency of w/pyproject.toml, pinned by the lock w/uv.lock beside it, which uv run installs from while the project matches it; ` + pinned,
		`notice discovery/fetched-code w/hooks/hooks.json:1:63 hook w/hooks/hooks.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: uv run fetches the 1 dependency of w/packages/m/pyproject.toml, pinned by the lock w/uv.lock of its workspace, which uv run installs from while the project matches it; ` + pinned,
		// A relative script is taken from where the cd before it leads.
		`warning discovery/fetched-code b/hooks/hooks.json:1:1101 hook b/hooks/hooks.json#hooks.Stop[0].hooks[12] runs code that is not in the tree, fetched at run time: uv run b/meta.py fetches only-this (no version: whatever the registry serves as latest); ` + unpinned + "pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script b/meta.py" + deny,
		`warning discovery/fetched-code b/hooks/hooks.json:1:149 hook b/hooks/hooks.json#hooks.Stop[0].hooks[1] runs code that is not in the tree, fetched at run time: uv run fetches the 3 dependencies of b/pyproject.toml (no uv.lock beside it: uv run resolves them afresh, whatever the index serves that day); ` + unpinned + "lock them: uv lock beside b/pyproject.toml, commit the uv.lock it writes, and run uv run --locked" + deny,
		`warning discovery/fetched-code b/hooks/hooks.json:1:608 hook b/hooks/hooks.json#hooks.Stop[0].hooks[6] runs code that is not in the tree, fetched at run time: uv run b/meta.py fetches only-this (no version: whatever the registry serves as latest); ` + unpinned + "pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script b/meta.py" + deny,
		`warning discovery/fetched-code b/hooks/hooks.json:1:63 hook b/hooks/hooks.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: ` + bDeps + deny,
		`warning discovery/fetched-code b/hooks/hooks.json:1:692 hook b/hooks/hooks.json#hooks.Stop[0].hooks[7] runs code that is not in the tree, fetched at run time: ` + bDeps + deny,
		`warning discovery/fetched-code b/hooks/hooks.json:1:777 hook b/hooks/hooks.json#hooks.Stop[0].hooks[8] runs code that is not in the tree, fetched at run time: ` + bDeps + deny,
		`warning discovery/fetched-code b/hooks/hooks.json:1:877 hook b/hooks/hooks.json#hooks.Stop[0].hooks[9] runs code that is not in the tree, fetched at run time: ` + bDeps + deny,
		`warning discovery/fetched-code w/hooks/hooks.json:1:152 hook w/hooks/hooks.json#hooks.Stop[0].hooks[1] runs code that is not in the tree, fetched at run time: uv run fetches the 1 dependency of w/packages/x/pyproject.toml (no uv.lock beside it: uv run resolves them afresh, whatever the index serves that day); ` + unpinned + "lock them: uv lock beside w/packages/x/pyproject.toml, commit the uv.lock it writes, and run uv run --locked" + deny,
	}
	if diff := cmp.Diff(want, fetchedLines(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// FuzzPyproject feeds arbitrary text to the reading of a pyproject.toml
// and of what uv run installs of it: it must never panic, and never
// read more requirements than the text holds quotes.
func FuzzPyproject(f *testing.F) {
	for _, s := range []string{
		"[project]\ndependencies = [\"a\", 'b==1']\n[dependency-groups]\ndev = [{include-group = \"t\"}]\nt = [\"c\"]\n",
		"[tool.uv]\ndefault-groups = \"all\"\ndev-dependencies = [\"x\"]\n[tool.uv.workspace]\nmembers = [\"p/*\"]\n",
		"description = \"\"\"\n[project]\n\"\"\"\nx = [[\"a\"], {b = 1}]\n",
		"[dependency-groups]\ndev = [{include-group = \"dev\"}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := readPyproject(s)
		got := p.installs(uvSync{allGroups: true, allExtras: true})
		if n := strings.Count(s, `"`) + strings.Count(s, "'"); len(got) > n {
			t.Errorf("%d requirements read from text with %d quotes", len(got), n)
		}
	})
}

// TestUvProjectOfAPluginIsItsOwn: a plugin's hook runs in the user's
// project, which is not the tree's, so its uv run there names nothing of
// the tree's pyproject.toml (a marketplace repository's own tooling);
// a project hook's uv run, in the tree's project, names it.
func TestUvProjectOfAPluginIsItsOwn(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"pyproject.toml":             "[project]\nname = \"repo-tools\"\ndependencies = [\"ruff\"]\n",
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "uv run tool"}]}]}}`,
		".claude/settings.json":      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "uv run tool"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := fetchedLines(rep)
	if len(got) != 1 || !strings.HasPrefix(got[0], "warning discovery/fetched-code .claude/settings.json:") ||
		!strings.Contains(got[0], "uv run fetches the 1 dependency of pyproject.toml") {
		t.Errorf("fetched-code findings %q, want the project hook's only", got)
	}
}

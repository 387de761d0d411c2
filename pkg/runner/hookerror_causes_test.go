package runner

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestFailureCauseLinuxCI: the failures real plugins hit most on a Linux
// CI machine, as the shells and runtimes there report them, each name
// their cause (failureCause) and its fix.
func TestFailureCauseLinuxCI(t *testing.T) {
	tree := makeTree(t, map[string]string{
		"hooks/crlf.sh": "#!/bin/sh\r\necho hi\r\n",
		"hooks/lf.sh":   "#!/bin/sh\necho hi\n",
		"hooks/py2.py":  "#!/usr/bin/python2\nprint(1)\n",
		"hooks/brew.sh": "#!/opt/homebrew/bin/bash\necho hi\n",
		"hooks/env.sh":  "#!/usr/bin/env bash\necho hi\n",
		"hooks/bun.ts":  "#!/root/.bun/bin/bun\nconsole.log(1)\n",
	})
	for _, tc := range []struct {
		name   string
		code   int
		stderr string
		want   string // "" for none of these causes
	}{
		{"bash's $'\\r'", 127, "/t/x.sh: line 2: set: -\r: invalid option\n/t/x.sh: line 4: $'\\r': command not found\n",
			"its script may have Windows line endings (CRLF), which the shell reads as part of each line (a #! line that names /bin/sh\\r, a command $'\\r'), so it fails so on Linux and macOS alike; convert it to LF (dos2unix FILE), commit it, and keep it so with a .gitattributes line such as *.sh text eol=lf"},
		{"bash's set -\\r", 1, "/t/x.sh: line 2: set: -\\r: invalid option\nset: usage: set [-abefhkmnptuvxBCEHPT]\n", "its script may have Windows line endings (CRLF)"},
		{"a bad interpreter with ^M", 126, "bash: /t/x.sh: /bin/bash^M: bad interpreter: No such file or directory\n", "its script may have Windows line endings (CRLF)"},
		{"dash's set", 2, "/t/x.sh: 2: set: Illegal option -\r\n", "its script may have Windows line endings (CRLF)"},
		{"dash's not found of a file of the tree whose #! line ends in \\r", 127, "/bin/sh: 1: " + tree + "/hooks/crlf.sh: not found\n",
			"hooks/crlf.sh may have Windows line endings (CRLF), which the shell reads as part of each line (its #! line names /bin/sh\\r, which no machine has), so it fails so on Linux and macOS alike; convert it to LF (dos2unix hooks/crlf.sh), commit it"},
		{"bash's required file not found, so", 127, "bash: line 1: " + tree + "/hooks/crlf.sh: cannot execute: required file not found\n", "hooks/crlf.sh may have Windows line endings (CRLF)"},
		{"#!/usr/bin/python2", 127, "/bin/sh: 1: " + tree + "/hooks/py2.py: not found\n",
			"hooks/py2.py's #! line names /usr/bin/python2, which the machine vigiles ran it on lacks, so the script cannot start (the shell's \"not found\" is of its interpreter, not of the script), here as for its users who lack it too; Debian and Ubuntu install python3 alone: write #!/usr/bin/env python3"},
		{"#!/opt/homebrew/bin/bash, as bash says it", 127, "bash: line 1: " + tree + "/hooks/brew.sh: cannot execute: required file not found\n",
			"hooks/brew.sh's #! line names /opt/homebrew/bin/bash, which the machine vigiles ran it on lacks, so the script cannot start (the shell's \"not found\" is of its interpreter, not of the script), here as for its users who lack it too; a path of Homebrew's on macOS, which Linux machines do not have: write #!/usr/bin/env bash"},
		{"#!/usr/bin/env is env's to tell", 127, "/bin/sh: 1: " + tree + "/hooks/env.sh: not found\n", ""},
		{"osascript, as dash says it", 127, "/bin/sh: 1: osascript: not found\n",
			"it runs osascript, which macOS has and Linux does not: the hook may be written for macOS, and fails so on every Linux machine, its users' included; run it only where it is there (command -v osascript >/dev/null 2>&1 && osascript …, or where uname is Darwin), or use Linux's notify-send there too"},
		{"pbcopy mid-script, as bash says it", 1, "/t/x.sh: line 9: pbcopy: command not found\n", "it runs pbcopy, which macOS has and Linux does not"},
		{"open after another program", 127, "sh: 1: jq: not found\nsh: 1: open: not found\n", "it runs open, which macOS has and Linux does not: the hook may be written for macOS, and fails so on every Linux machine, its users' included; run it only where it is there (command -v open >/dev/null 2>&1 && open …, or where uname is Darwin), or use Linux's xdg-open there too"},
		{"a program of Linux's", 127, "sh: 1: jq: not found\n", ""},
		{"~/.local/bin's program, as dash says it", 127, "/bin/sh: 1: /root/.local/bin/mytool: not found\n",
			"it runs /root/.local/bin/mytool (~/.local/bin/mytool), a program its author may have installed in their home directory, which a confined run's HOME, thrown away after it, does not have: the hook works only where it was installed so; install mytool outside HOME where vigiles runs (on the PATH, /usr/local/bin) and have the hook run it by name (mytool …), to see it at work and for its users who installed it otherwise"},
		{"~/.cargo/bin's, as bash says it", 127, "bash: line 1: /home/runner/.cargo/bin/rtk: No such file or directory\n", "it runs /home/runner/.cargo/bin/rtk (~/.cargo/bin/rtk), a program its author"},
		{"bun's, as env says it", 127, "/usr/bin/env: '/root/.bun/bin/bun': No such file or directory\n", "it runs /root/.bun/bin/bun (~/.bun/bin/bun), a program its author"},
		{"a #! line of bun's in HOME", 127, "/bin/sh: 1: " + tree + "/hooks/bun.ts: not found\n", "hooks/bun.ts's #! line names /root/.bun/bin/bun (~/.bun/bin/bun), a program its author"},
		{"a program in a directory of the tree's", 127, "/bin/sh: 1: " + tree + "/.local/bin/x: not found\n", ""},
		{"a file of LF lines", 127, "/bin/sh: 1: " + tree + "/hooks/lf.sh: not found\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failureCause(report.HookRun{ExitCode: tc.code, Stderr: tc.stderr}, tree)
			if tc.want == "" {
				if strings.Contains(got, "line endings") || strings.Contains(got, "#! line") || strings.Contains(got, "macOS has") || strings.Contains(got, "its author may") {
					t.Errorf("cause %q, want none of these", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("cause:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// linuxCIHooks are hooks that fail on a Linux CI machine as real plugins
// do, each with what its run/hook-error's cause must say
// (TestAuditNamesLinuxCIFailures).
var linuxCIHooks = []struct{ command, want string }{
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/crlf.sh`, ".claude/hooks/crlf.sh may have Windows line endings (CRLF)"},
	{`bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/crlf-bash.sh`, "its script may have Windows line endings (CRLF)"},
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/noexec.py`, "it runs .claude/hooks/noexec.py, which the tree holds without execute permission"},
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/envpy.sh`, "it runs python, which the machine vigiles ran it on lacks"},
	{`osascript -e 'display notification "done" with title "Claude"'`, "it runs osascript, which macOS has and Linux does not: the hook may be written for macOS"},
	{`say "task complete"`, "it runs say, which macOS has and Linux does not"},
	{`afplay /System/Library/Sounds/Glass.aiff`, "it runs afplay, which macOS has and Linux does not"},
	{`terminal-notifier -title Claude -message done`, "it runs terminal-notifier, which macOS has and Linux does not"},
	{`jq -r .tool_input.command | pbcopy`, "it runs pbcopy, which macOS has and Linux does not"},
	{`node "$CLAUDE_PROJECT_DIR"/.claude/hooks/missing-dep.mjs`, "it imports zod, which Node.js found in no node_modules above the script"},
	{`node "$CLAUDE_PROJECT_DIR"/.claude/hooks/cjs/esm.js`, "read .claude/hooks/cjs/esm.js line 1 as CommonJS, and it holds an import statement"},
	{`node "$CLAUDE_PROJECT_DIR"/.claude/hooks/pipeline.js`, "could not parse .claude/hooks/pipeline.js line 2 (SyntaxError: "},
	{`~/.local/bin/mytool check`, "(~/.local/bin/mytool), a program its author may have installed in their home directory"},
	{`$HOME/.cargo/bin/rtk hook`, "(~/.cargo/bin/rtk), a program its author may have installed in their home directory"},
	{`~/.bun/bin/bun run "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.ts`, "(~/.bun/bin/bun), a program its author may have installed in their home directory"},
	{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/brew.sh`, ".claude/hooks/brew.sh's #! line names /opt/homebrew/bin/bash, which the machine vigiles ran it on lacks"},
}

// TestAuditNamesLinuxCIFailures audits, confined, hooks that fail as
// real plugins do on a Linux CI machine (linuxCIHooks): each run is a
// run/hook-error whose cause names why.
func TestAuditNamesLinuxCIFailures(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	cases := linuxCIHooks
	if p, err := exec.LookPath("python"); err == nil && !under(p, hiddenFromHook()...) {
		// A machine whose PATH has python outside the home directories
		// runs the script: not the failure this case is of.
		t.Logf("python is %s, which a confined hook finds: the #!/usr/bin/env python case is left out", p)
		cases = slices.DeleteFunc(slices.Clone(cases), func(h struct{ command, want string }) bool { return strings.Contains(h.command, "envpy") })
	}
	if _, err := exec.LookPath("node"); err != nil {
		sandboxtest.Missing(t, "node")
	}
	// ERR_REQUIRE_ESM: a Node.js that loads ES modules with require()
	// does not where told so; one older than the option refuses them
	// anyway.
	node := "node"
	if exec.Command("node", "--no-experimental-require-module", "-e", "0").Run() == nil {
		node = "node --no-experimental-require-module"
	}
	cases = append(slices.Clone(cases), struct{ command, want string }{node + ` "$CLAUDE_PROJECT_DIR"/.claude/hooks/req.js`, "it require()s .claude/hooks/m.mjs, an ES module, which Node.js v"})
	var hooks []string
	for _, h := range cases {
		hooks = append(hooks, `{"type": "command", "command": `+strconv.Quote(h.command)+`}`)
	}
	dir := makeTree(t, map[string]string{
		".claude/settings.json":          `{"hooks": {"Stop": [{"hooks": [` + strings.Join(hooks, ",\n") + `]}]}}`,
		".claude/hooks/crlf.sh":          "#!/bin/sh\r\necho hi\r\n",
		".claude/hooks/crlf-bash.sh":     "#!/bin/bash\r\nset -e\r\necho hi\r\n\r\n",
		".claude/hooks/noexec.py":        "#!/usr/bin/env python3\nprint(1)\n",
		".claude/hooks/envpy.sh":         "#!/usr/bin/env python\nprint(1)\n",
		".claude/hooks/brew.sh":          "#!/opt/homebrew/bin/bash\necho hi\n",
		".claude/hooks/missing-dep.mjs":  "import { z } from 'zod';\nconsole.log(z)\n",
		".claude/hooks/cjs/package.json": `{"type": "commonjs"}`,
		".claude/hooks/cjs/esm.js":       "import fs from 'node:fs';\nconsole.log(fs)\n",
		".claude/hooks/pipeline.js":      "const f = (x) => x;\nconst y = 1 |> f;\n",
		".claude/hooks/req.js":           "require('./m.mjs')\n",
		".claude/hooks/m.mjs":            "export default 1\n",
	})
	got := hookErrorsOfAudit(t, dir)
	for i, h := range cases {
		id := fmt.Sprintf(".claude/settings.json#hooks.Stop[0].hooks[%d]", i)
		if !strings.Contains(got[id], h.want) {
			t.Errorf("%s (%s): run/hook-error %q, want its cause %q", id, h.command, got[id], h.want)
		}
	}
}

// Node.js's reports, as Node.js 20 writes them.
const (
	nodeRequireESMStderr = "/t/hooks/req.js:1\nrequire('./m.mjs')\n^\n\nError [ERR_REQUIRE_ESM]: require() of ES Module /t/hooks/m.mjs from /t/hooks/req.js not supported.\nInstead change the require of /t/hooks/m.mjs to a dynamic import() which is available in all CommonJS modules.\n    at Object.<anonymous> (/t/hooks/req.js:1:1) {\n  code: 'ERR_REQUIRE_ESM'\n}\n\nNode.js v20.20.2\n"
	nodeImportStderr     = "(node:12871) Warning: To load an ES module, set \"type\": \"module\" in the package.json or use the .mjs extension.\n/t/hooks/esm.js:1\nimport fs from 'fs';\n^^^^^^\n\nSyntaxError: Cannot use import statement outside a module\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n    at node:internal/main/run_main_module:28:49\n\nNode.js v20.20.2\n"
	nodeSyntaxStderr     = "/t/hooks/new.js:2\nusing r = null;\n      ^\n\nSyntaxError: Unexpected identifier 'r'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n    at node:internal/main/run_main_module:28:49\n\nNode.js v20.20.2\n"
	nodeNoPackageStderr  = "node:internal/modules/esm/resolve:873\n  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);\n        ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /t/hooks/mnf.mjs\n    at packageResolve (node:internal/modules/esm/resolve:873:9) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n"
	nodeNoModuleStderr   = "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module '@scope/pkg/sub'\nRequire stack:\n- /t/hooks/cjs.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15) {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/t/hooks/cjs.js' ]\n}\n\nNode.js v20.20.2\n"
	nodeTypeScriptStderr = "node:internal/modules/esm/get_format:218\n  throw new ERR_UNKNOWN_FILE_EXTENSION(ext, filepath);\n\nTypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for /t/hooks/x.ts\n    at Object.getFileProtocolModuleFormat [as file:] (node:internal/modules/esm/get_format:218:9) {\n  code: 'ERR_UNKNOWN_FILE_EXTENSION'\n}\n\nNode.js v20.20.2\n"
)

// TestFailureCauseNode: Node.js refusing a hook's script as written names
// why, with the Node.js that ran and the fix: require() of an ES module,
// an import statement in a file read as CommonJS, TypeScript, a
// SyntaxError that may be a newer Node.js's syntax, and a package found
// in no node_modules.
func TestFailureCauseNode(t *testing.T) {
	for _, tc := range []struct{ name, stderr, want string }{
		{"ERR_REQUIRE_ESM", nodeRequireESMStderr, "it require()s /t/hooks/m.mjs, an ES module, which Node.js v20.20.2 does not load with require() (ERR_REQUIRE_ESM): a package that ships ES modules alone from some major version on, or a .mjs or \"type\": \"module\" file; load it with import(), or pin the package's last CommonJS version (a Node.js of 20.19 or 22.12 and later loads most with require(), where that is what the hook is written for)"},
		{"an import statement in CommonJS", nodeImportStderr, "Node.js v20.20.2 read /t/hooks/esm.js line 1 as CommonJS, and it holds an import statement: ES module syntax in a .js file whose nearest package.json does not say \"type\": \"module\" (or none does); name it .mjs, or add \"type\": \"module\" to its package.json (a Node.js of 20.19 or 22.7 and later reads such a file as a module by itself)"},
		{"a SyntaxError", nodeSyntaxStderr, "Node.js v20.20.2 could not parse /t/hooks/new.js line 2 (SyntaxError: Unexpected identifier 'r'): a mistake in the script, or syntax of a newer Node.js than this one, which a newer one may read; install the Node.js the hook is written for where vigiles runs to see it at work"},
		{"TypeScript", nodeTypeScriptStderr, "Node.js v20.20.2 does not run TypeScript itself (ERR_UNKNOWN_FILE_EXTENSION): the hook may be written for a Node.js that strips types, 22.18, 23.6 and later; install one where vigiles runs, or run the script with tsx or bun, to see the hook at work"},
		{"ERR_MODULE_NOT_FOUND", nodeNoPackageStderr, "it imports zod, which Node.js found in no node_modules above the script: its dependencies may not be installed (node_modules is not committed), or it relies on a package installed on its author's machine alone; install them in the tree before vigiles runs it (npm ci where its package.json is), and list the package in one where none does"},
		{"a scoped package's subpath", nodeNoModuleStderr, "it imports @scope/pkg, which Node.js found in no node_modules above the script"},
		{"an ES module's SyntaxError", "file:///t/hooks/p.mjs:2\nconst y = 1 |> f;\n             ^\n\nSyntaxError: Unexpected token '>'\n    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)\n\nNode.js v20.20.2\n",
			"Node.js v20.20.2 could not parse /t/hooks/p.mjs line 2 (SyntaxError: Unexpected token '>'): a mistake in the script, or syntax of a newer Node.js"},
		{"JSON.parse's SyntaxError is none", "/t/hooks/j.js:2\nJSON.parse(s);\n     ^\n\nSyntaxError: Expected property name or '}' in JSON at position 1\n    at JSON.parse (<anonymous>)\n    at Object.<anonymous> (/t/hooks/j.js:2:6)\n\nNode.js v20.20.2\n", ""},
		{"JSON.parse's of its input is none", "<anonymous_script>:1\n{\n\nSyntaxError: Expected property name or '}' in JSON at position 1\n    at JSON.parse (<anonymous>)\n    at Object.<anonymous> (/t/hooks/j.js:2:6)\n\nNode.js v20.20.2\n", ""},
		{"a SyntaxError of Python's is none", "  File \"/t/x.py\", line 1\n    x = (\n        ^\nSyntaxError: '(' was never closed\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failureCause(report.HookRun{ExitCode: 1, Stderr: tc.stderr}, "")
			if tc.want == "" {
				if strings.Contains(got, "Node.js") {
					t.Errorf("cause %q, want none of Node.js", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("cause:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestMissingPathCause: a path a failed hook's stderr names as missing
// is explained where the tree or the machine shows why: a link of the
// tree out of it, a script of the tree named absolute that the tree
// lacks, the run's throwaway HOME or TMPDIR, a directory vigiles hides,
// an absolute path of its author's (with the tree's file of that name);
// a relative path of the tree that is missing, or one this machine has,
// is not.
func TestMissingPathCause(t *testing.T) {
	tree := makeTree(t, map[string]string{
		".claude/hooks/validate.sh": "#!/bin/sh\n",
		"init.sh":                   "#!/bin/sh\n",
		"packages/app/x.sh":         "#!/bin/sh\n",
		"plugins/p/hooks/guard.sh":  "#!/bin/sh\n",
		"plugins/p/hooks/guard.ts":  "export {}\n",
	})
	if err := os.Symlink("/nonexistent-vigiles/init.sh", filepath.Join(tree, ".claude/init.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../init.sh", filepath.Join(tree, ".claude/rel.sh")); err != nil {
		t.Fatal(err)
	}
	// A file this machine has in a directory vigiles hides from a
	// confined hook.
	hidden, err := os.MkdirTemp("/var/tmp", "vigiles-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hidden) })
	tool := filepath.Join(hidden, "tool")
	if err := os.WriteFile(tool, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tool, filepath.Join(tree, ".claude/hidden.sh")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, context, stderr, want string
	}{
		{"a link out of the tree into a directory vigiles hides", "project:.", ".claude/hidden.sh: No such file or directory\n",
			`it runs .claude/hidden.sh, a symbolic link in the tree to ` + tool + `, outside it, under a directory vigiles hides from a confined hook, which finds nothing there whether or not this machine has it`},
		{"a link out of the tree", "project:.", ".claude/hooks/../init.sh: No such file or directory\n",
			`it runs .claude/init.sh, a symbolic link in the tree to /nonexistent-vigiles/init.sh, outside it, which this machine lacks`},
		{"the author's own path", "project:.", "sh: 1: /opt/nobody-vigiles/.local/bin/graphify: not found\n",
			`it names /opt/nobody-vigiles/.local/bin/graphify, an absolute path outside the work tree that this machine lacks: a hook that names its author's own paths fails wherever else it runs; name the tree's files with "$CLAUDE_PROJECT_DIR"/… (a plugin's with ${CLAUDE_PLUGIN_ROOT}/…)`},
		{"the author's own path in a directory vigiles hides", "project:.", "sh: 1: /home/nobody-vigiles/.local/bin/graphify: not found\n",
			`it names /home/nobody-vigiles/.local/bin/graphify, under a directory vigiles hides from a confined hook (the home directories and the like, so that the secrets there stay unread), where the hook finds nothing whether or not this machine has it: a hook that names its author's own paths fails wherever else it runs`},
		{"the tree has it", "plugin:plugins/p", "bash: /nonexistent-vigiles/.claude/hooks/validate.sh: No such file or directory\n",
			`; the tree has .claude/hooks/validate.sh: "$CLAUDE_PROJECT_DIR"/.claude/hooks/validate.sh`},
		{"a bad interpreter is no missing script", "project:.", "bash: /nonexistent-vigiles/hooks/guard.py: /usr/bin/python: bad interpreter: No such file or directory\n", ""},
		{"the author's own path, with blanks in it", "project:.", "/bin/sh: 1: /nonexistent-vigiles/Start Up/My Project/.claude/hooks/validate.sh: not found\n",
			`it names /nonexistent-vigiles/Start Up/My Project/.claude/hooks/validate.sh, an absolute path outside the work tree that this machine lacks: a hook that names its author's own paths fails wherever else it runs; name the tree's files with "$CLAUDE_PROJECT_DIR"/… (a plugin's with ${CLAUDE_PLUGIN_ROOT}/…); the tree has .claude/hooks/validate.sh: "$CLAUDE_PROJECT_DIR"/.claude/hooks/validate.sh`},
		{"python", "project:.", "python3: can't open file '/nonexistent-vigiles/hook.py': [Errno 2] No such file or directory\n",
			"it names /nonexistent-vigiles/hook.py, an absolute path outside the work tree"},
		// The same words whether the machine has the file or not: what
		// vigiles hides is not told.
		{"a directory vigiles hides", "project:.", "sh: 1: " + tool + ": not found\n",
			"it names " + tool + ", under a directory vigiles hides from a confined hook (the home directories and the like, so that the secrets there stay unread), where the hook finds nothing whether or not this machine has it"},
		{"a directory vigiles hides, a file it lacks", "project:.", "sh: 1: " + tool + "-gone: not found\n",
			"it names " + tool + "-gone, under a directory vigiles hides from a confined hook (the home directories and the like, so that the secrets there stay unread), where the hook finds nothing whether or not this machine has it"},
		{"the throwaway HOME", "plugin:plugins/p", "sh: 1: /root/.claude/plugins/data/p-inline/venv/bin/python: not found\n",
			"it names /root/.claude/plugins/data/p-inline/venv/bin/python, in the run's throwaway HOME, TMPDIR or /dev/shm, which each confined run starts empty"},
		{"a marketplace's installed copy", "plugin:plugins/p", "bash: /root/.claude/plugins/marketplaces/mk/plugins/p/hooks/guard.sh: No such file or directory\n",
			"it names /root/.claude/plugins/marketplaces/mk/plugins/p/hooks/guard.sh, in Claude Code's own copy of an installed marketplace or plugin under ~/.claude/plugins, which a confined run's throwaway HOME does not hold: a hook that reaches its files there, not through ${CLAUDE_PLUGIN_ROOT}, finds nothing wherever the plugin is installed otherwise (under another marketplace name, a new version, loaded from its directory), so this run records the hook without them; name them with ${CLAUDE_PLUGIN_ROOT}/…, the plugin's directory wherever it is; the tree has plugins/p/hooks/guard.sh: ${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"},
		{"a plugin's installed copy", "plugin:plugins/p", "python3: can't open file '/root/.claude/plugins/cache/mk/p/1.2.0/hooks/guard.sh': [Errno 2] No such file or directory\n",
			"; the tree has plugins/p/hooks/guard.sh: ${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"},
		{"an installed copy the tree lacks", "plugin:plugins/p", "sh: 1: /root/.claude/plugins/marketplaces/mk/gone.sh: not found\n",
			"finds nothing wherever the plugin is installed otherwise (under another marketplace name, a new version, loaded from its directory), so this run records the hook without them; name them with ${CLAUDE_PLUGIN_ROOT}/…, the plugin's directory wherever it is"},
		{"a script's own words", "project:.", "Error: cargo-check binary not found at /root/.claude-hooks/bin/cargo-check\n",
			"it names /root/.claude-hooks/bin/cargo-check, in the run's throwaway HOME"},
		{"Python's open", "project:.", "FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent-vigiles/cfg.json'\n",
			"it names /nonexistent-vigiles/cfg.json, an absolute path outside the work tree"},
		{"a file an installer copies into HOME", "project:.", "sh: 1: /root/.claude/hooks/validate.sh: not found\n",
			`it names /root/.claude/hooks/validate.sh, in the run's throwaway HOME, which each confined run starts empty, and the tree has .claude/hooks/validate.sh: an installer that copies the tree's files into HOME puts it there where the hook is used`},
		{"a redirection into HOME", "project:.", "/bin/sh: 1: cannot create /root/.claude/logs/guard.log: Directory nonexistent\n",
			"it names /root/.claude/logs/guard.log, in the run's throwaway HOME"},
		{"a quoted ~", "project:.", "bash: ~/c.sh: No such file or directory\n",
			`it names ~/c.sh, a ~ the shell did not expand, as it was quoted: a path of a directory named ~ in the one the hook runs in, not of the home directory; write "$HOME"/c.sh, or leave the ~ unquoted`},
		{"a ~ Python did not expand", "project:.", "FileNotFoundError: [Errno 2] No such file or directory: '~/.config/x.json'\n",
			"it names ~/.config/x.json, a ~ nothing expanded: only a shell reads ~ as the home directory"},
		{"the throwaway TMPDIR", "project:.", "bash: /tmp/guard-state/lock: No such file or directory\n",
			"it names /tmp/guard-state/lock, in the run's throwaway HOME"},
		{"a script the tree lacks", "plugin:plugins/p", "Error: Cannot find module '" + tree + "/plugins/p/dist/index.js'\n",
			"it names dist/index.js, a file of the plugin at plugins/p (plugins/p/dist/index.js) that the plugin does not ship: the tree does not hold it (a file a build makes that the repository does not commit, dist/ or build/, one its .gitignore keeps out, or one removed)"},
		{"Bun's relative import the tree lacks", "plugin:plugins/p", "error: Cannot find module './lib/paths.js' from '" + tree + "/plugins/p/src/settings.ts'\n",
			"it names src/lib/paths.js, a file of the plugin at plugins/p (plugins/p/src/lib/paths.js) that the plugin does not ship: the tree does not hold it (a file a build makes that the repository does not commit, dist/ or build/, one its .gitignore keeps out, or one removed)"},
		{"a script the tree has elsewhere", "plugin:plugins/p", "bash: " + tree + "/plugins/p/lib/hooks/guard.sh: No such file or directory\n",
			"it names plugins/p/lib/hooks/guard.sh, which the tree does not hold, and the tree has plugins/p/hooks/guard.sh: the hook builds a path to it from a directory that is not its own"},
		{"Bun's relative import the tree has as .ts", "plugin:plugins/p", "error: Cannot find module './guard.js' from '" + tree + "/plugins/p/hooks/x.ts'\n", ""},
		{"a path beside the tree", "plugin:plugins/p", "bash: " + filepath.Dir(tree) + "/marketplace-utils/hook-lifecycle.sh: No such file or directory\n",
			"it names " + filepath.Dir(tree) + "/marketplace-utils/hook-lifecycle.sh, outside the work tree (../marketplace-utils/hook-lifecycle.sh from the tree): the hook climbs out of its repository"},
		{"a relative path out of the tree", "plugin:plugins/p", "bash: ../../shared/lib.sh: No such file or directory\n",
			"it names ../../shared/lib.sh, outside the work tree (../../shared/lib.sh from the tree): the hook climbs out of its repository"},
		{"Bun's relative import in an installed copy", "plugin:plugins/p", "error: Cannot find module '../lib/x.js' from '/root/.claude/plugins/cache/mk/p/1.0/hooks/x.ts'\n",
			"in Claude Code's own copy of an installed marketplace or plugin"},
		{"a package's relative path", "project:packages/app", "sh: 1: ./missing.sh: not found\n", ""},
		{"a relative link in the tree", "project:.", ".claude/rel.sh/x: No such file or directory\n", ""},
		{"a path this machine has", "project:.", "sh: 1: /bin/sh/x: not found\n", ""},
		{"no path", "project:.", "sh: 1: jq: not found\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := missingPathCause(report.HookRun{Context: tc.context, Stderr: tc.stderr, ExitCode: 127}, tree)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	// A project's hook whose ${CLAUDE_PLUGIN_ROOT} is empty.
	if got := missingPathCause(report.HookRun{Context: "project:.", Command: "${CLAUDE_PLUGIN_ROOT}/skills/s/v.sh", Stderr: "/bin/sh: 1: /skills/s/v.sh: not found\n"}, tree); !strings.Contains(got, "it names /skills/s/v.sh, the command's ${CLAUDE_PLUGIN_ROOT}/skills/s/v.sh with $CLAUDE_PLUGIN_ROOT empty: Claude Code sets it for a plugin's and a skill's hooks only") {
		t.Errorf("a project's empty plugin root: %q", got)
	}
	if got := missingPathCause(report.HookRun{Stderr: "sh: 1: /nonexistent-vigiles/x: not found"}, ""); got != "" {
		t.Errorf("with no tree: %q", got)
	}
	// A command: check's command runs as the hook of a plugin rooted at
	// the repository, which is installed nowhere: a relative path it
	// lacks is the tree's, not one read from a project's directory in
	// place of the plugin's, nor one "plugin (check)" does not ship.
	check := report.HookRun{ID: "check:c", Plugin: checkPlugin, Context: "plugin:.", Command: "./scripts/check.sh", Stderr: "/bin/sh: 1: ./scripts/check.sh: not found\n", ExitCode: 127}
	const want = "it names scripts/check.sh, which the tree does not hold: a file a build makes that the repository does not commit"
	if got := missingPathCause(check, tree); !strings.HasPrefix(got, want) {
		t.Errorf("a command check's missing script: %q; want it to start %q", got, want)
	}
}

// TestNotExecutableInTree: a file of the tree that a shell may not
// execute, and that has no execute permission there, is named with the
// fix (the mode git gives it); one that has it, or a path outside the
// tree, is not.
func TestNotExecutableInTree(t *testing.T) {
	tree := makeTree(t, map[string]string{"hooks/guard.py": "print()\n", "hooks/ok.sh": "#!/bin/sh\n"})
	// A link in the tree to it: the file it leads to is named, whose
	// mode git keeps.
	if err := os.MkdirAll(filepath.Join(tree, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../hooks/guard.py", filepath.Join(tree, "bin/guard")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ stderr, want string }{
		{"sh: 1: " + tree + "/hooks/guard.py: Permission denied\n", "it runs hooks/guard.py, which the tree holds without execute permission, as git gave it: a hook that runs it fails so wherever it is installed; chmod +x it and commit the mode (git update-index --chmod=+x hooks/guard.py), or run it through its interpreter"},
		{"sh: 1: " + tree + "/hooks/ok.sh: Permission denied\n", "a file it runs could not be executed (no execute permission, or not a program)"},
		{"sh: 1: /usr/local/bin/x: Permission denied\n", "a file it runs could not be executed (no execute permission, or not a program)"},
		{"sh: 1: " + tree + "/bin/guard: Permission denied\n", "it runs hooks/guard.py, which the tree holds without execute permission, as git gave it: a hook that runs it fails so wherever it is installed; chmod +x it and commit the mode (git update-index --chmod=+x hooks/guard.py), or run it through its interpreter"},
	} {
		if got := failureCause(report.HookRun{ExitCode: 126, Stderr: tc.stderr}, tree); got != tc.want {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.stderr, got, tc.want)
		}
	}
}

// TestSigpipeCause: exit status 141, a shell's 128 + SIGPIPE, is named as
// a pipeline's reader that quit, with the fix.
func TestSigpipeCause(t *testing.T) {
	if got := failureCause(report.HookRun{ExitCode: 141}, ""); !strings.Contains(got, "exit status 141 is a shell's 128 + 13, SIGPIPE") || !strings.Contains(got, "|| true") {
		t.Errorf("cause of exit 141: %q", got)
	}
}

// TestEmptyVariableCause: a path a hook's command builds from a variable
// that was empty is said to be so, not blamed on its author's own paths:
// one named like Claude Code's ($PLUGIN_ROOT) fails wherever the hook
// runs, another ($GOPATH) was empty in the audit's environment; where the
// plugin holds the file, the fix names it by ${CLAUDE_PLUGIN_ROOT}. A
// variable the command sets itself is no such cause.
func TestEmptyVariableCause(t *testing.T) {
	tree := makeTree(t, map[string]string{"plugins/p/hooks/guard.sh": "#!/bin/sh\n", "plugins/cx/.codex-plugin/plugin.json": "{}", "plugins/cx/bin/audit": "#!/bin/sh\n"})
	for _, tc := range []struct{ context, command, stderr, want string }{
		{"plugin:plugins/p", "bash ${PLUGIN_ROOT}/hooks/guard.sh", "bash: /hooks/guard.sh: No such file or directory\n",
			"it names /hooks/guard.sh, the command's ${PLUGIN_ROOT}/hooks/guard.sh with $PLUGIN_ROOT empty: Claude Code sets no PLUGIN_ROOT (it sets CLAUDE_PROJECT_DIR, and CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA for a plugin's hooks), so it fails wherever it runs; the plugin has plugins/p/hooks/guard.sh: write ${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"},
		{"plugin:plugins/cx", "${PLUGIN_ROOT}/bin/audit", "sh: 1: /bin/audit: not found\n",
			"it names /bin/audit, the command's ${PLUGIN_ROOT}/bin/audit with $PLUGIN_ROOT empty: Claude Code sets no PLUGIN_ROOT (it sets CLAUDE_PROJECT_DIR, and CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA for a plugin's hooks), so it fails wherever it runs; the plugin is OpenAI Codex's too (.codex-plugin/plugin.json), whose hooks get PLUGIN_ROOT and read this same file; the plugin has plugins/cx/bin/audit: write ${CLAUDE_PLUGIN_ROOT:-$PLUGIN_ROOT}/bin/audit"},
		{"project:.", `"$GOPATH"/bin/mytool check`, "sh: 1: /bin/mytool: not found\n",
			"it names /bin/mytool, the command's $GOPATH/bin/mytool with $GOPATH empty: a confined hook gets what Claude Code sets for it, the session's settings env and the caller's PATH, LANG and TERM, not a user's whole environment, so it works only where GOPATH is set"},
		{"project:.", `R=$(git rev-parse --show-toplevel 2>/dev/null); "$R"/.claude/hooks/x.sh`, "sh: 1: /.claude/hooks/x.sh: not found\n",
			"it names /.claude/hooks/x.sh, an absolute path outside the work tree that this machine lacks"},
	} {
		got := missingPathCause(report.HookRun{Context: tc.context, Command: tc.command, Stderr: tc.stderr, ExitCode: 127}, tree)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.command, got, tc.want)
		}
	}
}

// TestCausesDoNotLookThroughLinksOut: what a cause says of a path of the
// tree reads the same whether a file the tree's links lead to outside it
// exists on the host or not (a link to /root, a relative link that climbs
// out, a plugin directory that is such a link, a path through
// /proc/self/root), so that a hook's stderr cannot ask vigiles what the
// host holds.
func TestCausesDoNotLookThroughLinksOut(t *testing.T) {
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "present"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tree := makeTree(t, map[string]string{"plugins/p/.keep": ""})
	rel, err := filepath.Rel(tree, host)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{host, "plugins/p/h"}, {rel, "lnk"}} {
		if err := os.Symlink(l[0], filepath.Join(tree, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	// A directory of the host that the run's uid may not enter (as root,
	// whose runs are another uid's), and the caller's TMPDIR outside /tmp,
	// which a run masks: neither is looked into.
	shut := ""
	if os.Geteuid() == 0 {
		base, err := os.MkdirTemp("/opt", "vigiles-cause-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(base) })
		shut = filepath.Join(base, "shut")
		tmpdir := filepath.Join(base, "tmpdir")
		for _, d := range []string{shut, tmpdir} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "present"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(base, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(tmpdir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmpdir)
		shut += "/%s"
	}
	cases := []struct {
		context, command, stderr string
		code                     int
	}{
		{"plugin:plugins/p", "bash $PLUGIN_ROOT/h/%s", "bash: /h/%s: No such file or directory\n", 1},
		{"project:.", "node lnk/%s", "Error: Cannot find module '" + tree + "/lnk/%s'\n", 1},
		{"project:.", "sh /proc/self/root" + host + "/%s", "sh: 1: /proc/self/root" + host + "/%s: not found\n", 1},
		// A shell's "may not execute" of a path through a link out.
		{"project:.", "lnk/%s", "bash: " + tree + "/lnk/%s: Permission denied\n", 126},
	}
	if shut != "" {
		cases = append(cases,
			struct {
				context, command, stderr string
				code                     int
			}{"project:.", shut, "sh: 1: " + shut + ": not found\n", 127},
			struct {
				context, command, stderr string
				code                     int
			}{"project:.", "$TMPDIR/%s", "sh: 1: " + os.Getenv("TMPDIR") + "/%s: not found\n", 127})
	}
	for _, tc := range cases {
		cause := func(name string) string {
			got := failureCause(report.HookRun{Context: tc.context, Command: fmt.Sprintf(tc.command, name), Stderr: fmt.Sprintf(tc.stderr, name), ExitCode: tc.code}, tree)
			return strings.ReplaceAll(got, name, "NAME")
		}
		if a, b := cause("present"), cause("absent"); a != b {
			t.Errorf("%s: the cause tells the host's file from a missing one:\n%q\n%q", tc.command, a, b)
		}
	}
}

package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestScriptLineFetches: a hook whose command runs a shell script of the
// tree names what the script's lines fetch (a package runner, an install),
// with the script and line; a comment, a script that is not a shell's,
// and a line that fetches nothing name nothing.
func TestScriptLineFetches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		file   string
		want   []string // substrings of the one fetched-code finding; none for no finding
	}{
		{
			name:   "a setup script's runner and install",
			file:   "plugins/p/scripts/setup.sh",
			script: "#!/usr/bin/env bash\nset -e\n# uvx old-tool\nif command -v uvx >/dev/null; then\n  uvx unraid-mcp setup plugin-hook\nfi\nnpm install -g \\\n  agent-browser@1.2.3\n",
			want: []string{"warning discovery/fetched-code", "uvx, in plugins/p/scripts/setup.sh line 5, fetches unraid-mcp (no version: whatever the registry serves as latest)",
				"npm install, in plugins/p/scripts/setup.sh line 7, fetches agent-browser@1.2.3, pinned by the exact version 1.2.3"},
		},
		{
			name:   "a script that fetches nothing",
			file:   "plugins/p/scripts/setup.sh",
			script: "#!/bin/sh\necho ready\n",
		},
		{
			// A here-document's body is text the command reads: a
			// quoted delimiter's expands nothing, an unquoted one's runs
			// only its command substitutions.
			name:   "here-documents",
			file:   "plugins/p/scripts/setup.sh",
			script: "#!/bin/bash\ncat <<'TXT'\n- Check types with `npx tsc --noEmit`\nTXT\ncat <<-\"EOF\"\n\tnpx -y left\n\tEOF\ncat <<END\nplain npx -y text\nnow $(npx -y ran) and `uvx also`\nEND\necho $((1 << 2))\n",
			want:   []string{"npx, in plugins/p/scripts/setup.sh line 10, fetches ran", "uvx, in plugins/p/scripts/setup.sh line 10, fetches also"},
		},
		{
			// A << the shell does not read as a here-document (in quotes,
			// a comment, a let) hides nothing after it; E"O"F is EOF;
			// a CRLF delimiter line ends its body; a body a shell reads
			// is commands; one whose delimiter never comes is read.
			name: "what is no here-document, and a shell's",
			file: "plugins/p/scripts/setup.sh",
			script: "#!/bin/bash\nawk 'BEGIN{print 1<<2}'\nnpx -y one\necho \"use <<EOF to read\"\nnpx -y two\necho hi # see <<EOF\nnpx -y three\n" +
				"let x=1<<2\nnpx -y four\ncat <<E\"O\"F\nnpx -y hidden\nEOF\nnpx -y five\ncat <<'W'\r\nnpx -y crlf\r\nW\r\nnpx -y six\n" +
				"bash <<'EOF'\nnpx -y seven\nEOF\ncat <<NEVER\nnpx -y eight\n",
			// The message names three and counts the rest: eight in all
			// (four … eight, not hidden nor crlf).
			want: []string{"line 3, fetches one", "line 5, fetches two", "line 7, fetches three", "; and 5 more;"},
		},
		{
			// A SessionStart script that clones a plugin's tool, pulls
			// it, and builds the binary its MCP server runs.
			name:   "a clone and a pull",
			file:   "plugins/p/scripts/setup.sh",
			script: "#!/bin/bash\nDIR=\"$HOME/.cache/tool\"\nif [ ! -d \"$DIR\" ]; then\n  git clone https://github.com/OWNER/REPO \"$DIR\"\nfi\ngit -C \"$DIR\" pull origin main\n(cd \"$DIR\" && go build -o \"$CLAUDE_PLUGIN_ROOT/bin/tool\" .)\n",
			want: []string{"warning discovery/fetched-code",
				"git clone, in plugins/p/scripts/setup.sh line 4, fetches https://github.com/OWNER/REPO (no commit: whatever the repository's default branch holds that day, and no full commit checked out after it)",
				"git pull, in plugins/p/scripts/setup.sh line 6, fetches origin main (whatever the remote's branch holds that day, and no full commit checked out after it)",
				"pin a commit: git checkout <commit> (its full 40-hex hash) after the clone or pull, in the same command or script"},
		},
		{
			// A checkout of a full commit on a later line pins the
			// clone: a notice.
			name:   "a clone pinned by a later checkout",
			file:   "plugins/p/scripts/setup.sh",
			script: "#!/bin/bash\ngit clone --branch v1.2 https://github.com/OWNER/REPO \"$DIR\"\ncd \"$DIR\"\ngit checkout 0123456789abcdef0123456789abcdef01234567\n",
			want: []string{"notice discovery/fetched-code",
				"git clone, in plugins/p/scripts/setup.sh line 2, fetches https://github.com/OWNER/REPO, pinned by the commit 0123456789abcdef0123456789abcdef01234567 checked out after it"},
		},
		{
			name:   "a clone of a local path",
			file:   "plugins/p/scripts/setup.sh",
			script: "#!/bin/bash\ngit clone \"$CLAUDE_PLUGIN_ROOT/vendor/tool\" /tmp/tool\ngit clone ./vendor/tool /tmp/tool2\n",
		},
		{
			name:   "not a shell's script",
			file:   "plugins/p/scripts/setup.py",
			script: "#!/usr/bin/env python3\nprint('npx -y pkg')\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := "bash ${CLAUDE_PLUGIN_ROOT}/scripts/" + tc.file[len("plugins/p/scripts/"):]
			if strings.HasSuffix(tc.file, ".py") {
				cmd = "python3 ${CLAUDE_PLUGIN_ROOT}/scripts/setup.py"
			}
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`,
				tc.file:                                tc.script,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			wantOneFetched(t, rep, tc.want)
		})
	}
}

// TestShellScriptLinesHereDocuments: what of a script is read as its
// commands around here-documents, line by line.
func TestShellScriptLinesHereDocuments(t *testing.T) {
	script := "#!/bin/bash\nawk 'BEGIN{print 1<<2}'\necho \"use <<EOF\"\necho hi # <<EOF\nlet x=1<<2\n" +
		"cat <<E\"O\"F\nhidden $(ran)\nEOF\ncat <<'W'\r\ncrlf\r\nW\r\nbash <<'EOF'\nshell body\nEOF\ncat <<U\ntext `sub`\nU\ncat <<NEVER\nread on\n"
	dir := makeTree(t, map[string]string{"s.sh": script})
	s, err := newSession(Options{Dir: dir}, "audit")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range s.shellScriptLines("s.sh") {
		got = append(got, fmt.Sprintf("%d %s", l.at, strings.TrimSuffix(l.text, "\r")))
	}
	want := []string{"2 awk 'BEGIN{print 1<<2}'", `3 echo "use <<EOF"`, "4 echo hi # <<EOF", "5 let x=1<<2", `6 cat <<E"O"F`,
		"9 cat <<'W'", "12 bash <<'EOF'", "13 shell body", "15 cat <<U", "16 sub", "18 cat <<NEVER", "19 read on"}
	if !slices.Equal(got, want) {
		t.Errorf("lines read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestScriptLineFetchesOfAScriptItsScriptRuns: a hook's script that runs
// or sources another script of the tree (a wrapper.sh that runs
// setup.sh) names what that one fetches too, with its file and line, as
// a baseline hashes it with the hook (runFiles): before, only the
// hook's own script was read, and the audit's run/egress of the fetch
// came with no fetched-code finding. One named through a variable the
// walk does not follow is not read.
func TestScriptLineFetchesOfAScriptItsScriptRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wrapper string
		want    []string
	}{
		{name: "run by bash", wrapper: "#!/usr/bin/env bash\nbash \"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh\" || exit 0\n",
			want: []string{"warning discovery/fetched-code", "npx, in plugins/p/scripts/setup.sh line 2, fetches some-tool (no version"}},
		{name: "run as its own dir's", wrapper: "#!/bin/sh\n\"$(dirname \"$0\")/setup.sh\"\n",
			want: []string{"npx, in plugins/p/scripts/setup.sh line 2, fetches some-tool"}},
		{name: "sourced", wrapper: "#!/bin/bash\n. \"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh\"\n",
			want: []string{"npx, in plugins/p/scripts/setup.sh line 2, fetches some-tool"}},
		{name: "through a variable", wrapper: "#!/bin/bash\nROOT=\"${CLAUDE_PLUGIN_ROOT:-.}\"\n\"$ROOT/scripts/setup.sh\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/wrapper.sh\""}]}]}}`,
				"plugins/p/scripts/wrapper.sh":         tc.wrapper,
				"plugins/p/scripts/setup.sh":           "#!/bin/sh\nnpx -y some-tool\n",
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			wantOneFetched(t, rep, tc.want)
		})
	}
}

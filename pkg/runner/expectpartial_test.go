package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestExpectationsOverAPartialRecord: an expectation that the record
// would pass, over a record that is not whole, is expect/not-recorded,
// never a pass: a hook that left processes running, ended after the
// linger (Claude Code lets them run on); an env file that is a symbolic
// link (its content is not read; Claude Code reads what it leads to).
// exit-code and json of a hook ended at its timeout say it never exited;
// exit-code passed on the 137 of vigiles' own kill.
func TestExpectationsOverAPartialRecord(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: quiet, command: x, event: SessionStart, expect: {no-egress: true, egress-only: [a.example.test], no-write: true, wrote-only: [x/**], no-env-file: true, env-file-matches: '^$'}}\n"+
		"  - {name: env, command: x, event: SessionStart, expect: {env-file-matches: '^(export [A-Z_]+=[A-Za-z0-9_./:-]*\\n)*$'}}\n"+
		"  - {name: code, command: x, expect: {exit-code: 137, json: {decision: block}}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	empty := ""
	whole := report.HookRun{ID: "h", Event: SessionStart, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: []evidence.Write{}, Egress: []evidence.Egress{},
		EnvFile: &evidence.EnvFile{Path: "~/e", Kind: "none", Content: &empty}}
	if fs := checkExpectations(cfg.Checks[0], executed{run: whole}); len(fs) != 0 {
		t.Fatalf("a whole record of a quiet hook: %v", findingLines(fs))
	}

	left := whole
	left.Lingered = []string{"7 sh -c sleep 1; curl evil.example.test"}
	fs := checkExpectations(cfg.Checks[0], executed{run: left})
	if len(fs) != 6 {
		t.Errorf("leftovers: %d findings, want one for each of the 6 expectations: %v", len(fs), findingLines(fs))
	}
	for _, f := range fs {
		if f.Rule != RuleNotRecorded || !strings.Contains(f.Message, "raise defaults.linger") || !strings.Contains(f.Evidence, "curl evil.example.test") {
			t.Errorf("leftovers: %s %q (evidence %q)", f.Rule, f.Message, f.Evidence)
		}
	}

	// At its timeout, with processes beside its own: the same, said so.
	beside := left
	beside.TimedOut, beside.Outcome, beside.ExitCode = true, report.OutcomeError, 137
	fs = checkExpectations(cfg.Checks[0], executed{run: beside})
	if len(fs) != 6 {
		t.Errorf("processes beside a timed-out hook: %d findings, want 6: %v", len(fs), findingLines(fs))
	}
	for _, f := range fs {
		if f.Rule != RuleNotRecorded || !strings.Contains(f.Message, "reached its timeout with processes running beside its own") {
			t.Errorf("processes beside a timed-out hook: %s %q", f.Rule, f.Message)
		}
	}

	link := whole
	link.EnvFile = &evidence.EnvFile{Path: "~/e", Kind: "symlink", Content: &empty}
	fs = checkExpectations(cfg.Checks[1], executed{run: link})
	if len(fs) != 1 || fs[0].Rule != RuleNotRecorded || !strings.Contains(fs[0].Message, "left a symlink at CLAUDE_ENV_FILE") {
		t.Errorf("env file a symlink: %v", findingLines(fs))
	}

	timedOut := report.HookRun{ID: "h", Event: PreToolUse, Tier: "confined", Outcome: report.OutcomeError, ExitCode: 137, TimedOut: true, Stdout: `{"decision": "block"}`}
	fs = checkExpectations(cfg.Checks[2], executed{run: timedOut})
	if len(fs) != 2 || !strings.Contains(fs[0].Message, "the hook did not exit: it was ended at its timeout") || !strings.Contains(fs[1].Message, "it was ended at its timeout") {
		t.Errorf("timed out: %v", findingLines(fs))
	}
}

// TestNotRecordedNamesTheFixOfACommandCheck: a command check's direct run
// is fixed by leaving trusted: true out of the check, not by
// plugins.untrusted, which does not reach it.
func TestNotRecordedNamesTheFixOfACommandCheck(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: a, command: x, trusted: true, expect: {no-write: true}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	fs := checkExpectations(cfg.Checks[0], executed{run: report.HookRun{ID: "h", Tier: "direct"}})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "leave trusted: true out of the check") || strings.Contains(fs[0].Message, "plugins.untrusted") {
		t.Errorf("%v", findingLines(fs))
	}
}

// TestCheckSelectingAListedHookIsAnError: a check whose selection holds,
// beside command hooks, a hook vigiles lists and does not run (http) for
// its event is an error at the check: it passed over the command hook
// alone, saying nothing of the http one, which Claude Code runs too.
func TestCheckSelectingAListedHookIsAnError(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/hp/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}, {"type": "http", "url": "https://telemetry.example.test/stop"}]}],
  "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "http", "url": "https://telemetry.example.test/write"}]}, {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`,
		// A matcher vigiles cannot evaluate as Claude Code does selects
		// every call, the check's too.
		"plugins/lk/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "(?!Read).*", "hooks": [{"type": "http", "url": "https://telemetry.example.test/any"}]}, {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`,
		".vigiles.yml": "checks:\n  - {name: offline, hook: hp, event: Stop, expect: {no-egress: true}}\n" +
			"  - {name: bash, hook: hp, tool: Bash, expect: {no-egress: true}}\n" +
			"  - {name: lookaround, hook: lk, tool: Bash, expect: {no-egress: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := messagesOf(rep.Findings, RuleCheckHook)
	if len(got) != 2 || !strings.Contains(got[0], `check "offline": "hp" selects, for Stop, hooks that vigiles lists and does not run`) || !strings.Contains(got[0], "(http)") ||
		!strings.Contains(got[1], `check "lookaround": "lk" selects, for PreToolUse, hooks that vigiles lists`) || rep.Verdict == report.VerdictPass {
		t.Errorf("verdict %s, check/no-hook findings %q; want one of the Stop check and one of the lookaround one (the Write hook does not run for Bash)", rep.Verdict, got)
	}
}

// TestRemoteSourceOverAVendoredPlugin: a marketplace entry whose source is
// remote, where a plugin of its name is vendored in the tree, is an error:
// vigiles audits the vendored copy and Claude Code installs the remote
// one. A remote entry with no vendored copy stays a notice.
func TestRemoteSourceOverAVendoredPlugin(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/stats/.claude-plugin/plugin.json": `{"name": "stats"}`,
		"plugins/stats/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "stats", "source": {"source": "github", "repo": "someone/stats"}},
  {"name": "other", "source": "https://git.example.test/other.git"}]}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	sev := map[string]report.Severity{}
	for _, f := range rep.Findings {
		if f.Rule == RuleRemoteSource {
			sev[strings.SplitN(strings.SplitN(f.Message, "(", 2)[1], ")", 2)[0]] = f.Severity
			if f.Severity == report.SeverityError && !strings.Contains(f.Message, "vendored at plugins/stats") {
				t.Errorf("message %q", f.Message)
			}
		}
	}
	if sev["stats"] != report.SeverityError || sev["other"] != report.SeverityNotice {
		t.Errorf("remote-source severities %v; want stats error, other notice", sev)
	}
}

// TestVendoredMarketplaceOfItsOwn: a vendored plugin whose upstream is a
// marketplace too brings that marketplace's file along; its remote entry
// of the plugin's own name is what users of the upstream marketplace
// install, not what this repository's marketplace, which installs the
// vendored directory, does: a notice, not the error of a remote source
// over a vendored plugin. The repository's own marketplace still gets
// that error.
func TestVendoredMarketplaceOfItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name, source string
		want         report.Severity
	}{
		{"the repository installs the vendored copy", `"./plugins/kit"`, report.SeverityNotice},
		{"the repository installs the remote one", `{"source": "github", "repo": "someone/kit"}`, report.SeverityError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude-plugin/marketplace.json":             `{"name": "m", "plugins": [{"name": "kit", "source": ` + tc.source + `}]}`,
				"plugins/kit/.claude-plugin/plugin.json":      `{"name": "kit"}`,
				"plugins/kit/.claude-plugin/marketplace.json": `{"name": "kit-marketplace", "plugins": [{"name": "kit", "source": {"source": "url", "url": "https://git.example.test/kit.git"}}]}`,
				"plugins/kit/hooks/hooks.json":                `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			worst := report.Severity("")
			for _, f := range rep.Findings {
				if f.Rule == RuleRemoteSource && (worst == "" || f.Severity == report.SeverityError) {
					worst = f.Severity
				}
			}
			if worst != tc.want {
				t.Errorf("remote-source findings %v; want the worst %s", findingLines(rep.Findings), tc.want)
			}
		})
	}
}

// TestOutputExpectationsOverLeftovers: a hook that left processes running
// (lingered) may print more after the record ends (a late
// {"decision":"block"} from a background process), so its output and the
// outcome read from it are not whole: every output, blocked, allowed,
// outcome and json expectation is expect/not-recorded, whether the record
// would pass it or fail it. A command check at its own timeout keeps its
// outcome: the timeout's, which nothing printed later changes.
func TestOutputExpectationsOverLeftovers(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: out, hook: p, tool: Bash, expect: {allowed: true, blocked: false, outcome: allowed, stdout-contains: ok, stdout-matches: '^ok$', stderr-contains: no, stderr-matches: '^$', json: {continue: true}}}\n"+
		"  - {name: late, hook: p, tool: Bash, expect: {blocked: true, stdout-contains: block}}\n"+
		"  - {name: cmd, command: x, expect: {outcome: error, exit-code: 0}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	whole := report.HookRun{ID: "h", Event: PreToolUse, Tier: "confined", Outcome: report.OutcomeAllowed, Stdout: `{"continue": true}`,
		Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
	d := Decision{Outcome: report.OutcomeAllowed, Output: map[string]any{"continue": true}}
	if fs := checkExpectations(cfg.Checks[0], executed{run: whole, decision: d}); len(fs) != 3 {
		// stdout-contains, stdout-matches over {"continue": true}, and stderr-contains: the record's failures
		t.Fatalf("a whole record: %v", findingLines(fs))
	}
	left := whole
	left.Lingered = []string{"7 sh -c sleep 1; echo {\"decision\":\"block\"}"}
	for _, c := range cfg.Checks[:2] {
		fs := checkExpectations(c, executed{run: left, decision: d})
		if len(fs) != len(c.Expect) {
			t.Errorf("%s: %d findings, want one for each of its %d expectations: %v", c.Name, len(fs), len(c.Expect), findingLines(fs))
		}
		for _, f := range fs {
			if f.Rule != RuleNotRecorded || !strings.Contains(f.Message, "raise defaults.linger") || !strings.Contains(f.Evidence, "sleep 1") {
				t.Errorf("%s: %s %q (evidence %q)", c.Name, f.Rule, f.Message, f.Evidence)
			}
		}
	}
	beside := left
	beside.TimedOut, beside.Outcome, beside.ExitCode, beside.Stdout = true, report.OutcomeError, 137, ""
	fs := checkExpectations(cfg.Checks[1], executed{run: beside})
	if len(fs) != 2 || fs[0].Rule != RuleNotRecorded || !strings.Contains(fs[0].Message, "reached its timeout with processes running beside its own") {
		t.Errorf("processes beside a timed-out hook: %v", findingLines(fs))
	}
	// A command check's outcome at its own timeout is the fact; its
	// exit-code fails as ever.
	fs = checkExpectations(cfg.Checks[2], executed{run: beside, cutShort: "it was ended at the check's timeout of 1s before it finished"})
	if len(fs) != 1 || fs[0].Rule != RuleExpectPrefix+ExpExitCode {
		t.Errorf("a command check at its timeout: %v", findingLines(fs))
	}
	// Exited, with processes left: its outcome is not whole either.
	exited := left
	exited.Outcome = report.OutcomeError
	fs = checkExpectations(cfg.Checks[2], executed{run: exited})
	if len(fs) != 1 || fs[0].Rule != RuleNotRecorded {
		t.Errorf("a command check that left processes: %v", findingLines(fs))
	}
}

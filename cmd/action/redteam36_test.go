package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// redteam36Workflow is a workflow whose vigiles step's job id and step
// id are hostile text (the pull request's to choose: GitHub refuses such
// ids, but the file is read before GitHub runs it), failing at a warning.
func redteam36Workflow(t *testing.T) string {
	return "name: vigiles\non: [pull_request]\njobs:\n  " + jsonString(t, "job"+hostileText) + ":\n    runs-on: ubuntu-latest\n    steps:\n" +
		"      - uses: actions/checkout@v4\n        with: {fetch-depth: 2}\n" +
		"      - id: " + jsonString(t, "id"+hostileText) + "\n        uses: vigiles/action@v1\n        with:\n" +
		"          command: audit\n          baseline: .vigiles/baseline.json\n          fail-level: warning\n"
}

// TestRedteam36NewFindingsOfHostileTextAreInert: round thirty-six. A pull
// request whose every text the findings added last quote is hostile
// (hostileText: workflow commands after LF, CR and %0A, the legacy
// "##[", a table's pipe, code, HTML, links, an image, a mention, an
// emoji, a problem matcher's bait, a bidi override): the vigiles step's
// job id and step id, a step added before it (its name and its run:), an
// env: of the step (its name and value), an if: expression and an input's
// value (policy/weakened, workflowdiff.go); its baseline's run context
// (baseline/accepted-by-pr); the project settings' extraKnownMarketplaces,
// a marketplace's name and its file and directory paths, and the plugins
// they turn on (discovery/outside-plugin). Audited by the action through
// the real sandbox on a pull_request event, every surface it writes (the
// annotations and their properties, stdout and stderr, GITHUB_OUTPUT,
// the step summary, the check run's request bodies, SARIF) holds that
// text inert (checkStepInert), and each finding does quote it.
func TestRedteam36NewFindingsOfHostileTextAreInert(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newHostileStep(t)
	s.env["INPUT_BASELINE"] = runner.DefaultBaseline
	src, _ := filepath.EvalSymlinks(t.TempDir())
	wf := ".github/workflows/vigiles.yml"
	writeFilesIn(t, src, map[string]string{wf: redteam36Workflow(t)})
	base := commitBase(t, src)

	h := jsonString(t, hostileText)
	head := strings.NewReplacer(
		"fail-level: warning", "fail-level: "+jsonString(t, "none"+hostileText),
		"      - id: ", "      - name: "+jsonString(t, "pre"+hostileText)+"\n        run: "+h+"\n      - id: ",
		"        uses: vigiles/action@v1\n", "        uses: vigiles/action@v1\n        if: "+jsonString(t, "${{ '"+hostileText+"' }}")+
			"\n        env:\n          "+jsonString(t, "E"+hostileText)+": "+h+"\n",
	).Replace(redteam36Workflow(t))
	settings, _ := json.Marshal(map[string]any{
		"extraKnownMarketplaces": map[string]any{
			"mk" + hostileText: map[string]any{"source": map[string]any{"source": "file", "path": "../out" + hostileText + "/marketplace.json"}},
			"md" + hostileText: map[string]any{"source": map[string]any{"source": "directory", "path": "./nowhere" + hostileText}},
		},
		"enabledPlugins": map[string]any{"q@mk" + hostileText: true, "r@md" + hostileText: true},
	})
	writeFilesIn(t, src, map[string]string{wf: head, ".claude/settings.json": string(settings)})
	// The baseline's runs, said to run in a context of the text.
	bp := filepath.Join(src, runner.DefaultBaseline)
	var b map[string]any
	data, err := os.ReadFile(bp)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	for _, r := range b["runs"].(map[string]any) {
		r.(map[string]any)["context"] = "plugin:" + hostileText
	}
	data, _ = json.MarshalIndent(b, "", "  ")
	if err := os.WriteFile(bp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "-q", "-m", "ci: quieter")

	shallowCheckout(t, s, src)
	runOnPullRequest(t, s, base, wf)
	if s.exitCode != 0 && s.exitCode != 1 {
		t.Fatalf("exit %d\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	summary, rep := checkStepInert(t, s)

	// Each text reached a finding, and from there the surfaces checked.
	for _, c := range []struct{ rule, marker string }{
		{runner.RulePolicyWeakened, `runs a step (name: "pre`}, {runner.RulePolicyWeakened, `runs if: "${{ 'x\n::error`},
		{runner.RulePolicyWeakened, `sets "Ex\n::error`}, {runner.RulePolicyWeakened, `has fail-level: "nonex\n::error`},
		{runner.RulePolicyWeakened, `of the job "jobx\n::error`}, {runner.RulePolicyWeakened, `the vigiles step "idx\n::error`},
		{runner.RuleBaselineByPR, `runs as "plugin:x\n::error`},
		{"discovery/outside-plugin", `the marketplace "mkx\n::error`}, {"discovery/outside-plugin", `the marketplace "mdx\n::error`},
	} {
		if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool {
			return f.Rule == c.rule && strings.Contains(f.Message, c.marker) && strings.Contains(f.Message, "FORGED-LEGACY")
		}) {
			t.Errorf("no %s finding quotes %s:\n%+v", c.rule, c.marker, rep.Findings)
		}
	}
	sarif, _ := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "v.sarif"))
	for where, got := range map[string]string{"the annotations": s.stdout.String(), "the step summary": summary, "the SARIF file": string(sarif), "the check run": checkRunText(s)} {
		for _, rule := range []string{runner.RulePolicyWeakened, runner.RuleBaselineByPR, "discovery/outside-plugin"} {
			if !strings.Contains(got, rule) {
				t.Errorf("%s do not name %s", where, rule)
			}
		}
		if !strings.Contains(got, "FORGED-LF") {
			t.Errorf("%s do not quote the text", where)
		}
	}
}

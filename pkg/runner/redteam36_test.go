package runner

import (
	"strings"
	"testing"
)

// TestRedteam36WorkflowLongNamesKeepTheChange: round thirty-six. A pull
// request that names its vigiles step and its job with thousands of
// bytes (GitHub takes a step's name of any length) and weakens the step
// (fail-level: none, an if:, an env:) gets a policy/weakened finding of
// each change that still says what changed and where it was, its names
// cut in their middle, and no longer than maxWorkflowChange says (in characters). Before,
// a finding's text was cut from its end at 4,000 bytes: a name of 4,100
// left "the vigiles step named "AAAA…" … (282 bytes more)", and the three
// findings said nothing of the change.
func TestRedteam36WorkflowLongNamesKeepTheChange(t *testing.T) {
	long := strings.Repeat("A", 4100)
	base := strings.NewReplacer(
		"  vigiles:\n", "  vigiles"+strings.Repeat("J", 1000)+":\n",
		"      - name: Expectations hold\n        id: test\n", "      - name: "+long+"\n",
	).Replace(baseWorkflow)
	head := strings.Replace(base, "fail-level: warning", "fail-level: none", 1)
	head = strings.Replace(head, "        uses: vigiles/action@v1\n        with:\n          fail-level", "        if: github.actor != 'x'\n        env: {PATH: ./bin}\n        uses: vigiles/action@v1\n        with:\n          fail-level", 1)
	finds := workflowFindings(base, head, true)
	for _, want := range []string{`has fail-level: "none", where it was "warning"`, `runs if: "github.actor != 'x'" (not evaluated here), where it had none`, `sets "PATH"="./bin" in its env, where it had none`} {
		found := false
		for _, f := range finds {
			if len(f.Message) > maxWorkflowChange+400 {
				t.Errorf("a finding of %d bytes: %.200q", len(f.Message), f.Message)
			}
			found = found || strings.Contains(f.Message, want) && strings.Contains(f.Message, "the vigiles step named \"AAAA") && strings.Contains(f.Message, " … (cut) … ")
		}
		if !found {
			for _, f := range finds {
				t.Logf("%s at %d: %.150q … %.300q", f.Rule, f.Location.Line, f.Message, f.Message[max(0, len(f.Message)-300):])
			}
			t.Errorf("no finding says %s of the long-named step", want)
		}
	}
}

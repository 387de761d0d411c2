package runner

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAskUserQuestionInputFitsSchema: the default AskUserQuestion input
// is one Claude Code's schema for the tool accepts (the Agent SDK's
// AskUserQuestionInput): one to four questions, each with a question, a
// header of at most 12 characters, two to four options, each with a
// label and a description (both required), and a boolean multiSelect. An
// option without its description is an input Claude Code never sends.
func TestAskUserQuestionInputFitsSchema(t *testing.T) {
	in := DefaultToolInput("AskUserQuestion", "/repo")
	if len(in) != 1 {
		t.Errorf("tool_input keys %v, want questions only", in)
	}
	qs, _ := in["questions"].([]any)
	if len(qs) < 1 || len(qs) > 4 {
		t.Fatalf("questions %v: want 1 to 4", in["questions"])
	}
	for _, x := range qs {
		q, _ := x.(map[string]any)
		if s, _ := q["question"].(string); s == "" {
			t.Errorf("question %v: no question", q)
		}
		if h, _ := q["header"].(string); h == "" || utf8.RuneCountInString(h) > 12 {
			t.Errorf("question %v: header %q, want 1 to 12 characters", q, h)
		}
		if _, ok := q["multiSelect"].(bool); !ok {
			t.Errorf("question %v: multiSelect not a boolean", q)
		}
		opts, _ := q["options"].([]any)
		if len(opts) < 2 || len(opts) > 4 {
			t.Errorf("question %v: %d options, want 2 to 4", q, len(opts))
		}
		for _, o := range opts {
			m, _ := o.(map[string]any)
			l, _ := m["label"].(string)
			d, _ := m["description"].(string)
			if l == "" || d == "" || len(m) != 2 {
				t.Errorf("option %v: want a label and a description", o)
			}
		}
	}
	// As the model writes it: label, then description.
	if got := string(BuildPayload(PreToolUse, "AskUserQuestion", "/repo", nil, nil).JSON()); !strings.Contains(got, `{"label":"React","description":`) {
		t.Errorf("option keys out of order: %s", got)
	}
}

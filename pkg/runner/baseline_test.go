package runner

import "testing"

// TestIsBaseline: a file is a baseline where it says so in its
// "schema", or is JSON damaged by hand or by a merge that holds one, or
// is empty; a document that only quotes the schema is none.
func TestIsBaseline(t *testing.T) {
	for text, want := range map[string]bool{
		`{"schema": "vigiles.baseline/v2", "hooks": {}}`:                            true,
		`{"schema": "vigiles.baseline/v2", "hooks": {`:                              true,
		"<<<<<<< HEAD\n{\"schema\": \"vigiles.baseline/v2\"}\n=======\n>>>>>>> x\n": true,
		"":                       true,
		`{"schema": "other/v1"}`: false,
		"# Baselines\n\nA baseline begins `{\"schema\": \"vigiles.baseline/v2\"`.\n": false,
		"defaults:\n  x: 1 # \"schema\": \"vigiles.baseline/v2\"\n":                  false,
	} {
		root, err := parseJSON([]byte(text))
		if err != nil {
			root = nil
		}
		if got := isBaseline([]byte(text), root); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

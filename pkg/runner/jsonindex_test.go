package runner

import "testing"

// TestJSONPathIndexIsDecimal: a json path's array index is a decimal
// number as written, no sign or leading 0: "a.01" and "a.+1" named
// element 1 (strconv.Atoi), where they are keys no array has; an object's
// key "01" is still found.
func TestJSONPathIndexIsDecimal(t *testing.T) {
	out := map[string]any{"a": []any{"x", "y"}, "o": map[string]any{"01": "k"}}
	for path, want := range map[string]any{"a.0": "x", "a.1": "y", "o.01": "k", "a.01": nil, "a.+1": nil, "a.-0": nil, "a.2": nil} {
		segs, err := jsonPathSegments(path)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := jsonPathOf(out, segs)
		if want == nil && ok || want != nil && got != want {
			t.Errorf("%s: %v, %v; want %v", path, got, ok, want)
		}
	}
}

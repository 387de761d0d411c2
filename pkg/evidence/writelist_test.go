package evidence

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// writeLists are lists of writes as JSON holds them: as vigiles writes
// them (indented or not, names that are not UTF-8, controls, characters
// past U+FFFF, HTML escapes) and as a hand might (null entries, keys of
// another case, twice, out of order, pathBytes, a string with escapes
// that decode to what a plain one holds), and what is no list.
var writeLists = []string{
	`null`, `[]`, ` [ ] `, "\n[\n]\n", `[null]`, `[{}]`, `[{},{}]`,
	`[{"path":"d/1","op":"create","kind":"file"},{"path":"d/2","op":"create","kind":"file"}]`,
	"[\n        {\n          \"path\": \"d/1\",\n          \"op\": \"create\",\n          \"kind\": \"file\"\n        }\n      ]",
	`[{"path":"l","op":"modify","kind":"symlink","target":"../x","was":"file"},{"path":"n","op":"create","kind":"file","from":"o"},{"path":"x","op":"delete"}]`,
	`[{"path":"\ufffd","pathBytes":"/w==","op":"create","kind":"file"}]`,
	`[{"path":"a\u003cb\u003e\u0026","op":"create"},{"path":"a<b>&","op":"create"}]`,
	`[{"path":"tab\there\u0001\u001b[31m","op":"create"},{"path":"😀/𝄞\ud83d\ude00","op":"create"}]`,
	`[{"path":"\u2028\u2029#:","op":"create","kind":"other"}]`,
	`[{"path":"a","path":"b","op":"create","op":"delete"}]`,
	`[{"PATH":"a","Op":"create"},{"pAth":"b"}]`,
	`[{"op":"create","path":"a","kind":"dir","kind":"file"}]`,
	`[{"path":"a","op":"ünï"},{"path":"b","op":"","kind":""}]`,
	`[{"path":"a","op":"create","other":1}]`,
	`[{"path":"a","op":"create","extra":{"x":[1,"]",{"}":"\""}]}}]`,
	`[{"path":"a"} , {"path":"b"}	,{"path":"c"}]`,
	`[1]`, `["x"]`, `[[]]`, `[true]`, `[{"path":1}]`, `[{"path":"a","op":7}]`, `[{"path":"a","pathBytes":"!"}]`,
	`{}`, `"x"`, `1`, `true`, ``, `[`, `[{]`, `[{"path":"a"},]`, `[{"path":"a"}] x`, `[{"path":"a\x"}]`, "[{\"path\":\"a\xff\"}]",
	"[{\"path\":\"a\x01\"}]", `[{"path":"a"}`,
}

// TestUnmarshalWrites: UnmarshalWrites decodes every list as encoding/json
// decodes it into a []Write, null and [] apart, and fails where it fails.
func TestUnmarshalWrites(t *testing.T) {
	for _, s := range writeLists {
		checkUnmarshalWrites(t, []byte(s))
	}
	// A list long enough to cross the points where a list grows.
	var b strings.Builder
	b.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"path":"d/` + strings.Repeat("x", i%7) + `","op":"create","kind":"file"}`)
	}
	b.WriteString("]")
	checkUnmarshalWrites(t, []byte(b.String()))
}

func checkUnmarshalWrites(t *testing.T, b []byte) {
	t.Helper()
	var want []Write
	wantErr := json.Unmarshal(b, &want)
	got, err := UnmarshalWrites(b)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Errorf("%q: error %v, encoding/json's %v", b, err, wantErr)
	case err == nil && !reflect.DeepEqual(got, want):
		t.Errorf("%q: decoded as %#v, encoding/json decodes %#v", b, got, want)
	case err == nil && (got == nil) != (want == nil):
		t.Errorf("%q: decoded as nil %v, encoding/json's nil %v", b, got == nil, want == nil)
	}
}

// FuzzUnmarshalWrites: UnmarshalWrites decodes any bytes as encoding/json
// decodes them into a []Write.
func FuzzUnmarshalWrites(f *testing.F) {
	for _, s := range writeLists {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnmarshalWrites(t, b)
	})
}

// TestDecodeWriteStrings: DecodeWrite, the broker's decoding of its
// pipe's entries and UnmarshalWrites' both, takes the strings of a plain
// entry from str (the broker's arena), its known ops and kinds from the
// package's constants, and gives str nothing of an entry it hands to
// Write's UnmarshalJSON, whose strings are then no arena's.
func TestDecodeWriteStrings(t *testing.T) {
	for _, tt := range []struct {
		entry string
		strs  []string // what str was given, in order
	}{
		{`{"path":"d/1","op":"create","kind":"file"}`, []string{"d/1"}},
		{`{"path":"l","op":"modify","kind":"symlink","target":"../x","was":"dir","from":"o"}`, []string{"l", "../x", "o"}},
		{`{"path":"a","op":"rename","kind":"weird"}`, []string{"a", "rename", "weird"}},
		{`{"path":"a","path":"b","op":"create"}`, []string{"a", "b"}},
		{`{}`, nil},
		{`{"path":"a\"b","op":"create"}`, nil},
		{`{"path":"a","op":"create","extra":1}`, nil},
		{`{"path":"a","op":"create","kind":"file","target":"t","was":"dir","from":"f","path":"z"}`, nil},
		{`{"path":"\ufffd","pathBytes":"/w==","op":"create"}`, nil},
	} {
		var got []string
		w, err := DecodeWrite([]byte(tt.entry), func(v []byte) string {
			got = append(got, string(v))
			return string(v)
		})
		var want Write
		wantErr := json.Unmarshal([]byte(tt.entry), &want)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(w, want) {
			t.Errorf("%s: %#v, %v; encoding/json decodes %#v, %v", tt.entry, w, err, want, wantErr)
		}
		if !reflect.DeepEqual(got, tt.strs) {
			t.Errorf("%s: str given %q, want %q", tt.entry, got, tt.strs)
		}
	}
}

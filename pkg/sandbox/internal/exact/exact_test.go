package exact

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type doc struct {
	One   String  `json:"one"`
	Empty String  `json:"empty,omitempty"`
	Many  Strings `json:"many"`
	None  Strings `json:"none,omitempty"`
	Files Files   `json:"files"`
}

// Names that JSON's own strings would all turn into "a\uFFFD" stay apart.
func TestRoundTripKeepsEveryByte(t *testing.T) {
	odd := []string{"a\xff", "a\xfe", "a\uFFFD", "/tmp/x\xff/y", "K=v\xfd\x00", "", "plain"}
	in := doc{One: "tree\xff", Many: odd, Files: Files{"a\xff": []byte("1"), "a\xfe": []byte("2"), "a\uFFFD": nil}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-sent +read):\n%s\n%s", diff, b)
	}
}

// What is UTF-8 reads as it always did: plain JSON strings.
func TestTextStaysPlain(t *testing.T) {
	b, err := json.Marshal(doc{One: "ü", Many: Strings{"a", "b"}, Files: Files{"z": []byte("x"), "a": nil}})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"one":"ü","many":["a","b"],"files":[{"path":"a","content":null},{"path":"z","content":"eA=="}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestRefusesWhatItDidNotWrite(t *testing.T) {
	for _, in := range []string{
		`{"one":{"bytes":"YQ==","more":1}}`,
		`{"one":{}}`,
		`{"many":[1]}`,
		`{"files":[{"path":"a"},{"path":"a"}]}`,
	} {
		var d doc
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("%s: read as %+v, want an error", in, d)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("a\xff", "b")
	f.Add("\uFFFD", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		in := doc{One: String(a), Many: Strings{a, b}, Files: Files{a: []byte(b)}}
		j, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out doc
		if err := json.Unmarshal(j, &out); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Error(diff)
		}
	})
}

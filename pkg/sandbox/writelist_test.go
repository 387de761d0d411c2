package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/vigiles/action/internal/allocs"
	"github.com/vigiles/action/pkg/evidence"
)

// decodeBoth decodes the write record in an init result of b both ways:
// as the broker reads it from its pipe (readResult), and as encoding/json
// decodes a []evidence.Write.
func decodeBoth(t testing.TB, b []byte) (got, want []evidence.Write, gotErr, wantErr error) {
	t.Helper()
	raw, tooLarge := readResult(bytes.NewReader(b))
	if tooLarge {
		t.Fatalf("%d bytes read as too large", len(b))
	}
	var ir initResult
	gotErr = raw.decode(&ir)
	var plain struct {
		Writes []evidence.Write `json:"writes"`
	}
	wantErr = json.Unmarshal(b, &plain)
	return ir.Writes, plain.Writes, gotErr, wantErr
}

// TestWriteListDecodesAsEncodingJSON: the broker's own decoding of the
// write record gives the list encoding/json gives, entry for entry, for
// the plain entries the init writes and for every other form.
func TestWriteListDecodesAsEncodingJSON(t *testing.T) {
	for _, tt := range []struct{ name, writes string }{
		{"null", `null`},
		{"empty", `[]`},
		{"empty with spaces", ` [ ] `},
		{"plain", `[{"path":"a","op":"create","kind":"file"},{"path":"b/c","op":"delete"}]`},
		{"every field", `[{"path":"l","op":"modify","kind":"symlink","target":"../x","was":"dir","from":"old"}]`},
		{"unknown words", `[{"path":"a","op":"rename","kind":"weird","was":"other"}]`},
		{"empty strings", `[{"path":"","op":"","kind":""}]`},
		{"spaces", "[ {\n\"path\" : \"a\" ,\t\"op\":\"create\" } , {\"path\":\"b\"} ]"},
		{"escapes", `[{"path":"a\"b\\c\u003cd\n","op":"create","kind":"file"}]`},
		{"escaped key", `[{"p\u0061th":"a","op":"create"}]`},
		{"not UTF-8", `[{"path":"\ufffd","pathBytes":"/w==","op":"create","kind":"file"}]`},
		{"target bytes", `[{"path":"l","op":"create","kind":"symlink","target":"\ufffd","targetBytes":"/w=="}]`},
		{"from bytes", `[{"path":"n","op":"create","kind":"file","from":"\ufffd","fromBytes":"/w=="}]`},
		{"key in another case", `[{"Path":"a","OP":"create"}]`},
		{"unknown key", `[{"path":"a","op":"create","extra":[1,{"x":"]"}]}]`},
		{"duplicate key", `[{"path":"a","path":"b","op":"create"}]`},
		{"too many fields", `[{"path":"a","op":"create","kind":"file","target":"t","was":"dir","from":"f","path":"z"}]`},
		{"null field", `[{"path":null,"op":"create"}]`},
		{"null entry", `[null,{"path":"a"}]`},
		{"empty entry", `[{},{ }]`},
		{"number path", `[{"path":1}]`},
		{"number entry", `[1]`},
		{"string entry", `["a"]`},
		{"array entry", `[[]]`},
		{"not a list", `{"path":"a"}`},
		{"a string", `"x"`},
		{"unicode", `[{"path":"é/日本/\u2028","op":"create","kind":"dir"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(`{"ok":true,"writes":` + tt.writes + `,"writesMethod":"overlay"}`)
			got, want, gotErr, wantErr := decodeBoth(t, b)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded\n%#v\nencoding/json decodes\n%#v", got, want)
			}
		})
	}
}

// TestWriteListRoundTrip: a record as the init encodes it comes back as it
// was, its names that are not UTF-8 among them.
func TestWriteListRoundTrip(t *testing.T) {
	ws := []evidence.Write{
		{Path: "a", Op: evidence.OpCreate, Kind: "file"},
		{Path: "d", Op: evidence.OpModify, Kind: "dir", Was: "file"},
		{Path: "g", Op: evidence.OpDelete},
		{Path: "l", Op: evidence.OpCreate, Kind: "symlink", Target: "/etc/\xff<&>"},
		{Path: "n\xfe", Op: evidence.OpCreate, Kind: "file", From: "o\xfd"},
		{Path: "q\"\\\n\u2028:", Op: evidence.OpCreate, Kind: "other"},
	}
	b, err := json.Marshal(initResult{OK: true, Writes: ws})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := readResult(bytes.NewReader(b))
	var ir initResult
	if err := raw.decode(&ir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ir.Writes, ws) {
		t.Fatalf("decoded\n%#v\nwant\n%#v", ir.Writes, ws)
	}
}

// FuzzWriteList: for any write record encoding/json reads, the broker
// reads the same list, or fails where it fails.
func FuzzWriteList(f *testing.F) {
	f.Add(`[{"path":"a","op":"create","kind":"file"}]`)
	f.Add(`[{"path":"a\u0041","op":"delete"},null,{}]`)
	f.Add(`[{"path":"\ufffd","pathBytes":"/w==","op":"create"}]`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, writes string) {
		b := []byte(`{"writes":` + writes + `}`)
		if !json.Valid(b) {
			return
		}
		got, want, gotErr, wantErr := decodeBoth(t, b)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded\n%#v\nencoding/json decodes\n%#v", got, want)
		}
	})
}

// readBoth decodes the init result doc as the broker reads it from its
// pipe (readResult) and as encoding/json decodes it whole.
func readBoth(t testing.TB, doc []byte) (got, want initResult, gotErr, wantErr error) {
	t.Helper()
	raw, tooLarge := readResult(iotest.OneByteReader(bytes.NewReader(doc)))
	if tooLarge {
		t.Fatalf("%d bytes read as too large", len(doc))
	}
	gotErr = raw.decode(&got)
	wantErr = json.Unmarshal(doc, &want)
	return got, want, gotErr, wantErr
}

// TestReadResultAsEncodingJSON: the init's result read from its pipe, its
// write record decoded as it comes, is the result encoding/json decodes
// from the whole, or fails where that fails.
func TestReadResultAsEncodingJSON(t *testing.T) {
	full, err := json.Marshal(initResult{OK: true, ExitCode: 3, WritesMethod: "overlay", Egress: []evidence.Egress{{Host: "a"}},
		Writes: []evidence.Write{{Path: "a", Op: evidence.OpCreate, Kind: "file"}, {Path: "b\xff", Op: evidence.OpDelete}, {Path: "q\"", Op: evidence.OpModify, Kind: "dir", Was: "file"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		string(full),
		`{"ok":true,"writes":[],"writesMethod":"overlay"}`,
		`{"ok":true,"writes":null}`,
		`{"ok":true}`,
		` { "writesCount" : 2 , "writesBytes":3, "writes" : [ {"path":"a"} , {"path":"bc"} ] } ` + "\n",
		`{"writesCount":1000000000000000000000,"writes":[{"path":"a"}]}`,
		`{"writesCount":-5,"writes":[{"path":"a"}]}`,
		`{"writes":[{"path":"a"}],"error":"x \"writes\":[1]"}`,
		`{"error":{"writes":[{"path":"nested"}]},"writes":[{"path":"a"}]}`,
		`{"Writes":[{"path":"first"}],"writes":[{"path":"last"}]}`,
		`{"wr\u0069tes":[{"path":"escaped key"}]}`,
		`{"writes":[{"path":"a"}],"WRITES":[{"path":"b"}]}`,
		`{"writes":[{"path":"a"},]}`,
		`{"writes":[,]}`,
		`{"writes":[{"path":"a"} {"path":"b"}]}`,
		`{"writes":[{"path":"a\x01"}]}`,
		`{"writes":[{"path":"a"}`,
		`{"writes":[{"path":"a"}]`,
		`{"writes":[{"path":"a"}]}{}`,
		`{}"`,
		`{"writes":[]} "x\`,
		`{"writes":[1,"a",null,[],{}]}`,
		`{"writes":[{"path":"\ufffd","pathBytes":"!!"}]}`,
		`{"writes":{"path":"a"}}`,
		`[{"writes":[{"path":"a"}]}]`,
		``,
		`   `,
	} {
		got, want, gotErr, wantErr := readBoth(t, []byte(doc))
		switch {
		case errors.Is(gotErr, errDuplicateWrites) && wantErr == nil:
			// Refused, where encoding/json takes the last.
		case (gotErr == nil) != (wantErr == nil):
			t.Errorf("%s: error %v, encoding/json's %v", doc, gotErr, wantErr)
		case wantErr == nil && !reflect.DeepEqual(got, want):
			t.Errorf("%s: read\n%#v\nencoding/json decodes\n%#v", doc, got, want)
		}
	}
}

// TestReadResultTooLarge: a result past maxResult is read to its end and
// said to be too large.
func TestReadResultTooLarge(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"writes":[`), io.LimitReader(neverEnding('x'), maxResult+10))
	_, tooLarge := readResult(r)
	if !tooLarge {
		t.Fatal("not too large")
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		t.Fatal("not read to its end")
	}
}

// TestReadResultCountTrustedNoFurther: a writesCount past what a result
// can hold makes the broker allocate no larger a list than the most
// entries the init writes in maxResult bytes, each at least
// {"path":"","op":""} and a comma; not one of two bytes each, 96 of them
// in memory, 3 GiB made before a byte of the list was read.
func TestReadResultCountTrustedNoFurther(t *testing.T) {
	doc := `{"ok":true,"writesCount":999999999999,"writes":[{"path":"a","op":"create"}]}`
	most := uint64(maxResult/len(`{"path":"","op":""},`)) * uint64(unsafe.Sizeof(evidence.Write{}))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	raw, tooLarge := readResult(strings.NewReader(doc))
	runtime.ReadMemStats(&after)
	var ir initResult
	if err := raw.decode(&ir); tooLarge || err != nil || len(ir.Writes) != 1 {
		t.Fatalf("too large %v, error %v, writes %v", tooLarge, err, ir.Writes)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > most+64<<20 { // the rest: what else ran meanwhile
		t.Errorf("reading a result that says %s allocated %d MiB; at most %d MiB", "writesCount 999999999999", got>>20, most>>20)
	}
}

// TestReadResultAtMaxResult: a result of maxResult bytes of JSON, the
// most the init writes, with the newline it writes after it, is read,
// not said to be too large.
func TestReadResultAtMaxResult(t *testing.T) {
	head, tail := `{"ok":true,"error":"`, `","writes":[{"path":"a","op":"create"}]}`
	doc := head + strings.Repeat("x", maxResult-len(head)-len(tail)) + tail
	if len(doc) != maxResult {
		t.Fatalf("%d bytes, want %d", len(doc), maxResult)
	}
	raw, tooLarge := readResult(strings.NewReader(doc + "\n"))
	if tooLarge {
		t.Fatal("a result of maxResult bytes and its newline read as too large")
	}
	var ir initResult
	if err := raw.decode(&ir); err != nil || len(ir.Writes) != 1 || len(ir.Error) != maxResult-len(head)-len(tail) {
		t.Fatalf("error %v, writes %v", err, ir.Writes)
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// FuzzReadResult: whatever the init writes on its pipe, the broker reads
// the result encoding/json would decode from it whole, or fails.
func FuzzReadResult(f *testing.F) {
	f.Add(`{"ok":true,"writesCount":1,"writesBytes":1,"writes":[{"path":"a","op":"create","kind":"file"}],"writesMethod":"overlay"}`)
	f.Add(`{"writes":[{"path":"a\u0041","op":"delete"},null,{}],"egress":[]}`)
	f.Add(`{"writes":null,"error":"x"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, want, gotErr, wantErr := readBoth(t, []byte(doc))
		switch {
		case errors.Is(gotErr, errDuplicateWrites) && wantErr == nil:
		case (gotErr == nil) != (wantErr == nil):
			t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
		case wantErr == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("read\n%#v\nencoding/json decodes\n%#v", got, want)
		}
	})
}

// BenchmarkDecodeWrites decodes an init result of n created files as the
// broker reads it from the pipe (readResult) and as encoding/json decodes
// a []evidence.Write, and reports the heap the decoded list holds
// (held-MiB) and what the decoding allocated (alloc-MiB). The result's own
// bytes are the caller's in the last: read from the pipe, they are not
// held.
func BenchmarkDecodeWrites(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		ws := make([]evidence.Write, n)
		for i := range ws {
			ws[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
		}
		size := 0
		for _, w := range ws {
			size += len(w.Path)
		}
		raw, err := json.Marshal(initResult{OK: true, WritesCount: n, WritesBytes: size, Writes: ws, WritesMethod: "overlay"})
		if err != nil {
			b.Fatal(err)
		}
		ws = nil
		for _, way := range []struct {
			name   string
			decode func() any
		}{
			{"readResult", func() any {
				r, _ := readResult(bytes.NewReader(raw))
				var ir initResult
				if err := r.decode(&ir); err != nil {
					b.Fatal(err)
				}
				return ir.Writes
			}},
			{"encoding-json", func() any {
				var ir struct {
					Writes []evidence.Write `json:"writes"`
				}
				if err := json.Unmarshal(raw, &ir); err != nil {
					b.Fatal(err)
				}
				return ir.Writes
			}},
		} {
			b.Run(fmt.Sprintf("%s/%d", way.name, n), func(b *testing.B) { allocs.Report(b, true, way.decode) })
		}
	}
}

package sandbox

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// decodeBoth decodes the write record in an init result of b both ways:
// as writeList does, and as encoding/json does a []evidence.Write.
func decodeBoth(t testing.TB, b []byte) (got, want []evidence.Write, gotErr, wantErr error) {
	t.Helper()
	var ir initResult
	gotErr = json.Unmarshal(b, &ir)
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
// was, its names that are not UTF-8 among them, and encodes to the same
// bytes as a []evidence.Write.
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
	var ir initResult
	if err := json.Unmarshal(b, &ir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual([]evidence.Write(ir.Writes), ws) {
		t.Fatalf("decoded\n%#v\nwant\n%#v", ir.Writes, ws)
	}
	want, _ := json.Marshal(ws)
	got, _ := json.Marshal(writeList(ws))
	if string(got) != string(want) {
		t.Fatalf("a writeList encodes as\n%s\nwant\n%s", got, want)
	}
}

// FuzzWriteList: for any write record encoding/json reads, writeList reads
// the same list, or fails where it fails.
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

// BenchmarkDecodeWrites decodes an init result of n created files, as
// the broker does, and reports the heap the decoded list holds
// (held-MiB) and what the decoding allocated (alloc-MiB), against
// encoding/json's plain decoding into a []evidence.Write.
func BenchmarkDecodeWrites(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		ws := make([]evidence.Write, n)
		for i := range ws {
			ws[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
		}
		raw, err := json.Marshal(initResult{OK: true, Writes: ws, WritesMethod: "overlay"})
		if err != nil {
			b.Fatal(err)
		}
		ws = nil
		for _, way := range []struct {
			name   string
			decode func() any
		}{
			{"writeList", func() any {
				var ir initResult
				if err := json.Unmarshal(raw, &ir); err != nil {
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
			b.Run(fmt.Sprintf("%s/%d", way.name, n), func(b *testing.B) {
				var held, alloc float64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					v := way.decode()
					runtime.ReadMemStats(&after)
					alloc += float64(after.TotalAlloc - before.TotalAlloc)
					runtime.GC()
					runtime.ReadMemStats(&after)
					held += float64(after.HeapAlloc) - float64(before.HeapAlloc)
					runtime.KeepAlive(v)
				}
				b.ReportMetric(held/float64(b.N)/(1<<20), "held-MiB")
				b.ReportMetric(alloc/float64(b.N)/(1<<20), "alloc-MiB")
			})
		}
	}
}

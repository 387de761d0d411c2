package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// wholeRunJSON is run --json's document made at once: what writeRunJSON
// writes an entry at a time.
func wholeRunJSON(t testing.TB, res *sandbox.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return annotate.NoMatchJSON(annotate.InertJSON(buf.Bytes()))
}

// TestRunJSONWrittenByEntrySameBytes: the document run --json writes an
// entry of the write record at a time is byte for byte the one encoding
// the whole result at once gives, whatever the names hold (escapes,
// bytes that are not UTF-8, ':' and "##[" that the inert escapes
// rewrite, a key's own text) and however many writes there are.
func TestRunJSONWrittenByEntrySameBytes(t *testing.T) {
	hostile := []evidence.Write{
		{Path: "a", Op: evidence.OpCreate, Kind: "file"},
		{Path: "d", Op: evidence.OpModify, Kind: "dir", Was: "file"},
		{Path: "gone", Op: evidence.OpDelete},
		{Path: "l", Op: evidence.OpCreate, Kind: "symlink", Target: "../x:1:2: error ##[group]"},
		{Path: "n\xff\xfe", Op: evidence.OpCreate, Kind: "file", From: "o\xfd:"},
		{Path: "q\"\\\n\u2028<&>\u202e\u0085\x7f", Op: evidence.OpCreate, Kind: "other"},
		{Path: "\n  \"writes\": null", Op: evidence.OpCreate, Kind: "file"},
		{},
	}
	for _, tt := range []struct {
		name string
		res  sandbox.Result
	}{
		{"no record", sandbox.Result{Schema: "vigiles.run/v1", Tier: sandbox.TierConfined}},
		{"none written", sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, WritesMethod: "overlay"}},
		{"one", sandbox.Result{Tier: sandbox.TierConfined, Writes: hostile[:1], WritesMethod: "overlay", Egress: []evidence.Egress{}}},
		{"every form", sandbox.Result{
			Schema: "vigiles.run/v1", Tier: sandbox.TierConfined, Error: `"writes": null ##[x]`,
			Stdout: "\n  \"writes\": null\n", Stderr: "a:b", Writes: hostile, WritesMethod: "copy",
			Egress: []evidence.Egress{{Host: "h:x", Via: evidence.ViaDNS}}, EgressDropped: &evidence.Dropped{},
			Lingered: []string{"sleep 1"}, EnvFile: &evidence.EnvFile{},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := wholeRunJSON(t, &tt.res)
			var got bytes.Buffer
			if err := writeRunJSON(&got, &tt.res); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("written by entry:\n%s\nwhole:\n%s", got.Bytes(), want)
			}
		})
	}
}

// FuzzRunJSON: whatever the names of a record hold, the document written
// an entry at a time is the one made whole.
func FuzzRunJSON(f *testing.F) {
	f.Add("a", "../t", "o", "")
	f.Add("x:1:2: error", "##[group]", "\xff", "\u202e")
	f.Fuzz(func(t *testing.T, path, target, from, stdout string) {
		res := sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, WritesMethod: "overlay", Writes: []evidence.Write{
			{Path: path, Op: evidence.OpCreate, Kind: "symlink", Target: target},
			{Path: from, Op: evidence.OpCreate, Kind: "file", From: path},
			{Path: target, Op: evidence.Op(from), Kind: stdout, Was: path},
		}}
		want := wholeRunJSON(t, &res)
		var got bytes.Buffer
		if err := writeRunJSON(&got, &res); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("written by entry:\n%s\nwhole:\n%s", got.Bytes(), want)
		}
	})
}

// BenchmarkRunJSON writes run --json's document of n created files, by
// entry and whole, and reports what the writing allocated (alloc-MiB):
// with GOGC at 100, as the CLI runs, the heap grows with it.
func BenchmarkRunJSON(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		res := &sandbox.Result{Schema: "vigiles.run/v1", Tier: sandbox.TierConfined, WritesMethod: "overlay", Writes: make([]evidence.Write, n)}
		for i := range res.Writes {
			res.Writes[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
		}
		for _, way := range []struct {
			name  string
			write func()
		}{
			{"by-entry", func() {
				if err := writeRunJSON(io.Discard, res); err != nil {
					b.Fatal(err)
				}
			}},
			{"whole", func() { io.Discard.Write(wholeRunJSON(b, res)) }},
		} {
			b.Run(fmt.Sprintf("%s/%d", way.name, n), func(b *testing.B) {
				var alloc float64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					way.write()
					runtime.ReadMemStats(&after)
					alloc += float64(after.TotalAlloc - before.TotalAlloc)
				}
				b.ReportMetric(alloc/float64(b.N)/(1<<20), "alloc-MiB")
			})
		}
	}
}

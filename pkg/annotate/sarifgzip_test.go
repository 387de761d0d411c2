package annotate

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// bigCompressibleReport is 6,000 findings whose SARIF file is over 10 MB
// and compresses to a fraction of that, as findings do (the report that
// showed the problem: 10.4 MB, 77 KB gzip-compressed).
func bigCompressibleReport() *report.Report {
	r := manyFindings(6000)
	for i := range r.Findings {
		r.Findings[i].Message = fmt.Sprintf("hook %d: ", i) + strings.Repeat("wrote plugins/p/cache/file ", 60)
	}
	return r
}

// TestSARIFMeasuresTheCompressedFile: GitHub's 10 MB limit is on the
// gzip-compressed upload ("For each gzip-compressed SARIF file, SARIF
// upload supports a maximum size of 10 MB"). Measured on the file itself,
// 6,000 findings lost about 1,000 of their results, said only in a run
// property code scanning never shows; measured as GitHub does, all 6,000
// are in the file.
func TestSARIFMeasuresTheCompressedFile(t *testing.T) {
	var b bytes.Buffer
	if _, err := WriteSARIF(&b, bigCompressibleReport(), SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	z := gzipped(t, b.Bytes())
	if n, left := sarifResults(t, b.Bytes()); n != 6000 || left != 0 {
		t.Errorf("%d results, %d left out; want all 6000 (the file is %d bytes gzip-compressed)", n, left, z)
	}
	if z > 10_000_000 {
		t.Errorf("gzip-compressed %d bytes, over GitHub's 10 MB", z)
	}
	if b.Len() <= 10<<20 {
		t.Errorf("the file is %d bytes: the test needs one over 10 MiB uncompressed", b.Len())
	}
}

// gzipped is the size of b gzip-compressed, read back to check it, as a
// check on gzipSize.
func gzipped(t *testing.T, b []byte) int {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	n := z.Len()
	back, err := io.ReadAll(must(gzip.NewReader(&z)))
	if err != nil || !bytes.Equal(back, b) {
		t.Fatalf("gzip round trip: %v", err)
	}
	return n
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sarifResults(t *testing.T, b []byte) (n, notShown int) {
	t.Helper()
	var doc struct {
		Runs []struct {
			Results    []json.RawMessage `json:"results"`
			Properties struct {
				NotShown int `json:"vigilesResultsNotShown"`
			} `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return len(doc.Runs[0].Results), doc.Runs[0].Properties.NotShown
}

package annotate

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// incompressibleFindings are n findings (errors, warnings and notices in
// turn) whose messages are random hex, which gzip cannot shrink by much.
func incompressibleFindings(n int) *report.Report {
	r := manyFindings(n)
	rng := rand.New(rand.NewSource(1))
	for i := range r.Findings {
		b := make([]byte, 150)
		rng.Read(b)
		r.Findings[i].Message = hex.EncodeToString(b)
	}
	return r
}

// gzipSize is the size of b gzip-compressed at the default level.
func gzipSize(b []byte) int {
	var cw countingWriter
	zw, _ := gzip.NewWriterLevel(&cw, gzip.DefaultCompression)
	zw.Write(b)
	zw.Close()
	return cw.n
}

// TestSARIFNoteSaysWhatCodeScanningShows: a file that holds every finding
// says nothing left out, but that code scanning shows 5,000 results of a
// run.
func TestSARIFNoteSaysWhatCodeScanningShows(t *testing.T) {
	_, st, err := EncodeSARIF(bigCompressibleReport(), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.LeftOut() != 0 || st.Results != 6000 || st.Findings != 6000 {
		t.Errorf("stats %+v; want all 6000 findings as results", st)
	}
	note := st.Note("")
	if !strings.Contains(note, "top 5000 results") || !strings.Contains(note, "1000 of the 6000") || strings.Contains(note, "not in the SARIF file") {
		t.Errorf("note = %q; want code scanning's 5,000 shown said, and nothing left out", note)
	}
}

// TestSARIFLeftOutIsCounted: findings that do not fit are left out, the
// least severe first; the stats and the note say how many and why, and
// the file is within the bound it was held to.
func TestSARIFLeftOutIsCounted(t *testing.T) {
	r := incompressibleFindings(3000) // about 1 MB, most of it random
	const budget = 200 << 10
	b, st, err := EncodeSARIF(r, SARIFOptions{MaxBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	if z := gzipSize(b); z > budget {
		t.Errorf("gzip-compressed %d bytes, budget %d", z, budget)
	}
	n, notShown := sarifResults(t, b)
	if n == 0 || n == 3000 || st.Results != n || st.TooLarge != 3000-n || st.LeftOut() != notShown || st.TooMany != 0 || st.TooLargeRaw != 0 {
		t.Fatalf("%d results, %d not shown, stats %+v", n, notShown, st)
	}
	// As many as fit: the same findings and one more do not.
	more := &report.Report{Findings: sortFindings(r.Findings)[:n+1]}
	if _, st2, _ := EncodeSARIF(more, SARIFOptions{MaxBytes: budget}); st2.TooLarge == 0 {
		t.Errorf("%d results fit in %d bytes gzip-compressed, but %d were kept", n+1, budget, n)
	}
	// The file is the log as encoding/json writes it, put together from
	// its parts.
	log := SARIF(r, SARIFOptions{MaxBytes: budget})
	if !bytes.Equal(b, encodeSARIF(log)) {
		t.Errorf("the file is not the log it holds, encoded")
	}
	for _, res := range log.Runs[0].Results[:1000] {
		if res.Level != "error" {
			t.Fatalf("a %s is kept before an error was: the least severe must go first", res.Level)
		}
	}
	note := st.Note("")
	for _, want := range []string{fmt.Sprintf("%d of 3000 findings are not in the SARIF file", st.LeftOut()), "code scanning will not show them",
		fmt.Sprintf("within %d bytes gzip-compressed, a margin under GitHub's upload limit of 10000000", budget), "least severe"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q does not say %q", note, want)
		}
	}

	// The uncompressed bound, for findings that compress well.
	r = manyFindings(3000)
	b, st, _ = EncodeSARIF(r, SARIFOptions{MaxRawBytes: 256 << 10})
	if len(b) > 256<<10 || st.TooLargeRaw == 0 || st.TooLarge != 0 {
		t.Errorf("%d bytes, stats %+v; want the file within 256 KiB and the rest counted against that bound", len(b), st)
	}
	if note := st.Note(""); !strings.Contains(note, "vigiles' own bound of 262144 bytes uncompressed") {
		t.Errorf("note = %q", note)
	}
}

// TestSARIFKeepsAMarginUnderTheUploadLimit: GitHub measures the file
// upload-sarif sends, with automationDetails and a primaryLocationLineHash
// added to each result and compressed by zlib, not vigiles' file: one
// vigiles measured at 9,998,032 bytes gzip-compressed was 10,053,119 as
// uploaded. A report of findings gzip cannot shrink much fills the file
// to SARIFFileBytesTarget, 95% of the limit, and no further.
func TestSARIFKeepsAMarginUnderTheUploadLimit(t *testing.T) {
	r := manyFindings(12000)
	rng := rand.New(rand.NewSource(1))
	for i := range r.Findings {
		b := make([]byte, 900)
		rng.Read(b)
		r.Findings[i].Message = hex.EncodeToString(b)
	}
	b, st, err := EncodeSARIF(r, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	z := gzipSize(b)
	if st.TooLarge == 0 {
		t.Fatalf("stats %+v: the test needs a report over the bound (the file is %d bytes gzip-compressed)", st, z)
	}
	if want := SARIFMaxFileBytes / 100 * 95; st.MaxBytes != want || z > want {
		t.Errorf("gzip-compressed %d bytes, held to %d; want at most %d, 95%% of GitHub's %d", z, st.MaxBytes, want, SARIFMaxFileBytes)
	}
	if z < SARIFMaxFileBytes/100*90 {
		t.Errorf("gzip-compressed %d bytes: the file should be filled close to its bound", z)
	}
}

// TestSARIFResultCap: code scanning rejects a run of more than 25,000
// results: the rest are counted as too many.
func TestSARIFResultCap(t *testing.T) {
	r := manyFindings(SARIFMaxResultsPerRun + 7)
	for i := range r.Findings {
		r.Findings[i].Message = "m"
	}
	_, st, err := EncodeSARIF(r, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Results != SARIFMaxResultsPerRun || st.TooMany != 7 || st.LeftOut() != 7 {
		t.Errorf("stats %+v", st)
	}
	if note := st.Note(""); !strings.Contains(note, "7 past the 25000 results code scanning takes in a run") {
		t.Errorf("note = %q", note)
	}
}

func TestSARIFNoteEmptyWhenAllShown(t *testing.T) {
	_, st, err := EncodeSARIF(manyFindings(30), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.LeftOut() != 0 || st.Note("") != "" {
		t.Errorf("stats %+v note %q; want nothing to say", st, st.Note(""))
	}
}

// TestPublishNotes: the caller's notes (what the SARIF file leaves out)
// reach the job summary.
func TestPublishNotes(t *testing.T) {
	env := prEnv(t, "")
	var log bytes.Buffer
	if _, err := Publish(context.Background(), manyFindings(3), Options{Log: &log, Getenv: func(k string) string { return env[k] },
		Notes: []string{"SARIF: 5 of 9 findings are not in the SARIF file"}}); err != nil {
		t.Fatal(err)
	}
	sum, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(sum), "> SARIF&#58; 5 of 9 findings are not in the SARIF file") {
		t.Errorf("the summary does not carry the note:\n%s", sum)
	}
}

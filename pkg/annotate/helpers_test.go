package annotate

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func loadReport(t *testing.T, name string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("parsing %s: %v", name, err)
	}
	return &r
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from golden file (-want +got):\n%s", name, diff)
	}
}

type command = annotatetest.Command

func runnerCommands(t *testing.T, log string) []command {
	t.Helper()
	return annotatetest.Commands(log)
}

// The summary's hosts cell names a lumped entry and one without a host,
// never with a blank.
func TestHostsCellNamesEveryEntry(t *testing.T) {
	got := hostsCell([]evidence.Egress{
		{Via: evidence.ViaConnect, Proto: "tcp", Detail: evidence.OverflowDetail, Attempts: 7},
		{Via: evidence.ViaProxy, Proto: "http", Detail: "malformed request: x"},
	})
	for _, want := range []string{"not recorded one by one", "no host"} {
		if !strings.Contains(got, want) {
			t.Errorf("hostsCell = %q; want it to name %q", got, want)
		}
	}
	if strings.Contains(got, ":  (") || strings.Contains(got, ",  (") {
		t.Errorf("hostsCell = %q: a blank name", got)
	}
}

// The hosts cell names a connect to port 0 with its port, as the
// expectations' messages do: an ICMP packet to the same address is
// another attempt, and the cell showed both as the address alone.
func TestHostsCellNamesPortZero(t *testing.T) {
	got := hostsCell([]evidence.Egress{
		{Via: evidence.ViaConnect, Proto: "tcp", IP: "198.51.100.7", Port: 0, Attempts: 1},
		{Via: evidence.ViaConnect, Proto: "icmp", IP: "198.51.100.7", Attempts: 1},
	})
	if !strings.Contains(got, "198&#46;51&#46;100&#46;7&#58;0") || !strings.Contains(got, "2 blocked") {
		t.Errorf("hostsCell = %q; want 198.51.100.7:0 beside 198.51.100.7, 2 blocked", got)
	}
}

// A long host name is cut from its start, not its end: the summary showed
// api.github.com.xxxx….evil.test as "api.github.com.xxxx… (cut)", a name
// it begins with and is not under (review Q).
func TestLongHostsKeepTheirEnd(t *testing.T) {
	long := "api.github.com." + strings.Repeat("x", 100) + ".evil.test"
	got := hostsCell([]evidence.Egress{{Via: evidence.ViaDNS, Proto: "udp", Host: long, Port: 443}})
	if !strings.Contains(got, "evil&#46;test&#58;443") || strings.Contains(got, "github") {
		t.Errorf("hostsCell = %q; want the name's end (evil.test:443) and not its start", got)
	}
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short.test", 80, "short.test"},
		{"a.b.evil.test", 11, "(cut) …test"},
		{"ü" + strings.Repeat("x", 10) + ".t", 12, "(cut) …xxx.t"},
		{"\xff" + strings.Repeat("y", 20), 10, "(cut) …yyy"},
	} {
		if got := CutHost(c.in, c.max); got != c.want || utf8.RuneCountInString(got) > c.max {
			t.Errorf("CutHost(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

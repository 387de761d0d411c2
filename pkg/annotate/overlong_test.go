package annotate

import (
	"net/url"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

// lenientDecode reads b as a decoder that checks no more than a lead
// byte's length does: each continuation byte gives its low six bits,
// whatever its top two, and an overlong form is the character it spells
// (C0 AE is '.'). Old servers and libraries decoded a URI's path so.
func lenientDecode(b string) string {
	var out strings.Builder
	for i := 0; i < len(b); {
		c := b[i]
		n, v := 1, rune(c)
		switch {
		case c >= 0xfc:
			n, v = 6, rune(c&0x01)
		case c >= 0xf8:
			n, v = 5, rune(c&0x03)
		case c >= 0xf0:
			n, v = 4, rune(c&0x07)
		case c >= 0xe0:
			n, v = 3, rune(c&0x0f)
		case c >= 0xc0:
			n, v = 2, rune(c&0x1f)
		}
		if i+n > len(b) {
			n, v = 1, rune(c)
		}
		for k := 1; k < n; k++ {
			v = v<<6 | rune(b[i+k]&0x3f)
		}
		out.WriteRune(v)
		i += n
	}
	return out.String()
}

// TestSARIFURINeverReadsOutOfTheRepositoryLeniently: a file whose name
// holds an overlong form of '.' or '/' (C0 AE C0 AE, ".\xc0." with C0
// taken with the '.' after it, E0 80 AE, F0 80 80 AF, the five-byte F8
// 80 80 80 AE) is placed as a finding without a file in SARIF, as an
// annotation places it: its uri, percent-decoded by a lenient decoder,
// would name "../x". A name with another byte that is not UTF-8 keeps
// its exact uri (p%FF/x), and a valid character that starts with E0 its
// own.
func TestSARIFURINeverReadsOutOfTheRepositoryLeniently(t *testing.T) {
	attacks := []string{"\xc0\xae\xc0\xae/x", "a/\xc0\xae\xc0\xae/\xc0\xae\xc0\xae/x", ".\xc0./x", "\xe0\x80\xae\xe0\x80\xae/x",
		"\xf0\x80\x80\xae\xf0\x80\x80\xae/x", "\xf8\x80\x80\x80\xae\xf8\x80\x80\x80\xae/x", "a\xc0\xaf..\xc0\xaf..\xc0\xafx", "a\xc1\x9c..\xc1\x9cx"}
	var fs []report.Finding
	for _, a := range attacks {
		fs = append(fs, report.Finding{Rule: "r", Severity: report.SeverityError, Message: "m", Location: report.Location{File: a, Line: 3}})
	}
	fs = append(fs, report.Finding{Rule: "r", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "p\xff/x", Line: 3}},
		report.Finding{Rule: "r", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "p\xff/\u0800x", Line: 3}})
	log := SARIF(&report.Report{Findings: fs}, SARIFOptions{})
	uris := map[string]int{}
	for _, res := range log.Runs[0].Results {
		l := res.Locations[0].PhysicalLocation
		u := l.ArtifactLocation.URI
		uris[u]++
		p, err := url.PathUnescape(u)
		if err != nil {
			t.Fatalf("uri %q: %v", u, err)
		}
		if lp := lenientDecode(p); !annotatetest.InRepo(strings.TrimPrefix(lp, "./")) || strings.Contains(lp, "\\") {
			t.Errorf("the SARIF uri %q reads as %q to a lenient decoder, outside the repository", u, lp)
		}
		if u == ".vigiles.yml" && l.Region.StartLine != 1 {
			t.Errorf("a finding without a file at line %d", l.Region.StartLine)
		}
	}
	if uris[".vigiles.yml"] != len(attacks) || uris["p%FF/x"] != 1 || uris["p%FF/%E0%A0%80x"] != 1 {
		t.Errorf("uris %v: want the %d overlong names file-less, p%%FF/x and p%%FF/%%E0%%A0%%80x as they are", uris, len(attacks))
	}
	// The decoder is the lenient one: the attacks read as ".." to it.
	if got := lenientDecode("\xc0\xae\xe0\x80\xae/\xf8\x80\x80\x80\xaf"); got != "../\x2f" {
		t.Fatalf("lenientDecode = %q: this test would prove nothing", got)
	}
}

package annotate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

// fileBytesAttacks are the names a hostile shard report's "fileBytes"
// decodes to, each beside a "file" that says something else.
var fileBytesAttacks = []string{
	"../x", "/etc/passwd", "a\nb.json", "::error::x", "a\x00b", "a%0Ab", "a%2F..%2F..%2Fx",
	strings.Repeat("a/", 600) + "x", "..\xff/../../x", "\xff/../../etc/passwd", "./\xff/../..",
	"x\xff\n::error file=/etc/passwd::y", "\xff\\..\\..\\x", "\xff/./../\xfe", "\xc0\xae\xc0\xae/x",
	"p\xff/\u202ex", "p\xff:1:1: x", "\xff\r##[error]x",
}

// hostileShard is a report as vigiles merge reads a shard a fork's run
// uploaded: each finding's location has a harmless "file" and the
// attack in "fileBytes".
func hostileShard(t *testing.T) *report.Report {
	t.Helper()
	var fs []string
	for i, a := range fileBytesAttacks {
		fs = append(fs, fmt.Sprintf(`{"rule":"r","severity":"error","message":"m%d","location":{"file":"ok.json","fileBytes":%q,"line":1}}`,
			i, base64.StdEncoding.EncodeToString([]byte(a))))
	}
	var r report.Report
	if err := json.Unmarshal([]byte(`{"findings":[`+strings.Join(fs, ",")+`]}`), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestFileBytesOfAHostileShard: a shard report whose "fileBytes" decodes
// to a path out of the repository, a workflow command, a line break, a
// NUL or an escape places no annotation, SARIF uri or summary link
// outside the repository, and starts no workflow command of its own.
func TestFileBytesOfAHostileShard(t *testing.T) {
	r := hostileShard(t)
	// One finding a step: a step shows ten errors at most.
	var b strings.Builder
	for _, f := range r.Findings {
		var one strings.Builder
		WriteAnnotations(&one, []report.Finding{f})
		b.WriteString(one.String())
	}
	cmds := annotatetest.Commands(b.String())
	if len(cmds) != len(fileBytesAttacks) {
		t.Errorf("%d workflow commands for %d findings:\n%.3000s", len(cmds), len(fileBytesAttacks), b.String())
	}
	for _, c := range cmds {
		if c.Name != "error" {
			t.Errorf("a workflow command %q: %+v", c.Name, c)
		}
		if f, ok := c.Props["file"]; ok && !annotatetest.InRepo(f) {
			t.Errorf("an annotation at %q, outside the repository", f)
		}
	}
	if is := annotatetest.Issues(b.String()); len(is) > 0 {
		t.Errorf("the problem matchers annotate %+v", is)
	}
	for _, a := range checkAnnotations(r.Findings, ".vigiles.yml") {
		if !annotatetest.InRepo(a.GetPath()) {
			t.Errorf("a check-run annotation at %q, outside the repository", a.GetPath())
		}
	}
	var sarif bytes.Buffer
	if _, err := WriteSARIF(&sarif, r, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	log := SARIF(r, SARIFOptions{})
	for _, res := range log.Runs[0].Results {
		u := res.Locations[0].PhysicalLocation.ArtifactLocation.URI
		p, err := url.PathUnescape(u)
		if err != nil || !annotatetest.InRepo(strings.TrimPrefix(p, "./")) || path.Clean(p) != strings.TrimPrefix(p, "./") && path.Clean(p) != p {
			t.Errorf("a SARIF uri %q reads as %q (%v), outside the repository", u, p, err)
		}
	}
	sum := Summary(r, SummaryOptions{Repo: "octo/plugins", SHA: "0123456789abcdef0123456789abcdef01234567", ServerURL: "https://github.com"})
	checkSummarySafe(t, sum)
	for _, l := range ourLinkRE.FindAllString(sum, -1) {
		p := strings.TrimSuffix(l[strings.Index(l, "/blob/")+len("/blob/")+41:], ")")
		p, _, _ = strings.Cut(p, "#")
		if u, err := url.PathUnescape(p); err != nil || !annotatetest.InRepo(u) {
			t.Errorf("a summary link to %q (%q), outside the repository", p, u)
		}
	}
}

// TestSummaryLocationsReadApart: the summary shows a file's line after a
// ':', so a file whose name ends in ":7:1" without a line, and the file
// before it at line 1, would read alike: such a name is quoted, as
// evidence quotes an odd one.
func TestSummaryLocationsReadApart(t *testing.T) {
	o := SummaryOptions{Repo: "octo/plugins", SHA: "0123456789abcdef0123456789abcdef01234567", ServerURL: "https://github.com"}
	shown := map[string]report.Location{}
	for _, l := range []report.Location{{File: "a.json:7", Line: 1}, {File: "a.json:7:1"}, {File: "a.json", Line: 7}} {
		text := regexp.MustCompile(`^\[(.*)\]\(.*\)$`).ReplaceAllString(where(o, l), "$1")
		if other, ok := shown[text]; ok {
			t.Errorf("%+v and %+v both read %q", other, l, text)
		}
		shown[text] = l
	}
}
